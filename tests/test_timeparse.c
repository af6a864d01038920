/*
 * test_timeparse.c: durations, timestamps, clock times and reset finding.
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

/* ---------- duration_parse ---------- */

struct dur_vector {
	const char *in;
	bool ok;
	double secs;
};

static const struct dur_vector parse_vectors[] = {
	{ "90", true, 90 },
	{ "90s", true, 90 },
	{ "15m", true, 900 },
	{ "1h30m", true, 5400 },
	{ "2d", true, 172800 },
	{ "6m0s", true, 360 },
	{ "1h0m0s", true, 3600 },
	{ "1h2m3.5s", true, 3723.5 },
	{ "547ms", true, 0.547 },
	{ "12ms", true, 0.012 },
	{ "1.5us", true, 1.5e-6 },
	{ "1\xc2\xb5s", true, 1e-6 },  /* U+00B5 micro sign */
	{ "1\xce\xbcs", true, 1e-6 },  /* U+03BC Greek mu */
	{ "5ns", true, 5e-9 },
	{ "34s", true, 34 },
	{ "0.539477544s", true, 0.539477544 },
	{ "1h56m38.4s", true, 6998.4 },
	{ "2h4m56.928s", true, 7496.928 },
	{ "1m2.639999999s", true, 62.639999999 },
	{ "3h3m25.362287008s", true, 11005.362287008 },
	{ "900.2ms", true, 0.9002 },
	{ "1h23m31s", true, 5011 },
	{ "21.577s", true, 21.577 },
	{ "1.5", true, 1.5 },
	{ "0s", true, 0 },
	{ " 120 \r\n", true, 120 },
	{ "", false, 0 },
	{ "   ", false, 0 },
	{ "s", false, 0 },
	{ "ms", false, 0 },
	{ "1x", false, 0 },
	{ "1 h", false, 0 },
	{ "5 minutes", false, 0 },
	{ "-5s", false, 0 },
	{ "+5s", false, 0 },
	{ "1e308s", false, 0 },
	{ "1e3", false, 0 },
	{ "99999999999999999999s", false, 0 },
	{ "9999999999999s", false, 0 },  /* past Go's 2^63 ns */
	{ "NaN", false, 0 },
	{ "nans", false, 0 },
	{ "inf", false, 0 },
	{ "1.s", false, 0 },
	{ ".5s", false, 0 },
	{ "1..5s", false, 0 },
	{ "1h-30m", false, 0 },
	{ "0x10s", false, 0 },
	{ "12abc", false, 0 },
};

static void test_duration_parse(void **state)
{
	(void)state;
	for (size_t k = 0; k < sizeof parse_vectors / sizeof parse_vectors[0]; k++) {
		const struct dur_vector *v = &parse_vectors[k];
		double secs = -1;
		bool ok = duration_parse(v->in, &secs);

		if (ok != v->ok)
			fail_msg("duration_parse(\"%s\") = %d, want %d", v->in, ok, v->ok);
		if (ok)
			expect_near(v->in, secs, v->secs);
	}
	assert_false(duration_parse(NULL, &(double){ 0 }));
}

/* ---------- duration_scan ---------- */

struct scan_vector {
	const char *in;
	size_t used;
	double secs;
};

