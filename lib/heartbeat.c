/*
 * Claude's heartbeat from its bytes: a recursive scan of a strict subset of
 * JSON (see heartbeat.h).  Every rule here is narrower than jansson's, never
 * wider: a line the scan accepts parses, and parses to what the scan saw.
 */
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "heartbeat.h"

#define SCAN_DEPTH_MAX 4

enum role {
	ROLE_TOP,       /* the record's own members after rate_limit_info */
	ROLE_INFO,      /* rate_limit_info's members */
	ROLE_IN_INFO,   /* members of objects inside rate_limit_info */
	ROLE_OUTSIDE,   /* members of objects in the record's other values */
};

struct scan {
	const char *line;      /* where the line starts, for template slots */
	struct heartbeat_template *tpl;   /* NULL, or slots to note */
	const char *p, *end;
	const char *mark;      /* rate_limit_info bytes from here are not in state yet */
	char *state;
	size_t state_len;
	bool allowed;          /* rate_limit_info said "status":"allowed" */
};

static bool scan_value(struct scan *sc, enum role role, int depth);

static bool
is(const char *s, size_t n, const char *word)
{
	return strlen(word) == n && memcmp(s, word, n) == 0;
}

static bool
state_add(struct scan *sc, const char *to)
{
	size_t n = (size_t)(to - sc->mark);

	if (n > HEARTBEAT_STATE_MAX - sc->state_len)
		return false;
	memcpy(sc->state + sc->state_len, sc->mark, n);
	sc->state_len += n;
	return true;
}

/* Printable ASCII, no escapes: valid UTF-8 that jansson keeps byte for byte. */
static bool
scan_string(struct scan *sc, const char **s, size_t *n)
{
	const char *b;

	if (sc->p >= sc->end || *sc->p != '"')
		return false;
	*s = b = ++sc->p;
#ifdef __SSE2__
	/* 16 bytes at a time to the first that is not printable ASCII or is a
	 * quote or a backslash (a uuid is most of a heartbeat's strings). */
	while (sc->end - b >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)b);
		__m128i stop = _mm_or_si128(
		    _mm_or_si128(_mm_cmplt_epi8(v, _mm_set1_epi8(0x20)), _mm_cmpgt_epi8(v, _mm_set1_epi8(0x7e))),
		    _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))));
		unsigned m = (unsigned)_mm_movemask_epi8(stop);

		if (m != 0) {
			b += __builtin_ctz(m);
			break;
		}
		b += 16;
	}
#endif
	/* One pass finds the end and checks every byte (signed: 0x80 and up
	 * are below 0x20). */
	for (; b < sc->end && *b != '"'; b++)
		if (*b < 0x20 || *b > 0x7e || *b == '\\')
			return false;
	if (b == sc->end)
		return false;
	*n = (size_t)(b - sc->p);
	sc->p = b + 1;
	return true;
}

static size_t
digits(const char *p, const char *end)
{
	const char *q = p;

	while (q < end && *q >= '0' && *q <= '9')
		q++;
	return (size_t)(q - p);
}

/* -?(0|[1-9][0-9]{0,17})(.[0-9]+)?: no exponent, and an integer part that
 * fits json_int_t, so jansson never reports an overflow. */
static bool
scan_number(struct scan *sc)
{
	const char *p = sc->p;
	size_t n;

	if (p < sc->end && *p == '-')
		p++;
	n = digits(p, sc->end);
	if (n == 0 || n > 18 || (n > 1 && *p == '0'))
		return false;
	p += n;
	if (p < sc->end && *p == '.') {
		if ((n = digits(++p, sc->end)) == 0)
			return false;
		p += n;
	}
	sc->p = p;
	return true;
}

static bool
scan_literal(struct scan *sc, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(sc->end - sc->p) < n || memcmp(sc->p, word, n) != 0)
		return false;
	sc->p += n;
	return true;
}

/* A scalar value that may change without changing the state: a slot. */
static bool
scan_slot(struct scan *sc, enum role inner, int depth)
{
	const char *start = sc->p;
	struct heartbeat_template *t = sc->tpl;

	if (sc->p < sc->end && *sc->p == '{')
		return scan_value(sc, inner, depth);
	if (!scan_value(sc, inner, depth))
		return false;
	if (t != NULL && t->nslots < HEARTBEAT_SLOTS_MAX) {
		t->slots[t->nslots].start = (size_t)(start - sc->line);
		t->slots[t->nslots++].end = (size_t)(sc->p - sc->line);
	} else
		sc->tpl = NULL;   /* too many: no template */
	return true;
}

