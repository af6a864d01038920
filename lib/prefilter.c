/*
 * The prefilter.  A JSON line matters when one of its "type" values is one
 * a dialect keeps (struct dialect: kept_types, output_types until the first
 * output, output_may_fail); a needle inside a JSON string is escaped
 * (\"type\") and so never matches, which keeps tool output and prose out at
 * byte level.  Every other line is dropped without a JSON parse.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "classify_int.h"
#include "linescan.h"

/* A dialect's hook for one of its output types (each hook once). */
static bool
type_hook(struct prefilter_type *t, const struct dialect *d)
{
	for (size_t k = 0; k < t->nhooks; k++)
		if (t->hooks[k] == d->output_may_fail)
			return true;
	if (t->nhooks == PREFILTER_TYPE_HOOKS)
		return false;
	t->hooks_ahead[t->nhooks] = d->output_may_fail_ahead;
	t->hooks[t->nhooks++] = d->output_may_fail;
	return true;
}

static struct prefilter_type *
type_named(struct prefilter *pf, const char *name)
{
	for (size_t k = 0; k < pf->ntypes; k++)
		if (strcmp(pf->types[k].name, name) == 0)
			return &pf->types[k];
	return NULL;
}

/* The dialect's types: its kept ones, or its output ones with its hook. */
static bool
add_types(struct prefilter *pf, const struct dialect *d, bool output)
{
	const char *const *names = output ? d->output_types : d->kept_types;

	for (size_t i = 0; names != NULL && names[i] != NULL; i++) {
		struct prefilter_type *t = type_named(pf, names[i]);
		size_t n = strlen(names[i]);

		if (t == NULL) {
			if (pf->ntypes == PREFILTER_TYPES_MAX || n == 0 || n > PREFILTER_NAME_MAX)
				return false;
			t = &pf->types[pf->ntypes];
			*t = (struct prefilter_type){ .name = names[i], .len = n, .output = output };
			if (n < PREFILTER_HEAD) {
				memcpy(t->head, names[i], n);
				t->head[n] = '"';
				t->head_mask = n + 1 == 32 ? ~0U : (1U << (n + 1)) - 1;
				pf->short_names |= 1ULL << pf->ntypes;
			}
			pf->by_first[(unsigned char)names[i][0]] |= 1ULL << pf->ntypes;
			pf->by_second[n > 1 ? (unsigned char)names[i][1] : '"'] |= 1ULL << pf->ntypes;
			pf->by_last[(unsigned char)names[i][n - 1]] |= 1ULL << pf->ntypes;
			pf->by_len[n] |= 1ULL << pf->ntypes++;
		}
		if (output && t->output && d->output_may_fail != NULL && !type_hook(t, d))
			return false;
	}
	return true;
}

/* Kept types first: a type some dialect always keeps is never demoted to
 * an output type by another. */
bool
prefilter_init(struct prefilter *pf)
{
	const struct dialect *d;

	memset(pf, 0, sizeof(*pf));
	for (int i = 0; (d = dialect_table[i]) != NULL; i++)
		if (!add_types(pf, d, false))
			return false;
	for (int i = 0; (d = dialect_table[i]) != NULL; i++)
		if (!add_types(pf, d, true))
			return false;
	return true;
}

