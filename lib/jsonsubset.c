/* jsonsubset.c: compact JSON lines read without jansson's lexer (jsonsubset.h). */
#include <locale.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "jsonsubset.h"

#define REAL_TEXT_MAX 64

struct reader {
	const char *p, *end;
	int depth;
};

static json_t *read_value(struct reader *r);

static bool
next_is(struct reader *r, char ch)
{
	if (r->p < r->end && *r->p == ch) {
		r->p++;
		return true;
	}
	return false;
}

const char *
json_subset_plain_end(const char *s, const char *end)
{
#ifdef __SSE2__
	/* 16 bytes at a time: a uuid is most of a heartbeat's strings. */
	for (; end - s >= 16; s += 16) {
		unsigned m = json_subset_stops16(s);

		if (m != 0)
			return s + __builtin_ctz(m);
	}
#endif
	while (s < end && json_subset_plain_byte((unsigned char)*s))
		s++;
	return s;
}

static size_t
digits(const char *p, const char *end)
{
	const char *q = p;

	while (q < end && *q >= '0' && *q <= '9')
		q++;
	return (size_t)(q - p);
}

size_t
json_subset_number_len(const char *s, const char *end)
{
	const char *p = s;
	size_t n;

	if (p < end && *p == '-')
		p++;
	n = digits(p, end);
	if (n == 0 || n > 18 || (n > 1 && *p == '0'))
		return 0;
	p += n;
	if (p < end && *p == '.') {
		if ((n = digits(++p, end)) == 0)
			return 0;
		p += n;
	}
	return (size_t)(p - s);
}

/* A string's bytes between its quotes (r->p at the opening one). */
static bool
read_string(struct reader *r, const char **s, size_t *n)
{
	const char *q;

	if (!next_is(r, '"'))
		return false;
	if ((q = json_subset_plain_end(r->p, r->end)) == r->end || *q != '"')
		return false;
	*s = r->p;
	*n = (size_t)(q - r->p);
	r->p = q + 1;
	return true;
}

/* As jansson's lexer reads a real: strtod() in the C notation (it swaps
 * the locale's decimal point in; here another locale leaves it to jansson). */
static json_t *
real_from(const char *s, size_t n)
{
	char text[REAL_TEXT_MAX];
	const struct lconv *lc = localeconv();

	if (n >= sizeof(text) || strcmp(lc->decimal_point, ".") != 0)
		return NULL;
	memcpy(text, s, n);
	text[n] = '\0';
	return json_real(strtod(text, NULL));
}

/* An integer is summed here (at most 18 digits: no overflow); a real is
 * read as jansson reads it, and one of REAL_TEXT_MAX characters or more is
 * left to jansson. */
static json_t *
read_number(struct reader *r)
{
	const char *start = r->p;
	size_t n = json_subset_number_len(r->p, r->end);
	long long value = 0;
	bool negative;

	if (n == 0)
		return NULL;
	negative = *start == '-';
	r->p += n;
	if (memchr(start, '.', n) != NULL)
		return real_from(start, n);
	for (const char *p = start + negative; p < r->p; p++)
		value = value * 10 + (*p - '0');
	return json_integer(negative ? -value : value);
}

static json_t *
read_literal(struct reader *r, const char *word, json_t *value)
{
	size_t n = strlen(word);

	if ((size_t)(r->end - r->p) < n || memcmp(r->p, word, n) != 0)
		return NULL;
	r->p += n;
	return value;
}

/* One member into obj; false when it is not one or memory ran out. */
static bool
read_member(struct reader *r, json_t *obj)
{
	const char *key;
	size_t n;
	json_t *v;

	if (!read_string(r, &key, &n) || !next_is(r, ':') || (v = read_value(r)) == NULL)
		return false;
	/* As jansson: a later duplicate replaces the value, in place. */
	return json_object_setn_new_nocheck(obj, key, n, v) == 0;
}

