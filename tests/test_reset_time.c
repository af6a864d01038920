/*
 * test_reset_time.c: unit tests for lib/reset_time.c: finding the reset time
 * in what a provider or an agent printed, ranking offers, clamping.
 *
 * Every clock test pins TZ and `now`, so results never depend on the machine.
 * NOW is 2026-11-30T12:00:00Z (date -d @1796040000 -u).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "reset_time.h"
#include "timeparse.h"

#define NOW ((time_t)1796040000)
#define DAY 86400.0
/* clock_scan vectors: the whole input is the clock expression. */
#define ALL ((size_t)-1)

static void use_tz(const char *tz)
{
	if (tz != NULL)
		setenv("TZ", tz, 1);
	else
		unsetenv("TZ");
	tzset();
}

/* cmocka's assert_float_equal goes through float, too coarse for epochs. */
static void expect_near(const char *input, double got, double want)
{
	if (!(fabs(got - want) <= 1e-6 * fmax(1.0, fabs(want) / 1e9)))
		fail_msg("\"%s\": got %.9f, want %.9f", input, got, want);
}


/* ---------- reset_from_text ---------- */

struct reset_vector {
	time_t now;
	const char *in;
	double at;   /* 0 = nothing found */
	enum reset_source src;
	enum reset_rank rank;
};

#define P RESET_SRC_PROVIDER
#define T RESET_SRC_TEXT

