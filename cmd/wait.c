/*
 * rlwrap wait [--timeout DURATION] KEY
 * Blocks until nothing blocks a spawn of KEY (closed, or past its reset with
 * no live probe): exit 0; 75 when the timeout (real time) runs out first;
 * 130 on SIGINT.  Re-reads the store every second.
 */
#include <err.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "breaker.h"
#include "cmd.h"

enum { OPT_TIMEOUT = OPT_LONG_BASE };

static const struct option wait_longopts[] = {
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ NULL, 0, NULL, 0 },
};

static volatile sig_atomic_t interrupted;

static void
on_sigint(int signo)
{
	interrupted = 1;
}

static double
monotonic(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Sleeps up to secs; false when SIGINT came. */
static bool
nap(double secs)
{
	struct timespec ts = { (time_t)secs, (long)((secs - (double)(time_t)secs) * 1e9) };

	if (secs <= 0)
		return !interrupted;
	if (nanosleep(&ts, NULL) != 0 && errno != EINTR)
		return !interrupted;
	return !interrupted;
}

/* The wait proper: 0, 75, 130, or 1 on a store error. */
static int
wait_loop(struct store *store, const struct breaker_key *key, double timeout)
{
	const char *model = strcmp(key->scope, SCOPE_FAMILY) == 0 ? "" : key->scope;
	double start = monotonic(), clock0 = (double)cmd_now(), elapsed = 0;
	struct store_error error;
	struct breaker blocking;
	char name[512], reset[160];
	bool blocked, said = false;

	key_format(key, name, sizeof(name));
	for (;;) {
		double now = clock0 + elapsed;

		if (!breaker_blocked(store, key->account, key->family, model, now, &blocked, &blocking, &error)) {
			warnx_visible("%s", error.message);
			return 1;
		}
		if (!blocked)
			return 0;
		if (!said) {
			cmd_format_reset(blocking.resets_at, (time_t)now, reset, sizeof(reset));
			warnx_visible("waiting for %s: %s, reset %s", name, blocking.resets_at > now ? "open" : "half-open (a probe runs)", reset);
			said = true;
		}
		if (timeout >= 0 && elapsed >= timeout) {
			warnx_visible("%s: still blocked after the timeout", name);
			return EXIT_REFUSED;
		}
		if (!nap(timeout >= 0 && timeout - elapsed < 1 ? timeout - elapsed : 1))
			return 130;
		elapsed = monotonic() - start;
	}
}

static int
wait_exec(struct args *args)
{
	const struct cmd_entry *self = &cmd_wait_entry;
	struct sigaction sa;
	struct breaker_key key;
	struct config cfg;
	struct store *store;
	double timeout = -1;
	int rc;

	if (args_has(args, OPT_TIMEOUT) && !opt_duration(self, "--timeout", args_get(args, OPT_TIMEOUT), &timeout))
		return EXIT_USAGE;
	if (!cmd_load_config(&cfg))
		return 1;
	if (!cmd_parse_key(self, &cfg, args->operands[0], &key)) {
		config_free(&cfg);
		return EXIT_USAGE;
	}
	if ((store = cmd_open_store(&cfg, true)) == NULL) {
		config_free(&cfg);
		return 1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigint;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	rc = wait_loop(store, &key, timeout);
	store_close(store);
	config_free(&cfg);
	return rc;
}

static const struct cmd_help wait_help[] = {
	{ "--timeout DURATION", "give up after this long (real time) and exit 75",
	  "rlwrap wait --timeout 30m claude && claude -p 'go on'" },
	{ "--help", "this text", "rlwrap wait --help" },
	{ "KEY", "family[:model][@account]: wait until nothing blocks a spawn of it",
	  "rlwrap wait codex" },
	{ NULL, NULL, NULL },
};

const struct cmd_entry cmd_wait_entry = {
	.name = "wait",
	.optstring = "",
	.longopts = wait_longopts,
	.lower = 1,
	.upper = 1,
	.usage = "wait [--timeout DURATION] KEY",
	.summary = "wait until a breaker is closed or past its reset (75 on timeout)",
	.help = wait_help,
	.exec = wait_exec,
};
