/*
 * rlwrap [run] [options] [--] command [arg ...]: the wrapper.
 *
 * Invisible when nothing goes wrong: the child's bytes pass through as they
 * arrive, its exit status (or fatal signal) becomes ours, signals reach it.
 * On the side, the same bytes feed the streaming classifier, whose verdict
 * goes to --signal-file, the run history and the breakers (cmd/run_gate.c,
 * which also refuses or waits before the spawn), and, when it trips a
 * breaker, one line on stderr.  --retry runs it again after a limit that
 * struck before any real output, holding stdout back until then.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ansi.h"
#include "relay.h"
#include "classify.h"
#include "cmd.h"
#include "detect.h"
#include "linemerge.h"
#include "outfile.h"
#include "redact.h"
#include "run.h"
#include "screen.h"
#include "tapqueue.h"
#include "textutil.h"
#include "timeparse.h"
#include "tty.h"

enum {
	OPT_RAW_STREAM = OPT_LONG_BASE, OPT_SIGNAL_FILE, OPT_FORCE, OPT_PTY, OPT_NO_PTY, OPT_NO_RECORD,
	OPT_COLOR, OPT_PRIORITY
};

static const struct option run_longopts[] = {
	{ "family", required_argument, NULL, 'f' },
	{ "model", required_argument, NULL, 'm' },
	{ "account", required_argument, NULL, 'a' },
	{ "wait", optional_argument, NULL, 'w' },
	{ "retry", optional_argument, NULL, 'r' },
	{ "raw-stream", required_argument, NULL, OPT_RAW_STREAM },
	{ "signal-file", required_argument, NULL, OPT_SIGNAL_FILE },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "quiet", no_argument, NULL, 'q' },
	{ "pty", no_argument, NULL, OPT_PTY },
	{ "no-pty", no_argument, NULL, OPT_NO_PTY },
	{ "no-record", no_argument, NULL, OPT_NO_RECORD },
	{ "color", optional_argument, NULL, OPT_COLOR },
	{ "priority", required_argument, NULL, OPT_PRIORITY },
	{ NULL, 0, NULL, 0 },
};

#define WAIT_MAX_DEFAULT (6 * 3600.0)
#define RETRY_DEFAULT 3
/* --retry holds stdout back at most this much; past it, it gives up. */
#define HOLD_MAX (8 * 1024 * 1024)
/* A retry after a limit that stated no reset: this, doubled per attempt. */
#define RETRY_BACKOFF 5.0

enum pty_choice { PTY_AUTO, PTY_ON, PTY_OFF };

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

static struct term_mode run_term;
/* rlwrap's lines start on a line of their own: the child left the cursor
 * in the middle of one on this terminal (stdout). */
static bool child_left_mid_line;

/* Every way the wrapper ends rewrites --signal-file (a stale one would tell
 * of another run): what the usual paths did not write, on_exit() writes
 * with the status the process ends with, rlwrap's own 125 among them.  It
 * keeps copies of its own: run_exec's frame is gone by then. */
static struct {
	struct run_opts o;        /* argv and signal_file only */
	struct run_identity id;
	bool armed, written;
} at_exit;

/* Before a line of rlwrap's own on stderr. */
static void
own_line(void)
{
	if (child_left_mid_line && isatty(STDERR_FILENO))
		(void)!write(STDERR_FILENO, "\n", 1);
	child_left_mid_line = false;
}

static void
restore_terminal(void)
{
	term_restore(&run_term);
}

static void
copy_command(struct run_opts *o, char **operands, int count)
{
	o->argc = count;
	o->argv = reallocarray(NULL, (size_t)count + 1, sizeof(*o->argv));
	if (o->argv == NULL)
		err(EXIT_INTERNAL, "reallocarray");
	for (int i = 0; i < count; i++)
		o->argv[i] = cmd_strdup(operands[i]);
	o->argv[count] = NULL;
}

static void
run_opts_free(struct run_opts *o)
{
	for (int i = 0; i < o->argc; i++)
		free(o->argv[i]);
	free(o->argv);
	free(o->family);
	free(o->model);
	free(o->account);
	free(o->raw_stream);
	free(o->signal_file);
}

static bool
parse_wait_retry(const struct args *args, struct run_opts *o)
{
	const struct cmd_entry *self = &cmd_run_entry;
	const char *v;

	o->wait_max = WAIT_MAX_DEFAULT;
	o->retry_max = RETRY_DEFAULT;
	if ((o->wait = args_has(args, 'w')) && *(v = args_get(args, 'w')) != '\0' &&
	    !opt_duration(self, "--wait", v, &o->wait_max))
		return false;
	if ((o->retry = args_has(args, 'r')) && *(v = args_get(args, 'r')) != '\0' &&
	    !opt_int(self, "--retry", v, 0, 100, &o->retry_max))
		return false;
	return true;
}

/* cmd_entry.takes_value: `--wait 2h`, `-r 2`. */
static bool
run_takes_value(int opt, const char *word)
{
	const char *errstr;
	double secs;

	if (opt == 'w')
		return duration_parse(word, &secs);
	if (opt == 'r') {
		(void)strtonum(word, 0, 100, &errstr);
		return errstr == NULL;
	}
	return false;
}

/* Whether name, without a slash, is an executable in $PATH. */
static bool
on_path(const char *name)
{
	const char *path = getenv("PATH");
	char file[PATH_MAX];
	size_t n;

	for (const char *p = path != NULL ? path : "/usr/bin:/bin"; ; p += n + 1) {
		n = strcspn(p, ":");
		if (snprintf(file, sizeof(file), "%.*s/%s", (int)n, n > 0 ? p : ".", name) <
		    (int)sizeof(file) && access(file, X_OK) == 0)
			return true;
		if (p[n] == '\0')
			return false;
	}
}