static const struct scan_vector scan_vectors[] = {
	{ "2 days 3 hours 10 minutes", 25, 184200 },
	{ "35 seconds", 10, 35 },
	{ "~231 min.", 8, 13860 },
	{ "41.2s.", 5, 41.2 },
	{ "5 mins", 6, 300 },
	{ "1m2.5s. Passed model=x", 6, 62.5 },
	{ "3 days 6 hours 57 minutes", 25, 284220 },
	{ "5 days 22 hours 11 minutes.", 26, 511860 },
	{ "4 days 20 hours 9 minutes", 25, 418140 },
	{ "2 days, 3 hours and 10 minutes", 30, 184200 },
	{ "35.", 2, 35 },
	{ "120\r\n", 3, 120 },
	{ "1h 30m", 6, 5400 },
	{ "  20 seconds", 12, 20 },
	{ "about 5 minutes", 15, 300 },
	{ "12h34m16s", 9, 45256 },
	{ "900.2ms.", 7, 0.9002 },
	{ "2 days and", 6, 172800 },
	{ "1 hour,", 6, 3600 },
	{ "3h20m5s", 7, 12005 },
	{ "a moment", 0, 0 },
	{ "later", 0, 0 },
	{ "5 apples", 0, 0 },
	{ "2 business days", 0, 0 },
	{ "1e308s", 0, 0 },
	{ "99999999999999999999 seconds", 0, 0 },
	{ "", 0, 0 },
	{ "-5s", 0, 0 },
	{ "NaN seconds", 0, 0 },
	{ "5e3", 0, 0 },
	{ "1000000000000 days", 0, 0 },
	{ "~", 0, 0 },
};

static void test_duration_scan(void **state)
{
	(void)state;
	for (size_t k = 0; k < sizeof scan_vectors / sizeof scan_vectors[0]; k++) {
		const struct scan_vector *v = &scan_vectors[k];
		double secs = -1;
		size_t used = duration_scan(v->in, strlen(v->in), &secs);

		if (used != v->used)
			fail_msg("duration_scan(\"%s\") used %zu, want %zu", v->in, used, v->used);
		if (used)
			expect_near(v->in, secs, v->secs);
	}
}

/* The length bounds the scan: no reading past it, no NUL needed. */
static void test_duration_scan_respects_length(void **state)
{
	const char text[] = "15 minutes";
	double secs = 0;

	(void)state;
	assert_int_equal(duration_scan(text, 2, &secs), 2);
	expect_near("15", secs, 15);
	assert_int_equal(duration_scan(text, 0, &secs), 0);
}

/* ---------- time_parse ---------- */

static const struct dur_vector time_vectors[] = {
	{ "2026-11-30T14:00:00Z", true, 1796047200 },
	{ "2026-11-30T15:00:00+01:00", true, 1796047200 },
	{ "2026-11-30T09:00:00-05:00", true, 1796047200 },
	{ "2026-11-30T14:00:00+0000", true, 1796047200 },
	{ "2026-11-30 14:00:00Z", true, 1796047200 },
	{ "2026-11-30T14:00:00", true, 1796047200 },  /* zone-less ISO is UTC */
	{ "2026-11-30t14:00:00z", true, 1796047200 },
	{ "2026-11-30T14:00:00.250Z", true, 1796047200.25 },
	{ "2026-11-30", true, 1795996800 },
	{ "2999-01-01", true, 32472144000.0 },
	{ "2016-12-31T23:59:60Z", true, 1483228800 },  /* leap second */
	{ "1770685200", true, 1770685200 },
	{ "1765661760000", true, 1765661760 },  /* epoch ms */
	{ " 1796040000 ", true, 1796040000 },
	{ "", false, 0 },
	{ "hello", false, 0 },
	{ "-5", false, 0 },
	{ "1e9", false, 0 },
	{ "2026-02-30", false, 0 },
	{ "2026-13-01", false, 0 },
	{ "2026-11-30T25:00:00Z", false, 0 },
	{ "2026-11-30T14:00:00+15:00", false, 0 },
	{ "2026-11-30T14:00:00Zjunk", false, 0 },
	{ "2026-11-30T14", false, 0 },
	{ "Dec 2nd, 2026 1:36 PM", false, 0 },
	{ "2026-11-30T14:00:00 (Mars/Olympus)", false, 0 },
};

