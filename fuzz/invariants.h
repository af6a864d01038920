/*
 * fuzz/invariants.h: what the fuzz harnesses check, shared with
 * tests/test_fuzz_regress.c so that `make check` replays every saved finding
 * through exactly the code that found it.
 *
 * check_classify_input(), check_timeparse_input(), check_config_input()
 * and check_jsonsubset_input() take one fuzz input and
 * return NULL when every property holds, else a short text naming the one
 * that broke.  The harnesses abort() on it (so libFuzzer keeps the input);
 * the regression test fails on it.  Memory errors and leaks are left to
 * ASan/LSan.
 *
 * Input layouts (fuzz/seed.sh writes seeds in them):
 *   classify:  [family][exit code][TZ and filler][chunk seed] stream bytes...
 *              (TZ byte bit 4: feed a line of about CLASSIFY_LINE_MAX bytes
 *              first, so that a 64 KiB input reaches the line cap; bit 2:
 *              open a pretty-printed document before it, to reach its cap)
 *   timeparse: [TZ][now hi][now mid][now lo] text bytes...
 *   config:    the bytes of an rlwrap.conf(5) file, no header
 *   jsonsubset: one JSON line, no header
 * A short input leaves the missing header bytes 0.
 */
#ifndef RLWRAP_FUZZ_INVARIANTS_H
#define RLWRAP_FUZZ_INVARIANTS_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "classify.h"
#include "conf.h"
#include "dialect.h"
#include "heartbeat.h"
#include "linescan.h"
#include "jsonsubset.h"
#include "reset_time.h"
#include "failsignal.h"
#include "timeparse.h"

#define FUZZ_HEADER 4
#define FUZZ_NOW 1796040000  /* 2026-11-30T12:00:00Z, as in the golden fixtures */
#define FUZZ_JSON_KEYS 16    /* the docs/design.md section 4 object has exactly these */

static inline uint8_t
fuzz_header_byte(const uint8_t *data, size_t size, size_t i)
{
	return i < size ? data[i] : 0;
}

/* Zones with DST, half-hour and 45-minute offsets, a POSIX rule, and one
 * too long for timeparse to save (it must then refuse named zones). */
static inline const char *
fuzz_tz(uint8_t b)
{
	static char too_long[300];
	static const char *const zones[] = {
		NULL, "UTC", "Europe/Rome", "America/New_York", "Australia/Lord_Howe",
		"Asia/Kathmandu", "EST5EDT,M3.2.0,M11.1.0", too_long,
	};

	if (too_long[0] == '\0')
		memset(too_long, 'A', sizeof(too_long) - 1);
	return zones[b % (sizeof(zones) / sizeof(zones[0]))];
}

/* Sets TZ only when it changes: tzset() rereads the zone file each time. */
static inline void
fuzz_set_tz(const char *tz)
{
	const char *cur = getenv("TZ");

	if (tz == NULL) {
		if (cur != NULL) {
			unsetenv("TZ");
			tzset();
		}
	} else if (cur == NULL || strcmp(cur, tz) != 0) {
		setenv("TZ", tz, 1);
		tzset();
	}
}

static inline bool
fuzz_tz_is(const char *tz)
{
	const char *cur = getenv("TZ");

	return tz == NULL ? cur == NULL : cur != NULL && strcmp(cur, tz) == 0;
}

/* ---------- one FailureSignal ---------- */

/* resets_at is 0 or in (now, now + 8 days], and a source goes with it. */
static inline const char *
fuzz_check_reset(double at, enum reset_source src, time_t now)
{
	if (isnan(at))
		return "reset is NaN";
	if (at == 0)
		return src == RESET_SRC_NONE ? NULL : "reset source without a reset";
	if (!(at > (double)now))
		return "reset not after now";
	if (!(at <= (double)now + RESET_MAX_AHEAD))
		return "reset more than 8 days ahead";
	if (src != RESET_SRC_PROVIDER && src != RESET_SRC_TEXT)
		return "reset without a provider/text source";
	return NULL;
}