/* The subcommand within two edits of word, or NULL. */
static const char *
subcommand_near(const char *word)
{
	const char *best = NULL;
	int best_d = 3, d;

	for (const struct cmd_entry *const *e = cmd_table; *e != NULL; e++)
		if ((d = edit_distance(word, (*e)->name, 2)) < best_d)
			best = (*e)->name, best_d = d;
	return best;
}

/* A first operand that is a mistake, not a command: a duration or number
 * (`rlwrap --wait 2h` read as running "2h"), or a mistyped subcommand that
 * is no command either.  After "--" the word is always the command. */
static bool
check_first_operand(const struct args *args)
{
	const struct cmd_entry *self = &cmd_run_entry;
	const char *word = args->operands[0], *near;
	double secs;

	if (args->after_dashdash || strchr(word, '/') != NULL)
		return true;
	if (duration_parse(word, &secs)) {
		if (word[strspn(word, "0123456789")] == '\0')
			usage_error(self, "%s: a number, not a command; a value goes attached (--retry=%s, "
			    "--wait=%s), a command of that name after --", word, word, word);
		else
			usage_error(self, "%s: a duration, not a command; a value goes attached (--wait=%s), "
			    "a command of that name after --", word, word);
		return false;
	}
	if ((near = subcommand_near(word)) != NULL && !on_path(word)) {
		usage_error(self, "%s: neither a command nor a subcommand; did you mean `rlwrap %s`?",
		    word, near);
		return false;
	}
	return true;
}

/* Fills o from the parsed options; false after a usage error. */
static bool
parse_run_opts(const struct args *args, struct run_opts *o)
{
	const struct cmd_entry *self = &cmd_run_entry;
	const char *family = args_get(args, 'f');

	memset(o, 0, sizeof(*o));
	if (!check_first_operand(args))
		return false;
	if (family != NULL && !family_known(family)) {
		usage_error(self, "--family %s: not a family (%s)", family, family_list());
		return false;
	}
	if (args_has(args, OPT_PTY) && args_has(args, OPT_NO_PTY)) {
		usage_error(self, "--pty and --no-pty exclude each other");
		return false;
	}
	if (args_has(args, OPT_COLOR) && !cmd_color_set(args_get(args, OPT_COLOR))) {
		usage_error(self, "--color=%s: not always, never or auto", args_get(args, OPT_COLOR));
		return false;
	}
	if (args_has(args, OPT_PRIORITY) && strcmp(args_get(args, OPT_PRIORITY), "high") != 0 &&
	    strcmp(args_get(args, OPT_PRIORITY), "normal") != 0) {
		usage_error(self, "--priority %s: not high or normal", args_get(args, OPT_PRIORITY));
		return false;
	}
	if (!parse_wait_retry(args, o))
		return false;
	/* A person waits on it: the reserve is kept for exactly this. */
	o->interactive = args_has(args, OPT_PTY) ||
	    (args_has(args, OPT_PRIORITY) && strcmp(args_get(args, OPT_PRIORITY), "high") == 0);
	o->family = cmd_strdup(family);
	o->model = cmd_strdup(args_get(args, 'm'));
	o->account = cmd_strdup(args_get(args, 'a'));
	o->raw_stream = cmd_strdup(args_get(args, OPT_RAW_STREAM));
	o->signal_file = cmd_strdup(args_get(args, OPT_SIGNAL_FILE));
	o->force = args_has(args, OPT_FORCE);
	o->quiet = args_has(args, 'q');
	o->no_record = args_has(args, OPT_NO_RECORD);
	o->pty = args_has(args, OPT_PTY) ? PTY_ON : args_has(args, OPT_NO_PTY) ? PTY_OFF : PTY_AUTO;
	copy_command(o, args->operands, args->count);
	return true;
}

/* The config's [family.NAME] commands, for detection. */
static const struct command_family *
config_command_map(const struct config *cfg, size_t *len)
{
	*len = cfg->command_map_len;
	return cfg->command_map;
}

static void
identify(const struct run_opts *o, const struct config *cfg, struct run_identity *id)
{
	const struct command_family *map;
	size_t map_len;

	memset(id, 0, sizeof(*id));
	id->command = detect_command_name(o->argv);
	if (o->family != NULL) {
		strlcpy(id->family, o->family, sizeof(id->family));
	} else {
		map = config_command_map(cfg, &map_len);
		detect_family(o->argv, map, map_len, id->family, sizeof(id->family));
	}
	id->family_given = strcmp(id->family, "generic") != 0 || o->family != NULL;
	if (o->model != NULL)
		strlcpy(id->model, o->model, sizeof(id->model));
	else
		detect_model(o->argv, id->family, id->model, sizeof(id->model));
	config_resolve_account(cfg, id->family, o->account, id->account, sizeof(id->account));
}

/* ---- the tap: raw stream and classifier ---- */

static void
raw_write(struct run_tap *t, const char *buf, size_t len)
{
	while (t->raw_fd >= 0 && len > 0) {
		ssize_t n = write(t->raw_fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			warn("--raw-stream %s", t->raw_path);
			close(t->raw_fd);
			t->raw_fd = -1;
			return;
		}
		buf += n;
		len -= (size_t)n;
	}
}