/* memcmp(a, b, n) == 0 for a type name: eight bytes a load, no call. */
static inline bool
name_equal(const char *a, const char *b, size_t n)
{
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t x, y;

		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
			return false;
	}
	for (; i < n; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

/* v is a slice of stream bytes and may hold a NUL.  Only the types with
 * its first byte, last byte and length are compared, nearly always one or
 * none: a line of a type no dialect keeps ("user") is most lines, and a
 * compare that fails is a mispredicted branch. */
static inline __attribute__((always_inline)) const struct prefilter_type *
type_find(const struct prefilter *pf, const char *v, size_t n)
{
	if (n == 0 || n > PREFILTER_NAME_MAX)
		return NULL;
	for (uint64_t m = pf->by_first[(unsigned char)v[0]] & pf->by_last[(unsigned char)v[n - 1]] & pf->by_len[n];
	    m != 0; m &= m - 1) {
		const struct prefilter_type *t = &pf->types[__builtin_ctzll(m)];

		if (name_equal(t->name, v, n))
			return t;
	}
	return NULL;
}

/* After output began, may this output record still carry a failure? */
static bool
output_may_fail(const struct prefilter_type *t, const char *line, size_t len)
{
	for (size_t i = 0; i < t->nhooks; i++)
		if (t->hooks[i](t->name, t->len, line, len))
			return true;
	return false;
}

/* The quote that ends a type value at v, within n bytes: nearly always
 * in the first 16, found without a call. */
static const char *
type_end(const char *v, size_t n)
{
#ifdef __SSE2__
	if (n >= 16) {
		__m128i b = _mm_loadu_si128((const __m128i *)(const void *)v);
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(b, _mm_set1_epi8('"')));

		if (m != 0)
			return v + __builtin_ctz(m);
	}
#endif
	return memchr(v, '"', n);
}

/*
 * The type the value at v names (rest bytes there, after its opening
 * quote), or NULL for one no dialect names.  When every type with v's
 * first byte is short, the types with its first two bytes are compared
 * 32 bytes at once, with the closing quote, without looking for the
 * value's end: most lines are of a type with no candidate at all, or one.
 */
static inline __attribute__((always_inline)) const struct prefilter_type *
type_at(const struct prefilter *pf, const char *v, size_t rest)
{
	uint64_t m = pf->by_first[(unsigned char)v[0]];
	const char *end;

	if (m == 0)
		return NULL;
#ifdef __SSE2__
	if (rest >= PREFILTER_HEAD && (m & pf->short_names) == m) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)v);
		__m128i y = _mm_loadu_si128((const __m128i *)(const void *)(v + 16));

		for (m &= pf->by_second[(unsigned char)v[1]]; m != 0; m &= m - 1) {
			const struct prefilter_type *t = &pf->types[__builtin_ctzll(m)];
			__m128i a = _mm_loadu_si128((const __m128i *)(const void *)t->head);
			__m128i b = _mm_loadu_si128((const __m128i *)(const void *)(t->head + 16));
			uint32_t same = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x, a)) |
			    (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(y, b)) << 16;

			if ((same & t->head_mask) == t->head_mask)
				return t;
		}
		return NULL;
	}
#endif
	if ((end = type_end(v, rest < PREFILTER_NAME_MAX ? rest : PREFILTER_NAME_MAX)) == NULL)
		return NULL;
	return type_find(pf, v, (size_t)(end - v));
}

/* s points after a "type" key; line is the whole line. */
static bool
type_value_matters(const struct classifier *c, const char *s, size_t len, const char *line,
    size_t line_len)
{
	const char *v = s;
	const struct prefilter_type *t;

	while (v < s + len && (*v == ' ' || *v == ':'))
		v++;
	if (v >= s + len || *v != '"' || ++v == s + len)
		return false;
	/* A type no dialect names is dropped; the hooks judge output types
	 * only (struct dialect). */
	if ((t = type_at(&c->prefilter, v, (size_t)(s + len - v))) == NULL)
		return false;
	return !t->output || !c->saw_output || output_may_fail(t, line, line_len);
}

bool
prefilter_keeps(const struct classifier *c, const char *s, size_t len)
{
	const char *p = s, *end = s + len;
	bool typed = false;

	/* generic keeps no types of its own: an envelope is any object, and its
	 * "type" keys are inside it, forced with --family generic or not. */
	if (c->dialect == NULL || c->dialect == &dialect_generic)
		return true;
	/* When "type" is the first key it is the top-level type: decide on it
	 * alone, without reading the rest of a long line. */
	if (len > 9 && memcmp(s, "{\"type\":", 8) == 0)
		return type_value_matters(c, s + 7, len - 7, s, len);
	while ((p = memmem(p, (size_t)(end - p), "\"type\"", 6)) != NULL) {
		p += 6;
		typed = true;
		if (type_value_matters(c, p, (size_t)(end - p), s, len))
			return true;
	}
	return !typed && memmem(s, len, "\"error\"", 7) != NULL;
}