/* C0, DEL and C1 (U+0080..U+009F, UTF-8 C2 80..C2 9F) are control characters. */
static inline const char *
fuzz_check_message(const char *msg)
{
	const unsigned char *p = (const unsigned char *)msg;
	const unsigned char *nul = memchr(p, '\0', SIGNAL_MESSAGE_MAX + 1);

	if (nul == NULL)
		return "message longer than 512 bytes";
	for (; p < nul; p++)
		if (*p < 0x20 || *p == 0x7f || (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f))
			return "control character in message";
	return NULL;
}

/* Every key present: jansson drops a string that is not valid UTF-8. */
static inline const char *
fuzz_check_json(json_t *o, const struct fail_signal *sig)
{
	static const char *const keys[FUZZ_JSON_KEYS] = {
		"reason", "confidence", "terminal", "family", "model", "scope", "http_status",
		"error_type", "limit_type", "retry_after_secs", "resets_at", "reset_source",
		"message", "line", "exit_code", "after_output",
	};
	json_t *v;

	if (o == NULL || json_object_size(o) != FUZZ_JSON_KEYS)
		return "signal JSON lacks keys (a string field not valid UTF-8?)";
	for (size_t i = 0; i < FUZZ_JSON_KEYS; i++)
		if (json_object_get(o, keys[i]) == NULL)
			return "signal JSON lacks a key";
	v = json_object_get(o, "retry_after_secs");
	if (sig->resets_at > 0 && (!json_is_integer(v) || json_integer_value(v) <= 0 ||
	    json_integer_value(v) > RESET_MAX_AHEAD))
		return "retry_after_secs not in [1, 8 days]";
	return NULL;
}

/* lines: how many lines the stream has; a signal's line is one of them. */
static inline const char *
fuzz_check_signal(const struct fail_signal *sig, time_t now, long lines)
{
	const double c = sig->confidence;
	const char *why;
	json_t *o;

	if ((int)sig->reason < 0 || sig->reason >= REASON_COUNT)
		return "reason out of range";
	if (!family_known(sig->family))
		return "family not a known family";
	if ((sig->reason == REASON_NONE) != (sig->scope[0] == '\0'))
		return "scope null for a failure, or set for none";
	if (sig->line < 0 || sig->line > lines)
		return "line beyond the stream";
	if (c != 0 && c != 0.2 && c != 0.5 && c != 0.8 && c != 1.0)
		return "confidence not one of 0, 0.2, 0.5, 0.8, 1.0";
	if ((why = fuzz_check_reset(sig->resets_at, sig->reset_source, now)) != NULL ||
	    (why = fuzz_check_message(sig->message)) != NULL)
		return why;
	o = signal_to_json(sig, now);
	why = fuzz_check_json(o, sig);
	json_decref(o);
	return why;
}

/* ---------- classify ---------- */

struct fuzz_run {
	long lines;            /* in the stream fed */
	const char *why;       /* first violation seen in a signal */
	size_t signals;
	uint64_t hash;         /* FNV-1a over every signal's JSON, in order */
	char *verdict;         /* the final signal's compact JSON */
};

static inline char *
fuzz_dump(const struct fail_signal *sig)
{
	json_t *o = signal_to_json(sig, FUZZ_NOW);
	char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);

	json_decref(o);
	return s;
}

static inline void
fuzz_on_signal(const struct fail_signal *sig, void *arg)
{
	struct fuzz_run *run = arg;
	const char *why = fuzz_check_signal(sig, FUZZ_NOW, run->lines);
	char *s = fuzz_dump(sig);

	if (run->why == NULL)
		run->why = why;
	run->signals++;
	for (const char *p = s != NULL ? s : ""; *p != '\0'; p++)
		run->hash = (run->hash ^ (uint8_t)*p) * 0x100000001b3ULL;
	run->hash = (run->hash ^ '\n') * 0x100000001b3ULL;
	free(s);
}