static void
classify_screen(struct run_tap *t, const char *buf, size_t len)
{
	while (len > 0) {
		size_t chunk = len < sizeof(t->scratch) ? len : sizeof(t->scratch);
		size_t n = ansi_strip(&t->strip, buf, chunk, t->scratch);

		classifier_feed(t->cls, t->scratch, n);
		buf += chunk;
		len -= chunk;
	}
}

/* pty mode: the screen is judged once, at the end; while the first real
 * output is watched for, the stripped text is read live by a classifier
 * of its own, dropped once it has seen it. */
static void
screen_output(struct run_tap *t, const char *buf, size_t len)
{
	unsigned winch = child_winsize_changes();

	if (winch != t->screen_winch) {
		struct winsize ws;

		t->screen_winch = winch;
		pty_window_size(STDIN_FILENO, &ws);
		screen_resize(t->screen, ws.ws_row, ws.ws_col);
	}
	screen_feed(t->screen, buf, len);
	ansi_screen_feed(&t->drawing, buf, len);
	if (!t->watch_output)
		return;
	/* Out of memory: no live reading (the run is judged at the end). */
	if (t->watch == NULL &&
	    (t->watch = classifier_new(t->id->family_given ? t->id->family : NULL, time(NULL))) == NULL)
		return;
	for (size_t off = 0; off < len; off += sizeof(t->scratch)) {
		size_t chunk = len - off < sizeof(t->scratch) ? len - off : sizeof(t->scratch);

		classifier_feed(t->watch, t->scratch, ansi_strip(&t->strip, buf + off, chunk, t->scratch));
	}
}

/* The screen's text, for the verdict: what the person saw at the end. */
static void
screen_judged(struct run_tap *t)
{
	size_t len;
	char *text;

	if (t->screen == NULL)
		return;
	/* The command's bytes and status are through already: out of
	 * memory here costs the verdict, not them. */
	if ((text = screen_text(t->screen, &len)) == NULL) {
		warn("the screen's text");
		return;
	}
	/* A screen a program drew (not lines it printed) is what the person
	 * saw: its verdict stands whatever the exit status. */
	if (t->drawing.drawn)
		classifier_set_screen(t->cls, SCREEN_DRAWN);
	if (t->live_clock)
		classifier_set_now(t->cls, time(NULL));
	classifier_feed(t->cls, text, len);
	free(text);
}

/* The first real model output: the probe has its evidence, and a --retry
 * run can no longer be redone, so what it held back goes out. */
static void
output_began(struct run_tap *t)
{
	t->watch_output = false;
	classifier_free(t->watch);
	t->watch = NULL;
	if (t->hold != NULL)
		t->hold->release = true;
	if (t->breaker != NULL)
		probe_output_seen(t->breaker, t->id);
}

static void
merged_output(const char *buf, size_t len, void *arg)
{
	struct run_tap *t = arg;

	raw_write(t, buf, len);
	if (t->screen != NULL) {
		screen_output(t, buf, len);
		if (t->watch_output && t->watch != NULL && classifier_saw_output(t->watch))
			output_began(t);
		return;
	}
	if (t->live_clock)
		classifier_set_now(t->cls, time(NULL));
	if (t->strip_screen)
		classify_screen(t, buf, len);
	else
		classifier_feed(t->cls, buf, len);
	if (t->watch_output && classifier_saw_output(t->cls))
		output_began(t);
}

/* stderr on a pipe, in pty mode: its lines as a terminal would end them,
 * so that the screen (and the raw stream, which classify-failure reads
 * the same way) shows each at the start of a row. */
static void
merge_stderr_lines(struct run_tap *t, const char *buf, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++) {
		if (buf[i] == '\n' && !t->stderr_cr)
			t->crlf[n++] = '\r';
		t->crlf[n++] = buf[i];
		t->stderr_cr = buf[i] == '\r';
		if (n >= sizeof(t->crlf) - 1) {
			line_merge_feed(&t->merge, CHILD_ERR, t->crlf, n);
			n = 0;
		}
	}
	line_merge_feed(&t->merge, CHILD_ERR, t->crlf, n);
}

static void
consume_chunk(int stream, const char *buf, size_t len, void *arg)
{
	struct run_tap *t = arg;

	if (stream == CHILD_ERR && t->stderr_piped && t->screen != NULL)
		merge_stderr_lines(t, buf, len);
	else
		line_merge_feed(&t->merge, stream, buf, len);
}

/* Teed bytes read back and classified here, when there is no worker: one
 * read per relayed chunk (they were teed a moment ago, so it never waits). */
static void
consume_teed(struct run_tap *t, int stream, size_t len)
{
	if (t->teed == NULL && (t->teed = malloc(CHILD_BUF_SIZE)) == NULL)
		err(EXIT_INTERNAL, "classifier buffer");
	while (len > 0) {
		ssize_t n = read(t->tee_pipe[0], t->teed, len < CHILD_BUF_SIZE ? len : CHILD_BUF_SIZE);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		consume_chunk(stream, t->teed, (size_t)n, t);
		len -= (size_t)n;
	}
}

/* The relay's side: classify on the worker, or here when there is none.
 * buf NULL: len bytes wait in the tee pipe. */
static void
tap_output(enum child_stream stream, const char *buf, size_t len, void *arg)
{
	struct run_tap *t = arg;

	if (t->async && t->queue == NULL && (t->queue = tap_queue_new(consume_chunk, t)) == NULL)
		t->async = false;
	if (t->queue != NULL && buf == NULL)
		tap_queue_push_from(t->queue, (int)stream, t->tee_pipe[0], len);
	else if (t->queue != NULL)
		tap_queue_push(t->queue, (int)stream, buf, len);
	else if (buf == NULL)
		consume_teed(t, (int)stream, len);
	else
		consume_chunk((int)stream, buf, len, t);
}

