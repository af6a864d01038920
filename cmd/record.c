/*
 * rlwrap record [--family F] [--model M] [--account A] [--exit-code N] FILE
 * Classifies a stream captured elsewhere and applies the verdict to the
 * breakers and the history exactly as the wrapper does (a run that started
 * and ended now).
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "breaker.h"
#include "cmd.h"

enum { OPT_FAMILY = OPT_LONG_BASE, OPT_MODEL, OPT_ACCOUNT, OPT_EXIT };

static const struct option record_longopts[] = {
	{ "family", required_argument, NULL, OPT_FAMILY },
	{ "model", required_argument, NULL, OPT_MODEL },
	{ "account", required_argument, NULL, OPT_ACCOUNT },
	{ "exit-code", required_argument, NULL, OPT_EXIT },
	{ NULL, 0, NULL, 0 },
};

/* Classifies path ("-" = stdin); false after a warning when it cannot be read. */
static bool
classify_file(const char *path, const char *family, int exit_code, time_t now,
    struct fail_signal *sig, struct run_usage *usage)
{
	static char buf[256 * 1024];
	int fd = strcmp(path, "-") == 0 ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	struct classifier *c;
	ssize_t n;

	if (fd < 0) {
		warn("%s", path);
		return false;
	}
	if ((c = classifier_new(family, now)) == NULL)
		err(EXIT_INTERNAL, "classifier");
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			warn("%s", path);
			break;
		}
		classifier_feed(c, buf, (size_t)n);
	}
	classifier_finish(c, exit_code, sig);
	classifier_usage(c, usage);
	classifier_free(c);
	if (fd != STDIN_FILENO)
		close(fd);
	return n == 0;
}

static void
print_outcome(const struct record_outcome *out, const struct fail_signal *sig, time_t now)
{
	char line[1024], name[512], reset[160];

	signal_format_line(sig, now, line, sizeof(line));
	print_visible("run %lld: %s", out->run_id, line);
	if (out->change == CHANGE_CLOSED)
		printf("closed %d breaker%s\n", out->closed, out->closed == 1 ? "" : "s");
	else if (out->change != CHANGE_NONE) {
		key_format(&out->breaker.key, name, sizeof(name));
		cmd_format_reset(out->breaker.resets_at, now, reset, sizeof(reset));
		print_visible("%s (account %s): %s, open until %s from %s", name, out->breaker.key.account,
		    breaker_change_event(out->change), reset, out->breaker.reset_source);
	}
}

static int
record_store(const struct cmd_state *st, struct run_report *run, const struct fail_signal *sig, time_t now)
{
	struct record_outcome out;
	struct store_error error;
	int rc;

	if (!breaker_record_run(st->store, st->cfg, run, sig, &out, &error)) {
		warnx_visible("%s", error.message);
		return 1;
	}
	print_outcome(&out, sig, now);
	rc = fflush(stdout) == 0 ? 0 : 1;
	hooks_run_transitions(st->cfg, &out.transitions);
	return rc;
}

static int
record_exec(struct args *args)
{
	const struct cmd_entry *self = &cmd_record_entry;
	const char *family = args_get(args, OPT_FAMILY);
	struct run_report run = { .source = "record", .term_signal = 0 };
	char cwd[PATH_MAX], account[CONFIG_ACCOUNT_MAX];
	long long exit_code = -1;
	time_t now = cmd_now();
	struct fail_signal sig;
	struct config cfg;
	struct cmd_state st;
	int rc;

	if (family != NULL && !family_known(family))
		return usage_error(self, "--family %s: not a family (%s)", family, family_list());
	if (args_has(args, OPT_EXIT) && !opt_int(self, "--exit-code", args_get(args, OPT_EXIT), 0, 255, &exit_code))
		return EXIT_USAGE;
	if (!cmd_state_open(&st, &cfg, false))
		return 1;
	if (!classify_file(args->operands[0], family, (int)exit_code, now, &sig, &run.usage)) {
		cmd_state_close(&st);
		return 1;
	}
	run.family = family != NULL ? family : sig.family;
	config_resolve_account(&cfg, run.family[0] != '\0' ? run.family : "generic", args_get(args, OPT_ACCOUNT),
	    account, sizeof(account));
	run.account = account;
	run.model = args_get(args, OPT_MODEL);
	run.cwd = getcwd(cwd, sizeof(cwd));
	run.started_at = run.ended_at = (double)now;
	run.exit_code = (int)exit_code;
	rc = record_store(&st, &run, &sig, now);
	cmd_state_close(&st);
	return rc;
}

static const struct cmd_help record_help[] = {
	{ "--family F", "the family of the stream instead of detecting it",
	  "rlwrap record --family claude run.jsonl" },
	{ "--model M", "the model the run used, for model-scoped breakers",
	  "rlwrap record --model opus run.jsonl" },
	{ "--account A", "the account the breakers are kept under",
	  "rlwrap record --account work run.jsonl" },
	{ "--exit-code N", "the run's exit status (0..255)",
	  "rlwrap record --exit-code 1 run.jsonl" },
	{ "--help", "this text", "rlwrap record --help" },
	{ "FILE", "the captured stream (- for standard input), applied as a run that ended now",
	  "ssh ci cat job.jsonl | rlwrap record -" },
	{ NULL, NULL, NULL },
};

const struct cmd_entry cmd_record_entry = {
	.name = "record",
	.optstring = "",
	.longopts = record_longopts,
	.lower = 1,
	.upper = 1,
	.usage = "record [--family F] [--model M] [--account A] [--exit-code N] FILE",
	.summary = "classify a captured stream and apply it to the breakers and the history",
	.help = record_help,
	.exec = record_exec,
};
