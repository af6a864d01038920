/*
 * ansi.h: reading a terminal byte stream, for what a full-screen agent shows
 * and for the state it leaves the terminal in.
 *
 * Screen text (ansi_strip): escape sequences (CSI, OSC, DCS and the other
 * strings, charset designations) are dropped; carriage returns, cursor moves
 * to another row, clearing the screen, a full reset and entering or leaving
 * the alternate screen become line ends, so each row of text arrives as one
 * line and nothing drawn before a screen change is glued to what is drawn
 * after it; other control characters are dropped, tabs become spaces.  Runs
 * of blanks are squeezed, except the indentation of a line (up to 8); runs of
 * empty lines are squeezed to the one empty line that consecutive line feeds
 * make.
 *
 * Screen state (ansi_screen): whether the stream left the terminal on the
 * alternate screen, with the cursor hidden, or in the middle of a line, and
 * the bytes that undo that.
 *
 * Sequences may be split across calls in any way.
 *
 * Ownership: both structs are caller-allocated plain state; nothing here
 * allocates.
 */
#ifndef RLWRAP_ANSI_H
#define RLWRAP_ANSI_H

#include <stdbool.h>
#include <stddef.h>

/* A CSI sequence being read: its private marker and parameters so far. */
struct ansi_csi {
	bool private_mode;   /* ESC [ ? ... */
	bool alt_screen;     /* a parameter names an alternate-screen mode */
	bool cursor;         /* a parameter is 25 (cursor visible) */
	int param;           /* the parameter being read */
	int first, second;   /* the first two parameters, -1 when absent */
	int count;           /* parameters seen */
};

struct ansi_strip {
	int state;
	int prev;        /* the last byte written out, '\n' at the start */
	struct ansi_csi csi;
	int line_feeds;  /* line feeds since the last text */
	int indent;      /* blanks written at the start of this line */
	bool drawn;      /* the stream moved the cursor or erased: a drawn screen */
};

void ansi_strip_init(struct ansi_strip *st);

/* Strips in[0..len) into out, which must hold len bytes (the text never
 * grows); returns the number of bytes written. */
size_t ansi_strip(struct ansi_strip *st, const char *in, size_t len, char *out);

struct ansi_screen {
	int state;
	struct ansi_csi csi;
	bool alt_screen;      /* on the alternate screen */
	bool cursor_hidden;
	bool mid_line;        /* the cursor is not at the start of a line */
	bool main_mid_line;   /* mid_line of the main screen, while on the other */
	bool drawn;           /* the stream moved the cursor or erased: a drawn screen */
};

void ansi_screen_init(struct ansi_screen *s);
/* Follows what in[0..len) does to the terminal. */
void ansi_screen_feed(struct ansi_screen *s, const char *in, size_t len);

/* The bytes that leave the alternate screen and show the cursor, if the
 * stream left them otherwise, then (with newline) a line end when the
 * cursor is not at the start of a line; at most ANSI_RESTORE_MAX bytes, with
 * no terminating NUL.  Returns their number. */
#define ANSI_RESTORE_MAX 24
size_t ansi_screen_restore(const struct ansi_screen *s, bool newline, char *out);
/* Whether the cursor is left in the middle of a line once
 * ansi_screen_restore() has left the alternate screen. */
bool ansi_screen_mid_line(const struct ansi_screen *s);
/* The bytes that put back what ansi_screen_restore() undid (after a job
 * stop): the alternate screen and the hidden cursor. */
size_t ansi_screen_reenter(const struct ansi_screen *s, char *out);

#endif