static inline uint32_t
fuzz_xorshift(uint32_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

/* Mostly small chunks, now and then a large one or an empty feed. */
static inline size_t
fuzz_chunk_size(uint32_t *rng)
{
	uint32_t r = fuzz_xorshift(rng);

	switch (r & 3) {
	case 0:
		return (r >> 2) % 8;
	case 1:
		return 1 + (r >> 2) % 64;
	case 2:
		return 1 + (r >> 2) % 1024;
	default:
		return 1 + (r >> 2) % 16384;
	}
}

/* Each chunk in a heap block of its own size, so ASan sees a read past it. */
static inline void
fuzz_feed_chunked(struct classifier *c, const uint8_t *s, size_t len, uint8_t seed)
{
	uint32_t rng = 0x9e3779b9u ^ ((uint32_t)seed * 0x01000193u);

	for (size_t off = 0; off < len;) {
		size_t n = fuzz_chunk_size(&rng);
		char *copy;

		if (n > len - off)
			n = len - off;
		copy = malloc(n > 0 ? n : 1);
		if (copy == NULL)
			abort();
		memcpy(copy, s + off, n);
		classifier_feed(c, copy, n);
		free(copy);
		off += n;
	}
}

/*
 * A line head of CLASSIFY_LINE_MAX - 32 .. + 24 bytes, text or the start of
 * a JSON record, with no line end, maybe inside an open pretty-printed
 * document: the stream's first line then straddles the line cap.  In a
 * block of its own size, so ASan sees a read past it.
 */
static inline void
fuzz_feed_filler(struct classifier *c, uint8_t b)
{
	static const char head[] = "{\"type\":\"result\",\"result\":\"";
	size_t n = CLASSIFY_LINE_MAX - 32 + (size_t)(b >> 6) * 8 + (b & 0x08 ? 4 : 0);
	char *filler = malloc(n);

	if (filler == NULL)
		abort();
	if (b & 0x04)
		classifier_feed(c, "{\n", 2);
	memset(filler, 'a', n);
	if (b & 0x20)
		memcpy(filler, head, sizeof(head) - 1);
	classifier_feed(c, filler, n);
	free(filler);
}

static inline void
fuzz_classify(const char *family, int exit_code, const uint8_t *s, size_t len, bool chunked,
    uint8_t seed, uint8_t filler, bool watched, struct fuzz_run *run)
{
	struct classifier *c = classifier_new(family, FUZZ_NOW);
	struct fail_signal sig;

	memset(run, 0, sizeof(*run));
	run->hash = 0xcbf29ce484222325ULL;
	run->lines = 1;
	for (const uint8_t *p = s; (p = memchr(p, '\n', len - (size_t)(p - s))) != NULL; p++)
		run->lines++;
	if ((filler & 0x14) == 0x14)
		run->lines++;  /* the "{" line fuzz_feed_filler opens */
	if (c == NULL)
		abort();
	/* Unwatched, as the wrapper runs it: plain text may then be counted
	 * without being read (classify_lines.c), the verdict the same. */
	if (watched)
		classifier_on_signal(c, fuzz_on_signal, run);
	if (filler & 0x10)
		fuzz_feed_filler(c, filler);
	if (chunked)
		fuzz_feed_chunked(c, s, len, seed);
	else
		classifier_feed(c, (const char *)s, len);
	classifier_finish(c, exit_code, &sig);
	classifier_free(c);
	if (run->why == NULL)
		run->why = fuzz_check_signal(&sig, FUZZ_NOW, run->lines);
	run->verdict = fuzz_dump(&sig);
}

/* A line heartbeat_scan() accepts is what the classifier would have parsed
 * to nothing: a rate_limit_event object with status allowed, which claude
 * detects first and claude_record() answers REC_EVENT for. */
static inline const char *
fuzz_check_heartbeat(const char *s, size_t len)
{
	char state[HEARTBEAT_STATE_MAX];
	struct dialect_ctx ctx = { .now = FUZZ_NOW, .input_tokens = -1, .output_tokens = -1, .cost_usd = -1 };
	struct evidence ev;
	const struct dialect *first = NULL;
	const char *why = NULL, *status;
	size_t n;
	json_t *v;

	if (!heartbeat_scan(s, len, state, &n))
		return NULL;
	if (n == 0 || n > HEARTBEAT_STATE_MAX)
		return "heartbeat state length out of range";
	if ((v = json_loadb(s, len, 0, NULL)) == NULL)
		return "heartbeat_scan accepted a line jansson refuses";
	for (int i = 0; first == NULL && dialect_table[i] != NULL; i++)
		if (dialect_table[i]->detect != NULL && dialect_table[i]->detect(v))
			first = dialect_table[i];
	status = jstr(json_object_get(v, "rate_limit_info"), "status");
	evidence_init(&ev);
	if (!jtype_is(v, "rate_limit_event") || status == NULL || strcmp(status, "allowed") != 0)
		why = "heartbeat_scan accepted a record that is not an allowed rate_limit_event";
	else if (first != &dialect_claude)
		why = "heartbeat_scan accepted a record claude is not the first to detect";
	else if (claude_record(&ctx, v, &ev) != REC_EVENT)
		why = "heartbeat_scan accepted a record claude_record() does not ignore";
	json_decref(v);
	return why;
}

/* A line heartbeat_like() matches is one heartbeat_scan() accepts with the
 * template line's state; a line the scan accepts becomes the template. */
static inline const char *
fuzz_check_template(struct heartbeat_template *tpl, char *tpl_state, size_t *tpl_state_len,
    const char *s, size_t len)
{
	char state[HEARTBEAT_STATE_MAX];
	struct heartbeat_template next;
	size_t n;

	if (tpl->len > 0 && heartbeat_like(tpl, s, len) &&
	    (!heartbeat_scan(s, len, state, &n) || n != *tpl_state_len || memcmp(state, tpl_state, n) != 0))
		return "heartbeat_like matched a line the scan reads otherwise";
	if (heartbeat_scan_template(s, len, state, &n, &next) && next.len > 0) {
		if (!heartbeat_like(&next, s, len))
			return "heartbeat_like does not match its own template line";
		*tpl = next;
		memcpy(tpl_state, state, n);
		*tpl_state_len = n;
	}
	return NULL;
}

/* Every line of the stream, cut as process_line() cuts it. */
static inline const char *
fuzz_check_heartbeats(const uint8_t *s, size_t len)
{
	static struct heartbeat_template tpl;
	static char tpl_state[HEARTBEAT_STATE_MAX];
	size_t tpl_state_len = 0;
	const char *p = (const char *)s, *end = p + len, *nl, *why;

	tpl.len = 0;

	while (p < end) {
		const char *q = p;
		size_t n;

		nl = memchr(p, '\n', (size_t)(end - p));
		n = (size_t)((nl != NULL ? nl : end) - p);
		if (n > 0 && q[n - 1] == '\r')
			n--;
		while (n > 0 && (*q == ' ' || *q == '\t')) {
			q++;
			n--;
		}
		if ((why = fuzz_check_heartbeat(q, n)) != NULL ||
		    (why = fuzz_check_template(&tpl, tpl_state, &tpl_state_len, q, n)) != NULL)
			return why;
		if (nl == NULL)
			break;
		p = nl + 1;
	}
	return NULL;
}

/* At each line start: line_scan() as without vector instructions, and
 * claude_output_may_fail_ahead() as claude_output_may_fail() on the line
 * it found (the prefilter's fast path rests on both). */
static inline const char *
fuzz_check_line_scans(const uint8_t *s, size_t len)
{
	const char *p = (const char *)s, *end = p + len;

	for (int lines = 0; p < end && lines < 256; lines++) {
		size_t avail = (size_t)(end - p), a, b, n;
		struct line_marks fast, bytes;
		bool ahead = false;

		a = line_scan(p, avail, "<synthetic>", 11, &fast);
		b = line_scan_bytes(p, avail, "<synthetic>", 11, &bytes);
		if (a != b || fast.first != bytes.first || fast.last != bytes.last)
			return "line_scan differs from line_scan_bytes";
		n = claude_output_may_fail_ahead("assistant", 9, p, avail, &ahead);
		if (n != (a < avail ? a : 0))
			return "claude_output_may_fail_ahead found another end";
		if (n > 0 && ahead != claude_output_may_fail("assistant", 9, p, line_without_cr(p, n)))
			return "claude_output_may_fail_ahead answers otherwise than on the whole line";
		if (a == avail)
			break;
		p += a + 1;
	}
	return NULL;
}

/* The unwatched run is also chunked another way: which of the two made
 * its verdict differ?  Only asked when one did. */
static inline const char *
fuzz_quiet_differs(const char *family, int exit_code, const uint8_t *s, size_t len, uint8_t seed,
    uint8_t filler, const char *verdict)
{
	struct fuzz_run watched;
	bool chunking;

	fuzz_classify(family, exit_code, s, len, true, seed, filler, true, &watched);
	chunking = watched.verdict == NULL || strcmp(watched.verdict, verdict) != 0;
	free(watched.verdict);
	return chunking ? "verdict depends on the chunking" : "verdict depends on whether signals are watched";
}

static inline const char *
check_classify_input(const uint8_t *data, size_t size)
{
	static const char *const families[16] = {
		NULL, NULL, NULL, "goose", "amp", "copilot", "", "claude", "codex", "gemini", "pi",
		"opencode", "cursor", "qwen", "generic", "nosuch",
	};
	const char *family = families[fuzz_header_byte(data, size, 0) % 16];
	uint8_t eb = fuzz_header_byte(data, size, 1);
	int exit_code = eb == 0xff ? -1 : eb;
	uint8_t tb = fuzz_header_byte(data, size, 2);
	size_t skip = size < FUZZ_HEADER ? size : FUZZ_HEADER;
	struct fuzz_run whole, parts, quiet;
	const char *why;

	fuzz_set_tz(fuzz_tz(tb % 4));
	fuzz_classify(family, exit_code, data + skip, size - skip, false, 0, tb, true, &whole);
	fuzz_classify(family, exit_code, data + skip, size - skip, true,
	    fuzz_header_byte(data, size, 3), tb, true, &parts);
	fuzz_classify(family, exit_code, data + skip, size - skip, true,
	    (uint8_t)(fuzz_header_byte(data, size, 3) ^ 0x5a), tb, false, &quiet);
	if ((why = whole.why) == NULL && (why = parts.why) == NULL && (why = quiet.why) == NULL) {
		if (whole.verdict == NULL || parts.verdict == NULL || quiet.verdict == NULL)
			why = "verdict JSON could not be dumped";
		else if (strcmp(whole.verdict, parts.verdict) != 0)
			why = "verdict depends on the chunking";
		else if (whole.signals != parts.signals || whole.hash != parts.hash)
			why = "signals seen depend on the chunking";
		else if (strcmp(whole.verdict, quiet.verdict) != 0)
			why = fuzz_quiet_differs(family, exit_code, data + skip, size - skip,
			    (uint8_t)(fuzz_header_byte(data, size, 3) ^ 0x5a), tb, whole.verdict);
	}
	free(whole.verdict);
	free(parts.verdict);
	free(quiet.verdict);
	if (why == NULL)
		why = fuzz_check_heartbeats(data + skip, size - skip);
	if (why == NULL)
		why = fuzz_check_line_scans(data + skip, size - skip);
	return why;
}

/* ---------- timeparse ---------- */

static inline const char *
fuzz_check_clamped(double at, time_t now)
{
	struct reset r = { at, RESET_SRC_TEXT, RANK_TEXT };

	reset_clamp(&r, now);
	if (r.at == 0)
		return NULL;
	return fuzz_check_reset(r.at, r.source, now);
}

static inline const char *
fuzz_check_cstring_apis(const char *s, time_t now)
{
	double v = -1;

	if (duration_parse(s, &v) && !(isfinite(v) && v >= 0))
		return "duration_parse: not finite and >= 0";
	if (duration_parse(s, &v) && fuzz_check_clamped((double)now + v, now) != NULL)
		return "reset_clamp: now + duration out of range";
	if (time_parse(s, &v) && (!isfinite(v) || fuzz_check_clamped(v, now) != NULL))
		return "time_parse: not finite, or clamp out of range";
	if (http_date_parse(s, &v) && (!isfinite(v) || fuzz_check_clamped(v, now) != NULL))
		return "http_date_parse: not finite, or clamp out of range";
	return NULL;
}

/* What timeparse.h promises across entry points: duration_scan takes all
 * duration_parse takes, and clock_scan every ISO date time_parse takes. */
static inline const char *
fuzz_check_agreement(const char *s, time_t now)
{
	size_t len = strlen(s), start = 0, n;
	double a = -1, b = -1;

	if (duration_parse(s, &a) && (duration_scan(s, len, &b) == 0 || a != b))
		return "duration_scan disagrees with duration_parse";
	while (start < len && strchr(" \t\r\n\v\f", s[start]) != NULL)
		start++;
	while (len > start && strchr(" \t\r\n\v\f", s[len - 1]) != NULL)
		len--;
	if (!time_parse(s, &a) || strspn(s + start, "0123456789.") == len - start)
		return NULL;
	n = clock_scan(s + start, len - start, now, &b);
	return n == len - start && a == b ? NULL : "clock_scan disagrees with time_parse";
}

static inline const char *
fuzz_check_span_apis(const char *s, size_t len, time_t now)
{
	struct reset r;
	double v = -1, again = -1;
	size_t n;
	bool found;

	n = duration_scan(s, len, &v);
	if (n > len || (n > 0 && !(isfinite(v) && v >= 0)))
		return "duration_scan: used > len, or not finite and >= 0";
	n = clock_scan(s, len, now, &v);
	if (n > len || (n > 0 && !isfinite(v)))
		return "clock_scan: used > len, or not finite";
	if (n > 0 && fuzz_check_clamped(v, now) != NULL)
		return "reset_clamp: clock time out of range";
	found = reset_from_text(s, len, now, &r);
	if (found != (r.at != 0) || !isfinite(r.at))
		return "reset_from_text: result and return value disagree";
	if (found && r.source != RESET_SRC_PROVIDER && r.source != RESET_SRC_TEXT)
		return "reset_from_text: reset without a source";
	/* Same answer after other calls switched TZ (no cached libc state). */
	if (clock_scan(s, len, now, &again) != n || (n > 0 && again != v))
		return "clock_scan: a second call gives another answer";
	reset_clamp(&r, now);
	return r.at == 0 ? NULL : fuzz_check_reset(r.at, r.source, now);
}

/* epoch_normalize and reset_clamp on any double, NaN and infinities included. */
static inline const char *
fuzz_check_double(const uint8_t *text, size_t len, time_t now)
{
	double d = 0, e;

	if (len >= sizeof(d))
		memcpy(&d, text, sizeof(d));
	e = epoch_normalize(d);
	if (isfinite(d) && d >= 0 && !(isfinite(e) && e >= 0 && e <= d))
		return "epoch_normalize: not finite, >= 0 and <= its input";
	if (fuzz_check_clamped(d, now) != NULL || fuzz_check_clamped(e, now) != NULL)
		return "reset_clamp: out of range";
	return NULL;
}

static inline const char *
check_timeparse_input(const uint8_t *data, size_t size)
{
	const char *tz = fuzz_tz(fuzz_header_byte(data, size, 0));
	int32_t k = (int32_t)(((uint32_t)fuzz_header_byte(data, size, 1) << 16 |
	    (uint32_t)fuzz_header_byte(data, size, 2) << 8 | fuzz_header_byte(data, size, 3)) -
	    0x800000);
	time_t now = (time_t)FUZZ_NOW + (time_t)k * 16;  /* about 4 years either way */
	size_t skip = size < FUZZ_HEADER ? size : FUZZ_HEADER, len = size - skip;
	char *cstr = malloc(len + 1), *span = malloc(len > 0 ? len : 1);
	const char *why;

	if (cstr == NULL || span == NULL)
		abort();
	memcpy(cstr, data + skip, len);
	cstr[len] = '\0';
	memcpy(span, data + skip, len);
	fuzz_set_tz(tz);
	why = fuzz_check_cstring_apis(cstr, now);
	if (why == NULL)
		why = fuzz_check_agreement(cstr, now);
	if (why == NULL && !fuzz_tz_is(tz))
		why = "TZ changed by a C-string parser";
	if (why == NULL)
		why = fuzz_check_span_apis(span, len, now);
	if (why == NULL && !fuzz_tz_is(tz))
		why = "TZ changed by a scanner";
	if (why == NULL)
		why = fuzz_check_double(data + skip, len, now);
	free(cstr);
	free(span);
	return why;
}

/* ---------- config ---------- */

/* A loaded config has every value in range. */
static inline const char *
fuzz_check_config_loaded(const struct config *cfg)
{
	if (!(cfg->min_confidence >= 0 && cfg->min_confidence <= 1))
		return "min_confidence outside 0..1";
	if (!isfinite(cfg->cooldown_rate_limit) || cfg->cooldown_rate_limit <= 0 ||
	    !isfinite(cfg->max_cooldown) || cfg->max_cooldown <= 0)
		return "a cooldown not finite and positive";
	if (cfg->keep_runs < 0 || cfg->keep_days < 0 || cfg->wrapper_retry < 0 || cfg->wrapper_retry > 100)
		return "keep_runs, keep_days or retry out of range";
	for (size_t i = 0; i < cfg->command_map_len; i++)
		if (cfg->command_map[i].command[0] == '\0' || cfg->command_map[i].family[0] == '\0')
			return "an empty command or family in the command map";
	return NULL;
}

/* An error reads "PATH:LINE: ..." with LINE within the input's lines. */
static inline const char *
fuzz_check_config_error(const char *err, const char *path, const uint8_t *data, size_t size)
{
	size_t n = strlen(path), lines = 1;
	long line;

	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	if (strncmp(err, path, n) != 0 || err[n] != ':')
		return "error does not start with the file name";
	line = strtol(err + n + 1, NULL, 10);
	if (line < 0 || (size_t)line > lines)
		return "error names a line outside the input";
	return NULL;
}

/* The input is written to one temporary file, reused across calls (the
 * fuzzer calls millions of times) and removed at exit. */
static char fuzz_config_path[] = "/tmp/rlwrap-fuzz-config.XXXXXX";
static int fuzz_config_fd = -1;

static inline void
fuzz_config_unlink(void)
{
	unlink(fuzz_config_path);
}

static inline const char *
check_config_input(const uint8_t *data, size_t size)
{
	struct config cfg;
	char err[1024];
	const char *why;

	if (fuzz_config_fd < 0) {
		if ((fuzz_config_fd = mkstemp(fuzz_config_path)) < 0)
			return "cannot create a temporary file";
		atexit(fuzz_config_unlink);
	}
	if (ftruncate(fuzz_config_fd, 0) != 0 ||
	    pwrite(fuzz_config_fd, data, size, 0) != (ssize_t)size)
		return "cannot write the temporary file";
	/* A config with problems is used too (its bad keys at their defaults). */
	(void)config_load_file(&cfg, fuzz_config_path, err, sizeof(err));
	why = fuzz_check_config_loaded(&cfg);
	for (size_t i = 0; why == NULL && i < cfg.problems_len && i < CONFIG_PROBLEMS_MAX; i++)
		why = fuzz_check_config_error(cfg.problems[i], fuzz_config_path, data, size);
	config_free(&cfg);
	return why;
}

/* ---------- jsonsubset ---------- */

/* What a line reads as, dumped so that types, member order and reals
 * compare exactly; NULL when it cannot be dumped. */
static inline char *
fuzz_json_text(const json_t *v)
{
	return json_dumps(v, JSON_COMPACT | JSON_REAL_PRECISION(17));
}

/* A line json_subset_load() reads is one jansson reads, as the same value. */
static inline const char *
check_jsonsubset_input(const uint8_t *data, size_t size)
{
	json_t *sub = json_subset_load((const char *)data, size), *full;
	json_error_t jerr;
	char *a, *b;
	const char *why = NULL;

	if (sub == NULL)
		return NULL;
	if ((full = json_loadb((const char *)data, size, 0, &jerr)) == NULL) {
		json_decref(sub);
		return "json_subset_load read a line jansson refuses";
	}
	a = fuzz_json_text(sub);
	b = fuzz_json_text(full);
	if (a == NULL || b == NULL)
		abort();
	if (strcmp(a, b) != 0 || !json_equal(sub, full))
		why = "json_subset_load and jansson read different values";
	free(a);
	free(b);
	json_decref(sub);
	json_decref(full);
	return why;
}

#endif