/* Does tee(2) and splice(2) save a copy on the way to rlwrap's stdout?
 * Into a pipe or a socket, yes: read and write would copy the bytes out
 * and back in.  Into a file, /dev/null or a terminal, no: the bytes are
 * read once either way, and one read is fewer system calls and pipe locks
 * than a tee, a splice and a read (10 % of the wall time on /dev/null). */
static bool
stdout_takes_splice(void)
{
	struct stat st;

	return RELAY_SPLICES && fstat(STDOUT_FILENO, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
}

/* The classifier reads stdout from a pipe the relay tees it into
 * (child.h): the worker, or the relay itself after each chunk.  Without
 * the pipe the relay hands it the bytes it read. */
static void
tap_tee_open(struct run_tap *t, struct child_spec *spec)
{
	if (t->watch_output || spec->use_pty || !stdout_takes_splice() ||
	    pipe2(t->tee_pipe, O_CLOEXEC) < 0) {
		t->tee_pipe[0] = t->tee_pipe[1] = -1;
		return;
	}
#ifdef F_SETPIPE_SZ
	(void)fcntl(t->tee_pipe[1], F_SETPIPE_SZ, 1024 * 1024);  /* best effort */
#endif
	spec->tap_tee = true;
	spec->tap_pipe = t->tee_pipe[1];
}

/* rlwrap's own files, which no output file may name (outfile.h). */
struct own_files run_own_files;

/* An output file the guard refuses is not written; the run goes on, with
 * one line saying so. */
static bool
output_refused(const char *option, const char *path)
{
	char error[PATH_MAX + 256];

	if (outfile_guard(path, &run_own_files, error, sizeof(error)))
		return false;
	warnx_visible("%s %s", option, error);
	return true;
}

/* Opens --raw-stream before the child runs (a failure to open is ours:
 * 125); -1 when there is none or the guard refused it. */
static int
open_raw_stream(const char *path)
{
	char error[PATH_MAX + 256];
	int fd;

	if (path == NULL || output_refused("--raw-stream", path))
		return -1;
	if ((fd = outfile_open(path, &run_own_files, error, sizeof(error))) == OUTFILE_REFUSED)
		warnx_visible("--raw-stream %s", error);
	else if (fd < 0)
		errx(EXIT_INTERNAL, "--raw-stream %s", error);
	return fd < 0 ? -1 : fd;
}

/* Empties the raw stream once the child will run (a refusal leaves it be). */
static void
truncate_raw_stream(int fd, const char *path)
{
	char error[PATH_MAX + 128];

	if (fd >= 0 && !outfile_truncate(fd, path, error, sizeof(error)))
		errx(EXIT_INTERNAL, "--raw-stream %s", error);
}

/* Checks --signal-file before the child runs: it will be replaced then;
 * one the guard refuses is dropped. */
static void
check_signal_file(struct run_opts *o)
{
	char error[PATH_MAX + 256];

	if (o->signal_file != NULL && output_refused("--signal-file", o->signal_file)) {
		free(o->signal_file);
		o->signal_file = NULL;
	}
	if (o->signal_file != NULL && !outfile_check(o->signal_file, &run_own_files, error, sizeof(error)))
		errx(EXIT_INTERNAL, "--signal-file %s", error);
}

static void
tap_init(struct run_tap *t, const struct run_opts *o, const struct run_identity *id, int raw_fd,
    time_t now)
{
	memset(t, 0, offsetof(struct run_tap, crlf));
	t->cls = classifier_new(id->family_given ? id->family : NULL, now);
	if (t->cls == NULL)
		err(EXIT_INTERNAL, "classifier");
	line_merge_init(&t->merge, merged_output, t);
	ansi_strip_init(&t->strip);
	t->async = true;
	t->live_clock = getenv("RLWRAP_TEST_NOW") == NULL || *getenv("RLWRAP_TEST_NOW") == '\0';
	t->raw_path = o->raw_stream;
	t->raw_fd = raw_fd;
	t->id = id;
	t->tee_pipe[0] = t->tee_pipe[1] = -1;
}

/* The raw stream stays open across --retry attempts: it gets them all. */
static void
tap_free(struct run_tap *t)
{
	tap_queue_free(t->queue);
	free(t->teed);
	for (int i = 0; i < 2; i++)
		if (t->tee_pipe[i] >= 0)
			close(t->tee_pipe[i]);
	line_merge_free(&t->merge);
	screen_free(t->screen);
	classifier_free(t->watch);
	classifier_free(t->cls);
}

/* ---- the verdict ---- */

static void
signal_file_on_exit(int status, void *unused)
{
	struct fail_signal sig;
	struct signal_report rep = {
		.refused = true, .refused_by = status > 128 ? "interrupted" : "error", .sig = &sig,
		.now = cmd_now(),
	};
	json_t *obj;

	(void)unused;
	if (!at_exit.armed || signal_file_written)
		return;
	signal_init(&sig);
	sig.terminal = true;
	sig.exit_code = status;
	strlcpy(sig.family, at_exit.id.family, sizeof(sig.family));
	clock_gettime(CLOCK_REALTIME, &rep.started);
	rep.ended = rep.started;
	obj = signal_file_json(&at_exit.o, &at_exit.id, &rep);
	write_json_file("--signal-file", at_exit.o.signal_file, obj);
	json_decref(obj);
}

static void
signal_file_arm(const char *path, char **operands, int count)
{
	if (path == NULL || at_exit.armed)
		return;
	copy_command(&at_exit.o, operands, count);
	at_exit.o.signal_file = cmd_strdup(path);
	at_exit.armed = true;
	if (on_exit(signal_file_on_exit, NULL) != 0)
		at_exit.armed = false;
}

static void
write_signal_file(const struct run_opts *o, const struct run_identity *id, const struct run_result *r)
{
	struct fail_signal sig = r->sig;
	struct signal_report rep = {
		.sig = &sig, .started = r->started, .ended = r->ended, .term_signal = r->term_signal,
		.run_id = r->run_id, .attempts = r->attempts, .now = r->now,
	};
	json_t *obj;

	if (o->signal_file == NULL)
		return;
	sig.exit_code = r->exit_code;
	obj = signal_file_json(o, id, &rep);
	write_json_file("--signal-file", o->signal_file, obj);
	json_decref(obj);
}

/* Fills in what the stream did not say from what the command line did. */
static void
finish_verdict(struct run_tap *t, const struct run_opts *o, const struct run_identity *id,
    struct run_result *r)
{
	tap_queue_free(t->queue);
	t->queue = NULL;
	line_merge_finish(&t->merge);
	screen_judged(t);
	classifier_finish(t->cls, r->exit_code, &r->sig);
	classifier_usage(t->cls, &r->usage);
	classifier_readings(t->cls, &r->readings);
	if (r->usage.held)
		warnx("the stream's usage went past what a run reports: "
		    "held at the maximum, a cost that is not a number left out");
	r->saw_output = classifier_saw_output(t->cls);
	if (o->model != NULL || (r->sig.model[0] == '\0' && id->model[0] != '\0'))
		strlcpy(r->sig.model, id->model, sizeof(r->sig.model));
	if (id->family_given)
		strlcpy(r->sig.family, id->family, sizeof(r->sig.family));
}

/* "rlwrap: claude: usage-limit, resets 2026-11-30T18:30:00Z (in 4h30m, provider)" */
static void
note_trip(const struct run_opts *o, const struct run_result *r)
{
	const struct fail_signal *s = &r->sig;
	char when[40], left[32];

	if (o->quiet || !reason_trips_by_default(s->reason))
		return;
	own_line();
	if (s->resets_at <= 0) {
		warnx_visible("%s: %s (no reset time stated)", s->family, reason_name(s->reason));
		return;
	}
	format_utc_iso(s->resets_at, when, sizeof(when));
	format_duration_short(s->resets_at - (double)r->now, left, sizeof(left));
	warnx_visible("%s: %s, resets %s (in %s, %s)", s->family, reason_name(s->reason), when, left,
	    reset_source_name(s->reset_source));
}

/* The way the child ended becomes ours: returns its exit code, or raises
 * its fatal signal on rlwrap (core dumps off), falling back to 128+n. */
static int
end_like_child(const struct run_result *r)
{
	struct rlimit no_core = { 0, 0 };
	sigset_t sig;

	restore_terminal();
	if (r->term_signal == 0)
		return r->exit_code;
	fflush(NULL);
	signal(r->term_signal, SIG_DFL);
	setrlimit(RLIMIT_CORE, &no_core);
	sigemptyset(&sig);
	sigaddset(&sig, r->term_signal);
	sigprocmask(SIG_UNBLOCK, &sig, NULL);
	raise(r->term_signal);
	return 128 + r->term_signal;
}

/* ---- running ---- */

static bool
want_pty(const struct run_opts *o)
{
	if (o->pty != PTY_AUTO)
		return o->pty == PTY_ON;
	return isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
}

/* A closed 0, 1 or 2 would be taken by our pipes or the state file: park
 * /dev/null there. */
static void
ensure_std_fds(void)
{
	for (int fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF &&
		    open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY) < 0)
			err(EXIT_INTERNAL, "/dev/null");
}

