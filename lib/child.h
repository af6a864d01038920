/*
 * child.h: running the wrapped command the way tini and timeout(1) do.
 * Signals are caught and blocked before the fork; the child gets back the
 * mask and dispositions rlwrap started with; forwarded signals reach it.
 * relay.h moves its output (and, on a pty, its input) and follows its stops.
 *
 * On a pseudo-terminal the command runs under a session leader of rlwrap's
 * own, as a job runs under a shell: in a process group of its own, the
 * terminal's foreground group, so the kernel lets it stop (Ctrl-Z, SIGTSTP,
 * SIGTTIN, SIGTTOU); the leader reports its stops and its end to rlwrap.
 *
 * Ownership: signal dispositions belong to the whole process, so this module
 * keeps the saved signal state in static storage: one child at a time,
 * between child_signals_catch() and child_signals_release().  struct child is
 * caller-allocated and owns the descriptors child_spawn() opens until
 * child_close().  The spec and the terminal mode are borrowed.
 */
#ifndef RLWRAP_CHILD_H
#define RLWRAP_CHILD_H

#include <stdbool.h>
#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

#include "ansi.h"
#include "tty.h"

#define CHILD_BUF_SIZE (256 * 1024)
#define CHILD_DRAIN_MS 1000

enum child_stream { CHILD_OUT, CHILD_ERR, CHILD_STREAMS };

/* Sees every chunk the child wrote, right after it was relayed (and also
 * when its destination is gone), in arrival order.  buf NULL: the chunk's
 * len bytes wait in spec->tap_pipe (see there). */
typedef void (*child_tap)(enum child_stream stream, const char *buf, size_t len, void *arg);

/*
 * Stdout held back (the wrapper's --retry): while holding, the child's stdout
 * bytes go to buf instead of rlwrap's stdout (the tap still sees them at
 * once).  The tap sets release when the run has shown real output: the held
 * bytes are written out and stdout flows directly from then on.  Past max
 * bytes the hold gives up the same way and says so in overflowed.  After
 * relay_pump() the caller writes out or drops what is still held, and frees
 * buf.
 */
struct child_hold {
	bool holding;
	bool release;
	bool overflowed;
	char *buf;
	size_t len, max;
};

struct child_spec {
	char *const *argv;     /* argv[0] is looked up in PATH */
	bool use_pty;          /* stdin and stdout on a new pseudo-terminal */
	bool stderr_on_pty;    /* with use_pty: stderr too (else a pipe) */
	int drain_ms;          /* how long to read after the child exited */
	struct term_mode *term;  /* rlwrap's raw terminal (pty mode), or NULL */
	child_tap tap;
	void *tap_arg;
	/* With tap_tee, tap_pipe is a pipe's write end.  While stdout is
	 * relayed as it arrives (no hold, no pty) and the kernel allows, its
	 * bytes are tee(2)d into that pipe and splice(2)d to rlwrap's stdout,
	 * never passing through rlwrap's memory; the tap is then called with
	 * buf NULL and reads them from the pipe's other end. */
	bool tap_tee;
	int tap_pipe;
	struct child_hold *hold;   /* NULL: stdout is relayed as it arrives */
	bool die_with_parent;      /* SIGTERM to the child when rlwrap dies, however it dies */
	bool track_screen;         /* follow what stdout does to the terminal (c->screen) */
	/* Called once, from relay_pump(), when the command has run soon_ms:
	 * what only a long run needs is started there, so a short one never
	 * pays for it.  NULL: nothing. */
	void (*soon)(void *arg);
	void *soon_arg;
	int soon_ms;
};

struct child {
	pid_t pid;                    /* the command */
	pid_t leader;                 /* pty mode: its session leader, else -1 */
	int leader_fd;                /* pty mode: the leader's reports; -1 closed */
	int fd[CHILD_STREAMS];        /* read ends (CHILD_OUT is the pty master); -1 closed */
	int dest[CHILD_STREAMS];      /* rlwrap's stdout and stderr */
	bool dest_quick[CHILD_STREAMS]; /* a regular file or a memory device: no reader to wait for */
	int pty_master;               /* -1 unless pty mode */
	bool stdin_open;              /* pty mode: still copying stdin to the master */
	char input[4096];             /* pty mode: stdin bytes not yet written */
	size_t input_len, input_off;
	bool input_mid_line;          /* pty mode: the last byte written was not a line end */
	bool input_ended;             /* pty mode: stdin (not a terminal) ended; the child is told */
	bool hangup_due;              /* pty mode, raw child: hang up once it has read its input */
	struct ansi_screen screen;    /* with track_screen: what stdout did to the terminal */
	bool terminal_given_back;     /* stopped, or continued in the background: modes and
	                                 screen are as rlwrap found them until the foreground */
	bool held;                    /* pty mode: left stopped until rlwrap is in the foreground */
	bool signalled;               /* a signal for it came while we were stopped: never held */
	int status;                   /* wait status, once reaped */
	bool reaped;
	size_t unread[CHILD_STREAMS]; /* bytes the child left in each pipe when it exited */
	bool tee_ok;                  /* stdout still goes by tee and splice (spec->tap_tee) */
	int error;                    /* errno of a failed spawn */
};

enum spawn_result { SPAWN_OK, SPAWN_FAILED, SPAWN_EXEC_FAILED };

/*
 * Installs rlwrap's handlers for the forwarded signals, SIGTSTP and SIGCHLD
 * (remembering the old ones), blocks them, and ignores SIGPIPE.
 * Returns 0 or -1 with errno set.
 */
int child_signals_catch(void);
/* How many times the pty's window size has been changed (a SIGWINCH
 * passed on): a reader on any thread sees that it changed. */
unsigned child_winsize_changes(void);
/* Puts every disposition and the mask back as child_signals_catch() found them. */
void child_signals_release(void);

/*
 * Starts spec->argv.  SPAWN_FAILED: rlwrap could not (c->error);
 * SPAWN_EXEC_FAILED: the command could not be executed (c->error, the child
 * is already reaped).
 */
enum spawn_result child_spawn(struct child *c, const struct child_spec *spec);

/* ---- for the relay (relay.c): what the signal handler noted ---- */

enum child_flag { CHILD_FLAG_CHLD, CHILD_FLAG_TSTP, CHILD_FLAG_CONT, CHILD_FLAG_WINCH };
/* The flag's value, 0 when not raised (SIGTSTP: 1 stop, 2 stop and
 * forward it: it did not reach the child). */
int child_flag(enum child_flag f);
/* The flag's value, lowered. */
int child_flag_take(enum child_flag f);
/* The mask under which the caught signals are delivered (ppoll's). */
const sigset_t *child_run_mask(void);
/* The child is reaped: no signal is forwarded to its pid any more. */
void child_forget(void);
/* The pty's window size was set (child_winsize_changes() counts it). */
void child_winsize_note(void);

/* What the session leader tells rlwrap: one record per write (atomic). */
struct leader_report {
	int kind;
	int value;
};
enum { REPORT_PID, REPORT_STOP, REPORT_EXIT };

/* Closes what is still open. */
void child_close(struct child *c);

/* 127 for a command not found, 126 for one that could not run. */
int exec_error_exit_code(int err);
/* The shell's view of a wait status: the exit code, or 128 + signal. */
int wait_status_exit_code(int status);
/* The signal that killed the process, or 0. */
int wait_status_signal(int status);

#endif
