/* Unit tests for lib/screen.c: the text a terminal shows at the end of a
 * stream, whatever pieces the stream arrives in. */
#include "unit.h"

#include "screen.h"

static char *
text_of(int rows, int cols, const char *in, size_t len, size_t piece)
{
	struct screen *s = screen_new(rows, cols);
	size_t n;
	char *text;

	assert_non_null(s);
	for (size_t off = 0; off < len; off += piece)
		screen_feed(s, in + off, len - off < piece ? len - off : piece);
	text = screen_text(s, &n);
	assert_non_null(text);
	assert_int_equal(n, strlen(text));
	screen_free(s);
	return text;
}

/* The text, fed whole and split at every offset into two pieces, and one
 * byte at a time. */
static void
assert_screen(int rows, int cols, const char *in, const char *want)
{
	size_t len = strlen(in);
	char *whole = text_of(rows, cols, in, len, len > 0 ? len : 1);

	assert_string_equal(whole, want);
	free(whole);
	for (size_t cut = 1; cut < len; cut++) {
		struct screen *s = screen_new(rows, cols);
		size_t n;
		char *text;

		screen_feed(s, in, cut);
		screen_feed(s, in + cut, len - cut);
		text = screen_text(s, &n);
		assert_string_equal(text, want);
		free(text);
		screen_free(s);
	}
	whole = text_of(rows, cols, in, len, 1);
	assert_string_equal(whole, want);
	free(whole);
}

static void
test_screen_plain_lines(void **state)
{
	assert_screen(24, 80, "", "");
	assert_screen(24, 80, "one\r\ntwo\r\n", "one\ntwo\n");
	/* Blank lines kept where the screen has them; trailing blanks and the
	 * empty rows at the bottom are not lines. */
	assert_screen(24, 80, "one   \r\n\r\n\r\nfour\r\n\r\n\r\n", "one\n\n\nfour\n");
	assert_screen(24, 80, "\x1b[1;31mred\x1b[0m word\r\n", "red word\n");
	assert_screen(24, 80, "\x1b]0;title\x07hello\r\n", "hello\n");
}

static void
test_screen_cursor_moves(void **state)
{
	/* ESC[G goes back to column 1 and the text overwrites: no indent. */
	assert_screen(24, 80, "  spinner\x1b[G\x1b[2KYou've hit your limit\r\n", "You've hit your limit\n");
	assert_screen(24, 80, "abc\x1b[Gx\r\n", "xbc\n");
	assert_screen(24, 80, "\x1b[3;5Hthere\x1b[1;1Hhi", "hi\n\n    there\n");
	assert_screen(24, 80, "a\x1b[5Cb\r\n", "a     b\n");
	assert_screen(24, 80, "line1\r\nline2\x1b[1A\x1b[Gtop\r\n", "tope1\nline2\n");
}

static void
test_screen_erase(void **state)
{
	assert_screen(24, 80, "hello world\x1b[6G\x1b[K\r\n", "hello\n");
	assert_screen(24, 80, "hello world\x1b[6G\x1b[1K\r\n", "      world\n");
	assert_screen(24, 80, "gone\r\nalso\x1b[2J\x1b[Hfresh\r\n", "fresh\n");
	assert_screen(24, 80, "one\r\ntwo\r\nthree\x1b[2;1H\x1b[J", "one\n");
	/* An Ink redraw: each line of the frame erased from the bottom up,
	 * then the new frame. */
	assert_screen(24, 80,
	    "\xe2\xa0\x8b Working\r\nstatus\x1b[2K\x1b[1A\x1b[2K\x1b[G\xe2\xa0\x99 Working\r\nstatus\x1b[2K\x1b[1A"
	    "\x1b[2K\x1b[GDone\r\n",
	    "Done\n");
}

static void
test_screen_rep_ignored(void **state)
{
	/* REP with nothing drawn before: libvterm 0.1 would loop for ever. */
	assert_screen(24, 80, "\x1b[bok\x1b[3b\r\n\xe2\x80\x8b\x1b[b!\r\n", "ok\n!\n");
}

static void
test_screen_carriage_return(void **state)
{
	assert_screen(24, 80, "50%\r100%\r\n", "100%\n");
	assert_screen(24, 80, "progress 10%\rdone\r\n", "doneress 10%\n");
}

