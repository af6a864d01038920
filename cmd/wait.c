/*
 * rlwrap wait [--timeout DURATION] KEY
 * Blocks until nothing blocks a spawn of KEY (closed, or past its reset with
 * no live probe): exit 0; 75 when the timeout runs out first; 128+n on
 * SIGINT, SIGTERM or SIGHUP.  Re-reads the store every second, in the
 * wrapper's own waiting loop (waiting.h).
 */
#include <err.h>
#include <stdio.h>
#include <string.h>

#include "breaker.h"
#include "cmd.h"
#include "waiting.h"

enum { OPT_TIMEOUT = OPT_LONG_BASE };

static const struct option wait_longopts[] = {
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ NULL, 0, NULL, 0 },
};

struct key_wait {
	struct store *store;
	const struct breaker_key *key;
	const char *name;
	double end;                /* the timeout's end; < 0: none */
};

/* Blocked: WAIT_MORE until the next look; else 0, 75, or 1 on a store error. */
static int
check_key(void *arg, double now, struct wait_reason *r)
{
	const struct key_wait *k = arg;
	const char *model = strcmp(k->key->scope, SCOPE_FAMILY) == 0 ? "" : k->key->scope;
	struct store_error error;
	struct breaker blocking;
	bool blocked;

	if (!breaker_blocked(k->store, k->key->account, k->key->family, model, now, &blocked, &blocking,
	    &error)) {
		warnx_visible("%s", error.message);
		return 1;
	}
	if (!blocked)
		return 0;
	if (k->end >= 0 && now >= k->end) {
		warnx_visible("%s: still blocked after the timeout", k->name);
		return EXIT_REFUSED;
	}
	strlcpy(r->why, blocking.resets_at > now ? "open" : "half-open (a probe runs)", sizeof(r->why));
	strlcpy(r->title, k->name, sizeof(r->title));
	r->until = blocking.resets_at > now ? blocking.resets_at : blocking.lease.expires_at;
	r->next_check = now + 1;
	if (k->end >= 0 && k->end < r->next_check)
		r->next_check = k->end;
	return WAIT_MORE;
}

static int
wait_exec(struct args *args)
{
	const struct cmd_entry *self = &cmd_wait_entry;
	struct breaker_key key;
	struct config cfg;
	struct cmd_state st;
	struct wait_clock clock;
	struct wait_reason r = { .until = 0 };
	char name[512];
	double timeout = -1;
	int rc;

	if (args_has(args, OPT_TIMEOUT) && !opt_duration(self, "--timeout", args_get(args, OPT_TIMEOUT), &timeout))
		return EXIT_USAGE;
	if (!cmd_state_open(&st, &cfg, true))
		return 1;
	if (!cmd_parse_key(self, &cfg, args->operands[0], &key)) {
		cmd_state_close(&st);
		return EXIT_USAGE;
	}
	key_format(&key, name, sizeof(name));
	wait_clock_init(&clock);
	struct key_wait k = {
		.store = st.store, .key = &key, .name = name,
		.end = timeout >= 0 ? wait_clock_now(&clock) + timeout : -1,
	};
	struct wait_loop w = {
		.clock = &clock, .who = name, .budget_end = -1, .check = check_key, .arg = &k,
	};

	if ((rc = check_key(&k, wait_clock_now(&clock), &r)) == WAIT_MORE)
		rc = wait_loop_run(&w, &r);
	cmd_state_close(&st);
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
