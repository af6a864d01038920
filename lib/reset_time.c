/*
 * reset_time.c: finding "wait until T" in what a provider or an agent printed.
 *
 * One pass over the text.  At each word start we try the few header/field
 * names and prose phrases that announce a wait, parse the value right after,
 * and offer it.  Every name or phrase is a bounded compare and every value
 * parse stops at the first byte that cannot continue it, so the scan stays
 * linear however hostile the text.
 */
#include <math.h>
#include <string.h>

#include "reset_time.h"
#include "textutil.h"
#include "timeparse.h"

/* Beyond a year ahead a reset is absurd rather than merely long. */
#define RESET_ABSURD_AHEAD (366 * 86400)
/* Longer names are none of ours; longer values are none we can parse. */
#define FIELD_TOKEN_MAX 64
/* Epoch-ish values this small are a delay in seconds (one Claude proxy sends
 * anthropic-ratelimit-unified-reset: 3), not a date in 1970. */
#define EPOCH_MIN_ABSOLUTE 1e7
/* How far back to look for the word "retrying" before a phrase. */
#define RETRYING_LOOKBACK 24

void reset_clear(struct reset *r)
{
	r->at = 0;
	r->source = RESET_SRC_NONE;
	r->rank = RANK_NONE;
}

void reset_offer(struct reset *best, double at, enum reset_source src, enum reset_rank rank)
{
	if (!isfinite(at) || at <= 0)
		return;
	if (best->at == 0 || rank < best->rank || (rank == best->rank && at > best->at)) {
		best->at = at;
		best->source = src;
		best->rank = rank;
	}
}

void reset_clamp(struct reset *r, time_t now)
{
	double t = (double)now;

	/* A reset at now is no wait, as a zero delay is none (offer_delay). */
	if (!isfinite(r->at) || r->at <= 0 || r->at <= t || r->at > t + RESET_ABSURD_AHEAD) {
		reset_clear(r);
		return;
	}
	if (r->at > t + RESET_MAX_AHEAD)
		r->at = t + RESET_MAX_AHEAD;
}

/* ---------- text helpers ---------- */

static bool is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_alnum(char c)
{
	return is_alpha(c) || (c >= '0' && c <= '9');
}

static bool is_name_char(char c)
{
	return is_alnum(c) || c == '-' || c == '_';
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* A whole word: the match must not run on into letters or digits. */
static size_t ci_whole_word(const char *s, size_t len, const char *word)
{
	size_t n = prefix_nocase(s, len, word);

	return (n == 0 || (n < len && is_alnum(s[n]))) ? 0 : n;
}

static bool ci_equal(const char *s, size_t n, const char *word)
{
	return strlen(word) == n && prefix_nocase(s, n, word) == n;
}

static bool ci_ends_with(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);

	return n >= k && prefix_nocase(s + n - k, k, suffix) == k;
}

static size_t skip_blanks(const char *s, size_t len, size_t i)
{
	while (i < len && is_blank(s[i]))
		i++;
	return i;
}

/*
 * A token may begin at i when what precedes it cannot be part of it.  Text
 * with escaped line breaks ("limit: 20\\nPlease retry in 45s") counts the
 * escape as a break, or "Please" would hide behind the 'n'.
 */
static bool starts_after(const char *s, size_t i, bool (*part)(char))
{
	if (i == 0 || !part(s[i - 1]))
		return true;
	return i >= 2 && s[i - 2] == '\\' && (s[i - 1] == 'n' || s[i - 1] == 't' || s[i - 1] == 'r');
}

/* ---------- candidates ---------- */

/* Offers only what could be a real reset, so that a stale or absurd value
 * from a trusted source does not hide a usable one from a weaker source. */
static void offer_sane(struct reset *best, double at, time_t now, enum reset_source src,
		       enum reset_rank rank)
{
	double t = (double)now;

	if (isfinite(at) && at > t && at <= t + RESET_ABSURD_AHEAD)
		reset_offer(best, at, src, rank);
}

static void offer_delay(struct reset *best, double secs, time_t now, enum reset_source src,
			enum reset_rank rank)
{
	if (secs > 0)  /* a zero wait is no reset */
		offer_sane(best, (double)now + secs, now, src, rank);
}

/* ---------- header lines and structured fields ---------- */

enum value_kind {
	VALUE_NONE,
	VALUE_MS,            /* delay in milliseconds */
	VALUE_SECS_OR_DATE,  /* Retry-After: delay-seconds or HTTP-date */
	VALUE_SECS,          /* delay in seconds */
	VALUE_DURATION,      /* Go / protobuf duration text */
	VALUE_ABSOLUTE,      /* epoch s/ms or RFC 3339 */
};