static char *
repeat(char c, size_t n)
{
	char *s = malloc(n + 1);

	assert_non_null(s);
	memset(s, c, n);
	s[n] = '\0';
	return s;
}

static void
test_screen_soft_wrap_joined(void **state)
{
	char *line = repeat('x', 200), in[512], want[512];

	memcpy(line + 190, " limit ok", 9);
	snprintf(in, sizeof(in), "%s\r\nnext\r\n", line);
	snprintf(want, sizeof(want), "%s\nnext\n", line);
	assert_screen(24, 80, in, want);
	/* At the bottom of the screen, the wrap scrolls: still one line (the
	 * blank rows above it stay lines). */
	snprintf(in, sizeof(in), "\x1b[24;1H%s\r\nnext", line);
	snprintf(want, sizeof(want), "%.23s%s\nnext\n", "\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n", line);
	assert_screen(24, 80, in, want);
	/* Wrapped rows that went on into the scrollback stay one line. */
	snprintf(in, sizeof(in), "%s\r\n1\r\n2\r\n3\r\n4\r\n5\r\n6", line);
	snprintf(want, sizeof(want), "%s\n1\n2\n3\n4\n5\n6\n", line);
	assert_screen(4, 80, in, want);
	/* A space at the wrap point is kept inside the line. */
	assert_screen(3, 10, "aaaaaaaaa bbb\r\n", "aaaaaaaaa bbb\n");
	free(line);
}

static void
test_screen_hard_newline_not_joined(void **state)
{
	char *full = repeat('y', 80), in[256], want[256];

	/* Exactly a row's width then a line end: the cursor waits at the last
	 * column, no wrap happens. */
	snprintf(in, sizeof(in), "%s\r\nafter\r\n", full);
	snprintf(want, sizeof(want), "%s\nafter\n", full);
	assert_screen(24, 80, in, want);
	/* A row filled, then the cursor sent to the next row's start. */
	snprintf(in, sizeof(in), "%s\x1b[2;1Hafter\r\n", full);
	assert_screen(24, 80, in, want);
	/* Wrapped, then the wrapped row erased and redrawn by hand. */
	snprintf(in, sizeof(in), "%sover\x1b[2;1H\x1b[2Knew\r\n", full);
	snprintf(want, sizeof(want), "%s\nnew\n", full);
	assert_screen(24, 80, in, want);
	free(full);
}

static void
test_screen_alternate(void **state)
{
	/* Left: the main screen as it was, the last frame where the cursor
	 * stood when it was left, what came after below it. */
	assert_screen(24, 80, "before\r\n\x1b[?1049h\x1b[Hframe one\x1b[2J\x1b[Hlast frame\x1b[?1049lafter\r\n",
	    "before\nlast frame\nafter\n");
	/* Still on it at the end: its frame comes last. */
	assert_screen(24, 80, "before\r\n\x1b[?1049h\x1b[H\xe2\x8e\xbf  limit banner\r\n",
	    "before\n\xe2\x8e\xbf  limit banner\n");
	/* Cleared just before it was left: the frame that was shown. */
	assert_screen(24, 80, "\x1b[?1049h\x1b[Hshown\x1b[2J\x1b[?1049l$ \r\n", "shown\n$\n");
}

static void
test_screen_scrollback_order(void **state)
{
	char in[8192], want[8192];
	size_t n = 0, w = 0;

	for (int i = 1; i <= 40; i++) {
		n += (size_t)snprintf(in + n, sizeof(in) - n, "line %d\r\n", i);
		w += (size_t)snprintf(want + w, sizeof(want) - w, "line %d\n", i);
	}
	assert_screen(5, 20, in, want);
}

static void
test_screen_scrollback_bounded(void **state)
{
	struct screen *s = screen_new(4, 20);
	char line[32], *text;
	size_t n;

	for (int i = 1; i <= SCREEN_SCROLLBACK + 100; i++) {
		snprintf(line, sizeof(line), "row %d\r\n", i);
		screen_feed(s, line, strlen(line));
	}
	text = screen_text(s, &n);
	/* The oldest rows went: of the 2097 pushed, the last 2000 stay, then
	 * the 3 rows left on screen, in order. */
	assert_null(strstr(text, "row 97\n"));
	assert_true(strncmp(text, "row 98\nrow 99\n", 14) == 0);
	assert_non_null(strstr(text, "row 2099\nrow 2100\n"));
	free(text);
	screen_free(s);
}

