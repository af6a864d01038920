/* Unit tests for lib/heartbeat.c: which rate_limit_event lines are known
 * from their bytes, what state they carry, and the classifier's use of it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "classify.h"
#include "heartbeat.h"

#define NOW 1796040000  /* 2026-11-30T12:00:00Z */

#define INFO_HEAD "{\"type\":\"rate_limit_event\",\"rate_limit_info\":{\"status\":\"allowed\","
#define WINDOWS(u5, u7) "\"unifiedWindows\":{\"five_hour\":{\"utilization\":" u5 \
	",\"resetsAt\":1796056200},\"seven_day\":{\"utilization\":" u7 ",\"resetsAt\":1796500800}}"
#define STATE "\"resetsAt\":1796056200,\"rateLimitType\":\"five_hour\",\"overageStatus\":\"rejected\"," \
	"\"overageDisabledReason\":\"org_level_disabled\",\"isUsingOverage\":false,"
#define TAIL(uuid) "},\"uuid\":\"" uuid "\",\"session_id\":\"4d1f0c7e-2b9a-4c55-8e31-6a0f9d2b7c14\"}"

static const char beat_a[] = INFO_HEAD STATE WINDOWS("0.31", "0.062") TAIL("f6a50000-2c3d-4e5f-9a6b-7c8d9e0f1a2b");
static const char beat_b[] = INFO_HEAD STATE WINDOWS("0.32", "1") TAIL("f6a50001-2c3d-4e5f-9a6b-7c8d9e0f1a2b");

static bool
scan(const char *line, char *state, size_t *n)
{
	return heartbeat_scan(line, strlen(line), state, n);
}

static void
test_allowed_state_without_utilization(void **unused)
{
	char a[HEARTBEAT_STATE_MAX], b[HEARTBEAT_STATE_MAX];
	size_t na, nb;

	assert_true(scan(beat_a, a, &na));
	assert_true(scan(beat_b, b, &nb));
	/* Utilization and uuid differ, the reset and overage state does not. */
	assert_int_equal(na, nb);
	assert_memory_equal(a, b, na);
	assert_null(memmem(a, na, "utilization\":0", 14));
	assert_non_null(memmem(a, na, "1796056200", 10));
	assert_non_null(memmem(a, na, "org_level_disabled", 18));
}

static void
test_state_changes(void **unused)
{
	static const char moved[] = INFO_HEAD "\"resetsAt\":1796074200,\"rateLimitType\":\"five_hour\"}}";
	static const char overage[] = INFO_HEAD "\"resetsAt\":1796056200,\"isUsingOverage\":true}}";
	static const char base[] = INFO_HEAD "\"resetsAt\":1796056200,\"isUsingOverage\":false}}";
	char s1[HEARTBEAT_STATE_MAX], s2[HEARTBEAT_STATE_MAX], s3[HEARTBEAT_STATE_MAX];
	size_t n1, n2, n3;

	assert_true(scan(moved, s1, &n1));
	assert_true(scan(overage, s2, &n2));
	assert_true(scan(base, s3, &n3));
	assert_false(n1 == n3 && memcmp(s1, s3, n1) == 0);
	assert_false(n2 == n3 && memcmp(s2, s3, n2) == 0);
}

/* A string is checked whole, wherever its bad byte sits: first, inside or
 * past a 16-byte block, or at its end. */
static void
test_string_bytes_checked_to_the_end(void **unused)
{
	static const char bad[] = { '\\', '\x01', '\x7f', '\x80', '\xc3' };
	char line[sizeof(beat_a) + 8], state[HEARTBEAT_STATE_MAX];
	const char *uuid = strstr(beat_a, "f6a50000");
	size_t at = (size_t)(uuid - beat_a), n;

	(void)unused;
	assert_true(heartbeat_scan(beat_a, strlen(beat_a), state, &n));
	for (size_t k = 0; k < sizeof(bad); k++)
		for (size_t pos = 0; pos < 36; pos++) {
			memcpy(line, beat_a, sizeof(beat_a));
			line[at + pos] = bad[k];
			assert_false(heartbeat_scan(line, strlen(line), state, &n));
		}
}