static void test_time_parse(void **state)
{
	(void)state;
	use_tz("America/New_York");  /* must not leak into zone-less ISO */
	for (size_t k = 0; k < sizeof time_vectors / sizeof time_vectors[0]; k++) {
		const struct dur_vector *v = &time_vectors[k];
		double t = -1;
		bool ok = time_parse(v->in, &t);

		if (ok != v->ok)
			fail_msg("time_parse(\"%s\") = %d, want %d", v->in, ok, v->ok);
		if (ok)
			expect_near(v->in, t, v->secs);
	}
	assert_false(time_parse(NULL, &(double){ 0 }));
}

/* ---------- http_date_parse ---------- */

static const struct dur_vector http_vectors[] = {
	{ "Sun, 06 Nov 1994 08:49:37 GMT", true, 784111777 },   /* IMF-fixdate */
	{ "Sunday, 06-Nov-94 08:49:37 GMT", true, 784111777 },  /* RFC 850 */
	{ "Sun Nov  6 08:49:37 1994", true, 784111777 },        /* asctime */
	{ "Fri, 31 Dec 1999 23:59:59 GMT", true, 946684799 },
	{ "Wed, 21 Oct 2015 07:28:00 GMT", true, 1445412480 },
	{ "sun, 06 nov 1994 08:49:37 gmt", true, 784111777 },
	{ "Tue, 01 Dec 2026 00:00:00 GMT", true, 1796083200 },
	{ "Tuesday, 01-Dec-26 00:00:00 GMT", true, 1796083200 },
	{ "  Sun, 06 Nov 1994 08:49:37 GMT\r\n", true, 784111777 },
	{ "Sun, 06 Nov 1994 08:49:37", false, 0 },
	{ "Sun, 31 Feb 1994 08:49:37 GMT", false, 0 },
	{ "Xyz, 06 Nov 1994 08:49:37 GMT", false, 0 },
	{ "Sun, 06 Nov 1994 25:49:37 GMT", false, 0 },
	{ "Sun, 06 November 1994 08:49:37 GMT", false, 0 },
	{ "Sun, 06 Nov 1994 08:49:37 GMT extra", false, 0 },
	{ "120", false, 0 },
	{ "", false, 0 },
};

static void test_http_date_parse(void **state)
{
	(void)state;
	for (size_t k = 0; k < sizeof http_vectors / sizeof http_vectors[0]; k++) {
		const struct dur_vector *v = &http_vectors[k];
		double t = -1;
		bool ok = http_date_parse(v->in, &t);

		if (ok != v->ok)
			fail_msg("http_date_parse(\"%s\") = %d, want %d", v->in, ok, v->ok);
		if (ok)
			expect_near(v->in, t, v->secs);
	}
}

/* ---------- epoch_normalize ---------- */

static void test_epoch_normalize(void **state)
{
	(void)state;
	expect_near("s", epoch_normalize(1770685200), 1770685200);
	expect_near("ms", epoch_normalize(1765661760000.0), 1765661760);
	expect_near("12 digits", epoch_normalize(999999999999.0), 999999999999.0);
	expect_near("1e12", epoch_normalize(1e12), 1e9);
	expect_near("ms frac", epoch_normalize(1796040000123.0), 1796040000.123);
	expect_near("zero", epoch_normalize(0), 0);
}

/* ---------- clock_scan ---------- */

struct clock_vector {
	const char *tz;   /* the local zone */
	time_t now;
	const char *in;
	size_t used;      /* ALL = the whole input; 0 = no clock */
	double at;
};

