/*
 * Claude's heartbeat from its bytes: a recursive scan of a strict subset of
 * JSON (see heartbeat.h).  Every rule here is narrower than jansson's, never
 * wider: a line the scan accepts parses, and parses to what the scan saw.
 */
#include <stdint.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "cpu_features.h"
#include "heartbeat.h"
#include "jsonsubset.h"
#include "textutil.h"

#ifdef HAVE_AVX2_PATH
#include <immintrin.h>
#endif

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
static void template_masks(struct heartbeat_template *tpl);

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
	*s = ++sc->p;
	if ((b = json_subset_plain_end(sc->p, sc->end)) == sc->end || *b != '"')
		return false;
	*n = (size_t)(b - sc->p);
	sc->p = b + 1;
	return true;
}

/* jsonsubset.h's numbers: jansson reports no overflow. */
static bool
scan_number(struct scan *sc)
{
	size_t n = json_subset_number_len(sc->p, sc->end);

	sc->p += n;
	return n > 0;
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
		template_masks(tpl);
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

/* Bit i: a[i] == b[i], for 64 bytes; unless stops is NULL, *stops: bit i
 * where a[i] is a byte no string may hold unescaped (json_subset_stops16()). */
static uint64_t
window_same(const char *a, const char *b, uint64_t *stops)
{
	uint64_t same = 0, stop = 0;

#ifdef __SSE2__
	for (int q = 0; q < 4; q++) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)(a + 16 * q));
		__m128i y = _mm_loadu_si128((const __m128i *)(const void *)(b + 16 * q));

		same |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, y)) << (16 * q);
		if (stops != NULL)
			stop |= (uint64_t)json_subset_stops16(a + 16 * q) << (16 * q);
	}
#else
	for (int i = 0; i < 64; i++) {
		same |= (uint64_t)(a[i] == b[i]) << i;
		stop |= (uint64_t)!json_subset_plain_byte((unsigned char)a[i]) << i;
	}
#endif
	if (stops != NULL)
		*stops = stop;
	return same;
}

/* Sets bits [from, to) of the mask words m. */
static void
mask_range(uint64_t *m, size_t from, size_t to)
{
	for (size_t i = from; i < to; i = (i / 64 + 1) * 64) {
		size_t end = to < (i / 64 + 1) * 64 ? to : (i / 64 + 1) * 64, n = end - i;

		m[i / 64] |= (n == 64 ? ~0ULL : ((1ULL << n) - 1)) << (i % 64);
	}
}

/* The template's masks (heartbeat.h) from its slots. */
static void
template_masks(struct heartbeat_template *tpl)
{
	size_t words = (tpl->len + 63) / 64;

	memset(tpl->text, 0, sizeof(tpl->text));
	memset(tpl->scalar, 0, sizeof(tpl->scalar));
	for (size_t k = 0; k < tpl->nslots; k++) {
		size_t a = tpl->slots[k].start, b = tpl->slots[k].end;

		if (tpl->line[a] == '"')
			mask_range(tpl->text, a + 1, b - 1);
		else
			mask_range(tpl->scalar, a, b);
	}
	for (size_t w = 0; w < words; w++)
		tpl->fixed[w] = ~(tpl->text[w] | tpl->scalar[w]);
}

/* Is any of bits [a, b) set in the words m? */
static bool
bits_any(const uint64_t *m, size_t a, size_t b)
{
	for (size_t w = a / 64; w * 64 < b; w++) {
		uint64_t keep = ~0ULL;

		if (w == a / 64)
			keep &= ~0ULL << (a % 64);
		if ((w + 1) * 64 > b)
			keep &= ~0ULL >> (64 - b % 64);
		if (m[w] & keep)
			return true;
	}
	return false;
}

/* Does a whole scalar fill [a, b) of line? */
static bool
scalar_fills(const char *line, size_t a, size_t b)
{
	struct scan sc = { .line = line, .p = line + a, .end = line + b };

	return *sc.p != '{' && scan_value(&sc, ROLE_OUTSIDE, SCAN_DEPTH_MAX) && sc.p == sc.end;
}

/* diff[w]: bit i set where line and template differ at byte 64 w + i,
 * stops[w] where line has a byte no string may hold unescaped (the last,
 * partial word taken from the window that ends the line).  Stops are
 * looked for only in the words that hold a string slot (the uuid and
 * session_id at the end): elsewhere a changed byte is wrong anyway.
 * Inlined into each caller, so that same() is inlined too. */
static inline __attribute__((always_inline)) void
diff_words(const struct heartbeat_template *tpl, const char *line, size_t len, uint64_t *diff,
    uint64_t *stops, uint64_t (*same)(const char *, const char *, uint64_t *))
{
	size_t words = len / 64;

	for (size_t w = 0; w < words; w++) {
		stops[w] = 0;
		diff[w] = ~same(line + w * 64, tpl->line + w * 64, tpl->text[w] != 0 ? &stops[w] : NULL);
	}
	if (len % 64 != 0) {
		uint64_t *s = tpl->text[words] != 0 ? &stops[words] : NULL;

		diff[words] = ~same(line + len - 64, tpl->line + len - 64, s) >> (64 - len % 64);
		stops[words] = s != NULL ? stops[words] >> (64 - len % 64) : 0;
	}
}

