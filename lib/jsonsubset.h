/*
 * jsonsubset.h: a JSON line in a small subset read without jansson's
 * lexer, which takes a byte at a time through a callback (6 to 7 us for a
 * 440-byte heartbeat, the cost of every heartbeat that changes state).
 *
 * The subset is compact JSON: no whitespace, strings of printable ASCII
 * without escapes, numbers -?(0|[1-9][0-9]{0,17})(.[0-9]+)? (an integer
 * part that fits json_int_t and no exponent: jansson reports no overflow),
 * true, false, null, objects and arrays at most JSON_SUBSET_DEPTH deep, an
 * object at the top.  Jansson reads every line of the subset without an
 * error, and json_subset_load() builds the value it would build: the same
 * types, the same members in the same order, a later duplicate key
 * replacing the earlier value in place.  Its strings and numbers are also
 * the ones Claude's heartbeat scan accepts (heartbeat.h).
 *
 * Ownership: the caller owns the returned value (json_decref()).
 */
#ifndef RLWRAP_JSONSUBSET_H
#define RLWRAP_JSONSUBSET_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include <jansson.h>

#define JSON_SUBSET_DEPTH 16

/* May a string of the subset hold c?  Printable ASCII but a quote or a
 * backslash: valid UTF-8 that jansson keeps byte for byte. */
static inline bool
json_subset_plain_byte(unsigned char c)
{
	return c >= 0x20 && c <= 0x7e && c != '"' && c != '\\';
}

#ifdef __SSE2__
/* Bit i: b[i] is no json_subset_plain_byte(), for 16 bytes (signed
 * compares: 0x80 and up are below 0x20). */
static inline unsigned
json_subset_stops16(const char *b)
{
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)b);

	return (unsigned)_mm_movemask_epi8(_mm_or_si128(
	    _mm_or_si128(_mm_cmplt_epi8(v, _mm_set1_epi8(0x20)), _mm_cmpgt_epi8(v, _mm_set1_epi8(0x7e))),
	    _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\')))));
}
#endif

/* The first byte from s on (before end) that no string of the subset may
 * hold, or end. */
const char *json_subset_plain_end(const char *s, const char *end);
/* The length of the subset's number at s (before end), or 0. */
size_t json_subset_number_len(const char *s, const char *end);

/* The object on the line s (len bytes, no newline), or NULL when a byte
 * of it lies outside the subset, a real is 64 characters or longer, or
 * memory ran out: then parse it. */
json_t *json_subset_load(const char *s, size_t len);

/*
 * json_loadb() for any valid document, as Node's JSON.stringify writes
 * them: strings may hold \u0000 (JSON_ALLOW_NUL), and a lone surrogate
 * escape (\ud83d with no pair, which jansson refuses) is read as \ufffd.
 * The replacement has the escape's length, so err->position still points
 * into s.  The caller owns the returned value.
 */
json_t *json_load_any(const char *s, size_t len, size_t flags, json_error_t *err);

#endif
