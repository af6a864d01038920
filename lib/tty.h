/*
 * tty.h: the pseudo-terminal for interactive use, and rlwrap's own
 * terminal: raw mode in, the saved mode back out, window sizes across.
 *
 * Ownership: struct term_mode is caller-allocated and remembers the mode to
 * restore; pty_open() hands both pty descriptors to the caller, who closes
 * them.
 */
#ifndef RLWRAP_TTY_H
#define RLWRAP_TTY_H

#include <stdbool.h>
#include <termios.h>

struct term_mode {
	int fd;            /* -1 when nothing is saved */
	bool raw;          /* currently in raw mode */
	struct termios saved;
};

/*
 * Opens a pty pair whose mode and window size copy like_fd's when it is a
 * terminal (else the defaults, and the size of the first of 0, 1, 2 that is
 * a terminal, else $COLUMNS x $LINES, else 80x24).  The master is
 * close-on-exec and non-blocking.  Returns 0, or -1 with errno set.
 */
int pty_open(int like_fd, int *master, int *slave);
/* The window size pty_open() gives the pty, by the same rule. */
struct winsize;
void pty_window_size(int like_fd, struct winsize *ws);

/* In the session leader, after fork: a new session with slave as its
 * controlling terminal.  Returns 0 or -1 with errno set;
 * async-signal-safe. */
int pty_make_controlling(int slave);

/* In the command, before exec, inside that session: a process group of its
 * own that is the terminal's foreground group, with slave as stdin, stdout
 * (and stderr when with_stderr).  Returns 0 or -1 with errno set;
 * async-signal-safe. */
int pty_enter_foreground(int slave, bool with_stderr);

/* Copies the window size of terminal from to the pty master (which signals
 * the child's foreground group); false when from is not a terminal. */
bool pty_copy_winsize(int from, int master);

void term_mode_init(struct term_mode *t);
/* Saves fd's mode (once) and switches it to raw; -1 with errno on failure. */
int term_enter_raw(struct term_mode *t, int fd);
/* Puts the saved mode back, if it was changed; safe to call any time. */
void term_restore(struct term_mode *t);

#endif
