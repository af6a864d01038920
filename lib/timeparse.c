/*
 * timeparse.c: durations, timestamps and wall-clock expressions.
 *
 * Every scanner here works on (pointer, length) and never reads past the
 * length, so callers can point into the middle of a stream line.  Numbers are
 * read by hand, not with strtod: strtod follows the locale's decimal point and
 * happily takes "1e308", "nan", "inf" and signs, none of which is a wait time.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "textutil.h"
#include "timeparse.h"

/* Go's time.Duration tops out at 2^63 ns; nothing real waits longer. */
#define DURATION_MAX_SECS 9223372036.854775807
/* 15 significant digits keep every integer exact in a double and still
 * cover 13-digit epoch milliseconds. */
#define DECIMAL_MAX_DIGITS 15
#define FRACTION_MAX_DIGITS 17
#define EPOCH_MS_THRESHOLD 1e12
#define ZONE_NAME_MAX 64
#define ZONEINFO_DIR "/usr/share/zoneinfo/"
/* A TZ value longer than this cannot be saved and restored; such a process
 * simply gets no named-zone resolution. */
#define TZ_SAVE_MAX 256
/* A month and day without a year: look this many years ahead for the next
 * occurrence (covers Feb 29). */
#define YEAR_ROLL_MAX 8

/* ---------- characters ---------- */

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_alnum(char c)
{
	return is_digit(c) || is_alpha(c);
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

/* Like prefix_nocase, but the word must not run on into more letters (a
 * digit may follow it: "5min", "utc+2"). */
static size_t ci_word_then_nonletter(const char *s, size_t len, const char *word)
{
	size_t n = prefix_nocase(s, len, word);

	if (n == 0 || (n < len && is_alpha(s[n])))
		return 0;
	return n;
}

static size_t skip_spaces(const char *s, size_t len, size_t i)
{
	while (i < len && is_space(s[i]))
		i++;
	return i;
}

/* ---------- numbers ---------- */

/* Fraction digits after the point, kept exact as an integer first. */
static size_t scan_fraction(const char *s, size_t len, double *frac)
{
	uint64_t digits = 0;
	double scale = 1;
	size_t i = 0;

	for (; i < len && is_digit(s[i]); i++) {
		if (i < FRACTION_MAX_DIGITS) {
			digits = digits * 10 + (uint64_t)(s[i] - '0');
			scale *= 10;
		}
	}
	*frac = (double)digits / scale;
	return i;
}

/*
 * DIGITS [ "." DIGITS ]: no sign, no exponent, no "nan".  A point not
 * followed by a digit is left alone ("in 35." ends a sentence).  Too many
 * significant digits is an overflow and scans nothing.
 */
static size_t scan_decimal(const char *s, size_t len, double *out)
{
	double value = 0, frac = 0;
	int significant = 0;
	size_t i = 0;

	for (; i < len && is_digit(s[i]); i++) {
		if (significant > 0 || s[i] != '0')
			significant++;
		if (significant > DECIMAL_MAX_DIGITS)
			return 0;
		value = value * 10 + (s[i] - '0');
	}
	if (i == 0)
		return 0;
	if (i + 1 < len && s[i] == '.' && is_digit(s[i + 1]))
		i += 1 + scan_fraction(s + i + 1, len - i - 1, &frac);
	*out = value + frac;
	return i;
}

/* Exactly min..max digits, and no digit right after them. */
static size_t scan_int(const char *s, size_t len, size_t min, size_t max, int *out)
{
	size_t i = 0;
	int value = 0;

	while (i < len && i < max && is_digit(s[i]))
		value = value * 10 + (s[i++] - '0');
	if (i < min || (i < len && is_digit(s[i])))
		return 0;
	*out = value;
	return i;
}

double epoch_normalize(double v)
{
	return v >= EPOCH_MS_THRESHOLD ? v / 1000 : v;
}

/* ---------- durations ---------- */

struct unit_name {
	const char *name;
	double secs;
};

/* Go / protobuf units: what duration_parse takes. */
static const struct unit_name go_units[] = {
	{ "d", 86400 }, { "h", 3600 }, { "m", 60 }, { "s", 1 },
	{ "ms", 1e-3 }, { "us", 1e-6 }, { "\xc2\xb5s", 1e-6 } /* U+00B5 */,
	{ "\xce\xbcs", 1e-6 } /* U+03BC */, { "ns", 1e-9 },
};

/* Words people write; duration_scan takes these and the Go units. */
static const struct unit_name word_units[] = {
	{ "weeks", 604800 }, { "week", 604800 }, { "w", 604800 },
	{ "days", 86400 }, { "day", 86400 },
	{ "hours", 3600 }, { "hour", 3600 }, { "hrs", 3600 }, { "hr", 3600 },
	{ "minutes", 60 }, { "minute", 60 }, { "mins", 60 }, { "min", 60 },
	{ "seconds", 1 }, { "second", 1 }, { "secs", 1 }, { "sec", 1 },
	{ "milliseconds", 1e-3 }, { "millisecond", 1e-3 }, { "msecs", 1e-3 },
	{ "msec", 1e-3 },
	{ "microseconds", 1e-6 }, { "microsecond", 1e-6 },
	{ "nanoseconds", 1e-9 }, { "nanosecond", 1e-9 },
};

/*
 * The longest unit in the table that ends at a non-letter.  Longest wins so
 * that "ms" is not read as "m" followed by garbage, and "min" not as "m".
 */
static size_t match_unit(const char *s, size_t len, const struct unit_name *units,
			 size_t count, double *secs)
{
	size_t best = 0;

	for (size_t k = 0; k < count; k++) {
		size_t n = ci_word_then_nonletter(s, len, units[k].name);

		if (n > best) {
			best = n;
			*secs = units[k].secs;
		}
	}
	return best;
}

static size_t scan_unit(const char *s, size_t len, bool words, double *secs)
{
	size_t n = match_unit(s, len, go_units, sizeof go_units / sizeof go_units[0], secs);

	if (words) {
		double word_secs = 0;
		size_t w = match_unit(s, len, word_units,
				      sizeof word_units / sizeof word_units[0], &word_secs);
		if (w > n) {
			n = w;
			*secs = word_secs;
		}
	}
	return n;
}

static bool duration_in_range(double secs)
{
	return isfinite(secs) && secs >= 0 && secs <= DURATION_MAX_SECS;
}

/* "1h30m", "6m0s", "0.539477544s": number-unit pairs with nothing between. */
static bool go_components(const char *s, size_t len, double *secs)
{
	double total = 0;
	size_t i = 0;

	while (i < len) {
		double value = 0, unit = 0;
		size_t n = scan_decimal(s + i, len - i, &value);
		size_t u = n ? scan_unit(s + i + n, len - i - n, false, &unit) : 0;

		if (u == 0)
			return false;
		total += value * unit;
		i += n + u;
	}
	*secs = total;
	return duration_in_range(total);
}

static bool duration_parse_n(const char *s, size_t len, double *secs)
{
	double value = 0;
	size_t start = skip_spaces(s, len, 0);

	while (len > start && is_space(s[len - 1]))
		len--;
	if (start == len)
		return false;
	s += start;
	len -= start;
	if (scan_decimal(s, len, &value) == len) {
		*secs = value;  /* a bare number is seconds, as in Retry-After */
		return duration_in_range(value);
	}
	return go_components(s, len, secs);
}

bool duration_parse(const char *s, double *secs)
{
	return s != NULL && duration_parse_n(s, strlen(s), secs);
}

/* Between components: spaces, commas and "and" ("2 days, 3 hours and 5 min"). */
static size_t skip_separators(const char *s, size_t len, size_t i)
{
	for (;;) {
		size_t j = skip_spaces(s, len, i);
		size_t n = 0;

		if (j < len && s[j] == ',')
			n = 1;
		else
			n = ci_word_then_nonletter(s + j, len - j, "and");
		if (n == 0)
			return j;
		i = j + n;
	}
}

/* "~231 min", "about 5 minutes": the hedge is not part of the number. */
static size_t skip_hedge(const char *s, size_t len, size_t i)
{
	size_t n;

	i = skip_spaces(s, len, i);
	if (i < len && s[i] == '~')
		return skip_spaces(s, len, i + 1);
	n = ci_word_then_nonletter(s + i, len - i, "about");
	if (n)
		return skip_spaces(s, len, i + n);
	return i;
}

/*
 * A number with no unit counts as seconds only when no word follows it:
 * "try again in 35." is 35 s, "try again in 2 business days" is nothing.
 */
static bool bare_number_ends(const char *s, size_t len, size_t i)
{
	if (i < len && is_alnum(s[i]))
		return false;
	i = skip_spaces(s, len, i);
	return i >= len || !is_alpha(s[i]);
}

/* One "number [spaces] unit" at s[i]; bytes used, 0 when there is none. */
static size_t scan_component(const char *s, size_t len, size_t i, double *secs)
{
	double value = 0, unit = 0;
	size_t n = scan_decimal(s + i, len - i, &value);
	size_t j, u;

	if (n == 0)
		return 0;
	j = skip_spaces(s, len, i + n);
	u = scan_unit(s + j, len - j, true, &unit);
	if (u == 0)
		return 0;
	*secs = value * unit;
	return j + u - i;
}

size_t duration_scan(const char *s, size_t len, double *secs)
{
	size_t start = skip_hedge(s, len, 0), end = start, next = start;
	double total = 0, part = 0;
	size_t n;

	while ((n = scan_component(s, len, next, &part)) > 0) {
		total += part;
		end = next + n;
		next = skip_separators(s, len, end);
	}
	if (end == start) {
		n = scan_decimal(s + start, len - start, &total);
		if (n == 0 || !bare_number_ends(s, len, start + n))
			return 0;
		end = start + n;
	}
	if (!duration_in_range(total))
		return 0;
	*secs = total;
	return end;
}

/* ---------- calendar arithmetic (proleptic Gregorian, no libc) ---------- */

struct ymd {
	int year, month, day;
};

static bool is_leap(int y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int days_in_month(int y, int m)
{
	static const int days[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };

	return (m == 2 && is_leap(y)) ? 29 : days[m - 1];
}

static bool ymd_valid(const struct ymd *d)
{
	return d->year >= 1000 && d->year <= 9999 && d->month >= 1 && d->month <= 12 &&
	       d->day >= 1 && d->day <= days_in_month(d->year, d->month);
}

/* Days since 1970-01-01 (H. Hinnant's days_from_civil). */
static long long days_from_civil(int year, int month, int day)
{
	long long y = year - (month <= 2);
	long long era = (y >= 0 ? y : y - 399) / 400;
	long long yoe = y - era * 400;
	long long doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
	long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;

	return era * 146097 + doe - 719468;
}

static struct ymd civil_from_days(long long z)
{
	z += 719468;
	long long era = (z >= 0 ? z : z - 146096) / 146097;
	long long doe = z - era * 146097;
	long long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	long long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	long long mp = (5 * doy + 2) / 153;
	int month = (int)(mp < 10 ? mp + 3 : mp - 9);
	struct ymd d = { (int)(yoe + era * 400 + (month <= 2)), month,
			 (int)(doy - (153 * mp + 2) / 5 + 1) };

	return d;
}

static long long floor_div(long long a, long long b)
{
	return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

static double utc_seconds(const struct ymd *d, int hour, int min, int sec)
{
	return (double)days_from_civil(d->year, d->month, d->day) * 86400 +
	       hour * 3600 + min * 60 + sec;
}

/* ---------- names ---------- */

static const char *const month_names[12] = {
	"january", "february", "march", "april", "may", "june", "july",
	"august", "september", "october", "november", "december",
};

static const char *const weekday_names[7] = {
	"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
};

static size_t letter_run(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len && is_alpha(s[i]))
		i++;
	return i;
}

/* Whole word equal to the name or to its first three letters. */
static bool word_is_name(const char *s, size_t n, const char *name)
{
	if (n != 3 && n != strlen(name))
		return false;
	for (size_t i = 0; i < n; i++)
		if (ascii_lower(s[i]) != name[i])
			return false;
	return true;
}

static size_t scan_month(const char *s, size_t len, int *month)
{
	size_t n = letter_run(s, len);

	for (int m = 0; m < 12; m++) {
		if (word_is_name(s, n, month_names[m])) {
			*month = m + 1;
			return n;
		}
	}
	if (n == 4 && prefix_nocase(s, n, "sept") == 4) {
		*month = 9;
		return n;
	}
	return 0;
}

static size_t scan_weekday(const char *s, size_t len)
{
	size_t n = letter_run(s, len);

	for (int w = 0; w < 7; w++)
		if (word_is_name(s, n, weekday_names[w]))
			return n;
	return 0;
}

/* ---------- zones ---------- */

enum zone_kind { ZONE_LOCAL, ZONE_FIXED, ZONE_NAMED };

struct zone {
	enum zone_kind kind;
	int offset;                 /* seconds east of UTC, ZONE_FIXED */
	char name[ZONE_NAME_MAX];   /* IANA name, ZONE_NAMED */
};

enum zone_scan { ZS_NONE, ZS_FOUND, ZS_BAD };

static bool zone_char_ok(char c)
{
	return is_alnum(c) || c == '_' || c == '/' || c == '+' || c == '-';
}

/* The name is only ever handed to TZ, so refuse anything that could walk
 * out of the zoneinfo tree or is not a compiled zone file.  '.' is not in
 * the allowed set, so ".." cannot appear. */
static bool zone_name_ok(const char *name, size_t n)
{
	char path[sizeof ZONEINFO_DIR + ZONE_NAME_MAX];
	struct stat st;

	if (n == 0 || n >= ZONE_NAME_MAX || !is_alpha(name[0]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!zone_char_ok(name[i]))
			return false;
	snprintf(path, sizeof path, "%s%.*s", ZONEINFO_DIR, (int)n, name);
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* "+5", "-3", "+05:30", "+0530", "-03:00": seconds east of UTC.  One-digit
 * hours only after a zone name ("GMT-3"); a bare offset needs two. */
static size_t scan_offset(const char *s, size_t len, bool short_hours, int *offset)
{
	int hours = 0, mins = 0;
	size_t i;

	if (len < 2 || (s[0] != '+' && s[0] != '-'))
		return 0;
	if (scan_int(s + 1, len - 1, 4, 4, &hours) == 4) {
		mins = hours % 100;
		hours /= 100;
		i = 5;
	} else {
		size_t n = scan_int(s + 1, len - 1, short_hours ? 1 : 2, 2, &hours);
		if (n == 0)
			return 0;
		i = 1 + n;
		if (i + 2 < len && s[i] == ':' && scan_int(s + i + 1, len - i - 1, 2, 2, &mins))
			i += 3;
	}
	if (hours > 14 || mins > 59)
		return 0;
	*offset = (s[0] == '-' ? -1 : 1) * (hours * 3600 + mins * 60);
	return i;
}

/* "UTC", "GMT", "UT", "Z", optionally followed by an offset: "GMT-3" is
 * three hours west, as people write it (not the inverted POSIX sense). */
static size_t scan_fixed_zone(const char *s, size_t len, struct zone *z)
{
	size_t n = ci_word_then_nonletter(s, len, "utc");
	int offset = 0;

	if (n == 0)
		n = ci_word_then_nonletter(s, len, "gmt");
	if (n == 0)
		n = ci_word_then_nonletter(s, len, "ut");
	if (n > 0) {
		size_t o = scan_offset(s + n, len - n, true, &offset);
		if (o == 0 && n < len && (s[n] == '+' || s[n] == '-'))
			return 0;  /* "UTC+" or "GMT+25": a broken offset */
		n += o;
	} else {
		n = ci_word_then_nonletter(s, len, "z");  /* Zulu takes no offset */
	}
	if (n == 0 || (n < len && is_alnum(s[n])))
		return 0;
	z->kind = ZONE_FIXED;
	z->offset = offset;
	return n;
}

/* "(Europe/Rome)", "(UTC)", "(GMT-3)".  A parenthesis that does not look
 * like a zone at all ("(see docs)") is no zone; one that looks like a zone
 * but is not in the database is a bad zone. */
static enum zone_scan scan_paren_zone(const char *s, size_t len, struct zone *z, size_t *used)
{
	size_t n = 1;

	if (len < 3 || s[0] != '(')
		return ZS_NONE;
	if (!is_alpha(s[1]))
		return ZS_NONE;  /* "(1/10)", "(429)" */
	while (n < len && n <= ZONE_NAME_MAX && (zone_char_ok(s[n]) || s[n] == '.' || s[n] == ':'))
		n++;
	if (n >= len || s[n] != ')')
		return ZS_NONE;
	*used = n + 1;
	if (scan_fixed_zone(s + 1, n - 1, z) == n - 1)
		return ZS_FOUND;
	if (!zone_name_ok(s + 1, n - 1))
		return ZS_BAD;
	z->kind = ZONE_NAMED;
	memcpy(z->name, s + 1, n - 1);
	z->name[n - 1] = '\0';
	return ZS_FOUND;
}

/* A zone right after a time: attached "Z"/"+01:00", or after spaces a bare
 * UTC/GMT[offset] or a parenthesised name. */
static enum zone_scan scan_zone(const char *s, size_t len, struct zone *z, size_t *used)
{
	size_t i = skip_spaces(s, len, 0), n;
	enum zone_scan r;

	if (i == 0 && (n = scan_offset(s, len, false, &z->offset)) > 0) {
		z->kind = ZONE_FIXED;
		*used = n;
		return ZS_FOUND;
	}
	r = scan_paren_zone(s + i, len - i, z, &n);
	if (r == ZS_NONE) {
		n = scan_fixed_zone(s + i, len - i, z);
		if (n == 0 || (i > 0 && n == 1))  /* a lone spaced "Z" is prose */
			return ZS_NONE;
		r = ZS_FOUND;
	}
	*used = i + n;
	return r;
}

/* ---------- switching TZ for one resolution ---------- */

struct tz_saved {
	bool was_set;
	char value[TZ_SAVE_MAX];
};

static bool tz_enter(const char *name, struct tz_saved *saved)
{
	const char *old = getenv("TZ");

	saved->was_set = old != NULL;
	if (old != NULL) {
		size_t n = strlen(old);
		if (n >= sizeof saved->value)
			return false;
		memcpy(saved->value, old, n + 1);  /* setenv may free old */
	}
	if (setenv("TZ", name, 1) != 0)
		return false;
	tzset();
	return true;
}

static void tz_leave(const struct tz_saved *saved)
{
	if (saved->was_set)
		setenv("TZ", saved->value, 1);
	else
		unsetenv("TZ");
	tzset();
}

/* ---------- wall clock to epoch ---------- */

struct when {
	struct ymd date;     /* month 0: no date; year 0: no year */
	int hour, min, sec;
	double frac;
	struct zone zone;
};

static bool zone_today(const struct zone *z, time_t now, struct ymd *today)
{
	struct tm tm;

	if (z->kind == ZONE_FIXED) {
		*today = civil_from_days(floor_div((long long)now + z->offset, 86400));
		return true;
	}
	if (localtime_r(&now, &tm) == NULL)
		return false;
	today->year = tm.tm_year + 1900;
	today->month = tm.tm_mon + 1;
	today->day = tm.tm_mday;
	return true;
}

/* Seconds east of UTC in force at t in the current TZ. */
static bool offset_at(time_t t, long *offset)
{
	struct tm tm;

	if (localtime_r(&t, &tm) == NULL)
		return false;
	*offset = tm.tm_gmtoff;
	return true;
}

/* Whether reading the wall time with this offset gives an instant at which
 * that offset is really in force. */
static bool offset_fits(double wall, long offset)
{
	long actual;

	return offset_at((time_t)(wall - (double)offset), &actual) && actual == offset;
}

/*
 * The wall time in the current TZ.  Not mktime: with tm_isdst = -1 its
 * answer in the repeated hour depends on glibc's cached guess from earlier
 * calls, and with a forced tm_isdst it searches for months in zones without
 * DST.  Instead, try the offsets in force a day before and a day after:
 *   fall-back hour (both fit): the earlier instant;
 *   spring-forward gap (neither fits): the offset from before the change,
 *   which moves the time forward by the gap (02:30 -> 03:30).
 * Both match what glibc's mktime with tm_isdst = -1 returns from a cold
 * start, but never vary.
 */
static bool local_to_epoch(const struct ymd *d, const struct when *w, double *out)
{
	double wall = utc_seconds(d, w->hour, w->min, w->sec);
	long before, after;
	bool fits_before, fits_after;

	if (!offset_at((time_t)(wall - 86400), &before) || !offset_at((time_t)(wall + 86400), &after))
		return false;
	fits_before = offset_fits(wall, before);
	fits_after = offset_fits(wall, after);
	if (fits_before && fits_after)
		*out = wall - (double)(before > after ? before : after);
	else if (fits_after)
		*out = wall - (double)after;
	else
		*out = wall - (double)before;  /* fits, or the gap */
	*out += w->frac;
	return true;
}

static bool wall_to_epoch(const struct zone *z, const struct ymd *d, const struct when *w,
			  double *out)
{
	if (z->kind == ZONE_FIXED) {
		*out = utc_seconds(d, w->hour, w->min, w->sec) - z->offset + w->frac;
		return true;
	}
	return local_to_epoch(d, w, out);
}

/* No date: today in that zone, or tomorrow when today's is already past.
 * Tomorrow is a calendar day, not +86400, so DST days come out right. */
static bool resolve_time_only(const struct when *w, const struct ymd *today, time_t now,
			      double *out)
{
	struct ymd d = *today;

	if (!wall_to_epoch(&w->zone, &d, w, out))
		return false;
	if (*out >= (double)now)
		return true;
	d = civil_from_days(days_from_civil(d.year, d.month, d.day) + 1);
	return wall_to_epoch(&w->zone, &d, w, out);
}

/* Month and day without a year: the next occurrence from this year on. */
static bool resolve_no_year(const struct when *w, const struct ymd *today, time_t now,
			    double *out)
{
	for (int y = today->year; y <= today->year + YEAR_ROLL_MAX; y++) {
		struct ymd d = { y, w->date.month, w->date.day };

		if (!ymd_valid(&d))
			continue;
		if (!wall_to_epoch(&w->zone, &d, w, out))
			return false;
		if (*out >= (double)now)
			return true;
	}
	return false;
}

static bool resolve_in_zone(const struct when *w, time_t now, double *out)
{
	struct ymd today;

	if (w->date.month != 0 && w->date.year != 0)
		return ymd_valid(&w->date) && wall_to_epoch(&w->zone, &w->date, w, out);
	if (!zone_today(&w->zone, now, &today))
		return false;
	if (w->date.month == 0)
		return resolve_time_only(w, &today, now, out);
	return resolve_no_year(w, &today, now, out);
}

static bool resolve_when(const struct when *w, time_t now, double *out)
{
	struct tz_saved saved;
	bool ok;

	if (w->zone.kind != ZONE_NAMED)
		return resolve_in_zone(w, now, out);
	if (!tz_enter(w->zone.name, &saved))
		return false;
	ok = resolve_in_zone(w, now, out);
	tz_leave(&saved);
	return ok;
}

/* ---------- scanning a when ---------- */

/* "am", "pm", "a.m.", "p.m."; *pm tells which. */
static size_t scan_meridiem(const char *s, size_t len, bool *pm)
{
	static const char *const forms[] = { "am", "a.m.", "pm", "p.m." };

	for (size_t k = 0; k < 4; k++) {
		size_t n = prefix_nocase(s, len, forms[k]);

		if (n && !(n < len && is_alnum(s[n]))) {
			*pm = k >= 2;
			return n;
		}
	}
	return 0;
}

static size_t scan_seconds(const char *s, size_t len, struct when *w)
{
	size_t n;

	if (len < 3 || s[0] != ':' || (n = scan_int(s + 1, len - 1, 2, 2, &w->sec)) == 0)
		return 0;
	n += 1;
	if (n + 1 < len && s[n] == '.' && is_digit(s[n + 1]))
		n += 1 + scan_fraction(s + n + 1, len - n - 1, &w->frac);
	return n;
}

/* Hour in 12-hour form to 24: 12am is 0, 12pm is 12. */
static bool apply_meridiem(struct when *w, bool pm)
{
	if (w->hour < 1 || w->hour > 12)
		return false;
	w->hour = w->hour % 12 + (pm ? 12 : 0);
	return true;
}

/* "6:30pm", "2am", "12:16 PM", "14:00", "08:49:37", "00:00:00.5".
 * Without am/pm a colon is required: a bare "5" is not a time.  Only a
 * zone letter may touch the digits ("14:00Z"), not a word ("14:00abc"). */
static size_t scan_clock_fields(const char *s, size_t len, struct when *w)
{
	size_t i = scan_int(s, len, 1, 2, &w->hour), m, j;
	bool colon = false, pm = false;

	w->min = w->sec = 0;
	w->frac = 0;
	if (i == 0)
		return 0;
	if (i + 2 < len && s[i] == ':' && scan_int(s + i + 1, len - i - 1, 2, 2, &w->min)) {
		colon = true;
		i += 3;
		i += scan_seconds(s + i, len - i, w);
	}
	j = skip_spaces(s, len, i);
	m = scan_meridiem(s + j, len - j, &pm);
	if (m) {
		if (!apply_meridiem(w, pm))
			return 0;
		i = j + m;
	} else if (!colon || (i < len && is_alpha(s[i]) && s[i] != 'Z' && s[i] != 'z')) {
		return 0;
	}
	if (w->hour > 23 || w->min > 59 || w->sec > 60)
		return 0;
	if (w->sec == 60) { /* leap second: one past :59 */
		w->sec = 59;
		w->frac += 1;
	}
	return i;
}

/* On failure the when keeps no half-read hour. */
static size_t scan_time_of_day(const char *s, size_t len, struct when *w)
{
	struct when tmp = *w;
	size_t n = scan_clock_fields(s, len, &tmp);

	if (n > 0)
		*w = tmp;
	return n;
}

/* After a date: [","] spaces ["at"] time.  Nothing is used when no time follows. */
static size_t scan_time_after_date(const char *s, size_t len, struct when *w)
{
	size_t i = 0, n;

	if (i < len && s[i] == ',')
		i++;
	i = skip_spaces(s, len, i);
	n = ci_word_then_nonletter(s + i, len - i, "at");
	if (n)
		i = skip_spaces(s, len, i + n);
	n = scan_time_of_day(s + i, len - i, w);
	return n ? i + n : 0;
}

/* "2026-08-01", then "T14:00:00", " 14:00:00" or " at 00:00". */
static size_t scan_iso(const char *s, size_t len, struct when *w)
{
	size_t n;

	if (len < 10 || scan_int(s, 4, 4, 4, &w->date.year) != 4 || s[4] != '-' ||
	    scan_int(s + 5, 2, 2, 2, &w->date.month) != 2 || s[7] != '-' ||
	    scan_int(s + 8, len - 8, 2, 2, &w->date.day) != 2)
		return 0;
	if (!ymd_valid(&w->date))
		return 0;
	if (len > 10 && (s[10] == 'T' || s[10] == 't')) {
		n = scan_time_of_day(s + 11, len - 11, w);
		return n ? 11 + n : 0;
	}
	if (len > 10 && is_alpha(s[10]))
		return 0;
	n = scan_time_after_date(s + 10, len - 10, w);
	return 10 + n;
}

/* "st", "nd", "rd", "th" after a day number. */
static size_t scan_ordinal(const char *s, size_t len)
{
	static const char *const suffixes[] = { "st", "nd", "rd", "th" };

	for (size_t k = 0; k < 4; k++) {
		size_t n = ci_word_then_nonletter(s, len, suffixes[k]);
		if (n)
			return n;
	}
	return 0;
}

/* [","] spaces YYYY, where YYYY is not the hour of "2026:..". */
static size_t scan_year_after_day(const char *s, size_t len, int *year)
{
	size_t i = 0, n;

	if (i < len && s[i] == ',')
		i++;
	i = skip_spaces(s, len, i);
	if (i == 0)
		return 0;
	n = scan_int(s + i, len - i, 4, 4, year);
	if (n == 0 || (i + n < len && (s[i + n] == ':' || is_alpha(s[i + n]))))
		return 0;
	return i + n;
}

/* "Jul 31", "Dec 2nd, 2026", "Sep 15 at 7pm", "Jul 31, 2am". */
static size_t scan_month_day(const char *s, size_t len, struct when *w)
{
	size_t i = scan_month(s, len, &w->date.month), n;

	if (i == 0)
		return 0;
	if (i < len && s[i] == '.')
		i++;
	n = skip_spaces(s, len, i);
	if (n == i)
		return 0;
	i = n;
	n = scan_int(s + i, len - i, 1, 2, &w->date.day);
	if (n == 0 || w->date.day < 1 || w->date.day > 31)
		return 0;
	i += n;
	i += scan_ordinal(s + i, len - i);
	if (i < len && is_alnum(s[i]))
		return 0;
	i += scan_year_after_day(s + i, len - i, &w->date.year);
	return i + scan_time_after_date(s + i, len - i, w);
}

/* The date and time part; the default zone follows the form: numeric ISO
 * dates are UTC (as in RFC 3339), everything else is the local zone. */
static size_t scan_when_body(const char *s, size_t len, struct when *w)
{
	size_t n = scan_iso(s, len, w);

	if (n) {
		w->zone.kind = ZONE_FIXED;
		return n;
	}
	w->date.year = w->date.month = w->date.day = 0;
	w->zone.kind = ZONE_LOCAL;
	n = scan_month_day(s, len, w);
	if (n)
		return n;
	w->date.year = w->date.month = w->date.day = 0;
	return scan_time_of_day(s, len, w);
}

/* Bytes used, 0 when there is no when or its zone is unknown. */
static size_t scan_when(const char *s, size_t len, struct when *w)
{
	size_t start = skip_spaces(s, len, 0), n, z = 0;
	struct zone zone = { ZONE_LOCAL, 0, "" };

	memset(w, 0, sizeof *w);
	n = scan_when_body(s + start, len - start, w);
	if (n == 0)
		return 0;
	n += start;
	switch (scan_zone(s + n, len - n, &zone, &z)) {
	case ZS_BAD:
		return 0;
	case ZS_FOUND:
		w->zone = zone;
		n += z;
		break;
	case ZS_NONE:
		break;
	}
	return n;
}

size_t clock_scan(const char *s, size_t len, time_t now, double *t)
{
	struct when w;
	size_t n = scan_when(s, len, &w);

	if (n == 0 || !resolve_when(&w, now, t))
		return 0;
	return n;
}

/* ---------- whole-string timestamps ---------- */

static bool trim(const char **s, size_t *len)
{
	size_t start = skip_spaces(*s, *len, 0);

	while (*len > start && is_space((*s)[*len - 1]))
		(*len)--;
	*s += start;
	*len -= start;
	return *len > 0;
}

bool time_parse(const char *s, double *t)
{
	size_t len = s ? strlen(s) : 0;
	struct when w;
	double v = 0;

	if (!trim(&s, &len))
		return false;
	if (scan_decimal(s, len, &v) == len) {
		*t = epoch_normalize(v);
		return true;
	}
	/* Only the numeric ISO form: a month-name date has no business here. */
	return scan_when(s, len, &w) == len && is_digit(s[0]) && w.date.year != 0 &&
	       resolve_when(&w, 0, t);
}

/* "08:49:37" */
static size_t scan_hms(const char *s, size_t len, struct when *w)
{
	if (len < 8 || scan_int(s, 2, 2, 2, &w->hour) != 2 || s[2] != ':' ||
	    scan_int(s + 3, 2, 2, 2, &w->min) != 2 || s[5] != ':' ||
	    scan_int(s + 6, len - 6, 2, 2, &w->sec) != 2)
		return 0;
	return w->hour <= 23 && w->min <= 59 && w->sec <= 60 ? 8 : 0;
}

/* Space-separated fields, each parsed by one of the tiny readers below. */
struct cursor {
	const char *s;
	size_t len, i;
	bool ok;
};

static void need_spaces(struct cursor *c)
{
	size_t j = skip_spaces(c->s, c->len, c->i);

	c->ok = c->ok && j > c->i;
	c->i = j;
}

static void need_char(struct cursor *c, char ch)
{
	c->ok = c->ok && c->i < c->len && c->s[c->i] == ch;
	c->i += c->ok;
}

static void need_int(struct cursor *c, size_t min, size_t max, int *out)
{
	size_t n = c->ok ? scan_int(c->s + c->i, c->len - c->i, min, max, out) : 0;

	c->ok = n > 0;
	c->i += n;
}

static void need_month(struct cursor *c, int *month)
{
	size_t n = c->ok ? scan_month(c->s + c->i, c->len - c->i, month) : 0;

	c->ok = n == 3;
	c->i += n;
}

static void need_hms(struct cursor *c, struct when *w)
{
	size_t n = c->ok ? scan_hms(c->s + c->i, c->len - c->i, w) : 0;

	c->ok = n > 0;
	c->i += n;
}

static void need_gmt(struct cursor *c)
{
	size_t n = 0;

	if (c->ok) {
		n = ci_word_then_nonletter(c->s + c->i, c->len - c->i, "GMT");
		if (n == 0)
			n = ci_word_then_nonletter(c->s + c->i, c->len - c->i, "UTC");
	}
	c->ok = n > 0;
	c->i += n;
}

/* RFC 850's two-digit year: 70-99 are 19xx, 00-69 are 20xx (a fixed pivot
 * rather than RFC 9110's "50 years from now", so the parse never depends on
 * the clock; the two differ only for 2070-2076, which are absurd resets). */
static int full_year(int yy)
{
	return yy >= 70 ? 1900 + yy : 2000 + yy;
}

/* "06 Nov 1994 08:49:37 GMT" (IMF) or "06-Nov-94 08:49:37 GMT" (RFC 850) */
static void http_after_comma(struct cursor *c, struct when *w)
{
	need_spaces(c);
	need_int(c, 1, 2, &w->date.day);
	if (c->ok && c->i < c->len && c->s[c->i] == '-') {
		need_char(c, '-');
		need_month(c, &w->date.month);
		need_char(c, '-');
		need_int(c, 2, 2, &w->date.year);
		w->date.year = full_year(w->date.year);
	} else {
		need_spaces(c);
		need_month(c, &w->date.month);
		need_spaces(c);
		need_int(c, 4, 4, &w->date.year);
	}
	need_spaces(c);
	need_hms(c, w);
	need_spaces(c);
	need_gmt(c);
}

/* asctime: " Nov  6 08:49:37 1994" after the weekday. */
static void http_asctime(struct cursor *c, struct when *w)
{
	need_spaces(c);
	need_month(c, &w->date.month);
	need_spaces(c);
	need_int(c, 1, 2, &w->date.day);
	need_spaces(c);
	need_hms(c, w);
	need_spaces(c);
	need_int(c, 4, 4, &w->date.year);
}

static bool http_date_parse_n(const char *s, size_t len, double *t)
{
	struct cursor c = { s, len, 0, true };
	struct when w;

	memset(&w, 0, sizeof w);
	c.i = scan_weekday(s, len);
	if (c.i == 0)
		return false;
	if (c.i < len && s[c.i] == ',') {
		c.i++;
		http_after_comma(&c, &w);
	} else {
		http_asctime(&c, &w);
	}
	if (!c.ok || c.i != len || !ymd_valid(&w.date))
		return false;
	*t = utc_seconds(&w.date, w.hour, w.min, w.sec);
	return true;
}

bool http_date_parse(const char *s, double *t)
{
	size_t len = s ? strlen(s) : 0;

	return trim(&s, &len) && http_date_parse_n(s, len, t);
}