/* Each is parsed: another status, or bytes outside the subset. */
static void
test_refused(void **unused)
{
	static const char *const lines[] = {
		"{\"type\":\"rate_limit_event\",\"rate_limit_info\":{\"status\":\"rejected\"}}",
		"{\"type\":\"rate_limit_event\",\"rate_limit_info\":{\"status\":\"allowed_warning\"}}",
		"{\"type\":\"rate_limit_event\",\"rate_limit_info\":{\"resetsAt\":1}}",
		INFO_HEAD "\"a\":1,\"status\":\"rejected\"}}",
		INFO_HEAD "\"a\":1},\"type\":\"result\"}",
		INFO_HEAD "\"a\":1},\"rate_limit_info\":{\"status\":\"rejected\"}}",
		INFO_HEAD "\"a\":\"\\u0041\"}}",
		INFO_HEAD "\"a\":\"caf\xc3\xa9\"}}",
		INFO_HEAD "\"a\":1e3}}",
		INFO_HEAD "\"a\":1234567890123456789}}",
		INFO_HEAD "\"a\":01}}",
		INFO_HEAD "\"a\":1.}}",
		INFO_HEAD "\"a\":[1]}}",
		INFO_HEAD "\"a\": 1}}",
		INFO_HEAD "\"a\":1}} ",
		INFO_HEAD "\"a\":1}}x",
		INFO_HEAD "\"a\":1},}",
		INFO_HEAD "\"a\":1}",
		INFO_HEAD "\"a\":{\"b\":{\"c\":{\"d\":1}}}}}",
		INFO_HEAD "\"a\":tru}}",
		INFO_HEAD "\"a\":1,}}",
		INFO_HEAD,
	};

	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		char state[HEARTBEAT_STATE_MAX];
		size_t n;

		if (scan(lines[i], state, &n))
			fail_msg("accepted: %s", lines[i]);
	}
}

static void
test_state_too_long(void **unused)
{
	char line[HEARTBEAT_STATE_MAX + 200], state[HEARTBEAT_STATE_MAX];
	size_t n;
	int len = snprintf(line, sizeof(line), INFO_HEAD "\"pad\":\"");

	memset(line + len, 'x', HEARTBEAT_STATE_MAX);
	strcpy(line + len + HEARTBEAT_STATE_MAX, "\"}}");
	assert_false(heartbeat_scan(line, strlen(line), state, &n));
}

/* The template: the same state with other utilization, uuid or session
 * values matches; anything else is left to the scan. */
static void
test_template(void **unused)
{
	static struct heartbeat_template tpl;
	static const char other_reset[] = INFO_HEAD "\"resetsAt\":1796074200,\"rateLimitType\":\"five_hour\"," \
	    "\"overageStatus\":\"rejected\",\"overageDisabledReason\":\"org_level_disabled\",\"isUsingOverage\":false," \
	    WINDOWS("0.31", "0.062") TAIL("f6a50000-2c3d-4e5f-9a6b-7c8d9e0f1a2b");
	static const char extra_key[] = INFO_HEAD STATE WINDOWS("0.31", "0.062")
	    "},\"uuid\":\"u\",\"session_id\":\"s\",\"type\":\"result\"}";
	static const char object_uuid[] = INFO_HEAD STATE WINDOWS("0.31", "0.062")
	    "},\"uuid\":{\"a\":1},\"session_id\":\"4d1f0c7e-2b9a-4c55-8e31-6a0f9d2b7c14\"}";
	static const char escaped[] = INFO_HEAD STATE WINDOWS("0.31", "0.062") TAIL("f6a5\\u0030");
	char state[HEARTBEAT_STATE_MAX];
	size_t n;

	assert_true(heartbeat_scan_template(beat_a, strlen(beat_a), state, &n, &tpl));
	assert_int_equal(tpl.len, strlen(beat_a));
	assert_int_equal(tpl.nslots, 4);   /* two utilizations, uuid, session_id */
	assert_true(heartbeat_like(&tpl, beat_a, strlen(beat_a)));
	assert_true(heartbeat_like(&tpl, beat_b, strlen(beat_b)));
	assert_false(heartbeat_like(&tpl, other_reset, strlen(other_reset)));
	assert_false(heartbeat_like(&tpl, extra_key, strlen(extra_key)));
	assert_false(heartbeat_like(&tpl, object_uuid, strlen(object_uuid)));
	assert_false(heartbeat_like(&tpl, escaped, strlen(escaped)));
	assert_false(heartbeat_like(&tpl, beat_b, strlen(beat_b) - 1));
}

struct count {
	int signals;
};

static void
on_signal(const struct fail_signal *sig, void *arg)
{
	((struct count *)arg)->signals++;
}

/* Feeds stream to a new classifier in pieces of chunk bytes; returns the
 * signals it gave on the way and its verdict in *sig. */
static int
classify_chunked(const char *stream, size_t len, size_t chunk, struct fail_signal *sig)
{
	struct classifier *c = classifier_new(NULL, NOW);
	struct count count = { 0 };

	classifier_on_signal(c, on_signal, &count);
	for (size_t off = 0; off < len; off += chunk)
		classifier_feed(c, stream + off, len - off < chunk ? len - off : chunk);
	classifier_finish(c, 1, sig);
	classifier_free(c);
	return count.signals;
}

/* Heartbeats known from their bytes change nothing; the rejected one that
 * follows identical allowed ones still counts, in any chunking. */