static const struct reset_vector reset_vectors[] = {
	{ NOW, "Retry-After: 120", NOW + 120.0, P, RANK_RETRY_AFTER },
	{ NOW, "Retry-After: 1.5", NOW + 1.5, P, RANK_RETRY_AFTER },
	{ NOW, "retry-after-ms: 20000", NOW + 20.0, P, RANK_RETRY_AFTER_MS },
	{ NOW, "retry-after-ms: 43", NOW + 0.043, P, RANK_RETRY_AFTER_MS },
	{ NOW, "Retry-After: Tue, 01 Dec 2026 00:00:00 GMT\r\n", 1796083200, P, RANK_RETRY_AFTER },
	{ NOW, "retry-after: Tuesday, 01-Dec-26 00:00:00 GMT", 1796083200, P, RANK_RETRY_AFTER },
	{ NOW, "Retry-After: Tue Dec  1 00:00:00 2026", 1796083200, P, RANK_RETRY_AFTER },
	{ NOW, "Retry-After: Fri, 31 Dec 1999 23:59:59 GMT", 0, 0, 0 },  /* past */
	{ NOW, "Retry-After: 0", 0, 0, 0 },
	{ NOW, "Retry-After: -5", 0, 0, 0 },
	{ NOW, "retry-after: 99999999999999999999", 0, 0, 0 },
	{ NOW, "Retry-After: 1e308", 0, 0, 0 },
	{ NOW, "Retry-After: NaN", 0, 0, 0 },
	{ NOW, "{\"headers\":{\"Retry-After\":\"29\"}}", NOW + 29.0, P, RANK_RETRY_AFTER },
	{ NOW, "x-ratelimit-reset-tokens: 6m0s", NOW + 360.0, P, RANK_GO_DURATION },
	{ NOW, "x-ratelimit-reset-requests: 1h56m38.4s", NOW + 6998.4, P, RANK_GO_DURATION },
	{ NOW, "X-RateLimit-Reset: 1796043600000", 1796043600, P, RANK_EPOCH_FIELD },
	{ NOW, "anthropic-ratelimit-unified-reset: 1796043600", 1796043600, P, RANK_EPOCH_FIELD },
	{ NOW, "anthropic-ratelimit-unified-reset: 3", NOW + 3.0, P, RANK_EPOCH_FIELD },
	{ NOW, "anthropic-ratelimit-requests-reset: 2026-11-30T14:00:00Z", 1796047200, P,
	  RANK_EPOCH_FIELD },
	{ NOW, "x-codex-primary-reset-at: 1796050000", 1796050000, P, RANK_EPOCH_FIELD },
	{ NOW, "x-codex-primary-reset-after-seconds: 600", NOW + 600.0, P, RANK_RETRY_AFTER },
	{ NOW, "retry_after_seconds: 30", NOW + 30.0, P, RANK_RETRY_AFTER },
	{ NOW, "{\"@type\":\"type.googleapis.com/google.rpc.RetryInfo\",\"retryDelay\":\"26s\"}",
	  NOW + 26.0, P, RANK_PROTOBUF },
	{ NOW, "{'retryDelay': '0.539477544s'}", NOW + 0.539477544, P, RANK_PROTOBUF },
	{ NOW, "\"resets_at\":1796050000,\"resets_in_seconds\":13872", 1796050000, P,
	  RANK_EPOCH_FIELD },
	{ NOW, "try again in 1m2.5s", NOW + 62.5, T, RANK_TEXT },
	{ NOW, "Please retry in 41.2s.", NOW + 41.2, T, RANK_TEXT },
	{ NOW, "Please retry in 900.2ms.", NOW + 0.9002, T, RANK_TEXT },
	{ NOW, "Please retry after 20 seconds.", NOW + 20.0, T, RANK_TEXT },
	{ NOW, "Rate limit is exceeded. Try again in 30 seconds.", NOW + 30.0, T, RANK_TEXT },
	{ NOW, "You've hit your usage limit. Try again in 2 days 3 hours 10 minutes.",
	  NOW + 184200.0, T, RANK_TEXT },
	{ NOW, "Your quota will reset after 3h20m5s", NOW + 12005.0, T, RANK_TEXT },
	{ NOW, "Try again in ~231 min.", NOW + 13860.0, T, RANK_TEXT },
	{ NOW, "on tokens per day (TPD). Please try again in 2h4m56.928s. Need more tokens?",
	  NOW + 7496.928, T, RANK_TEXT },
	{ NOW, "limit: 20\\nPlease retry in 45.0s.", NOW + 45.0, T, RANK_TEXT },
	{ NOW, "usage resets in 2h", NOW + 7200.0, T, RANK_TEXT },
	{ NOW, "You've hit your session limit \xc2\xb7 resets 6:30pm (Europe/Rome)", 1796059800, T,
	  RANK_TEXT },
	{ NOW, "You've hit your weekly limit \xc2\xb7 resets Dec 3 at 4:30am (Asia/Kolkata)",
	  1796252400, T, RANK_TEXT },
	{ NOW, "5-hour limit reached \xe2\x88\x99 resets 2am", 1796090400, T, RANK_TEXT },
	{ NOW, "RESETS 6:30PM (UTC)", 1796063400, T, RANK_TEXT },
	{ NOW, "You will regain access on 2026-12-01 at 00:00 UTC.", 1796083200, T, RANK_TEXT },
	{ NOW, "or try again at 3:28 PM.", 1796052480, T, RANK_TEXT },
	{ NOW, "Try again at Dec 2nd, 2026 1:36 PM.", 1796218560, T, RANK_TEXT },
	{ NOW, "Usage limit reached. Access resets at 10:57 PM GMT-3.", 1796090220, T, RANK_TEXT },
	{ NOW, "Limits will reset at 9:30 AM.", 1796117400, T, RANK_TEXT },
	{ NOW, "Your limit will reset at 5pm (Europe/Warsaw).", 1796054400, T, RANK_TEXT },
	{ NOW, "Try again Aug 18.", 1818547200, T, RANK_TEXT },
	/* Claude's legacy suffix is the provider's own reset (seconds, ms, ISO 8601). */
	{ 1755604800, "Claude AI usage limit reached|1755615600", 1755615600, P, RANK_EPOCH_FIELD },
	{ NOW, "Claude AI usage limit reached|1796061600000", 1796061600, P, RANK_EPOCH_FIELD },
	{ NOW, "Claude AI usage limit reached|2026-11-30T18:00:00.000Z", 1796061600, P,
	  RANK_EPOCH_FIELD },
	{ NOW, "Claude AI usage limit reached|2026-11-30T19:00:00+01:00.", 1796061600, P,
	  RANK_EPOCH_FIELD },
	/* The exact epoch outranks prose in the same message. */
	{ NOW, "usage limit reached|1796050000. Try again in 5 hours.", 1796050000, P,
	  RANK_EPOCH_FIELD },
	{ NOW, "Claude AI usage limit reached|1755615600", 0, 0, 0 },  /* long past */
	/* The agent's own backoff is not a reset. */
	{ NOW, "\xe2\x9c\xbb 529 Overloaded \xc2\xb7 Retrying in 4s \xc2\xb7 attempt 6/10", 0, 0, 0 },
	{ NOW, "Attempt 3 failed: boom. Retrying after 26543ms...", 0, 0, 0 },
	{ NOW, "API Error (529) \xc2\xb7 Retrying in 18 seconds\xe2\x80\xa6 (attempt 6/10)", 0, 0, 0 },
	{ NOW, "Retrying, try again in 5s", 0, 0, 0 },
	/* Rank beats order and size: the header wins over the later prose. */
	{ NOW, "Retry-After: 120\nPlease try again in 5 minutes", NOW + 120.0, P, RANK_RETRY_AFTER },
	{ NOW, "Please try again in 5 minutes\nRetry-After: 120", NOW + 120.0, P, RANK_RETRY_AFTER },
	{ NOW, "retry-after-ms: 20000\nRetry-After: 30", NOW + 20.0, P, RANK_RETRY_AFTER_MS },
	{ NOW, "{\"message\":\"Please retry in 34.518s.\",\"details\":[{\"retryDelay\":\"35s\"}]}",
	  NOW + 35.0, P, RANK_PROTOBUF },
	/* Equal ranks: the later time. */
	{ NOW, "try again in 5 minutes. try again in 1 hour", NOW + 3600.0, T, RANK_TEXT },
	/* An absurd trusted value does not hide a usable weaker one. */
	{ NOW, "Retry-After: Fri, 31 Dec 1999 23:59:59 GMT\ntry again in 5s", NOW + 5.0, T, RANK_TEXT },
	{ NOW, "resets 5pm (Mars/Olympus)", 0, 0, 0 },
	{ NOW, "try again in a moment", 0, 0, 0 },
	{ NOW, "Please try again later.", 0, 0, 0 },
	{ NOW, "resets 2999-01-01", 0, 0, 0 },
	{ NOW, "The counter resets 5 times a day", 0, 0, 0 },
	{ NOW, "Retry-After header missing", 0, 0, 0 },
	{ NOW, "", 0, 0, 0 },
};

