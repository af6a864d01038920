/* Unit tests for lib/ansi.c: screen text stripped of escape sequences,
 * whatever pieces it arrives in. */
#include "unit.h"

#include "ansi.h"

/* Strips in pieces of every size, to catch state lost across calls. */
static void
assert_stripped(const char *in, const char *want)
{
	size_t len = strlen(in);

	for (size_t piece = 1; piece <= len; piece++) {
		struct ansi_strip st;
		char out[1024];
		size_t n = 0;

		ansi_strip_init(&st);
		for (size_t off = 0; off < len; off += piece) {
			size_t k = len - off < piece ? len - off : piece;

			n += ansi_strip(&st, in + off, k, out + n);
		}
		out[n] = '\0';
		assert_string_equal(out, want);
	}
}

static void
test_ansi_stripping(void **state)
{
	assert_stripped("plain text\n", "plain text\n");
	assert_stripped("\x1b[1;31mred\x1b[0m word\r\n", "red word\n");
	assert_stripped("\x1b]0;title\x07hello\n", "hello\n");
	assert_stripped("\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\\n", "link\n");
	assert_stripped("\x1b[2J\x1b[Hrow one\x1b[2;1Hrow two\n", "row one\nrow two\n");
	assert_stripped("a\x1b[5Cb\n", "a b\n");
	assert_stripped("\x1b(Bx\x1b" "7y\x1b" "8\n", "xy\n");
	assert_stripped("You've hit your limit \xc2\xb7 resets 6pm\n",
	    "You've hit your limit \xc2\xb7 resets 6pm\n");
	assert_stripped("spin\rspin\rdone\n", "spin\nspin\ndone\n");
	assert_stripped("a\x01\x7f\tb\n\n\n", "a b\n");
	assert_stripped("\x1bP1$r0m\x1b\\after\n", "after\n");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ansi_stripping),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