#ifdef HAVE_AVX2_PATH
/* json_subset_stops16() for 32 bytes. */
__attribute__((target("avx2"))) static inline uint32_t
stops_avx2(__m256i v)
{
	__m256i unprintable = _mm256_or_si256(_mm256_cmpgt_epi8(_mm256_set1_epi8(0x20), v),
	    _mm256_cmpgt_epi8(v, _mm256_set1_epi8(0x7e)));
	__m256i special = _mm256_or_si256(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('"')),
	    _mm256_cmpeq_epi8(v, _mm256_set1_epi8('\\')));

	return (uint32_t)_mm256_movemask_epi8(_mm256_or_si256(unprintable, special));
}

__attribute__((target("avx2"))) static inline uint64_t
window_same_avx2(const char *a, const char *b, uint64_t *stops)
{
	__m256i x0 = _mm256_loadu_si256((const __m256i *)(const void *)a);
	__m256i x1 = _mm256_loadu_si256((const __m256i *)(const void *)(a + 32));
	__m256i y0 = _mm256_loadu_si256((const __m256i *)(const void *)b);
	__m256i y1 = _mm256_loadu_si256((const __m256i *)(const void *)(b + 32));

	if (stops != NULL)
		*stops = (uint64_t)stops_avx2(x0) | (uint64_t)stops_avx2(x1) << 32;
	return (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(x0, y0)) |
	    (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(x1, y1)) << 32;
}

__attribute__((target("avx2"))) static void
diff_words_avx2(const struct heartbeat_template *tpl, const char *line, size_t len, uint64_t *diff,
    uint64_t *stops)
{
	diff_words(tpl, line, len, diff, stops, window_same_avx2);
}
#endif

/*
 * The common heartbeat: as long as the template, its uuid and perhaps a
 * utilization rewritten in place.  One pass without a branch on what it
 * finds marks, 64 at a time, the bytes that differ (none may lie outside
 * the slots) and the bytes no string may hold (none may lie inside one);
 * each other slot that changed is read.  Whatever this accepts, the slot
 * by slot comparison below accepts too; false says nothing.
 */
bool
heartbeat_in_place(const struct heartbeat_template *tpl, const char *line, size_t len)
{
	uint64_t diff[HEARTBEAT_WORDS], stops[HEARTBEAT_WORDS], wrong = 0, changed = 0;

	if (len != tpl->len || len < 64)
		return false;
#ifdef HAVE_AVX2_PATH
	if (cpu_has_avx2())
		diff_words_avx2(tpl, line, len, diff, stops);
	else
#endif
		diff_words(tpl, line, len, diff, stops, window_same);
	/* A string's bytes may change into any plain byte (a new uuid, in
	 * nearly every heartbeat). */
	for (size_t w = 0; w < (len + 63) / 64; w++) {
		wrong |= (diff[w] & tpl->fixed[w]) | (stops[w] & tpl->text[w]);
		changed |= diff[w] & tpl->scalar[w];
	}
	if (wrong != 0)
		return false;
	/* Another value is read only when its bytes changed. */
	for (size_t k = 0; k < tpl->nslots && changed != 0; k++) {
		size_t a = tpl->slots[k].start, b = tpl->slots[k].end;

		if (tpl->line[a] != '"' && bits_any(diff, a, b) && !scalar_fills(line, a, b))
			return false;
	}
	return true;
}

/*
 * The slot by slot comparison, for values of another length than the
 * template's.  A line that matches becomes the template: the next
 * heartbeat is likelier to have its lengths than the old line's.
 */
static bool
like_moved(struct heartbeat_template *tpl, const char *line, size_t len)
{
	size_t at = 0, from = 0, start[HEARTBEAT_SLOTS_MAX], end[HEARTBEAT_SLOTS_MAX];

	for (size_t k = 0; k < tpl->nslots; k++) {
		if (!same_bytes(line, len, &at, tpl->line + from, tpl->slots[k].start - from))
			return false;
		start[k] = at;
		if (!slot_value(tpl, k, line, len, &at))
			return false;
		end[k] = at;
		from = tpl->slots[k].end;
	}
	if (!same_bytes(line, len, &at, tpl->line + from, tpl->len - from) || at != len)
		return false;
	if (len <= HEARTBEAT_TEMPLATE_MAX) {
		memcpy(tpl->line, line, len);
		tpl->len = len;
		for (size_t k = 0; k < tpl->nslots; k++) {
			tpl->slots[k].start = start[k];
			tpl->slots[k].end = end[k];
		}
		template_masks(tpl);
	}
	return true;
}

bool
heartbeat_like(struct heartbeat_template *tpl, const char *line, size_t len)
{
	if (tpl->len == 0)
		return false;
	return heartbeat_in_place(tpl, line, len) || like_moved(tpl, line, len);
}