static void check_reset_vector(const struct reset_vector *v)
{
	struct reset r;
	bool found = reset_from_text(v->in, strlen(v->in), v->now, &r);

	if (found != (v->at != 0))
		fail_msg("reset_from_text(\"%s\") found=%d at=%.3f", v->in, found, r.at);
	if (!found) {
		assert_int_equal(r.source, RESET_SRC_NONE);
		assert_int_equal(r.rank, RANK_NONE);
		return;
	}
	expect_near(v->in, r.at, v->at);
	if (r.source != v->src || r.rank != v->rank)
		fail_msg("\"%s\": source %d rank %d, want %d %d", v->in, r.source, r.rank, v->src,
			 v->rank);
}

static void test_reset_from_text(void **state)
{
	(void)state;
	use_tz("UTC");
	for (size_t k = 0; k < sizeof reset_vectors / sizeof reset_vectors[0]; k++)
		check_reset_vector(&reset_vectors[k]);
}

/* No zone printed means the local zone (Codex prints the machine's time). */
static void test_reset_local_zone(void **state)
{
	const char *in = "You've hit your usage limit. Try again at 3:28 PM.";
	struct reset r;

	(void)state;
	use_tz("America/New_York");
	assert_true(reset_from_text(in, strlen(in), NOW, &r));
	expect_near(in, r.at, 1796070480);
	use_tz("UTC");
}

/* Only len bytes are read: a reset just past the end is not seen. */
static void test_reset_respects_length(void **state)
{
	const char text[] = "ok. Retry-After: 120";
	struct reset r;

	(void)state;
	assert_false(reset_from_text(text, 3, NOW, &r));
	assert_false(reset_from_text(NULL, 0, NOW, &r));
	assert_true(reset_from_text(text, sizeof text - 1, NOW, &r));
}

/* ---------- reset_offer / reset_clamp ---------- */