static void
test_classifier_after_repeats(void **unused)
{
	char stream[8192];
	int len = snprintf(stream, sizeof(stream),
	    "{\"type\":\"system\",\"subtype\":\"init\",\"model\":\"claude-opus-4-6\",\"session_id\":\"s\"}\n"
	    "%s\n%s\n%s\n"
	    "{\"type\":\"rate_limit_event\",\"rate_limit_info\":{\"status\":\"rejected\",\"resetsAt\":1796056200,"
	    "\"rateLimitType\":\"five_hour\"}}\n", beat_a, beat_b, beat_a);

	for (size_t chunk = 1; chunk <= (size_t)len; chunk = chunk * 3 + 1) {
		struct fail_signal sig;
		int signals = classify_chunked(stream, (size_t)len, chunk, &sig);

		assert_int_equal(sig.reason, REASON_USAGE_LIMIT);
		assert_int_equal((long long)sig.resets_at, 1796056200LL);
		assert_int_equal(sig.line, 5);
		assert_int_equal(signals, 2);
	}
}

/* Whatever the in-place comparison accepts, the scan accepts with the
 * template's state: single bytes changed anywhere, and values rewritten in
 * their slots. */
static void
test_in_place_never_wider_than_scan(void **unused)
{
	static struct heartbeat_template tpl;
	static const char bytes[] = "\"\\\x01\x7f\x80" "0a9}{,: -.";
	char state[HEARTBEAT_STATE_MAX], got[HEARTBEAT_STATE_MAX], line[sizeof(beat_a)];
	size_t n, m, len = strlen(beat_a), accepted = 0;

	assert_true(heartbeat_scan_template(beat_a, len, state, &n, &tpl));
	for (size_t at = 0; at < len; at++)
		for (size_t b = 0; b < sizeof(bytes) - 1; b++) {
			memcpy(line, beat_a, len);
			line[at] = bytes[b];
			if (!heartbeat_in_place(&tpl, line, len))
				continue;
			accepted++;
			if (!heartbeat_scan(line, len, got, &m) || m != n || memcmp(got, state, n) != 0)
				fail_msg("in place but not the same state: byte %zu set to 0x%02x", at, (unsigned char)bytes[b]);
		}
	assert_true(accepted > 0);   /* digits in the uuids and utilizations */
	/* A new uuid and utilizations of the same length, in place. */
	assert_true(heartbeat_in_place(&tpl, beat_a, len));
	memcpy(line, beat_a, len);
	memcpy(strstr(line, "0.31"), "0.42", 4);
	memcpy(strstr(line, "f6a50000"), "0123abcd", 8);
	assert_true(heartbeat_in_place(&tpl, line, len));
	/* Another length: for heartbeat_like(), not here. */
	assert_false(heartbeat_in_place(&tpl, beat_b, strlen(beat_b)));
}

/* After a run of heartbeats known in place, a rejected one exactly as long
 * (a new reset, and an overage reason a letter shorter) is read, in any
 * chunking. */
static void
test_rejected_as_long_as_allowed(void **unused)
{
	static const char rejected[] = "{\"type\":\"rate_limit_event\",\"rate_limit_info\":{\"status\":\"rejected\","
	    "\"resetsAt\":1796059800,\"rateLimitType\":\"five_hour\",\"overageStatus\":\"rejected\","
	    "\"overageDisabledReason\":\"org_level_disable\",\"isUsingOverage\":false,"
	    WINDOWS("0.31", "0.062") TAIL("f6a50000-2c3d-4e5f-9a6b-7c8d9e0f1a2b");
	char stream[16384];
	int len = snprintf(stream, sizeof(stream),
	    "{\"type\":\"system\",\"subtype\":\"init\",\"model\":\"claude-opus-4-6\",\"session_id\":\"s\"}\n");

	assert_int_equal(strlen(rejected), strlen(beat_a));
	for (int i = 0; i < 20; i++) {
		char beat[sizeof(beat_a)];

		strcpy(beat, beat_a);
		beat[strstr(beat, "f6a50000") - beat + 6] = (char)('a' + i % 6);   /* a new uuid */
		len += snprintf(stream + len, sizeof(stream) - (size_t)len, "%s\n", beat);
	}
	len += snprintf(stream + len, sizeof(stream) - (size_t)len, "%s\n", rejected);
	for (size_t chunk = 1; chunk <= (size_t)len; chunk = chunk * 2 + 1) {
		struct fail_signal sig;

		classify_chunked(stream, (size_t)len, chunk, &sig);
		assert_int_equal(sig.reason, REASON_USAGE_LIMIT);
		assert_int_equal((long long)sig.resets_at, 1796059800LL);
		assert_int_equal(sig.line, 22);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_allowed_state_without_utilization),
		cmocka_unit_test(test_state_changes),
		cmocka_unit_test(test_string_bytes_checked_to_the_end),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_state_too_long),
		cmocka_unit_test(test_template),
		cmocka_unit_test(test_classifier_after_repeats),
		cmocka_unit_test(test_in_place_never_wider_than_scan),
		cmocka_unit_test(test_rejected_as_long_as_allowed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
