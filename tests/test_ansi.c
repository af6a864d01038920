/* Unit tests for lib/ansi.c: screen text stripped of escape sequences, and
 * the screen state a stream leaves, whatever pieces it arrives in. */
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
	assert_stripped("a\x01\x7f\tb\n\n\n", "a b\n\n");
	assert_stripped("a\r\n\r\n\r\nb\n", "a\n\nb\n");
	assert_stripped("\x1b[2;1Hrow\x1b[4;1Hnext\n", "row\nnext\n");
	assert_stripped("  \x1b[1mindented\x1b[0m   words\n", "  indented words\n");
	assert_stripped("x\n    \ny\n", "x\n    \ny\n");
	assert_stripped("\x1bP1$r0m\x1b\\after\n", "after\n");
	/* Leaving the alternate screen, clearing it and a full reset end a line:
	 * a banner drawn inside a TUI and again after it is not glued. */
	assert_stripped("(America/New_York)\x1b[?1049l\xe2\x8e\xbf You've hit\n",
	    "(America/New_York)\n\xe2\x8e\xbf You've hit\n");
	assert_stripped("a\x1b[?1049hb\x1b[?47lc\x1b[?1047ld\x1b[3Je\x1b" "cf\n",
	    "a\nb\nc\nd\ne\nf\n");
	/* Other modes are not line ends. */
	assert_stripped("a\x1b[?25lb\x1b[?2004hc\x1b[4hd\n", "abcd\n");
}

/* The state after feeding in, in pieces of every size. */
static struct ansi_screen
screen_after_each(const char *in, size_t piece)
{
	struct ansi_screen s;
	size_t len = strlen(in);

	ansi_screen_init(&s);
	for (size_t off = 0; off < len; off += piece)
		ansi_screen_feed(&s, in + off, len - off < piece ? len - off : piece);
	return s;
}

static void
assert_restore(const char *in, const char *want_restore, const char *want_reenter)
{
	for (size_t piece = 1; piece <= strlen(in); piece++) {
		struct ansi_screen s = screen_after_each(in, piece);
		char out[ANSI_RESTORE_MAX + 1];
		size_t n = ansi_screen_restore(&s, true, out);

		assert_true(n <= ANSI_RESTORE_MAX);
		out[n] = '\0';
		assert_string_equal(out, want_restore);
		out[ansi_screen_reenter(&s, out)] = '\0';
		assert_string_equal(out, want_reenter);
	}
}

static void
test_screen_state(void **state)
{
	assert_restore("plain\n", "", "");
	assert_restore("no newline", "\r\n", "");
	assert_restore("\x1b[?1049h\x1b[?25l\x1b[2J\x1b[Hdrawn",
	    "\x1b[?1049l\x1b[?25h", "\x1b[?1049h\x1b[?25l");
	/* The main screen's line is the one that counts after leaving. */
	assert_restore("prompt$ \x1b[?1049hdrawn", "\x1b[?1049l\r\n", "\x1b[?1049h");
	assert_restore("\x1b[?1049hdrawn\x1b[?1049l\x1b[?25h", "", "");
	assert_restore("\x1b[?25l\x1b[?1049;25h", "\x1b[?1049l", "\x1b[?1049h");
	assert_restore("\x1b[?25l\x1b[?47h", "\x1b[?1049l\x1b[?25h", "\x1b[?1049h\x1b[?25l");
	assert_restore("\x1b[?1049h\x1b[?25l" "\x1b" "c", "", "");
	assert_restore("text\x1b[5;1H", "", "");
	assert_restore("text\x1b[5;3H", "\r\n", "");
	assert_restore("\x1b]0;title\x07\x1b[?25l", "\x1b[?25h", "\x1b[?25l");
	/* Without newline, only the modes. */
	{
		struct ansi_screen s = screen_after_each("mid", 3);
		char out[ANSI_RESTORE_MAX];

		assert_int_equal(ansi_screen_restore(&s, false, out), 0);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ansi_stripping),
		cmocka_unit_test(test_screen_state),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