static void test_reset_offer(void **state)
{
	struct reset r;

	(void)state;
	reset_clear(&r);
	reset_offer(&r, NAN, RESET_SRC_TEXT, RANK_TEXT);
	reset_offer(&r, 0, RESET_SRC_TEXT, RANK_TEXT);
	assert_true(r.at == 0);
	reset_offer(&r, NOW + 600.0, RESET_SRC_TEXT, RANK_TEXT);
	reset_offer(&r, NOW + 60.0, RESET_SRC_PROVIDER, RANK_RETRY_AFTER);
	expect_near("rank", r.at, NOW + 60.0);
	reset_offer(&r, NOW + 900.0, RESET_SRC_TEXT, RANK_TEXT);
	expect_near("weaker ignored", r.at, NOW + 60.0);
	reset_offer(&r, NOW + 90.0, RESET_SRC_PROVIDER, RANK_RETRY_AFTER);
	expect_near("equal rank, later", r.at, NOW + 90.0);
	reset_offer(&r, NOW + 30.0, RESET_SRC_PROVIDER, RANK_RETRY_AFTER);
	expect_near("equal rank, earlier", r.at, NOW + 90.0);
	assert_int_equal(r.source, RESET_SRC_PROVIDER);
}

struct clamp_vector {
	double at;
	double want;  /* 0 = dropped */
};

static void test_reset_clamp(void **state)
{
	const double now = (double)NOW;
	const struct clamp_vector vectors[] = {
		{ now + 3600, now + 3600 },
		{ now + 0.5, now + 0.5 },
		{ now, 0 },  /* no wait: as "Retry-After: 0" */
		{ now + 8 * DAY, now + 8 * DAY },
		{ now + 9 * DAY, now + 8 * DAY },
		{ now + 300 * DAY, now + 8 * DAY },
		{ now + 366 * DAY, now + 8 * DAY },
		{ now + 367 * DAY, 0 },
		{ now - 1, 0 },
		{ NAN, 0 },
		{ INFINITY, 0 },
		{ -INFINITY, 0 },
		{ 0, 0 },
	};

	(void)state;
	for (size_t k = 0; k < sizeof vectors / sizeof vectors[0]; k++) {
		struct reset r = { vectors[k].at, RESET_SRC_TEXT, RANK_TEXT };

		reset_clamp(&r, NOW);
		expect_near("clamp", r.at, vectors[k].want);
		assert_int_equal(r.source, vectors[k].want != 0 ? RESET_SRC_TEXT : RESET_SRC_NONE);
	}
}

/* ---------- size ---------- */

#define BIG (1024 * 1024)

/* Fills buf with pattern over and over, then puts tail at the very end. */
static void fill(char *buf, size_t size, const char *pattern, const char *tail)
{
	size_t plen = strlen(pattern), tlen = strlen(tail);

	for (size_t i = 0; i < size; i++)
		buf[i] = pattern[i % plen];
	memcpy(buf + size - tlen, tail, tlen);
}

/* Hostile megabytes: repeated keywords, endless names, digits, units.  Each
 * must finish (linear scan) and still find the real reset at the end. */
static void test_reset_big_inputs(void **state)
{
	static const char *const patterns[] = {
		"try again in ", "a-", "Retry-After: ", "resets ", "(", "9", " ",
		"retrying ", "1s", "Retry-After: Fri, ", "Jul 31, ", "\\n", "x-ratelimit-reset-",
	};
	char *buf = malloc(BIG);

	(void)state;
	assert_non_null(buf);
	use_tz("UTC");
	for (size_t k = 0; k < sizeof patterns / sizeof patterns[0]; k++) {
		struct reset r;

		fill(buf, BIG, patterns[k], ". Retry-After: 120\n");
		assert_true(reset_from_text(buf, BIG, NOW, &r));
		expect_near(patterns[k], r.at, NOW + 120.0);
	}
	free(buf);
}


int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reset_from_text),
		cmocka_unit_test(test_reset_local_zone),
		cmocka_unit_test(test_reset_respects_length),
		cmocka_unit_test(test_reset_offer),
		cmocka_unit_test(test_reset_clamp),
		cmocka_unit_test(test_reset_big_inputs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