struct field_rule {
	enum value_kind kind;
	enum reset_rank rank;
};

/* Names compared whole and case-insensitively; client backoff fields
 * (retry_delay_ms, delayMs) are deliberately absent. */
static const struct {
	const char *name;
	struct field_rule rule;
} exact_fields[] = {
	{ "retry-after-ms", { VALUE_MS, RANK_RETRY_AFTER_MS } },
	{ "retry-after", { VALUE_SECS_OR_DATE, RANK_RETRY_AFTER } },
	{ "retry_after_seconds", { VALUE_SECS, RANK_RETRY_AFTER } },
	{ "resets_in_seconds", { VALUE_SECS, RANK_RETRY_AFTER } },
	{ "retryDelay", { VALUE_DURATION, RANK_PROTOBUF } },
	{ "ratelimit-reset", { VALUE_DURATION, RANK_GO_DURATION } },
	{ "ratelimitbysize-reset", { VALUE_DURATION, RANK_GO_DURATION } },
	{ "x-ratelimit-reset", { VALUE_ABSOLUTE, RANK_EPOCH_FIELD } },
	{ "resetsAt", { VALUE_ABSOLUTE, RANK_EPOCH_FIELD } },
	{ "resets_at", { VALUE_ABSOLUTE, RANK_EPOCH_FIELD } },
	{ "resetAt", { VALUE_ABSOLUTE, RANK_EPOCH_FIELD } },
	{ "reset_at", { VALUE_ABSOLUTE, RANK_EPOCH_FIELD } },
};

static struct field_rule field_rule_for(const char *name, size_t n)
{
	static const struct field_rule none = { VALUE_NONE, RANK_NONE };

	for (size_t k = 0; k < sizeof exact_fields / sizeof exact_fields[0]; k++)
		if (ci_equal(name, n, exact_fields[k].name))
			return exact_fields[k].rule;
	/* x-ratelimit-reset-requests / -tokens: Go duration text */
	if (n > 18 && prefix_nocase(name, n, "x-ratelimit-reset-") == 18)
		return (struct field_rule){ VALUE_DURATION, RANK_GO_DURATION };
	/* x-codex-primary-reset-after-seconds */
	if (ci_ends_with(name, n, "-reset-after-seconds"))
		return (struct field_rule){ VALUE_SECS, RANK_RETRY_AFTER };
	/* anthropic-ratelimit-unified-reset, x-codex-primary-reset-at */
	if (ci_ends_with(name, n, "-reset") || ci_ends_with(name, n, "-reset-at"))
		return (struct field_rule){ VALUE_ABSOLUTE, RANK_EPOCH_FIELD };
	return none;
}

static bool is_quote(char c)
{
	return c == '"' || c == '\'' || c == '\\';
}

/* `: `, `":"`, `': '`, `\":\"`, `=`: where a field name meets its value. */
static size_t skip_field_separator(const char *s, size_t len, size_t i)
{
	while (i < len && (is_quote(s[i]) || s[i] == ' ' || s[i] == '\t'))
		i++;
	if (i >= len || (s[i] != ':' && s[i] != '='))
		return 0;
	i++;
	while (i < len && (is_quote(s[i]) || s[i] == ' ' || s[i] == '\t'))
		i++;
	return i;
}

/* The value as a token: up to a quote, a comma, a brace or a line end. */
static size_t value_token(const char *s, size_t len, size_t i)
{
	size_t end = i;

	while (end < len && end - i < FIELD_TOKEN_MAX && !is_quote(s[end]) && s[end] != ',' &&
	       s[end] != '}' && s[end] != ';' && !is_blank(s[end]))
		end++;
	return end;
}

/* Copies the token for the whole-string parsers, which want a NUL. */
static bool token_copy(const char *s, size_t n, char *buf, size_t size)
{
	if (n == 0 || n >= size)
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return true;
}

/* Digits with at most one point: a delay number, not "6m0s" or a date. */
static bool plain_number(const char *s, size_t n, double *v)
{
	char buf[FIELD_TOKEN_MAX + 1];
	size_t points = 0;

	for (size_t k = 0; k < n; k++) {
		if (s[k] == '.')
			points++;
		else if (s[k] < '0' || s[k] > '9')
			return false;
	}
	return points <= 1 && token_copy(s, n, buf, sizeof buf) && duration_parse(buf, v);
}

/* An HTTP-date has commas and spaces, so it runs to the line end or a
 * quote, and stops after "GMT" when more text follows on the line. */
