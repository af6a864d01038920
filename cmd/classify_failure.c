/*
 * rlwrap classify-failure [--json] [--all] [--family F] [--exit-code N]
 *     [--now TIME] [file ...]
 * Classifies captured streams; one verdict per input (stdin when none).
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "classify.h"
#include "cmd.h"

enum { OPT_JSON = OPT_LONG_BASE, OPT_ALL, OPT_FAMILY, OPT_EXIT, OPT_NOW };

static const struct option classify_longopts[] = {
	{ "json", no_argument, NULL, OPT_JSON },
	{ "all", no_argument, NULL, OPT_ALL },
	{ "family", required_argument, NULL, OPT_FAMILY },
	{ "exit-code", required_argument, NULL, OPT_EXIT },
	{ "now", required_argument, NULL, OPT_NOW },
	{ NULL, 0, NULL, 0 },
};

struct print_opts {
	bool json;
	bool all;
	time_t now;
};

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

/* A regular file is read through a window of the page cache, mapped: no
 * copy, and never more than MAP_WINDOW of it resident at once.  (A file cut
 * shorter while mapped would end the process with SIGBUS, as it would
 * grep's or any mmap reader's.) */
#define MAP_WINDOW ((off_t)4 * 1024 * 1024)

/* Feeds the file from its start to its size now; the caller reads on from
 * there (a file still growing).  False when it cannot be mapped. */
static bool
feed_mapped(int fd, struct classifier *c)
{
	struct stat st;
	off_t off;

	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0 ||
	    lseek(fd, 0, SEEK_CUR) != 0)
		return false;
	for (off = 0; off < st.st_size; off += MAP_WINDOW) {
		size_t len = (size_t)(st.st_size - off < MAP_WINDOW ? st.st_size - off : MAP_WINDOW);
		void *p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, off);

		if (p == MAP_FAILED)
			break;
		classifier_feed(c, p, len);
		munmap(p, len);
	}
	return lseek(fd, off < st.st_size ? off : st.st_size, SEEK_SET) >= 0;
}

/* Returns false (after a warning) when the input cannot be read. */
static bool
classify_fd(int fd, const char *name, const char *family, int exit_code, struct print_opts *po)
{
	static char buf[256 * 1024];
	struct classifier *c = classifier_new(family, po->now);
	struct fail_signal sig;
	ssize_t n;

	if (c == NULL)
		err(EXIT_INTERNAL, "classifier");
	if (po->all)   /* a callback makes the classifier read every line in full */
		classifier_on_signal(c, print_if_all, po);
	(void)feed_mapped(fd, c);
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			warn("%s", name);
			classifier_free(c);
			return false;
		}
		classifier_feed(c, buf, (size_t)n);
	}
	classifier_finish(c, exit_code, &sig);
	if (!po->all)
		print_signal(&sig, po);
	classifier_free(c);
	return true;
}

static int
classify_exec(struct args *args)
{
	const struct cmd_entry *self = &cmd_classify_failure_entry;
	struct print_opts po = { .json = args_has(args, OPT_JSON), .all = args_has(args, OPT_ALL) };
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
	if (args->count == 0)
		return classify_fd(STDIN_FILENO, "stdin", args_get(args, OPT_FAMILY), (int)exit_code, &po) ? 0 : 1;
	for (int i = 0; i < args->count; i++) {
		const char *path = args->operands[i];
		int fd = strcmp(path, "-") == 0 ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);

		if (fd < 0) {
			warn("%s", path);
			rc = 1;
			continue;
		}
		if (!classify_fd(fd, path, args_get(args, OPT_FAMILY), (int)exit_code, &po))
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
	.usage = "classify-failure [--json] [--all] [--family F] [--exit-code N] [--now TIME] [file ...]",
	.summary = "classify a captured agent stream and print its FailureSignal",
	.help = classify_help,
	.exec = classify_exec,
};
