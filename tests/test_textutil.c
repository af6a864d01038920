/* Unit tests for lib/textutil.c: the classifier's byte-level helpers,
 * which must never read past the length they are given nor depend on the
 * locale. */
#include "unit.h"

#include <stdbool.h>

#include "cpu_features.h"
#include "textutil.h"

static void
test_ascii_case_and_prefix(void **state)
{
	(void)state;
	assert_int_equal(ascii_lower('Q'), 'q');
	assert_int_equal(ascii_lower('\xc9'), '\xc9');     /* not ASCII: unchanged */
	assert_int_equal(prefix_nocase("Rate limited", 12, "rate"), 4);
	assert_int_equal(prefix_nocase("Rat", 3, "rate"), 0);          /* too short: no read past len */
	assert_int_equal(prefix_nocase("ratelimit", 2, "rate"), 0);
	assert_int_equal(prefix_nocase("other", 5, "rate"), 0);
}

static void
test_lower_copy_cuts_to_size(void **state)
{
	char dst[5];

	(void)state;
	assert_int_equal(lower_copy(dst, sizeof(dst), "HELLO WORLD", 11), 4);
	assert_string_equal(dst, "hell");
	assert_int_equal(lower_copy(dst, sizeof(dst), "AbC", 3), 3);
	assert_string_equal(dst, "abc");
}

static void
test_find_within_length(void **state)
{
	static const char hay[] = "error: Rate Limit exceeded";

	(void)state;
	assert_ptr_equal(find_bytes(hay, sizeof(hay) - 1, "Limit"), hay + 12);
	assert_null(find_bytes(hay, sizeof(hay) - 1, "limit"));
	assert_ptr_equal(find_nocase(hay, sizeof(hay) - 1, "rate limit"), hay + 7);
	/* The match must lie wholly inside len. */
	assert_null(find_nocase(hay, 15, "rate limit"));
	assert_null(find_bytes(hay, 0, "e"));
}

static void
test_append_text_separates_and_cuts(void **state)
{
	char dst[12] = "";

	(void)state;
	append_text(dst, sizeof(dst), "one", 3);
	assert_string_equal(dst, "one");
	append_text(dst, sizeof(dst), "two", 3);
	assert_string_equal(dst, "one two");
	append_text(dst, sizeof(dst), "three", 5);
	assert_string_equal(dst, "one two thr");
}

static void
test_clean_copy_keeps_utf8_whole(void **state)
{
	char dst[16];

	(void)state;
	/* Line breaks become spaces, controls and stray bytes go. */
	clean_copy(dst, sizeof(dst), "a\nb\x01\x7f" "c\xff", 7);
	assert_string_equal(dst, "a bc");
	/* A two-byte character that would not fit whole is left out. */
	clean_copy(dst, 6, "abcd\xc3\xa9", 6);
	assert_string_equal(dst, "abcd");
	assert_int_equal(utf8_copy(dst, sizeof(dst), "caf\xc3\xa9"), 5);
	assert_string_equal(dst, "caf\xc3\xa9");
	utf8_copy(dst, 5, "caf\xc3\xa9");
	assert_string_equal(dst, "caf");
}

static void
test_key_colon_found_in_any_block(void **state)
{
	static const char near[] = "\"errors\":1,\"error_x\":2,\\\"rror\":3";
	char line[200];

	(void)state;
	/* The key's colon in the first 16 or 32 bytes, past them, in the
	 * scalar tail, and the key cut by the start of the window. */
	for (size_t at = 0; at + 8 <= sizeof(line) - 1; at++) {
		memset(line, 'x', sizeof(line) - 1);
		line[sizeof(line) - 1] = '\0';
		memcpy(line + at, "\"error\":", 8);
		assert_true(has_key_colon(line, strlen(line), "\"error\"", 7));
		assert_false(has_key_colon(line + at + 1, strlen(line + at + 1), "\"error\"", 7));
		line[at + 7] = ' ';
		assert_false(has_key_colon(line, strlen(line), "\"error\"", 7));
	}
	assert_false(has_key_colon(near, strlen(near), "\"error\"", 7));
}