static json_t *
read_object(struct reader *r)
{
	json_t *obj = json_object();

	if (obj == NULL)
		return NULL;
	if (next_is(r, '}'))
		return obj;
	do {
		if (!read_member(r, obj)) {
			json_decref(obj);
			return NULL;
		}
	} while (next_is(r, ','));
	if (!next_is(r, '}')) {
		json_decref(obj);
		return NULL;
	}
	return obj;
}

static json_t *
read_array(struct reader *r)
{
	json_t *arr = json_array(), *v;

	if (arr == NULL)
		return NULL;
	if (next_is(r, ']'))
		return arr;
	do {
		if ((v = read_value(r)) == NULL || json_array_append_new(arr, v) != 0) {
			json_decref(arr);
			return NULL;
		}
	} while (next_is(r, ','));
	if (!next_is(r, ']')) {
		json_decref(arr);
		return NULL;
	}
	return arr;
}

/* A container one level deeper, or NULL past the depth the subset allows. */
static json_t *
read_nested(struct reader *r, bool object)
{
	json_t *v;

	if (++r->depth > JSON_SUBSET_DEPTH)
		return NULL;
	r->p++;
	v = object ? read_object(r) : read_array(r);
	r->depth--;
	return v;
}

static json_t *
read_value(struct reader *r)
{
	const char *s;
	size_t n;

	if (r->p >= r->end)
		return NULL;
	switch (*r->p) {
	case '{':
		return read_nested(r, true);
	case '[':
		return read_nested(r, false);
	case '"':
		return read_string(r, &s, &n) ? json_stringn_nocheck(s, n) : NULL;
	case 't':
		return read_literal(r, "true", json_true());
	case 'f':
		return read_literal(r, "false", json_false());
	case 'n':
		return read_literal(r, "null", json_null());
	default:
		return read_number(r);
	}
}

json_t *
json_subset_load(const char *s, size_t len)
{
	struct reader r = { s, s + len, 0 };
	json_t *v;

	if (len == 0 || s[0] != '{' || (v = read_value(&r)) == NULL)
		return NULL;
	if (r.p != r.end) {
		json_decref(v);
		return NULL;
	}
	return v;
}

/* The value of the \uXXXX escape at s[i] (s[i] is the backslash), or -1. */
static long
escape_at(const char *s, size_t len, size_t i)
{
	long v = 0;

	if (len - i < 6 || s[i + 1] != 'u')
		return -1;
	for (size_t k = i + 2; k < i + 6; k++) {
		char c = s[k];
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
		    c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;

		if (d < 0)
			return -1;
		v = v * 16 + d;
	}
	return v;
}

/*
 * Rewrites each lone surrogate escape of s in place as \ufffd; true when
 * there was one.  Escapes are read from the left, two bytes at a time for
 * the short ones, so "\\ud83d" (an escaped backslash) is never taken for one.
 */
static bool
mend_lone_surrogates(char *s, size_t len)
{
	bool mended = false;

	for (size_t i = 0; i + 1 < len; i++) {
		long v, next;

		if (s[i] != '\\')
			continue;
		if ((v = escape_at(s, len, i)) < 0xd800 || v > 0xdfff) {
			i++;
			continue;
		}
		next = i + 6 < len && s[i + 6] == '\\' ? escape_at(s, len, i + 6) : -1;
		if (v <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
			i += 11;
			continue;
		}
		memcpy(s + i, "\\ufffd", 6);
		mended = true;
		i += 5;
	}
	return mended;
}

json_t *
json_load_any(const char *s, size_t len, size_t flags, json_error_t *err)
{
	json_t *v = json_loadb(s, len, flags | JSON_ALLOW_NUL, err);
	char *copy;

	if (v != NULL || memmem(s, len, "\\u", 2) == NULL || (copy = malloc(len > 0 ? len : 1)) == NULL)
		return v;
	memcpy(copy, s, len);
	if (mend_lone_surrogates(copy, len))
		v = json_loadb(copy, len, flags | JSON_ALLOW_NUL, err);
	free(copy);
	return v;
}
