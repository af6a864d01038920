/* Unit tests for lib/jsonsubset.c: a line it reads is the value jansson
 * reads (types, member order, reals), and every line outside its subset is
 * left to jansson. */
#include "unit.h"

#include <jansson.h>

#include "jsonsubset.h"

/* Both readers' values, dumped so that order, types and reals show. */
static void
assert_reads_as_jansson(const char *line, size_t len)
{
	json_error_t jerr;
	json_t *sub = json_subset_load(line, len), *full = json_loadb(line, len, 0, &jerr);
	char *a, *b;

	if (sub == NULL)
		fail_msg("not read: %.*s", (int)len, line);
	if (full == NULL)
		fail_msg("read, but jansson refuses: %.*s", (int)len, line);
	a = json_dumps(sub, JSON_COMPACT | JSON_REAL_PRECISION(17));
	b = json_dumps(full, JSON_COMPACT | JSON_REAL_PRECISION(17));
	assert_non_null(a);
	assert_non_null(b);
	if (strcmp(a, b) != 0 || !json_equal(sub, full))
		fail_msg("%s read as %s, jansson %s", line, a, b);
	free(a);
	free(b);
	json_decref(sub);
	json_decref(full);
}

static void
test_reads_what_jansson_reads(void **state)
{
	static const char *const lines[] = {
		"{}",
		"{\"a\":[]}",
		"{\"\":\"\"}",
		"{\"type\":\"rate_limit_event\",\"rate_limit_info\":{\"status\":\"allowed\",\"resetsAt\":1796059800,"
		    "\"rateLimitType\":\"five_hour\",\"isUsingOverage\":false,\"unifiedWindows\":{\"five_hour\":"
		    "{\"utilization\":0.01,\"resetsAt\":1796059800}}},\"uuid\":\"6e595ed\",\"session_id\":null}",
		"{\"n\":[0,-0,7,-12,123456789012345678,-123456789012345678]}",
		"{\"r\":[0.5,-0.0,1.0,0.1,0.30000000000000004,12345678.123456789012345678901234567890]}",
		"{\"r\":0.000000000000000000000000000000000000000000000000000000001}",
		"{\"t\":true,\"f\":false,\"z\":null,\"s\":\"a b ~ { } [ ] : , '\"}",
		"{\"a\":1,\"b\":2,\"a\":{\"c\":3}}",   /* a duplicate replaces the value, in place */
		"{\"a\":[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]}",   /* 16 deep */
		"{\"a\":[{\"b\":[{\"c\":\"d\"}]},\"e\",1,2.5,true]}",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		assert_reads_as_jansson(lines[i], strlen(lines[i]));
}

static void
test_leaves_the_rest_to_jansson(void **state)
{
	json_t *v;

	static const char *const lines[] = {
		"", "[1]", "\"a\"", "1", "{\"a\": 1}", " {}", "{} ", "{}x", "{\"a\":1,}", "{,}",
		"{\"a\":\"b\\nc\"}", "{\"a\":\"\\u00e9\"}", "{\"a\":\"\xc3\xa9\"}", "{\"a\":\"\t\"}",
		"{\"a\":\"\x7f\"}", "{\"a\":1e5}", "{\"a\":1.5E3}", "{\"a\":01}", "{\"a\":1.}", "{\"a\":.5}",
		"{\"a\":-}", "{\"a\":+1}", "{\"a\":1234567890123456789}",
		"{\"a\":0.12345678901234567890123456789012345678901234567890123456789012}", "{\"a\":tru}", "{\"a\":nul}", "{\"a\":True}",
		"{\"a\":", "{\"a\"", "{\"a", "{", "{\"a\":[1,2}", "{\"a\":[1,]}", "{\"a\":{\"b\":1]}",
		"{\"a\":[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]}",   /* 17 deep */
		"{1:2}", "{\"a\"1}",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		if ((v = json_subset_load(lines[i], strlen(lines[i]))) != NULL) {
			json_decref(v);
			fail_msg("read, but outside the subset: %s", lines[i]);
		}
	/* A NUL is a byte like any other: outside every string. */
	assert_null(json_subset_load("{\"a\0\":1}", 8));
	assert_null(json_subset_load("{\"a\":1}\0", 8));
	/* The length is the line: nothing past it is read. */
	assert_null(json_subset_load("{\"a\":1}", 6));
	assert_reads_as_jansson("{\"a\":1}xyz", 7);
}

static uint32_t
next_random(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/* Lines from JSON's tokens and a few bytes outside the subset: whatever
 * the reader takes, jansson must take as the same value. */
static void
test_random_lines_agree(void **state)
{
	static const char *const pieces[] = {
		"{", "}", "[", "]", ":", ",", "\"", "\"a\"", "\"b\":", "0", "1", "-", ".", "5", "e",
		"true", "false", "null", " ", "\\", "x", "12345678901234567", "0.25", "\"k\":{", "\"v\":[",
	};
	uint32_t seed = 12345;
	int read = 0;
	json_t *v;

	(void)state;
	for (int i = 0; i < 200000; i++) {
		char line[256];
		size_t len = 0;
		int pieces_in = 1 + (int)(next_random(&seed) % 24);

		line[len++] = '{';
		for (int k = 0; k < pieces_in; k++) {
			const char *p = pieces[next_random(&seed) % (sizeof(pieces) / sizeof(pieces[0]))];
			size_t n = strlen(p);

			if (len + n >= sizeof(line))
				break;
			memcpy(line + len, p, n);
			len += n;
		}
		line[len] = '\0';
		if ((v = json_subset_load(line, len)) != NULL) {
			json_decref(v);
			assert_reads_as_jansson(line, len);
			read++;
		}
	}
	/* The generator reaches the reader's accepting paths. */
	assert_true(read > 100);
}

/* Node's JSON.stringify writes \u0000 and lone surrogates: both documents
 * are valid JSON and are read; a pair and an escaped backslash stay as
 * they are. */
static void
test_load_any_reads_node_strings(void **state)
{
	static const char nul[] = "{\"type\":\"result\",\"result\":\"a\\u0000b\",\"is_error\":true}";
	static const char lone[] = "{\"result\":\"cut \\ud83d here \\ude00 and \\ud83d\\ude00\",\"n\":1}";
	static const char escaped[] = "{\"s\":\"\\\\ud83d\"}";
	json_error_t jerr;
	json_t *v;

	(void)state;
	assert_null(json_loadb(lone, sizeof(lone) - 1, 0, &jerr));
	v = json_load_any(nul, sizeof(nul) - 1, 0, &jerr);
	assert_non_null(v);
	assert_int_equal(json_string_length(json_object_get(v, "result")), 3);
	assert_true(json_is_true(json_object_get(v, "is_error")));
	json_decref(v);
	v = json_load_any(lone, sizeof(lone) - 1, 0, &jerr);
	assert_non_null(v);
	assert_string_equal(json_string_value(json_object_get(v, "result")),
	    "cut \xef\xbf\xbd here \xef\xbf\xbd and \xf0\x9f\x98\x80");
	assert_int_equal(json_integer_value(json_object_get(v, "n")), 1);
	json_decref(v);
	v = json_load_any(escaped, sizeof(escaped) - 1, 0, &jerr);
	assert_non_null(v);
	assert_string_equal(json_string_value(json_object_get(v, "s")), "\\ud83d");
	json_decref(v);
	assert_null(json_load_any("{\"a\":", 5, 0, &jerr));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reads_what_jansson_reads),
		cmocka_unit_test(test_leaves_the_rest_to_jansson),
		cmocka_unit_test(test_random_lines_agree),
		cmocka_unit_test(test_load_any_reads_node_strings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