static const struct clock_vector clock_vectors[] = {
	{ "UTC", NOW, "6:30pm", ALL, 1796063400 },
	{ "UTC", NOW, "2am", ALL, 1796090400 },           /* past today: tomorrow */
	{ "UTC", NOW, "12:16 PM", ALL, 1796040960 },
	{ "UTC", NOW, "12am", ALL, 1796083200 },
	{ "UTC", NOW, "9:30 AM.", 7, 1796117400 },
	{ "UTC", NOW, "11am (UTC)", ALL, 1796122800 },    /* past today: tomorrow */
	{ "UTC", NOW, "11pm (UTC)", ALL, 1796079600 },
	{ "UTC", NOW, "6:30pm (Europe/Rome)", ALL, 1796059800 },
	{ "UTC", NOW, "3pm (America/Bogota)", ALL, 1796068800 },
	{ "UTC", NOW, "11pm (America/Anchorage)", ALL, 1796112000 },
	{ "UTC", NOW, "Jul 31, 2am (UTC)", ALL, 1816999200 },
	{ "UTC", NOW, "Jul 27 at 4:30am (Asia/Calcutta)", ALL, 1816642800 },
	{ "UTC", NOW, "Dec 3 at 4:30am (Asia/Kolkata)", ALL, 1796252400 },
	{ "UTC", NOW, "Feb 4, 8pm (Europe/Budapest)", ALL, 1801767600 },
	{ "UTC", NOW, "Sep 15 at 7pm", ALL, 1821034800 },
	{ "UTC", NOW, "Nov 29 at 5pm (UTC)", ALL, 1827507600 },  /* past: next year */
	{ "UTC", NOW, "Dec 2nd, 2026 1:36 PM", ALL, 1796218560 },
	{ "America/New_York", NOW, "Dec 2nd, 2026 1:36 PM", ALL, 1796236560 },
	{ "UTC", NOW, "Aug 8th, 2026 12:30 PM", ALL, 1786192200 },  /* year given: no roll */
	{ "UTC", NOW, "2026-08-01 at 00:00 UTC", ALL, 1785542400 },
	{ "UTC", NOW, "2026-04-01T00:00:00Z", ALL, 1775001600 },
	{ "UTC", NOW, "2999-01-01", ALL, 32472144000.0 },
	{ "UTC", NOW, "10:57 PM GMT-3", ALL, 1796090220 },
	{ "UTC", NOW, "10:30 GMT+5:30", ALL, 1796101200 },
	{ "UTC", NOW, "1pm UTC+2", ALL, 1796122800 },
	{ "UTC", NOW, "5pm (GMT-3)", ALL, 1796068800 },      /* as people write it */
	{ "UTC", NOW, "5pm (Etc/GMT-3)", ALL, 1796047200 },  /* IANA's inverted sign */
	{ "UTC", NOW, "14:00Z", ALL, 1796047200 },
	{ "UTC", NOW, "3pm (see docs)", 3, 1796050800 },     /* not a zone: ignored */
	{ "UTC", NOW, "5pm (1/10)", 3, 1796058000 },
	{ "America/New_York", NOW, "3:28 PM", ALL, 1796070480 },
	{ "UTC", NOW, "5pm (Mars/Olympus)", 0, 0 },
	{ "UTC", NOW, "5pm (Europe/../../etc/passwd)", 0, 0 },  /* never reaches TZ */
	{ "UTC", NOW, "5pm (../../etc/passwd)", 3, 1796058000 },  /* not zone-shaped */
	{ "UTC", NOW, "later", 0, 0 },
	{ "UTC", NOW, "5", 0, 0 },
	{ "UTC", NOW, "13pm", 0, 0 },
	{ "UTC", NOW, "0am", 0, 0 },
	{ "UTC", NOW, "25:00", 0, 0 },
	{ "UTC", NOW, "Feb 30", 0, 0 },
	{ "UTC", NOW, "", 0, 0 },
	/* America/New_York spring forward, 2026-03-08 02:00 EST -> 03:00 EDT:
	 * 02:30 does not exist and reads as 03:30 EDT = 07:30Z. */
	{ "UTC", 1772946000, "2:30am (America/New_York)", ALL, 1772955000 },
	/* fall back, 2026-11-01 02:00 EDT -> 01:00 EST: 01:30 happens twice;
	 * the first (EDT, 05:30Z) wins. */
	{ "UTC", 1793505600, "1:30am (America/New_York)", ALL, 1793511000 },
	/* Europe/Rome spring forward, 2026-03-29 02:00 CET -> 03:00 CEST. */
	{ "UTC", 1774742400, "2:30am (Europe/Rome)", ALL, 1774747800 },
	/* fall back, 2026-10-25 03:00 CEST -> 02:00 CET: first 02:30 (CEST). */
	{ "UTC", 1792879200, "2:30am (Europe/Rome)", ALL, 1792888200 },
	/* Past on the Saturday, rolls onto the DST day: 10:00 CEST, not CET. */
	{ "UTC", 1774699200, "10am (Europe/Rome)", ALL, 1774771200 },
	/* The local zone rolls across fall back: 10:00 EST = 15:00Z. */
	{ "America/New_York", 1793462400, "10am", ALL, 1793545200 },
	{ "America/New_York", 1793505600, "3:28 PM", ALL, 1793564880 },
	{ "Europe/Rome", 1774742400, "2:30am", ALL, 1774747800 },
};