static void
exec_failed(const struct run_opts *o, const struct child *c, struct run_result *r)
{
	if (c->error == ENOENT)
		warnx_visible("%s: command not found", o->argv[0]);
	else
		warnx_visible("%s: %s", o->argv[0], strerror(c->error));
	r->exit_code = exec_error_exit_code(c->error);
}

/* The child is gone: the alternate screen and a hidden cursor it left on
 * our terminal go with it. */
static void
leave_screen(const struct child *c, const struct child_spec *spec)
{
	char seq[ANSI_RESTORE_MAX];
	size_t n;

	if (!spec->track_screen)
		return;
	n = ansi_screen_restore(&c->screen, false, seq);
	if (n > 0)
		(void)!write(STDOUT_FILENO, seq, n);
	child_left_mid_line = ansi_screen_mid_line(&c->screen);
}

static void
heartbeat_soon(void *arg)
{
	run_heartbeat_start(arg);
}

/* Spawns, relays and reaps; fills r with how the child ended. */
static void
run_child(const struct run_opts *o, const struct run_identity *id, struct child_spec *spec,
    struct run_breaker *b, struct run_result *r)
{
	struct child c;
	bool batch;

	switch (child_spawn(&c, spec)) {
	case SPAWN_FAILED:
		errno = c.error;
		err(EXIT_INTERNAL, "cannot run %s", o->argv[0]);
	case SPAWN_EXEC_FAILED:
		exec_failed(o, &c, r);
		return;
	case SPAWN_OK:
		break;
	}
	/* The heartbeat's thread is made once the command has run a while,
	 * not at once: making a second thread cost a run of `true` a tenth of
	 * its start-up (the running row was written before the spawn with a
	 * whole TTL ahead of it, and the first beat is an interval away). */
	spec->soon = heartbeat_soon;
	spec->soon_arg = b;
	spec->soon_ms = run_heartbeat_delay_ms();
	setproctitle("%s (pid %d)", id->command, (int)c.pid);
	if (spec->use_pty && isatty(STDIN_FILENO) && term_enter_raw(&run_term, STDIN_FILENO) == 0)
		spec->term = &run_term;
	/* Pipes only: a terminal's echo is not made to wait for a slice. */
	batch = !spec->use_pty && relay_batch(true);
	if (relay_pump(&c, spec) < 0) {
		kill(c.pid, SIGKILL);
		err(EXIT_INTERNAL, "relaying %s", o->argv[0]);
	}
	if (batch)
		relay_batch(false);   /* a --retry spawns again from here */
	leave_screen(&c, spec);
	r->status = c.status;
	r->exit_code = wait_status_exit_code(c.status);
	r->term_signal = wait_status_signal(c.status);
}

