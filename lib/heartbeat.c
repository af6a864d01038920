/*
 * Claude's heartbeat from its bytes: a recursive scan of a strict subset of
 * JSON (see heartbeat.h).  Every rule here is narrower than jansson's, never
 * wider: a line the scan accepts parses, and parses to what the scan saw.
 */
#include <string.h>

#include "heartbeat.h"

#define SCAN_DEPTH_MAX 4

enum role {
	ROLE_TOP,       /* the record's own members after rate_limit_info */
	ROLE_INFO,      /* rate_limit_info's members */
	ROLE_IN_INFO,   /* members of objects inside rate_limit_info */
	ROLE_OUTSIDE,   /* members of objects in the record's other values */
};

struct scan {
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
	const char *close;

	if (sc->p >= sc->end || *sc->p != '"')
		return false;
	*s = ++sc->p;
	if ((close = memchr(sc->p, '"', (size_t)(sc->end - sc->p))) == NULL)
		return false;
	for (const char *b = sc->p; b < close; b++)
		if (*b < 0x20 || *b > 0x7e || *b == '\\')
			return false;
	*n = (size_t)(close - sc->p);
	sc->p = close + 1;
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
		if (!state_add(sc, sc->p) || !scan_value(sc, inner, depth))
			return false;
		sc->mark = sc->p;
		return true;
	}
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
	struct scan sc = { .end = line + len, .state = state };

	if (len <= HEARTBEAT_PREFIX_LEN || memcmp(line, HEARTBEAT_PREFIX, HEARTBEAT_PREFIX_LEN) != 0)
		return false;
	sc.p = sc.mark = line + HEARTBEAT_PREFIX_LEN;
	/* rate_limit_info, then the record's other members; nothing after. */
	if (!scan_members(&sc, ROLE_INFO, 2, false) || !state_add(&sc, sc.p))
		return false;
	if (!sc.allowed || !scan_members(&sc, ROLE_TOP, 1, true) || sc.p != sc.end)
		return false;
	*state_len = sc.state_len;
	return true;
}
