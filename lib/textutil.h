/*
 * textutil.h: byte-level text helpers for the classifier.
 *
 * Ownership: nothing here allocates; callers pass the buffers.
 */
#ifndef RLWRAP_TEXTUTIL_H
#define RLWRAP_TEXTUTIL_H

#include <stdbool.h>
#include <stddef.h>

/* ASCII only: tolower() would depend on the locale. */
char ascii_lower(char c);

/* Length of word when s starts with it, case-insensitively; else 0. */
size_t prefix_nocase(const char *s, size_t len, const char *word);

/* ASCII-lowercases src into dst (size >= 1), cut to size - 1 bytes. */
size_t lower_copy(char *dst, size_t size, const char *src, size_t len);

/* memmem for a NUL-terminated needle; NULL when absent. */
const char *find_bytes(const char *hay, size_t len, const char *needle);

/* Does key (n bytes, n >= 2) end right before a ':' in s?  Candidates
 * are found 16 to 64 starts at a time. */
bool has_key_colon(const char *s, size_t len, const char *key, size_t n);
/* Does s hold needle (n bytes), whose first byte is rare in the text? */
bool has_rare(const char *s, size_t len, const char *needle, size_t n);
/* has_rare(s, len, rare, m) || has_key_colon(s, len, key, n), in one pass
 * where the CPU has AVX2. */
bool has_key_colon_or_rare(const char *s, size_t len, const char *key, size_t n, const char *rare, size_t m);

/* Case-insensitive substring search (ASCII), NULL when absent. */
const char *find_nocase(const char *hay, size_t len, const char *needle);

/* Appends src to the NUL-terminated dst of capacity size, with a separating
 * space when dst is not empty; silently cut when full. */
void append_text(char *dst, size_t size, const char *src, size_t len);

/* The one sanitiser of values that came from a stream (docs/design.md
 * section 11): copies at most size - 1 bytes of src as well-formed UTF-8,
 * with invalid bytes and every character visible_hidden() names (C0, DEL,
 * C1, bidirectional, zero-width, line separators) dropped, line breaks
 * and tabs made single spaces, trailing spaces trimmed, never cutting a
 * character in half.  What it returns it leaves unchanged. */
size_t clean_copy(char *dst, size_t size, const char *src, size_t len);
/* clean_copy() of the NUL-terminated src. */
size_t clean_copy_str(char *dst, size_t size, const char *src);

/* strlcpy for text that ends up in a FailureSignal: NUL-terminated src into
 * dst of capacity size, cut on a character boundary, invalid bytes dropped. */
size_t utf8_copy(char *dst, size_t size, const char *src);

/* The Damerau-Levenshtein distance (optimal string alignment) between a and
 * b, counted up to limit: limit + 1 when it is more (or a word is longer
 * than 63 bytes).  For "did you mean" suggestions. */
int edit_distance(const char *a, const char *b, int limit);

#endif