/* prefilter_unchanged() for a line whose end is not known yet: its length,
 * or 0 (then look for its end and ask prefilter_unchanged()). */
size_t
prefilter_unchanged_ahead(struct classifier *c, const char *p, size_t avail)
{
	const struct dialect *d = c->dialect;
	size_t n;

	/* The line differs from one the prefilter kept only in values, never
	 * in its type: it is kept too. */
	if (d == NULL || d == &dialect_generic || d->unchanged_ahead == NULL || !c->saw_family_event ||
	    (n = d->unchanged_ahead(&c->memo, p, avail)) == 0)
		return 0;
#ifdef RLWRAP_CHECK_FAST_PATH
	if (!prefilter_keeps(c, p, n) || !prefilter_unchanged(c, p, n))
		abort();   /* the line read whole would have been parsed */
#endif
	return n;
}

/* Only once the family's records were seen: until then even a record that
 * says nothing marks the stream as the family's (saw_family_event). */
bool
prefilter_unchanged(struct classifier *c, const char *s, size_t len)
{
	const struct dialect *d = c->dialect;

	return d != NULL && d != &dialect_generic && d->unchanged != NULL && c->saw_family_event &&
	    d->unchanged(&c->memo, s, len);
}

/*
 * The hooks' answer for a line at p of output type t, and the offset of
 * its newline: the first hook that can look ahead finds the end in its own
 * pass, and the others read the line it found (memchr finds it when none
 * can).
 */
static size_t
output_ahead(const struct prefilter_type *t, const char *p, size_t avail, bool *keep)
{
	size_t end, len, with = 0;
	const char *nl;
	bool may_fail = false;

	while (with < t->nhooks && t->hooks_ahead[with] == NULL)
		with++;
	if (with < t->nhooks)
		end = t->hooks_ahead[with](t->name, t->len, p, avail, &may_fail);
	else
		end = (nl = memchr(p, '\n', avail)) != NULL ? (size_t)(nl - p) : 0;
	if (end == 0)
		return 0;
	len = line_without_cr(p, end);
	for (size_t k = 0; k < t->nhooks && !may_fail; k++)
		if (k != with)
			may_fail = t->hooks[k](t->name, t->len, p, len);
	*keep = may_fail;
	return end;
}

/* What prefilter_keeps() decides on a first "type" key, before the line's
 * end is known: a type no dialect names drops the line, and an output type
 * once output was seen leaves it to the hooks.  (A type value that runs
 * past the line's end holds its newline: no dialect names such a type, and
 * the line read whole has no type there either.) */
size_t
prefilter_ahead(const struct classifier *c, const char *p, size_t avail, bool *keep)
{
	const struct prefilter_type *t;
	const char *nl;
	size_t end;

	if (c->dialect == NULL || c->dialect == &dialect_generic || avail < 10 ||
	    memcmp(p, "{\"type\":\"", 9) != 0)
		return 0;
	if (avail > CLASSIFY_LINE_MAX + 1)   /* a longer line is cut, and read as usual */
		avail = CLASSIFY_LINE_MAX + 1;
	if ((t = type_at(&c->prefilter, p + 9, avail - 9)) != NULL && (!t->output || !c->saw_output))
		return 0;   /* kept: parsed as usual */
	if (t != NULL)
		end = output_ahead(t, p, avail, keep);
	else {
		end = (nl = memchr(p, '\n', avail)) != NULL ? (size_t)(nl - p) : 0;
		*keep = false;
	}
#ifdef RLWRAP_CHECK_FAST_PATH
	if (end > 0 && *keep != prefilter_keeps(c, p, line_without_cr(p, end)))
		abort();   /* the line read whole would have been decided otherwise */
#endif
	return end;
}
