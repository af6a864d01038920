/*
 * run_tap.c: the wrapper's tap (run_tap.h): what the child prints, merged
 * in arrival order, goes to --raw-stream and the classifier; in pty mode
 * through the screen; the first real output releases a --retry hold and
 * closes a probe's breakers.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "outfile.h"
#include "relay.h"
#include "run_tap.h"
#include "tty.h"

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
void
tap_screen_judged(struct run_tap *t)
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
void
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
void
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
int
raw_stream_open(const char *path)
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
void
raw_stream_truncate(int fd, const char *path)
{
	char error[PATH_MAX + 128];

	if (fd >= 0 && !outfile_truncate(fd, path, error, sizeof(error)))
		errx(EXIT_INTERNAL, "--raw-stream %s", error);
}

/* Checks --signal-file before the child runs: it will be replaced then;
 * one the guard refuses is dropped. */
void
signal_file_check(struct run_opts *o)
{
	char error[PATH_MAX + 256];

	if (o->signal_file != NULL && output_refused("--signal-file", o->signal_file)) {
		free(o->signal_file);
		o->signal_file = NULL;
	}
	if (o->signal_file != NULL && !outfile_check(o->signal_file, &run_own_files, error, sizeof(error)))
		errx(EXIT_INTERNAL, "--signal-file %s", error);
}

void
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
void
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


/* The screen at the pty's size.  RLWRAP_TEST_SCREEN=off (benchmarks):
 * without it, the stripped text as it comes. */
void
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

/*
 * A worker thread for the classifier pays only with a CPU of its own next
 * to the child's and the relay's: with fewer, the three take turns on the
 * same ones and every chunk costs two more context switches and a futex
 * round trip, while the relay classifying what it just relayed costs
 * nothing but the classifier's own time (docs/design.md section 9).
 * RLWRAP_TEST_CPUS stands in for the count in tests.
 */
bool
tap_async_pays(void)
{
	const char *forced = getenv("RLWRAP_TEST_CPUS");
	long long n = 1;

	if (forced != NULL && *forced != '\0')
		n = strtonum(forced, 1, 4096, NULL);
	else
		n = usable_cpus();
	return n >= 3;
}
