/* Unit tests for lib/linescan.c: the line's end and the needle's places,
 * the same whichever path the CPU takes, and never a byte read past avail
 * (every buffer is allocated to its length, so ASan catches a read). */
#include "unit.h"

#include <stdbool.h>

#include "dialect.h"
#include "linescan.h"
#include "cpu_features.h"
#include "textutil.h"

/* What line_scan() answers, a byte at a time. */
static size_t
slow_scan(const char *p, size_t avail, const char *needle, size_t n, struct line_marks *m)
{
	const char *nl = memchr(p, '\n', avail);
	size_t end = nl != NULL ? (size_t)(nl - p) : avail;

	m->first = m->last = -1;
	for (size_t at = 0; at + n <= end; at++)
		if (memcmp(p + at, needle, n) == 0) {
			if (m->first < 0)
				m->first = (long)at;
			m->last = (long)at;
		}
	return end;
}

static void
expect_scans(const char *p, size_t avail, const char *what)
{
	struct line_marks want, fast, bytes;
	size_t end = slow_scan(p, avail, "<synthetic>", 11, &want);

	if (line_scan(p, avail, "<synthetic>", 11, &fast) != end || fast.first != want.first ||
	    fast.last != want.last)
		fail_msg("line_scan: %s (avail %zu): end %zu, first %ld, last %ld", what, avail, end,
		    want.first, want.last);
	if (line_scan_bytes(p, avail, "<synthetic>", 11, &bytes) != end || bytes.first != want.first ||
	    bytes.last != want.last)
		fail_msg("line_scan_bytes: %s (avail %zu)", what, avail);
}

static char *
filled(size_t len, char fill)
{
	char *p = malloc(len > 0 ? len : 1);

	assert_non_null(p);
	memset(p, fill, len);
	return p;
}

/* A newline at every offset of every length up to 300 (the blocks of 128
 * and 64, and the byte tail), alone and after a needle. */
static void
test_end_at_every_offset(void **state)
{
	(void)state;
	for (size_t avail = 0; avail <= 300; avail++) {
		char *p = filled(avail, 'x');

		expect_scans(p, avail, "no newline");
		for (size_t at = 0; at < avail; at++) {
			p[at] = '\n';
			expect_scans(p, avail, "newline");
			if (at >= 11) {
				memcpy(p + at - 11, "<synthetic>", 11);
				expect_scans(p, avail, "needle right before the newline");
				memset(p + at - 11, 'x', 11);
			}
			p[at] = 'x';
		}
		free(p);
	}
}

/* A needle, or its first bytes, at every offset: counted only when whole
 * and before the newline, the first and the last of several. */
static void
test_needle_at_every_offset(void **state)
{
	static const char *const put[] = { "<synthetic>", "<synthetic", "<", "<<synthetic>" };

	(void)state;
	for (size_t avail = 1; avail <= 280; avail += 3)
		for (size_t at = 0; at < avail; at++)
			for (size_t k = 0; k < sizeof(put) / sizeof(put[0]); k++) {
				char *p = filled(avail, at % 2 ? 'x' : '<');
				size_t n = strlen(put[k]) < avail - at ? strlen(put[k]) : avail - at;

				memcpy(p + at, put[k], n);
				expect_scans(p, avail, put[k]);
				if (avail > 2) {
					p[avail / 2] = '\n';
					expect_scans(p, avail, "with a newline half way");
				}
				if (at + n + 20 < avail) {
					memcpy(p + avail - 11, "<synthetic>", 11);
					expect_scans(p, avail, "with a last needle at the end");
				}
				free(p);
			}
}

