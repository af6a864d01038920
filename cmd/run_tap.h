/*
 * run_tap.h: the wrapper's tap: the child's output, merged in arrival
 * order, to --raw-stream and the streaming classifier (on a worker thread
 * when that pays), in pty mode through the screen it draws; and the files
 * the wrapper writes on request, checked before the child runs.
 *
 * Ownership: struct run_tap is the caller's: tap_init() fills it, owning
 * the classifiers, the screen and the queue, which tap_free() frees; the
 * raw stream's descriptor, the hold and the breaker stay the caller's.
 */
#ifndef RLWRAP_CMD_RUN_TAP_H
#define RLWRAP_CMD_RUN_TAP_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "ansi.h"
#include "child.h"
#include "classify.h"
#include "linemerge.h"
#include "run.h"
#include "screen.h"
#include "tapqueue.h"

/* The tap's state: merged output to --raw-stream and the classifier. */
struct run_tap {
	struct classifier *cls;
	struct line_merge merge;
	bool async;                       /* classify on a worker thread (tapqueue.h) */
	struct tap_queue *queue;          /* started at the first chunk, after the fork */
	int tee_pipe[2];                  /* stdout teed for the classifier (child.h), or -1 */
	char *teed;                       /* not async: the teed bytes read back here */
	int raw_fd;                       /* -1 when not writing */
	const char *raw_path;
	bool strip_screen;                /* pty mode: scan screen text */
	bool live_clock;                  /* resolve resets against the time they are seen */
	struct ansi_strip strip;
	/* pty mode: the screen the output draws, judged at the end; the
	 * window size it was last given (child_winsize_changes()).  NULL: the
	 * stripped text is classified as it comes. */
	struct screen *screen;
	unsigned screen_winch;
	struct ansi_screen drawing;       /* whether the program drew its screen */
	struct classifier *watch;         /* with screen and watch_output: the live reading */
	/* With screen: stderr is a pipe, not the pty; its line feeds get the
	 * carriage return a terminal's output would have (stderr_cr: the
	 * last byte was one). */
	bool stderr_piped, stderr_cr;
	/* Watching for the first real output (PROBE or --retry): the classifier
	 * is fed here, synchronously, so this is seen in the chunk it arrives. */
	bool watch_output;
	struct child_hold *hold;          /* --retry: release it then */
	struct run_breaker *breaker;      /* PROBE: close the breakers then */
	const struct run_identity *id;
	/* Work space, last and not zeroed (tap_init): 32 KiB of stack a run
	 * through a pipe never touches.  crlf: stderr with its carriage
	 * returns; scratch: stripped text for the classifier. */
	char crlf[16 * 1024];
	char scratch[16 * 1024];
};

void tap_init(struct run_tap *t, const struct run_opts *o, const struct run_identity *id, int raw_fd,
    time_t now);
void tap_free(struct run_tap *t);
/* The child's output (child.h's tap callback; arg is the tap). */
void tap_output(enum child_stream stream, const char *buf, size_t len, void *arg);
/* Tees stdout for the classifier where the relay can (spec->tee_fd). */
void tap_tee_open(struct run_tap *t, struct child_spec *spec);
/* pty mode: the screen at the pty's size (RLWRAP_TEST_SCREEN=off: none,
 * the stripped text as it comes). */
void tap_screen_open(struct run_tap *t);
/* pty mode, at the end: the final screen and its scrollback classified. */
void tap_screen_judged(struct run_tap *t);
/* Whether a worker thread for the classifier pays on this machine. */
bool tap_async_pays(void);

/* --raw-stream: opened before the gate (125 when it cannot be; -1 when
 * not asked or refused by the guard), emptied once the child is to run. */
int raw_stream_open(const char *path);
void raw_stream_truncate(int fd, const char *path);
/* --signal-file checked before the child runs (125 when it cannot be
 * written; dropped with one line when the guard refuses it). */
void signal_file_check(struct run_opts *o);

#endif