/* The screen at the pty's size.  RLWRAP_TEST_SCREEN=off (benchmarks):
 * without it, the stripped text as it comes. */
static void
tap_screen_open(struct run_tap *t)
{
	const char *knob = getenv("RLWRAP_TEST_SCREEN");
	struct winsize ws;

	if (knob != NULL && strcmp(knob, "off") == 0)
		return;
	pty_window_size(STDIN_FILENO, &ws);
	t->screen_winch = child_winsize_changes();
	ansi_screen_init(&t->drawing);
	if ((t->screen = screen_new(ws.ws_row, ws.ws_col)) == NULL)
		warn("the screen (the stripped text is read instead)");
}

static void
spec_init(struct child_spec *spec, const struct run_opts *o, const struct config *cfg, struct run_tap *tap)
{
	memset(spec, 0, sizeof(*spec));
	spec->die_with_parent = !cfg->wrapper_orphan_keep;
	spec->argv = o->argv;
	spec->use_pty = want_pty(o);
	spec->stderr_on_pty = isatty(STDERR_FILENO);
	spec->track_screen = isatty(STDOUT_FILENO);
	spec->drain_ms = CHILD_DRAIN_MS;
	spec->tap = tap_output;
	spec->tap_arg = tap;
	tap->strip_screen = spec->use_pty;
	classifier_set_screen(tap->cls, spec->use_pty ? SCREEN_LINES : SCREEN_NONE);
	if (spec->use_pty)
		tap_screen_open(tap);
	tap->stderr_piped = spec->use_pty && !spec->stderr_on_pty;
}

/* ---- attempts and --retry ---- */

/* One wrapper process: its options, who runs, the breakers, the files. */
struct run_ctx {
	struct run_opts o;
	struct run_identity id;
	struct run_breaker b;
	int raw_fd;
	bool retry_ok;             /* --retry, and stdin can be given again */
	struct child_hold hold;    /* this attempt's held-back stdout */
};

/* Stdin can be given to a second attempt: a terminal, /dev/null, or a
 * regular file (rewound).  A pipe's bytes would be gone. */
static bool
stdin_replayable(void)
{
	struct stat st, null;

	if (isatty(STDIN_FILENO))
		return true;
	if (fstat(STDIN_FILENO, &st) != 0)
		return false;
	if (S_ISREG(st.st_mode))
		return true;
	return S_ISCHR(st.st_mode) && stat("/dev/null", &null) == 0 && st.st_rdev == null.st_rdev;
}

/* Writes out what is still held (the run that stands), or drops it. */
static void
hold_end(struct child_hold *h, bool write_out)
{
	const char *p = h->buf;
	size_t left = h->len;

	while (write_out && left > 0) {
		ssize_t n = write(STDOUT_FILENO, p, left);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		p += n;
		left -= (size_t)n;
	}
	free(h->buf);
	memset(h, 0, sizeof(*h));
}

/*
 * A worker thread for the classifier pays only with a CPU of its own next
 * to the child's and the relay's: with fewer, the three take turns on the
 * same ones and every chunk costs two more context switches and a futex
 * round trip, while the relay classifying what it just relayed costs
 * nothing but the classifier's own time (docs/design.md section 9).
 * RLWRAP_TEST_CPUS stands in for the count in tests.
 */
static bool
classify_worker_pays(void)
{
	const char *forced = getenv("RLWRAP_TEST_CPUS");
	long long n = 1;

	if (forced != NULL && *forced != '\0')
		n = strtonum(forced, 1, 4096, NULL);
	else
		n = usable_cpus();
	return n >= 3;
}

/* Holds stdout back while a retry is still possible; watches for the
 * first real output when holding or probing. */
static void
attempt_watch(struct run_ctx *x, const struct run_result *r, struct run_tap *tap,
    struct child_spec *spec)
{
	memset(&x->hold, 0, sizeof(x->hold));
	if (x->retry_ok && !spec->use_pty && r->attempts <= x->o.retry_max) {
		x->hold.holding = true;
		x->hold.max = HOLD_MAX;
		spec->hold = tap->hold = &x->hold;
		tap->watch_output = true;
	}
	if (x->b.probing) {
		tap->breaker = &x->b;
		tap->watch_output = true;
	}
	/* Watching acts in the chunk the output arrives in: classify right here. */
	tap->async = !tap->watch_output && classify_worker_pays();
}

