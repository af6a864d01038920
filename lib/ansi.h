/*
 * ansi.h: screen text from a terminal byte stream, for scanning what a
 * full-screen agent shows.  Escape sequences (CSI, OSC, DCS and the other
 * strings, charset designations) are dropped; carriage returns and cursor
 * moves to another row become line ends, so each row of text arrives as one
 * line; other control characters are dropped, tabs become spaces.  Empty
 * lines are squeezed.  Sequences may be split across calls in any way.
 *
 * Ownership: struct ansi_strip is caller-allocated plain state; nothing here
 * allocates.
 */
#ifndef RLWRAP_ANSI_H
#define RLWRAP_ANSI_H

#include <stddef.h>

struct ansi_strip {
	int state;
	int prev;        /* the last byte written out, '\n' at the start */
};

void ansi_strip_init(struct ansi_strip *st);

/* Strips in[0..len) into out, which must hold len bytes (the text never
 * grows); returns the number of bytes written. */
size_t ansi_strip(struct ansi_strip *st, const char *in, size_t len, char *out);

#endif