/* One "key":value member of an object in role. */
static bool
scan_member(struct scan *sc, enum role role, int depth)
{
	const char *key, *v;
	size_t kn, vn;
	enum role inner = role == ROLE_TOP || role == ROLE_OUTSIDE ? ROLE_OUTSIDE : ROLE_IN_INFO;

	if (!scan_string(sc, &key, &kn) || sc->p >= sc->end || *sc->p++ != ':')
		return false;
	/* A second type or rate_limit_info would replace the first. */
	if (role == ROLE_TOP && (is(key, kn, "type") || is(key, kn, "rate_limit_info")))
		return false;
	if (role == ROLE_INFO && is(key, kn, "status"))
		return scan_string(sc, &v, &vn) && (sc->allowed = is(v, vn, "allowed"));
	if (inner == ROLE_IN_INFO && is(key, kn, "utilization")) {
		if (!state_add(sc, sc->p) || !scan_slot(sc, inner, depth))
			return false;
		sc->mark = sc->p;
		return true;
	}
	if (role == ROLE_TOP)
		return scan_slot(sc, inner, depth);
	return scan_value(sc, inner, depth);
}

/* The rest of an object in role: members until its '}'. */
static bool
scan_members(struct scan *sc, enum role role, int depth, bool after_member)
{
	for (;;) {
		if (sc->p >= sc->end)
			return false;
		if (*sc->p == '}') {
			sc->p++;
			return true;
		}
		if (after_member && *sc->p++ != ',')
			return false;
		if (!scan_member(sc, role, depth))
			return false;
		after_member = true;
	}
}

static bool
scan_value(struct scan *sc, enum role role, int depth)
{
	if (sc->p >= sc->end)
		return false;
	switch (*sc->p) {
	case '"': {
		const char *s;
		size_t n;

		return scan_string(sc, &s, &n);
	}
	case '{':
		if (depth >= SCAN_DEPTH_MAX)
			return false;
		sc->p++;
		return scan_members(sc, role, depth + 1, false);
	case 't':
		return scan_literal(sc, "true");
	case 'f':
		return scan_literal(sc, "false");
	case 'n':
		return scan_literal(sc, "null");
	default:
		return scan_number(sc);
	}
}

bool
heartbeat_scan(const char *line, size_t len, char *state, size_t *state_len)
{
	return heartbeat_scan_template(line, len, state, state_len, NULL);
}

bool
heartbeat_scan_template(const char *line, size_t len, char *state, size_t *state_len,
    struct heartbeat_template *tpl)
{
	struct scan sc = { .line = line, .end = line + len, .state = state };

	if (tpl != NULL) {
		tpl->len = tpl->nslots = 0;
		sc.tpl = len <= HEARTBEAT_TEMPLATE_MAX ? tpl : NULL;
	}

	if (len <= HEARTBEAT_PREFIX_LEN || memcmp(line, HEARTBEAT_PREFIX, HEARTBEAT_PREFIX_LEN) != 0)
		return false;
	sc.p = sc.mark = line + HEARTBEAT_PREFIX_LEN;
	/* rate_limit_info, then the record's other members; nothing after. */
	if (!scan_members(&sc, ROLE_INFO, 2, false) || !state_add(&sc, sc.p))
		return false;
	if (!sc.allowed || !scan_members(&sc, ROLE_TOP, 1, true) || sc.p != sc.end) {
		if (tpl != NULL)
			tpl->nslots = 0;
		return false;
	}
	*state_len = sc.state_len;
	if (sc.tpl != NULL) {
		memcpy(tpl->line, line, len);
		tpl->len = len;
	} else if (tpl != NULL)
		tpl->nslots = 0;
	return true;
}

/* Does line hold, at *at, the n bytes of the template from from?  Moves on. */
static bool
same_bytes(const char *line, size_t len, size_t *at, const char *from, size_t n)
{
	if (len - *at < n || memcmp(line + *at, from, n) != 0)
		return false;
	*at += n;
	return true;
}

/* A scalar in a slot: what the template has there (often), or another. */
static bool
slot_value(const struct heartbeat_template *tpl, size_t k, const char *line, size_t len, size_t *at)
{
	size_t start = tpl->slots[k].start, n = tpl->slots[k].end - start;
	struct scan sc = { .line = line, .p = line + *at, .end = line + len };

	/* The same bytes, followed by the same next byte (the token ends there too). */
	if (len - *at > n && memcmp(line + *at, tpl->line + start, n) == 0 &&
	    line[*at + n] == tpl->line[start + n]) {
		*at += n;
		return true;
	}
	if (sc.p >= sc.end || *sc.p == '{' || !scan_value(&sc, ROLE_OUTSIDE, SCAN_DEPTH_MAX))
		return false;
	*at = (size_t)(sc.p - line);
	return true;
}

bool
heartbeat_like(const struct heartbeat_template *tpl, const char *line, size_t len)
{
	size_t at = 0, from = 0;

	if (tpl->len == 0)
		return false;
	for (size_t k = 0; k < tpl->nslots; k++) {
		if (!same_bytes(line, len, &at, tpl->line + from, tpl->slots[k].start - from) ||
		    !slot_value(tpl, k, line, len, &at))
			return false;
		from = tpl->slots[k].end;
	}
	return same_bytes(line, len, &at, tpl->line + from, tpl->len - from) && at == len;
}