static void
run_attempt(struct run_ctx *x, struct run_result *r)
{
	struct run_tap tap;
	struct child_spec spec;
	int attempts = r->attempts;

	memset(r, 0, sizeof(*r));
	r->attempts = attempts + 1;
	r->now = cmd_now();
	tap_init(&tap, &x->o, &x->id, x->raw_fd, r->now);
	spec_init(&spec, &x->o, &x->b.cfg, &tap);
	attempt_watch(x, r, &tap, &spec);
	tap_tee_open(&tap, &spec);
	if (child_signals_catch() < 0)
		err(EXIT_INTERNAL, "signals");
	clock_gettime(CLOCK_REALTIME, &r->started);
	r->clock_started = run_clock(&x->b);
	x->b.spawns++;
	run_child(&x->o, &x->id, &spec, &x->b, r);
	clock_gettime(CLOCK_REALTIME, &r->ended);
	r->clock_ended = run_clock(&x->b);
	child_signals_release();
	restore_terminal();
	r->now = cmd_now();
	finish_verdict(&tap, &x->o, &x->id, r);
	tap_free(&tap);
	record_after_run(&x->b, &x->o, &x->id, r);
}

/* The reset to wait for before a retry: the signal's, the breaker's after
 * recording when later, else a backoff. */
static double
retry_wake(const struct run_ctx *x, const struct run_result *r, double now)
{
	double wake = r->sig.resets_at;
	enum breaker_change c = r->outcome.change;

	if (r->run_id != 0 && c != CHANGE_NONE && c != CHANGE_CLOSED && r->outcome.breaker.resets_at > wake)
		wake = r->outcome.breaker.resets_at;
	return wake > now ? wake : now + ldexp(RETRY_BACKOFF, r->attempts - 1);
}

/* Whether to run again: a limit before any real output, attempts left,
 * and the reset within the --wait budget.  *wake is when. */
static bool
want_retry(const struct run_ctx *x, const struct run_result *r, double *wake)
{
	enum reason reason = r->sig.reason;
	double now = run_clock(&x->b);
	char left[32];

	if (!x->retry_ok || r->attempts > x->o.retry_max || r->saw_output || x->hold.overflowed ||
	    r->term_signal != 0)
		return false;
	if (reason != REASON_RATE_LIMIT && reason != REASON_USAGE_LIMIT && reason != REASON_OVERLOADED)
		return false;
	*wake = retry_wake(x, r, now);
	format_duration_short(*wake - now, left, sizeof(left));
	if (!x->o.quiet)
		own_line();
	if (*wake - now > x->o.wait_max) {
		if (!x->o.quiet)
			warnx_visible("%s: %s; not retrying: the reset is in %s, beyond the --wait budget",
			    x->id.family, reason_name(reason), left);
		return false;
	}
	if (!x->o.quiet)
		warnx_visible("%s: %s before any output; retrying in %s (attempt %d of %lld)", x->id.family,
		    reason_name(reason), left, r->attempts + 1, x->o.retry_max + 1);
	return true;
}

/* Waits for the retry and passes the gate again: -1 to run, else the
 * attempt that stands is final (*exit_rc >= 0 when it was interrupted). */
static bool
retry_prepare(struct run_ctx *x, double wake, int *exit_rc)
{
	double now = run_clock(&x->b);
	int rc;

	*exit_rc = -1;
	rc = wait_plain(&x->b, &x->o, &x->id, "retry", wake + breaker_jitter(wake - now));
	if (rc < 0)
		rc = gate_before_spawn(&x->b, &x->o, &x->id, x->o.wait_max, x->o.force);
	if (rc == EXIT_REFUSED)
		return false;
	if (rc >= 0) {
		*exit_rc = rc;
		return false;
	}
	hold_end(&x->hold, false);
	if (lseek(STDIN_FILENO, 0, SEEK_SET) < 0 && errno != ESPIPE)
		warn("--retry: rewinding stdin");
	return true;
}

/* The config's [wrapper] defaults, for what the command line left unsaid. */
static void
apply_config(struct run_opts *o, const struct config *cfg, const struct args *args)
{
	if (!args_has(args, 'w') && cfg->wrapper_wait >= 0) {
		o->wait = true;
		o->wait_max = cfg->wrapper_wait;
	}
	if (!args_has(args, 'r') && cfg->wrapper_retry > 0) {
		o->retry = true;
		o->retry_max = cfg->wrapper_retry;
	}
	o->quiet = o->quiet || cfg->wrapper_quiet;
	if (o->pty == PTY_AUTO && cfg->wrapper_pty != PTY_SETTING_AUTO)
		o->pty = cfg->wrapper_pty == PTY_SETTING_ON ? PTY_ON : PTY_OFF;
}

static bool
run_setup(struct args *args, struct run_ctx *x)
{
	memset(x, 0, sizeof(*x));
	x->raw_fd = -1;
	signal_file_arm(args_get(args, OPT_SIGNAL_FILE), args->operands, args->count);
	if (!parse_run_opts(args, &x->o))
		return false;
	ensure_std_fds();
	if (!run_breaker_init(&x->b)) {
		run_opts_free(&x->o);
		exit(EXIT_INTERNAL);
	}
	apply_config(&x->o, &x->b.cfg, args);
	identify(&x->o, &x->b.cfg, &x->id);
	at_exit.id = x->id;
	x->retry_ok = x->o.retry && x->o.retry_max > 0;
	if (x->retry_ok && !stdin_replayable()) {
		x->retry_ok = false;
		if (!x->o.quiet)
			warnx("--retry: stdin is not a terminal, /dev/null or a file, so it cannot be "
			    "given again: not retrying");
	}
	return true;
}

