/*
 * rlwrap classify-failure [--json] [--all] [--family F] [--exit-code N]
 *     [--now TIME] [--pty] [--screen COLSxROWS] [file ...]
 * Classifies captured streams; one verdict per input (stdin when none).  A
 * raw terminal capture (a pty run's --raw-stream) is read through the
 * terminal emulator first, as the wrapper reads it live.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture.h"
#include "classify.h"
#include "cmd.h"
#include "tty.h"

enum { OPT_JSON = OPT_LONG_BASE, OPT_ALL, OPT_FAMILY, OPT_EXIT, OPT_NOW, OPT_PTY, OPT_SCREEN };

static const struct option classify_longopts[] = {
	{ "json", no_argument, NULL, OPT_JSON },
	{ "all", no_argument, NULL, OPT_ALL },
	{ "family", required_argument, NULL, OPT_FAMILY },
	{ "exit-code", required_argument, NULL, OPT_EXIT },
	{ "now", required_argument, NULL, OPT_NOW },
	{ "pty", no_argument, NULL, OPT_PTY },
	{ "screen", required_argument, NULL, OPT_SCREEN },
	{ NULL, 0, NULL, 0 },
};

struct print_opts {
	bool json;
	bool all;
	time_t now;
};

/* How each input is read. */
struct read_opts {
	const char *family;
	int exit_code;
	bool pty;              /* --pty: always through the screen */
	int rows, cols;        /* the screen's size */
};

/* How much of the start of an input tells whether it is a terminal
 * capture. */
#define HEAD_MAX CAPTURE_HEAD_MAX
/* Small enough to stay in the L2 cache between the copy and the scan;
 * its pages are faults every run takes (128 KiB took 16 more, for the
 * same instructions and CPU time: docs/benchmarks.md). */
#define CLASSIFY_READ_BUF (64 * 1024)
_Static_assert(CLASSIFY_READ_BUF >= HEAD_MAX, "the head is read into the read buffer");

/* The start of fd, read without moving it when it is a file, else read
 * into head (*consumed: the caller feeds it first). */
static ssize_t
read_head(int fd, char *head, bool *consumed)
{
	off_t at = lseek(fd, 0, SEEK_CUR);
	ssize_t n;

	*consumed = false;
	if (at >= 0 && ((n = pread(fd, head, HEAD_MAX, at)) >= 0 || errno != ESPIPE))
		return n;
	*consumed = true;
	while ((n = read(fd, head, HEAD_MAX)) < 0 && errno == EINTR)
		;
	return n;
}

static void
print_signal(const struct fail_signal *sig, void *arg)
{
	const struct print_opts *po = arg;
	char line[1024];

	if (po->json) {
		json_t *o = signal_to_json(sig, po->now);

		json_dumpf(o, stdout, JSON_COMPACT | JSON_PRESERVE_ORDER | SIGNAL_JSON_REALS);
		putchar('\n');
		json_decref(o);
		return;
	}
	signal_format_line(sig, po->now, line, sizeof(line));
	print_visible("%s", line);   /* the model and message came from the stream */
}

static void
print_if_all(const struct fail_signal *sig, void *arg)
{
	print_signal(sig, arg);
}

/* Where fd's bytes go, from its first ones, read into head (HEAD_MAX
 * bytes, the caller's read buffer: a buffer of its own is pages touched
 * once); NULL when unreadable. */
static struct capture *
capture_open(int fd, const struct read_opts *ro, struct print_opts *po, char *head)
{
	bool consumed;
	ssize_t n = read_head(fd, head, &consumed);
	struct capture *k;

	if (n < 0)
		return NULL;
	k = capture_new(ro->family, po->now, ro->pty || capture_is_terminal(head, (size_t)n),
	    ro->rows, ro->cols);
	if (k == NULL)
		err(EXIT_INTERNAL, "classifier");
	if (po->all)   /* a callback makes the classifier read every line in full */
		classifier_on_signal(capture_classifier(k), print_if_all, po);
	if (consumed)
		capture_feed(k, head, (size_t)n);
	return k;
}

/* Returns false (after a warning) when the input cannot be read. */
static bool
classify_fd(int fd, const char *name, const struct read_opts *ro, struct print_opts *po)
{
	/* One buffer, reused: a mapping of the file costs a page fault per
	 * 4 KiB, several times the copy read(2) makes into pages that stay in
	 * the cache (docs/benchmarks.md). */
	static char buf[CLASSIFY_READ_BUF];
	struct capture *k;
	struct fail_signal sig;
	ssize_t n;

	if ((k = capture_open(fd, ro, po, buf)) == NULL) {
		warn("%s", name);
		return false;
	}
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			warn("%s", name);
			capture_free(k);
			return false;
		}
		capture_feed(k, buf, (size_t)n);
	}
	if (!capture_finish(k, ro->exit_code, &sig))
		err(EXIT_INTERNAL, "screen text");
	if (!po->all)
		print_signal(&sig, po);
	capture_free(k);
	return true;
}

