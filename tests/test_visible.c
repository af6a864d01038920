/* Unit tests: lib/visible.c, outside text made safe for a terminal. */
#include "unit.h"

#include "visible.h"

static void
expect_visible(const char *in, const char *want)
{
	char out[256];

	assert_string_equal(visible_text(in, out, sizeof(out)), want);
}

static void
test_plain_text_unchanged(void **state)
{
	(void)state;
	expect_visible("claude-opus-4-6", "claude-opus-4-6");
	expect_visible("caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac", "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac");
	expect_visible("back\\slash", "back\\slash");
	expect_visible("", "");
}

static void
test_escape_sequences_shown(void **state)
{
	(void)state;
	/* The forged model: a title, a colour, a second line. */
	expect_visible("opus\x1b]0;T\x07\x1b[31mRED\nrlwrap: forged",
	    "opus\\e]0;T\\x07\\e[31mRED\\nrlwrap: forged");
	expect_visible("a\tb\rc\x7f", "a\\tb\\rc\\x7F");
	/* C1 controls: CSI as one byte in UTF-8 */
	expect_visible("x\xc2\x9b" "31m", "x<U+009B>31m");
}

static void
test_bidi_and_invisible_shown(void **state)
{
	(void)state;
	expect_visible("file\xe2\x80\xaegnp.exe", "file<U+202E>gnp.exe");
	expect_visible("\xe2\x81\xa6x\xe2\x81\xa9", "<U+2066>x<U+2069>");
	expect_visible("a\xe2\x80\x8b" "b", "a<U+200B>b");
	expect_visible("\xef\xbb\xbfx", "<U+FEFF>x");
	expect_visible("l\xe2\x80\xa8m", "l<U+2028>m");
}

static void
test_invalid_utf8_as_bytes(void **state)
{
	(void)state;
	expect_visible("keep-\xe9", "keep-\\xE9");
	expect_visible("\xc0\xaf", "\\xC0\\xAF");              /* overlong '/' */
	expect_visible("\xed\xa0\x80", "\\xED\\xA0\\x80");     /* a surrogate */
	expect_visible("\xe2\x80", "\\xE2\\x80");              /* cut short */
}

static void
test_cut_on_boundaries(void **state)
{
	char out[8];

	(void)state;
	assert_string_equal(visible_text("ab\x1b[31m", out, 5), "ab\\e");
	assert_string_equal(visible_text("ab\x1b", out, 4), "ab");
	assert_string_equal(visible_text("a\xe2\x80\xae", out, 8), "a");
	assert_string_equal(visible_text("\xc3\xa9\xc3\xa9", out, 4), "\xc3\xa9");
	assert_string_equal(visible_bytes("a\0b", 3, out, sizeof(out)), "a\\x00b");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_text_unchanged),
		cmocka_unit_test(test_escape_sequences_shown),
		cmocka_unit_test(test_bidi_and_invisible_shown),
		cmocka_unit_test(test_invalid_utf8_as_bytes),
		cmocka_unit_test(test_cut_on_boundaries),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
