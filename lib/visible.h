/*
 * visible.h: text that came from outside rlwrap (a child's stream, argv, a
 * path, an account name, a row of the state file) made safe to print on a
 * terminal (docs/design.md section 13).
 *
 * Ownership: nothing here allocates; callers pass the buffers.
 */
#ifndef RLWRAP_VISIBLE_H
#define RLWRAP_VISIBLE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Copies the NUL-terminated src into out (capacity size >= 1) with every
 * character a terminal would act on instead of show replaced by a visible
 * escape: C0 controls and DEL as \n, \t, \r, \e or \xNN; bytes that are not
 * UTF-8 as \xNN; C1 controls, bidirectional controls (U+202A..U+202E,
 * U+2066..U+2069, U+200E, U+200F, U+061C), zero-width characters, U+2028,
 * U+2029 and U+FEFF as <U+XXXX>.  A backslash stays a backslash.  Cut on an
 * escape or character boundary when out is too small.  Returns out.
 */
char *visible_text(const char *src, char *out, size_t size);

/* Length of the well-formed UTF-8 character at s (len bytes left), 0 when
 * s does not start one (a stray byte, overlong, surrogate, cut short). */
size_t utf8_sequence(const char *s, size_t len);

/* Is the well-formed UTF-8 character s[0..n) one visible_text() escapes:
 * a C0 or C1 control, DEL, or a bidirectional, zero-width or
 * line-separator character? */
bool visible_hidden(const char *s, size_t n);

/* The same for the first len bytes of src (which may hold NUL bytes). */
char *visible_bytes(const char *src, size_t len, char *out, size_t size);

#endif
