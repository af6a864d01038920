/*
 * rlwrap replay [--background] [--for DURATION]: this host's journal of a
 * server store into the server, tried again with a growing pause until the
 * server takes it or the time is up (docs/design.md section 6, "The
 * replayer").  A wrapper that recorded into the journal leaves one behind
 * (replay_leave_behind()), so that a trip made in an outage reaches the
 * other hosts without waiting for this one's next spawn.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "journal.h"
#include "store.h"

enum { OPT_BACKGROUND = OPT_LONG_BASE, OPT_FOR };

static const struct option replay_longopts[] = {
	{ "background", no_argument, NULL, OPT_BACKGROUND },
	{ "for", required_argument, NULL, OPT_FOR },
	{ NULL, 0, NULL, 0 },
};

#define REPLAY_FOR_SECS 600.0
#define REPLAY_BACKOFF_MS 1000
#define REPLAY_BACKOFF_MAX_SECS 30.0

static void
nap(double secs)
{
	struct timespec ts = { .tv_sec = (time_t)secs, .tv_nsec = (long)((secs - (double)(time_t)secs) * 1e9) };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* The grandchild of a double fork, in a session of its own, holding
 * nothing of its parent's open: whoever reads the parent's output sees its
 * end when the parent exits, not when this does.  Async-signal-safe calls
 * only: the parent may be a wrapper with threads.  1 in the grandchild, 0
 * in the caller, -1 when it cannot fork. */
static int
detach(void)
{
	sigset_t none;
	pid_t pid = fork();
	int devnull;

	if (pid < 0)
		return -1;
	if (pid > 0) {
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		return 0;
	}
	setsid();
	if (fork() != 0)
		_exit(0);
	close_range(3, ~0U, 0);
	if ((devnull = open("/dev/null", O_RDWR)) >= 0) {
		dup2(devnull, STDIN_FILENO);
		dup2(devnull, STDOUT_FILENO);
		dup2(devnull, STDERR_FILENO);
		if (devnull > STDERR_FILENO)
			close(devnull);
	}
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	return 1;
}

void
replay_leave_behind(const char *journal_path)
{
	char self[PATH_MAX];
	static char name[] = "rlwrap", verb[] = "replay";
	char *argv[] = { name, verb, NULL };

	if (journal_path[0] == '\0' || !journal_waiting(journal_path) || journal_replayer_running(journal_path) ||
	    !exe_path(self, sizeof(self)))
		return;
	if (detach() == 1) {
		execv(self, argv);
		_exit(EXIT_NOEXEC);
	}
}

struct replay_result {
	long runs, breakers;
	char server[512];      /* the store's name: no password */
	char why[512];         /* the last attempt's failure */
};

/* One attempt: an open that reaches the server replays the journal
 * (journal_open_server()).  True when nothing waits in it any more. */
static bool
replay_attempt(const struct store_options *opts, struct replay_result *res)
{
	struct store_error error;
	struct journal_state js;
	struct store *store;
	char notice[512];

	if (!store_open(opts, &store, &error)) {
		strlcpy(res->why, error.message, sizeof(res->why));
		return false;
	}
	store_take_notice(store, notice, sizeof(notice));
	if (store_on_journal(store)) {
		strlcpy(res->why, notice, sizeof(res->why));
		store_close(store);
		return false;
	}
	strlcpy(res->server, store_path(store), sizeof(res->server));
	if (store_journal_state(store, &js, &error)) {
		res->runs += js.replayed_runs;
		res->breakers += js.replayed_breakers;
	}
	cmd_flush_memo_refusals(opts, store);
	store_close(store);
	strlcpy(res->why, notice[0] != '\0' ? notice : "it was written to again meanwhile", sizeof(res->why));
	return !journal_waiting(opts->journal_path);
}

