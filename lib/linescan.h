/*
 * linescan.h: where a line ends, and where a rare needle stands in it,
 * found in one pass.  Most lines of an agent's stream are read only to
 * find their end; a search that needs the same bytes rides along.
 *
 * Ownership: nothing here allocates; the caller owns the bytes.
 */
#ifndef RLWRAP_LINESCAN_H
#define RLWRAP_LINESCAN_H

#include <stdbool.h>
#include <stddef.h>

/* Starts of the needle in the line: the first and the last, -1 for none. */
struct line_marks {
	long first, last;
};

/*
 * The offset of the first '\n' among the avail bytes at p, or avail when
 * there is none; *marks: the first and the last start of needle (n >= 1
 * bytes, no '\n' among them, its first byte rare in the text, such as
 * '<') that lie wholly before that offset.
 */
size_t line_scan(const char *p, size_t avail, const char *needle, size_t n, struct line_marks *marks);
/* line_scan() without vector instructions (what other CPUs run; the tests
 * hold the two to the same answers). */
size_t line_scan_bytes(const char *p, size_t avail, const char *needle, size_t n, struct line_marks *marks);

/* The length of the line at p whose newline is at end, as the classifier
 * reads it: without a '\r' before the newline. */
static inline size_t
line_without_cr(const char *p, size_t end)
{
	return end > 0 && p[end - 1] == '\r' ? end - 1 : end;
}

#endif