static size_t date_token(const char *s, size_t len, size_t i)
{
	size_t end = i;

	while (end < len && end - i < FIELD_TOKEN_MAX && s[end] != '"' && s[end] != '\'' &&
	       s[end] != '\\' && s[end] != '\r' && s[end] != '\n') {
		end++;
		if (end - i >= 3 && prefix_nocase(s + end - 3, 3, "GMT") == 3)
			break;
	}
	return end;
}

static size_t offer_http_date(const char *s, size_t len, size_t i, time_t now,
			      enum reset_rank rank, struct reset *best)
{
	char buf[FIELD_TOKEN_MAX + 1];
	size_t end = date_token(s, len, i);
	double t = 0;

	if (!token_copy(s + i, end - i, buf, sizeof buf) || !http_date_parse(buf, &t))
		return 0;
	offer_sane(best, t, now, RESET_SRC_PROVIDER, rank);
	return end;
}

static void offer_absolute(struct reset *best, double v, time_t now, enum reset_rank rank)
{
	v = epoch_normalize(v);
	if (v > 0 && v < EPOCH_MIN_ABSOLUTE)
		offer_delay(best, v, now, RESET_SRC_PROVIDER, rank);
	else
		offer_sane(best, v, now, RESET_SRC_PROVIDER, rank);
}

/* Parses the token of one kind and offers it; false when it did not parse. */
static bool offer_token(const char *tok, size_t n, struct field_rule rule, time_t now,
			struct reset *best)
{
	char buf[FIELD_TOKEN_MAX + 1];
	double v = 0;

	switch (rule.kind) {
	case VALUE_MS:
		if (!plain_number(tok, n, &v))
			return false;
		offer_delay(best, v / 1000, now, RESET_SRC_PROVIDER, rule.rank);
		return true;
	case VALUE_SECS_OR_DATE:
	case VALUE_SECS:
		if (!plain_number(tok, n, &v))
			return false;
		offer_delay(best, v, now, RESET_SRC_PROVIDER, rule.rank);
		return true;
	case VALUE_DURATION:
		if (!token_copy(tok, n, buf, sizeof buf) || !duration_parse(buf, &v))
			return false;
		offer_delay(best, v, now, RESET_SRC_PROVIDER, rule.rank);
		return true;
	case VALUE_ABSOLUTE:
		if (!token_copy(tok, n, buf, sizeof buf) || !time_parse(buf, &v))
			return false;
		offer_absolute(best, v, now, rule.rank);
		return true;
	case VALUE_NONE:
		break;
	}
	return false;
}

/* The value at i; end of what was used, 0 when it did not parse.
 * Retry-After is digits first: the two forms are disjoint (RFC 9110). */
static size_t parse_field_value(const char *s, size_t len, size_t i, struct field_rule rule,
				time_t now, struct reset *best)
{
	size_t end = value_token(s, len, i);

	if (offer_token(s + i, end - i, rule, now, best))
		return end;
	if (rule.kind == VALUE_SECS_OR_DATE)
		return offer_http_date(s, len, i, now, rule.rank, best);
	return 0;
}

/* A header or field name at i; end of its value, 0 when there is none. */
static size_t try_field(const char *s, size_t len, size_t i, time_t now, struct reset *best)
{
	size_t end = i, value;
	struct field_rule rule;

	while (end < len && end - i <= FIELD_TOKEN_MAX && is_name_char(s[end]))
		end++;
	if (end == i || end - i > FIELD_TOKEN_MAX)
		return 0;
	rule = field_rule_for(s + i, end - i);
	if (rule.kind == VALUE_NONE)
		return 0;
	value = skip_field_separator(s, len, end);
	if (value == 0)
		return 0;
	return parse_field_value(s, len, value, rule, now, best);
}

/* ---------- prose ---------- */

/* The word just before i is "retrying": the agent announcing its own
 * backoff ("Retrying in 4s · attempt 6/10"), never the provider's reset. */
static bool after_retrying(const char *s, size_t i)
{
	size_t floor = i > RETRYING_LOOKBACK ? i - RETRYING_LOOKBACK : 0, end = i, start;

	while (end > floor && !is_alpha(s[end - 1]))
		end--;
	start = end;
	while (start > floor && is_alpha(s[start - 1]))
		start--;
	return ci_equal(s + start, end - start, "retrying");
}

static size_t offer_duration_text(const char *s, size_t len, size_t i, time_t now,
				  struct reset *best)
{
	double secs = 0;
	size_t n = duration_scan(s + i, len - i, &secs);

	if (n == 0)
		return 0;
	offer_delay(best, secs, now, RESET_SRC_TEXT, RANK_TEXT);
	return i + n;
}