/* --screen COLSxROWS; else the size the wrapper gives a pty (a terminal's
 * of 0, 1 or 2, else $COLUMNS x $LINES, else 80x24). */
static bool
screen_size(const struct cmd_entry *self, const char *arg, struct read_opts *ro)
{
	char cols[16];
	const char *x;
	long long c, r;
	struct winsize ws;

	if (arg == NULL) {
		pty_window_size(-1, &ws);
		ro->cols = ws.ws_col;
		ro->rows = ws.ws_row;
		return true;
	}
	if ((x = strchr(arg, 'x')) == NULL || (size_t)(x - arg) >= sizeof(cols)) {
		usage_error(self, "--screen %s: not COLSxROWS (such as 80x24)", arg);
		return false;
	}
	memcpy(cols, arg, (size_t)(x - arg));
	cols[x - arg] = '\0';
	if (!opt_int(self, "--screen columns", cols, 1, 1000, &c) ||
	    !opt_int(self, "--screen rows", x + 1, 1, 1000, &r))
		return false;
	ro->cols = (int)c;
	ro->rows = (int)r;
	return true;
}

static int
classify_exec(struct args *args)
{
	const struct cmd_entry *self = &cmd_classify_failure_entry;
	struct print_opts po = { .json = args_has(args, OPT_JSON), .all = args_has(args, OPT_ALL) };
	struct read_opts ro = { .family = args_get(args, OPT_FAMILY), .pty = args_has(args, OPT_PTY) };
	long long exit_code = -1;
	double now;
	int rc = 0;

	po.now = cmd_now();
	if (args_has(args, OPT_NOW)) {
		if (!opt_time(self, "--now", args_get(args, OPT_NOW), &now))
			return EXIT_USAGE;
		po.now = (time_t)now;
	}
	if (args_has(args, OPT_FAMILY) && !family_known(args_get(args, OPT_FAMILY)))
		return usage_error(self, "--family %s: not a family (%s)", args_get(args, OPT_FAMILY),
		    family_list());
	if (args_has(args, OPT_EXIT) &&
	    !opt_int(self, "--exit-code", args_get(args, OPT_EXIT), 0, 255, &exit_code))
		return EXIT_USAGE;
	ro.exit_code = (int)exit_code;
	if (!screen_size(self, args_get(args, OPT_SCREEN), &ro))
		return EXIT_USAGE;
	if (args->count == 0)
		return classify_fd(STDIN_FILENO, "stdin", &ro, &po) ? 0 : 1;
	for (int i = 0; i < args->count; i++) {
		const char *path = args->operands[i];
		int fd = strcmp(path, "-") == 0 ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);

		if (fd < 0) {
			warn("%s", path);
			rc = 1;
			continue;
		}
		if (!classify_fd(fd, path, &ro, &po))
			rc = 1;
		if (fd != STDIN_FILENO)
			close(fd);
	}
	fflush(stdout);
	return rc;
}

static const struct cmd_help classify_help[] = {
	{ "--json", "print the FailureSignal as one JSON object instead of one line",
	  "rlwrap classify-failure --json run.jsonl" },
	{ "--all", "print every signal seen, one per line, the verdict last",
	  "rlwrap classify-failure --all --json run.jsonl" },
	{ "--family F", "read the stream as family F instead of detecting it from its shape",
	  "rlwrap classify-failure --family codex codex.jsonl" },
	{ "--exit-code N", "the child's exit status (0..255), used when the stream says nothing",
	  "rlwrap classify-failure --exit-code 1 stderr.txt" },
	{ "--now TIME", "the clock for relative resets (epoch seconds or ISO 8601), for replays",
	  "rlwrap classify-failure --now 2026-11-30T12:00:00Z run.jsonl" },
	{ "--pty", "read the input as a terminal's raw bytes (found by itself otherwise), through the terminal emulator",
	  "rlwrap classify-failure --pty screen.cap" },
	{ "--screen COLSxROWS", "the size of that terminal (else the size a wrapped pty gets: this terminal's, $COLUMNS x $LINES, 80x24)",
	  "rlwrap classify-failure --screen 120x40 screen.cap" },
	{ "--help", "this text", "rlwrap classify-failure --help" },
	{ "FILE ...", "captured streams, one verdict each; none or - reads standard input",
	  "claude -p hi --output-format stream-json --verbose 2>&1 | rlwrap classify-failure" },
	{ NULL, NULL, NULL },
};

const struct cmd_entry cmd_classify_failure_entry = {
	.name = "classify-failure",
	.optstring = "",
	.longopts = classify_longopts,
	.lower = 0,
	.upper = -1,
	.usage = "classify-failure [--json] [--all] [--family F] [--exit-code N] [--now TIME] [--pty] [--screen COLSxROWS] [file ...]",
	.summary = "classify a captured agent stream and print its FailureSignal",
	.help = classify_help,
	.exec = classify_exec,
};
