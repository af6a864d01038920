/*
 * screen.h: what a terminal shows, for the verdict on a pty run.  The raw
 * bytes a program writes to its terminal go through a terminal emulator
 * (libvterm), in any chunking (a sequence may be split anywhere); at the end
 * the text it left is read back as lines:
 *
 * - the scrollback (the last SCREEN_SCROLLBACK rows that scrolled off the
 *   top), then the rows of the main screen;
 * - a row the emulator reached by auto-wrap is joined to the row above it:
 *   one logical line, however narrow the screen;
 * - trailing blanks of a line are dropped, blank lines between lines kept,
 *   the blank rows at the bottom of a screen dropped; UTF-8, a wide
 *   character once;
 * - the alternate screen: a program still on it at the end shows its frame
 *   there, so that frame comes last; a program that left it had its last
 *   frame shown before what it printed on the main screen after leaving, so
 *   the frame goes in there, at the main screen's cursor row as it was when
 *   the alternate screen was left (only the last frame is kept).
 *
 * Ownership: screen_new() returns a screen the caller frees with
 * screen_free(); screen_text() returns a malloc'ed buffer the caller frees.
 * Nothing else is handed out.  Not thread-safe: one thread at a time.
 */
#ifndef RLWRAP_SCREEN_H
#define RLWRAP_SCREEN_H

#include <stddef.h>

#define SCREEN_SCROLLBACK 2000

struct screen;

/* NULL when out of memory; rows are clamped to 1..1000, cols to 2..1000. */
struct screen *screen_new(int rows, int cols);
void screen_free(struct screen *s);
/* The terminal's window changed (SIGWINCH): nothing is reflowed. */
void screen_resize(struct screen *s, int rows, int cols);
void screen_feed(struct screen *s, const char *buf, size_t len);
/* The text as above, each line ended by '\n' (NUL-terminated too, *len
 * without it); NULL when out of memory.  Feeding may go on after. */
char *screen_text(struct screen *s, size_t *len);

#endif
