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

static bool
add_types(struct prefilter *pf, const char *const *names, bool output)
{
	for (size_t i = 0; names != NULL && names[i] != NULL; i++) {
		bool seen = false;
		size_t n;

		for (size_t k = 0; k < pf->ntypes; k++)
			seen = seen || strcmp(pf->types[k].name, names[i]) == 0;
		if (seen)
			continue;
		n = strlen(names[i]);
		if (pf->ntypes == PREFILTER_TYPES_MAX || n == 0 || n > PREFILTER_NAME_MAX)
			return false;
		pf->types[pf->ntypes].name = names[i];
		pf->types[pf->ntypes].len = n;
		pf->types[pf->ntypes].output = output;
		pf->by_first[(unsigned char)names[i][0]] |= 1ULL << pf->ntypes;
		pf->by_last[(unsigned char)names[i][n - 1]] |= 1ULL << pf->ntypes;
		pf->by_len[n] |= 1ULL << pf->ntypes++;
	}
	return true;
}

static bool
add_hook(struct prefilter *pf, output_hook hook)
{
	for (size_t k = 0; k < pf->nhooks; k++)
		if (pf->may_fail[k] == hook)
			return true;
	if (pf->nhooks == PREFILTER_HOOKS_MAX)
		return false;
	pf->may_fail[pf->nhooks++] = hook;
	return true;
}

/* Kept types first: a type some dialect always keeps is never demoted to
 * an output type by another. */
bool
prefilter_init(struct prefilter *pf)
{
	const struct dialect *d;

	pf->ntypes = pf->nhooks = 0;
	memset(pf->by_first, 0, sizeof(pf->by_first));
	memset(pf->by_last, 0, sizeof(pf->by_last));
	memset(pf->by_len, 0, sizeof(pf->by_len));
	for (int i = 0; (d = dialect_table[i]) != NULL; i++)
		if (!add_types(pf, d->kept_types, false))
			return false;
	for (int i = 0; (d = dialect_table[i]) != NULL; i++) {
		if (!add_types(pf, d->output_types, true))
			return false;
		if (d->output_may_fail != NULL && !add_hook(pf, d->output_may_fail))
			return false;
	}
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
static const struct prefilter_type *
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
output_may_fail(const struct prefilter *pf, const char *v, size_t n, const char *line, size_t len)
{
	for (size_t i = 0; i < pf->nhooks; i++)
		if (pf->may_fail[i](v, n, line, len))
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

/* s points after a "type" key; line is the whole line. */
static bool
type_value_matters(const struct classifier *c, const char *s, size_t len, const char *line,
    size_t line_len)
{
	const char *v = s, *end;
	const struct prefilter_type *t;

	while (v < s + len && (*v == ' ' || *v == ':'))
		v++;
	if (v >= s + len || *v != '"')
		return false;
	v++;
	end = type_end(v, (size_t)(s + len - v) < PREFILTER_NAME_MAX ? (size_t)(s + len - v) : PREFILTER_NAME_MAX);
	if (end == NULL)
		return false;
	/* A type no dialect names is dropped; the hooks judge output types
	 * only (struct dialect). */
	if ((t = type_find(&c->prefilter, v, (size_t)(end - v))) == NULL)
		return false;
	return !t->output || !c->saw_output ||
	    output_may_fail(&c->prefilter, v, (size_t)(end - v), line, line_len);
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