static size_t offer_clock_text(const char *s, size_t len, size_t i, time_t now,
			       struct reset *best)
{
	double t = 0;
	size_t n = clock_scan(s + i, len - i, now, &t);

	if (n == 0)
		return 0;
	offer_sane(best, t, now, RESET_SRC_TEXT, RANK_TEXT);
	return i + n;
}

struct phrase {
	const char *words;
	bool bare_clock;   /* a clock may follow with no "at"/"on" */
};

static const struct phrase phrases[] = {
	{ "try again", true },      /* "try again in 5m", "try again at 3:28 PM", "Try again Aug 18" */
	{ "retry", false },         /* "Please retry in 41.2s", "retry after 20 seconds" */
	{ "resets", true },         /* "resets 6:30pm (Europe/Rome)", "Access resets at ..." */
	{ "reset", true },          /* "will reset after 3h20m5s", "will reset at 3pm (...)" */
	{ "regain access", false }, /* "regain access on 2026-08-01 at 00:00 UTC" */
};

/* What follows a phrase: "in"/"after" and a duration, or ["at"|"on"] and a clock. */
static size_t offer_after_phrase(const char *s, size_t len, size_t i, bool bare_clock,
				 time_t now, struct reset *best)
{
	size_t j = skip_blanks(s, len, i), n;

	if ((n = ci_whole_word(s + j, len - j, "in")) > 0 || (n = ci_whole_word(s + j, len - j, "after")) > 0)
		return offer_duration_text(s, len, j + n, now, best);
	if ((n = ci_whole_word(s + j, len - j, "at")) > 0 || (n = ci_whole_word(s + j, len - j, "on")) > 0)
		return offer_clock_text(s, len, j + n, now, best);
	return bare_clock ? offer_clock_text(s, len, j, now, best) : 0;
}

/* "usage limit reached|1755615600", "...|1755615600000", "...|2026-08-19T15:00:00Z":
 * Claude's old machine-readable suffix.  The CLI put the provider's own reset
 * there, so it ranks with the epoch fields and its source is PROVIDER
 * (docs/design.md section 4), though it is read out of a message. */
static bool is_stamp_char(char c)
{
	return (c >= '0' && c <= '9') || c == '-' || c == ':' || c == '.' || c == '+' ||
	    c == 'T' || c == 'Z';
}

static size_t try_pipe_epoch(const char *s, size_t len, size_t i, time_t now,
			     struct reset *best)
{
	char buf[FIELD_TOKEN_MAX + 1];
	size_t j = prefix_nocase(s + i, len - i, "usage limit reached"), end;
	double t = 0;

	if (j == 0)
		return 0;
	j = skip_blanks(s, len, i + j);
	if (j >= len || s[j] != '|')
		return 0;
	j = skip_blanks(s, len, j + 1);
	for (end = j; end < len && end - j < 32 && is_stamp_char(s[end]); end++)
		;
	while (end > j && (s[end - 1] == '.' || s[end - 1] == ':'))   /* the sentence's own */
		end--;
	if (!token_copy(s + j, end - j, buf, sizeof buf) || !time_parse(buf, &t))
		return 0;
	offer_sane(best, epoch_normalize(t), now, RESET_SRC_PROVIDER, RANK_EPOCH_FIELD);
	return end;
}

static size_t try_phrase(const char *s, size_t len, size_t i, time_t now, struct reset *best)
{
	size_t end = try_pipe_epoch(s, len, i, now, best);

	if (end > 0)
		return end;
	for (size_t k = 0; k < sizeof phrases / sizeof phrases[0]; k++) {
		size_t n = ci_whole_word(s + i, len - i, phrases[k].words);

		if (n == 0)
			continue;
		if (after_retrying(s, i))
			return 0;
		return offer_after_phrase(s, len, i + n, phrases[k].bare_clock, now, best);
	}
	return 0;
}

/* End of whatever starts at i, or 0 when nothing does. */
static size_t scan_at(const char *s, size_t len, size_t i, time_t now, struct reset *best)
{
	size_t end = 0;

	if (!is_alpha(s[i]))
		return 0;
	if (starts_after(s, i, is_name_char))
		end = try_field(s, len, i, now, best);
	if (end == 0 && starts_after(s, i, is_alnum))
		end = try_phrase(s, len, i, now, best);
	return end;
}

bool reset_from_text(const char *s, size_t len, time_t now, struct reset *out)
{
	size_t i = 0;

	reset_clear(out);
	if (s == NULL)
		return false;
	while (i < len) {
		size_t end = scan_at(s, len, i, now, out);

		i = end > i ? end : i + 1;
	}
	return out->at != 0;
}