/* Random lines of the bytes that matter, at random lengths. */
static void
test_random_lines(void **state)
{
	static const char bytes[] = "<>\nsynthetic\"x";
	uint32_t x = 2463534242u;

	(void)state;
	for (int round = 0; round < 20000; round++) {
		size_t avail = (x % 700);
		char *p = filled(avail, 'x');

		for (size_t i = 0; i < avail; i++) {
			x ^= x << 13;
			x ^= x >> 17;
			x ^= x << 5;
			p[i] = x % 4 == 0 ? bytes[x % (sizeof(bytes) - 1)] : 'y';
			if (x % 97 == 0 && i + 11 <= avail)
				memcpy(p + i, "<synthetic>", 11);
		}
		expect_scans(p, avail, "random");
		free(p);
		x = x * 1103515245u + 12345u;
	}
}

/* claude_output_may_fail_ahead() answers as claude_output_may_fail() does
 * for the line it finds: "<synthetic>" and "error": put at the edges of
 * where they count (the first and last 1024 bytes, the last 512), in lines
 * around the lengths where the searches change (512, 2048), with and
 * without a '\r'. */
static void
test_claude_ahead_as_whole_line(void **state)
{
	static const size_t lens[] = { 20, 300, 511, 512, 513, 1100, 2047, 2048, 2049, 2100, 3000, 5000 };
	static const char *const put[] = { "<synthetic>", "\"error\":" };

	(void)state;
	for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++)
		for (size_t k = 0; k < 2; k++)
			for (size_t at = 0; at + strlen(put[k]) <= lens[l]; at += at < 1000 || lens[l] - at < 1100 ? 1 : 97)
				for (int cr = 0; cr < 2; cr++) {
					size_t len = lens[l], avail = len + 1 + (size_t)cr + 40;
					char *p = filled(avail, 'x');
					bool ahead = false;
					size_t end;

					memcpy(p + at, put[k], strlen(put[k]));
					if (cr)
						p[len] = '\r';
					p[len + (size_t)cr] = '\n';
					end = claude_output_may_fail_ahead("assistant", 9, p, avail, &ahead);
					if (end != len + (size_t)cr)
						fail_msg("end %zu for a line of %zu", end, len);
					if (ahead != claude_output_may_fail("assistant", 9, p, len))
						fail_msg("%s at %zu of %zu (cr %d): ahead %d", put[k], at, len, cr, ahead);
					free(p);
				}
}

/* Another type is no failure, and its end is still found; no newline, no
 * answer. */
static void
test_claude_ahead_other_types(void **state)
{
	static const char line[] = "{\"type\":\"user\",\"model\":\"<synthetic>\",\"error\":\"x\"}\nrest";
	bool may_fail = true;
	char *p = filled(30, 'x');

	(void)state;
	assert_int_equal(claude_output_may_fail_ahead("user", 4, line, sizeof(line) - 1, &may_fail),
	    strchr(line, '\n') - line);
	assert_false(may_fail);
	assert_int_equal(claude_output_may_fail_ahead("assistant", 9, p, 30, &may_fail), 0);
	free(p);
}

/* Every check above again on the paths a CPU without AVX-512, or without
 * AVX2, takes (this one has both). */
static void
run_scan_checks(unsigned features)
{
	cpu_features_cap(features);
	test_end_at_every_offset(NULL);
	test_needle_at_every_offset(NULL);
	test_random_lines(NULL);
	test_claude_ahead_as_whole_line(NULL);
	cpu_features_cap(CPU_AVX2 | CPU_AVX512BW);
}

static void
test_scans_on_the_avx2_path(void **state)
{
	(void)state;
	run_scan_checks(CPU_AVX2);
}

static void
test_scans_without_vector_paths(void **state)
{
	(void)state;
	run_scan_checks(0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_end_at_every_offset),
		cmocka_unit_test(test_needle_at_every_offset),
		cmocka_unit_test(test_random_lines),
		cmocka_unit_test(test_claude_ahead_as_whole_line),
		cmocka_unit_test(test_claude_ahead_other_types),
		cmocka_unit_test(test_scans_on_the_avx2_path),
		cmocka_unit_test(test_scans_without_vector_paths),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