static void
run_cleanup(struct run_ctx *x)
{
	if (x->raw_fd >= 0)
		close(x->raw_fd);
	run_breaker_close(&x->b);
	run_opts_free(&x->o);
}

static int
run_exec(struct args *args)
{
	struct run_ctx x;
	struct run_result r;
	struct sigaction pipe_was;
	int rc = -1;
	double wake;

	if (!run_setup(args, &x))
		return EXIT_INTERNAL;
	/* Both files are checked before the gate records a running row, and
	 * before any spawn: one that cannot be opened is ours (125), one the
	 * guard refuses is left out with one line. */
	if (x.o.raw_stream != NULL || x.o.signal_file != NULL)   /* 64 KiB touched */
		own_files_list(&run_own_files, &x.b.cfg);
	x.raw_fd = open_raw_stream(x.o.raw_stream);
	check_signal_file(&x.o);
	/* A refusal said to a closed stderr still exits 75; the child gets
	 * SIGPIPE's disposition back before it is spawned. */
	sigaction(SIGPIPE, &(struct sigaction){ .sa_handler = SIG_IGN }, &pipe_was);
	if ((rc = run_breaker_open(&x.b, &x.o, &x.id)) < 0)
		rc = gate_before_spawn(&x.b, &x.o, &x.id, x.o.wait ? x.o.wait_max : -1, x.o.force);
	if (rc >= 0) {
		run_cleanup(&x);
		return rc;
	}
	sigaction(SIGPIPE, &pipe_was, NULL);
	truncate_raw_stream(x.raw_fd, x.o.raw_stream);
	term_mode_init(&run_term);
	atexit(restore_terminal);
	memset(&r, 0, sizeof(r));
	do
		run_attempt(&x, &r);
	while (want_retry(&x, &r, &wake) && retry_prepare(&x, wake, &rc));
	signal(SIGPIPE, SIG_IGN);
	hold_end(&x.hold, true);
	write_signal_file(&x.o, &x.id, &r);
	note_trip(&x.o, &r);
	run_cleanup(&x);
	return rc >= 0 ? rc : end_like_child(&r);
}

static const struct cmd_help run_help[] = {
	{ "-f, --family FAMILY", "the agent family (claude, codex, gemini, pi, opencode, cursor, qwen, goose, amp, copilot, generic) instead of detecting it",
	  "rlwrap -f claude -- ./my-claude-wrapper -p hi" },
	{ "-m, --model MODEL", "the model, for model-scoped breakers, instead of detecting it",
	  "rlwrap -m opus -- claude -p hi" },
	{ "-a, --account ACCOUNT", "the account label the breakers are kept under",
	  "rlwrap -a work -- codex exec 'fix the build'" },
	{ "-w, --wait[=MAX]", "wait out an open breaker that resets within MAX (default 6h) instead of refusing",
	  "rlwrap --wait=2h -- claude -p 'update the changelog'" },
	{ "-r, --retry[=N]", "run again, up to N times (default 3), after a limit hit before any real output",
	  "rlwrap --retry=1 --wait=1h -- codex exec 'add tests' </dev/null" },
	{ "--force", "run even when a breaker is open; the result still updates the breakers",
	  "rlwrap --force -- claude -p 'one more try'" },
	{ "-q, --quiet", "no messages of rlwrap's own on stderr except errors (a refusal still says why)",
	  "rlwrap -q -- gemini -p hi" },
	{ "--raw-stream FILE", "also write everything the command printed, in arrival order, to FILE",
	  "rlwrap --raw-stream run.jsonl -- claude -p hi --output-format stream-json --verbose" },
	{ "--signal-file FILE", "write how the run ended (the FailureSignal, argv, times, run id) to FILE as JSON",
	  "rlwrap --signal-file run.json -- codex exec --json 'fix it'" },
	{ "--pty", "run the command on a pseudo-terminal even when not on a terminal",
	  "rlwrap --pty -- claude" },
	{ "--no-pty", "never use a pseudo-terminal: the command gets pipes",
	  "rlwrap --no-pty -- claude -p hi" },
	{ "--priority high|normal", "high: the spawn is interactive, as --pty makes it, and may use a "
	  "family's reserve", "rlwrap --priority high -- claude -p 'look at this now'" },
	{ "--no-record", "a refused spawn is not kept for `rlwrap recover` (for callers that requeue it themselves)",
	  "rlwrap --no-record -- codex exec --json 'task b'" },
	{ "--color[=WHEN]", "colour a refusal on stderr: always (the default for --color), never, or auto "
	  "(on a terminal, unless NO_COLOR is set; the default)", "rlwrap --color=never -- claude -p hi" },
	{ "--help", "this text", "rlwrap run --help" },
	{ "COMMAND [ARG ...]", "the command to run, with its own arguments (after --, even a subcommand name)",
	  "rlwrap -- claude -p 'fix the tests'" },
	{ NULL, NULL, NULL },
};

const struct cmd_entry cmd_run_entry = {
	.name = "run",
	.optstring = "f:m:a:w::r::q",
	.longopts = run_longopts,
	.lower = 1,
	.upper = -1,
	.usage = "[run] [-q] [-f family] [-m model] [-a account] [-w[max]] [-r[n]] [--force]\n"
	    "       [--raw-stream file] [--signal-file file] [--pty | --no-pty] [--no-record]\n"
	    "       [--priority high|normal] [--color[=when]]\n"
	    "       [--] command [arg ...]",
	.summary = "run a command under the breakers and classify how it ended",
	.help = run_help,
	.exec = run_exec,
	.takes_value = run_takes_value,
};