static void
test_screen_utf8_wide(void **state)
{
	/* A wide character once, not followed by a space for its second cell. */
	assert_screen(24, 80, "\xe6\x97\xa5\xe6\x9c\xac ok \xc2\xb7 \xe2\x8e\xbf\r\n", "\xe6\x97\xa5\xe6\x9c\xac ok \xc2\xb7 \xe2\x8e\xbf\n");
	/* A wide character that does not fit in the last column wraps whole. */
	assert_screen(3, 5, "abcd\xe6\x97\xa5z\r\n", "abcd\xe6\x97\xa5z\n");
	/* A combining mark stays with its letter. */
	assert_screen(24, 80, "e\xcc\x81t\xc3\xa9\r\n", "e\xcc\x81t\xc3\xa9\n");
}

static void
test_screen_resize(void **state)
{
	struct screen *s = screen_new(24, 80);
	size_t n;
	char *text;

	screen_feed(s, "one\r\ntwo\r\nthree\r\n", 17);
	screen_resize(s, 2, 40);
	screen_feed(s, "four\r\n", 6);
	screen_resize(s, 30, 100);
	screen_feed(s, "five", 4);
	text = screen_text(s, &n);
	assert_string_equal(text, "one\ntwo\nthree\nfour\nfive\n");
	free(text);
	screen_free(s);
}

/* Whatever the bytes and the resizes, the text is lines of printable
 * text: no escape or carriage return of the stream is left in it. */
static void
test_screen_random_bytes(void **state)
{
	/* Each of the last eight once crashed or hung libvterm 0.1
	 * (lib/screen.c keeps them from it): a margin beyond a smaller screen,
	 * a lone UTF-8 lead byte, a C1 control, insert mode over them, REP
	 * with no glyph before it. */
	static const char pieces[][12] = { "\x1b[", "\x1b]", "\x1b[?1049h", "\x1b[?1049l", "\r", "\n", "\x1b[2K",
		"\xe6\x97", "\xa5", "\x1b[1A", "\x1b[G", "\x07", "\x1bP", "\x1b\\", "\x1b#8", "\x1b[4h", "\x1b[5S",
		"\x1b[8r", "\xc2", "\xc2\x9a", "\x1b[?69h", "\x1b[2;5s", "\x0b", "\xe6\x97\xa5", "\x1b[b" };
	const unsigned npieces = sizeof(pieces) / sizeof(pieces[0]);
	unsigned seed = 31;
	char buf[64];

	for (int run = 0; run < 200; run++) {
		int rows = 1 + rand_r(&seed) % 30;
		struct screen *s = screen_new(rows, 1 + rand_r(&seed) % 100);
		size_t n;
		char *text;

		for (int i = 0; i < 300; i++) {
			unsigned k = (unsigned)rand_r(&seed) % (npieces + 7);

			if (k < npieces) {
				screen_feed(s, pieces[k], strlen(pieces[k]));
			} else if (k == npieces) {
				int new_rows = 1 + rand_r(&seed) % 40;

				screen_resize(s, new_rows, 1 + rand_r(&seed) % 120);
			} else {
				for (size_t j = 0; j < sizeof(buf); j++)
					buf[j] = (char)(rand_r(&seed) % 3 ? 'a' + rand_r(&seed) % 26 : rand_r(&seed) % 256);
				screen_feed(s, buf, 1 + (size_t)rand_r(&seed) % sizeof(buf));
			}
		}
		text = screen_text(s, &n);
		assert_non_null(text);
		assert_null(memchr(text, '\x1b', n));
		assert_null(memchr(text, '\r', n));
		assert_true(n == 0 || text[n - 1] == '\n');
		free(text);
		screen_free(s);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_screen_plain_lines),
		cmocka_unit_test(test_screen_cursor_moves),
		cmocka_unit_test(test_screen_erase),
		cmocka_unit_test(test_screen_carriage_return),
		cmocka_unit_test(test_screen_rep_ignored),
		cmocka_unit_test(test_screen_soft_wrap_joined),
		cmocka_unit_test(test_screen_hard_newline_not_joined),
		cmocka_unit_test(test_screen_alternate),
		cmocka_unit_test(test_screen_scrollback_order),
		cmocka_unit_test(test_screen_scrollback_bounded),
		cmocka_unit_test(test_screen_utf8_wide),
		cmocka_unit_test(test_screen_resize),
		cmocka_unit_test(test_screen_random_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