static void check_clock_vector(const struct clock_vector *v)
{
	size_t want = v->used == ALL ? strlen(v->in) : v->used;
	double at = 0;
	size_t used;

	use_tz(v->tz);
	used = clock_scan(v->in, strlen(v->in), v->now, &at);
	if (used != want)
		fail_msg("clock_scan(\"%s\") in %s used %zu, want %zu", v->in, v->tz, used, want);
	if (used)
		expect_near(v->in, at, v->at);
}

static void test_clock_scan(void **state)
{
	(void)state;
	for (size_t k = 0; k < sizeof clock_vectors / sizeof clock_vectors[0]; k++)
		check_clock_vector(&clock_vectors[k]);
}

/* A named zone is borrowed for one call; the caller's TZ comes back. */
static void test_clock_scan_restores_tz(void **state)
{
	const char *in = "6:30pm (Europe/Rome)";
	double at = 0;

	(void)state;
	use_tz("America/New_York");
	assert_int_equal(clock_scan(in, strlen(in), NOW, &at), strlen(in));
	assert_string_equal(getenv("TZ"), "America/New_York");
	assert_int_equal(clock_scan("3:28 PM", 7, NOW, &at), 7);
	expect_near("3:28 PM", at, 1796070480);

	use_tz(NULL);
	assert_int_equal(clock_scan(in, strlen(in), NOW, &at), strlen(in));
	assert_null(getenv("TZ"));
	expect_near(in, at, 1796059800);
}

/* A TZ too long to save is not clobbered: the named zone just fails. */
static void test_clock_scan_long_tz(void **state)
{
	char tz[400];
	const char *in = "6:30pm (Europe/Rome)";
	double at = 0;

	(void)state;
	memset(tz, 'A', sizeof tz - 1);
	tz[sizeof tz - 1] = '\0';
	use_tz(tz);
	assert_int_equal(clock_scan(in, strlen(in), NOW, &at), 0);
	assert_string_equal(getenv("TZ"), tz);
	use_tz("UTC");
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
		cmocka_unit_test(test_duration_parse),
		cmocka_unit_test(test_duration_scan),
		cmocka_unit_test(test_duration_scan_respects_length),
		cmocka_unit_test(test_time_parse),
		cmocka_unit_test(test_http_date_parse),
		cmocka_unit_test(test_epoch_normalize),
		cmocka_unit_test(test_clock_scan),
		cmocka_unit_test(test_clock_scan_restores_tz),
		cmocka_unit_test(test_clock_scan_long_tz),
		cmocka_unit_test(test_reset_from_text),
		cmocka_unit_test(test_reset_local_zone),
		cmocka_unit_test(test_reset_respects_length),
		cmocka_unit_test(test_reset_offer),
		cmocka_unit_test(test_reset_clamp),
		cmocka_unit_test(test_reset_big_inputs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
