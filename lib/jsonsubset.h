/*
 * jsonsubset.h: a JSON line in a small subset read without jansson's
 * lexer, which takes a byte at a time through a callback (6 to 7 us for a
 * 440-byte heartbeat, the cost of every heartbeat that changes state).
 *
 * The subset is compact JSON: no whitespace, strings of printable ASCII
 * without escapes, numbers -?(0|[1-9][0-9]{0,17})(.[0-9]{1,30})? (an
 * integer part that fits json_int_t, no exponent, so no overflow and no
 * subnormal), true, false, null, objects and arrays at most
 * JSON_SUBSET_DEPTH deep, an object at the top.  Jansson reads every line
 * of the subset without an error, and json_subset_load() builds the value
 * it would build: the same types, the same members in the same order, a
 * later duplicate key replacing the earlier value in place.
 *
 * Ownership: the caller owns the returned value (json_decref()).
 */
#ifndef RLWRAP_JSONSUBSET_H
#define RLWRAP_JSONSUBSET_H

#include <stddef.h>

#include <jansson.h>

#define JSON_SUBSET_DEPTH 16

/* The object on the line s (len bytes, no newline), or NULL when a byte
 * of it lies outside the subset (or memory ran out): then parse it. */
json_t *json_subset_load(const char *s, size_t len);

#endif