/* Tries until the server took the journal or secs have passed; 0 when it did. */
static int
replay_until(const struct store_options *opts, double secs)
{
	double end = cmd_monotonic() + secs;
	double pause = cmd_env_ms("RLWRAP_REPLAY_BACKOFF_MS", REPLAY_BACKOFF_MS, 86400000);
	struct replay_result res = { .runs = 0 };
	char took[32];

	for (;;) {
		/* Replayed by another rlwrap meanwhile, or the journal gone. */
		if (!journal_waiting(opts->journal_path)) {
			print_visible("nothing waits in %s any more", opts->journal_path);
			return 0;
		}
		if (replay_attempt(opts, &res)) {
			print_visible("replayed %ld run%s and %ld breaker%s of %s into %s", res.runs,
			    res.runs == 1 ? "" : "s", res.breakers, res.breakers == 1 ? "" : "s", opts->journal_path,
			    res.server);
			return 0;
		}
		if (cmd_monotonic() + pause >= end)
			break;
		nap(pause);
		pause = pause * 2 < REPLAY_BACKOFF_MAX_SECS ? pause * 2 : REPLAY_BACKOFF_MAX_SECS;
	}
	format_duration_short(secs, took, sizeof(took));
	warnx_visible("%s was not replayed within %s: %s; the next rlwrap that reaches the server replays it",
	    opts->journal_path, took, res.why);
	return 1;
}

static bool
replay_options(struct config *cfg, struct store_options *opts)
{
	struct store_error error;

	if (!store_options_resolve(opts, cfg->store_path, cfg->keep_runs, cfg->keep_days, &error)) {
		warnx_visible("%s", error.message);
		return false;
	}
	store_options_server(opts, cfg->store_schema, cfg->store_connect_timeout, cfg->store_statement_timeout,
	    cfg->store_pool);
	return true;
}

static int
replay_run(const struct store_options *opts, double secs, bool background)
{
	struct store_error error;
	bool elsewhere;
	int lock, rc, where;

	if (!store_is_server_url(opts->path) || opts->journal_path[0] == '\0') {
		print_visible("nothing to replay: %s is a file, not a server", opts->path);
		return 0;
	}
	/* Before the lock, which would make the state directory of a host
	 * that never journaled anything. */
	if (!journal_waiting(opts->journal_path)) {
		print_visible("nothing waits in %s", opts->journal_path);
		return 0;
	}
	if (background && (where = detach()) != 1) {
		if (where < 0)
			warn("fork");
		return where < 0 ? 1 : 0;
	}
	if ((lock = journal_replayer_lock(opts->journal_path, &elsewhere, &error)) < 0) {
		if (elsewhere) {
			print_visible("%s is being replayed by another rlwrap replay", opts->journal_path);
			return 0;
		}
		warnx_visible("%s", error.message);
		return 1;
	}
	rc = replay_until(opts, secs);
	close(lock);
	return rc;
}

static int
replay_exec(struct args *args)
{
	const struct cmd_entry *self = &cmd_replay_entry;
	struct store_options opts;
	struct config cfg;
	double secs = cmd_env_ms("RLWRAP_REPLAY_FOR_MS", (long long)(REPLAY_FOR_SECS * 1000), 86400000);
	int rc;

	if (args_has(args, OPT_FOR) && !opt_duration(self, "--for", args_get(args, OPT_FOR), &secs))
		return EXIT_USAGE;
	if (!cmd_load_config(&cfg))
		return 1;
	rc = replay_options(&cfg, &opts) ? replay_run(&opts, secs, args_has(args, OPT_BACKGROUND)) : 1;
	config_free(&cfg);
	return rc;
}

static const struct cmd_help replay_help[] = {
	{ "--background", "detach at once (a session of its own, no terminal, nothing of the caller's open)",
	  "rlwrap replay --background" },
	{ "--for DURATION", "give up after DURATION (default 10m); the journal stays for the next rlwrap",
	  "rlwrap replay --for 1h" },
	{ "--help", "this text", "rlwrap replay --help" },
	{ NULL, NULL, NULL },
};

const struct cmd_entry cmd_replay_entry = {
	.name = "replay",
	.optstring = "",
	.longopts = replay_longopts,
	.lower = 0,
	.upper = 0,
	.usage = "replay [--background] [--for duration]",
	.summary = "replay this host's journal into the server, trying again until it answers",
	.help = replay_help,
	.exec = replay_exec,
};
