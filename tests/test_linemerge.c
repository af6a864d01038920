/* Unit tests for lib/linemerge.c: stdout and stderr merged a whole line at
 * a time, without losing a byte. */
#include "unit.h"

#include "linemerge.h"

struct sink {
	char buf[4096];
	size_t len;
};

static void
sink_emit(const char *buf, size_t len, void *arg)
{
	struct sink *s = arg;

	memcpy(s->buf + s->len, buf, len);
	s->len += len;
	s->buf[s->len] = '\0';
}

static void
test_merge_keeps_lines_whole(void **state)
{
	struct sink s = { .len = 0 };
	struct line_merge m;

	line_merge_init(&m, sink_emit, &s);
	line_merge_feed(&m, 0, "{\"type\":", 8);
	line_merge_feed(&m, 1, "error: 429\n", 11);
	line_merge_feed(&m, 0, "\"result\"}\n{\"a\"", 14);
	line_merge_feed(&m, 1, "more\n", 5);
	line_merge_feed(&m, 0, ":1}\n", 4);
	line_merge_finish(&m);
	assert_string_equal(s.buf, "{\"type\":\"result\"}\nerror: 429\n{\"a\":1}\nmore\n");
	line_merge_free(&m);
}

static void
test_merge_is_lossless(void **state)
{
	static char big[LINE_MERGE_HOLD_MAX + 10];
	struct sink *s = calloc(1, sizeof(*s));
	struct line_merge m;
	size_t total = 0;

	memset(big, 'x', sizeof(big));
	line_merge_init(&m, sink_emit, s);
	line_merge_feed(&m, 0, "open", 4);
	line_merge_feed(&m, 1, "tail-without-newline", 20);
	line_merge_finish(&m);
	assert_string_equal(s->buf, "opentail-without-newline");
	line_merge_free(&m);

	/* Past the hold cap nothing waits any more, and nothing is lost. */
	s->len = 0;
	line_merge_init(&m, sink_emit, s);
	line_merge_feed(&m, 0, "open", 4);
	for (int i = 0; i < 2; i++) {
		line_merge_feed(&m, 1, big, 1000);
		total += 1000;
	}
	line_merge_feed(&m, 0, "\n", 1);
	line_merge_finish(&m);
	assert_int_equal(s->len, 4 + total + 1);
	assert_memory_equal(s->buf, "open\n", 5);
	line_merge_free(&m);
	free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge_keeps_lines_whole),
		cmocka_unit_test(test_merge_is_lossless),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
