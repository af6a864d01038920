/*
 * test_timeparse.c: unit tests for lib/timeparse.c: durations, timestamps,
 * HTTP dates and clock times.
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