/* The searches that has_key_colon_or_rare() answers at once, byte by byte. */
static bool
slow_key_or_rare(const char *s, size_t len)
{
	for (size_t at = 0; at < len; at++)
		if ((at + 8 <= len && memcmp(s + at, "\"error\":", 8) == 0) ||
		    (at + 11 <= len && memcmp(s + at, "<synthetic>", 11) == 0))
			return true;
	return false;
}

/* One pass for both: the answer of the two searches for the key, the
 * needle, or either cut short, at every offset of lines of every length
 * up to 160 (blocks of 64 and 32 starts, the overlapping last one).  The
 * line is allocated to its length, so a read past it is caught by ASan. */
static void
test_key_or_rare_as_both(void **state)
{
	static const char *const put[] = {
		"\"error\":", "<synthetic>", "\"error\" :", "<synthetic", "\"error\"",
	};

	(void)state;
	for (size_t len = 1; len <= 160; len++)
		for (size_t at = 0; at < len; at++)
			for (size_t k = 0; k < sizeof(put) / sizeof(put[0]); k++) {
				char *line = malloc(len);
				size_t n = strlen(put[k]) < len - at ? strlen(put[k]) : len - at;

				assert_non_null(line);
				memset(line, at % 2 ? 'x' : '"', len);
				memcpy(line + at, put[k], n);
				if (has_key_colon_or_rare(line, len, "\"error\"", 7, "<synthetic>", 11) !=
				    slow_key_or_rare(line, len))
					fail_msg("len %zu, \"%s\" at %zu", len, put[k], at);
				free(line);
			}
}

/* has_key_colon() alone (the AVX-512 path where the CPU has it): the
 * byte-by-byte answer at every offset of every length up to 200, the key
 * cut short, or without its colon, or ending right at the line's end. */
static void
test_key_colon_as_bytes(void **state)
{
	static const char *const put[] = { "\"error\":", "\"error\"", "\"error\" :", "\"errors\":" };

	(void)state;
	for (size_t len = 1; len <= 200; len++)
		for (size_t at = 0; at < len; at++)
			for (size_t k = 0; k < sizeof(put) / sizeof(put[0]); k++) {
				size_t n = strlen(put[k]) < len - at ? strlen(put[k]) : len - at;
				char *line = malloc(len);
				bool want = false;

				assert_non_null(line);
				memset(line, at % 2 ? 'r' : ':', len);
				memcpy(line + at, put[k], n);
				for (size_t i = 0; i + 8 <= len && !want; i++)
					want = memcmp(line + i, "\"error\":", 8) == 0;
				if (has_key_colon(line, len, "\"error\"", 7) != want)
					fail_msg("len %zu, \"%s\" at %zu", len, put[k], at);
				free(line);
			}
}

/* The key searches again on the paths a CPU without AVX-512, or without
 * AVX2, takes (SSE2 or bytes; this one has both). */
static void
test_key_searches_on_every_path(void **state)
{
	static const unsigned paths[] = { CPU_AVX2, 0 };

	(void)state;
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		cpu_features_cap(paths[i]);
		test_key_colon_found_in_any_block(NULL);
		test_key_or_rare_as_both(NULL);
		test_key_colon_as_bytes(NULL);
	}
	cpu_features_cap(CPU_AVX2 | CPU_AVX512BW);
}

static void
test_edit_distance_counts_transpositions(void **state)
{
	(void)state;
	assert_int_equal(edit_distance("status", "status", 2), 0);
	assert_int_equal(edit_distance("statsu", "status", 2), 1);   /* one transposition */
	assert_int_equal(edit_distance("stat", "status", 2), 2);
	assert_int_equal(edit_distance("max_concurent", "max_concurrent", 2), 1);
	assert_int_equal(edit_distance("claude", "status", 2), 3);   /* past the limit */
	assert_int_equal(edit_distance("", "ab", 2), 2);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ascii_case_and_prefix),
		cmocka_unit_test(test_lower_copy_cuts_to_size),
		cmocka_unit_test(test_find_within_length),
		cmocka_unit_test(test_append_text_separates_and_cuts),
		cmocka_unit_test(test_clean_copy_keeps_utf8_whole),
		cmocka_unit_test(test_key_colon_found_in_any_block),
		cmocka_unit_test(test_key_or_rare_as_both),
		cmocka_unit_test(test_key_colon_as_bytes),
		cmocka_unit_test(test_key_searches_on_every_path),
		cmocka_unit_test(test_edit_distance_counts_transpositions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
