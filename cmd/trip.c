/* rlwrap trip (--for DURATION | --until TIME) [--reason R] KEY: open a breaker by hand. */
#include <err.h>
#include <stdio.h>

#include "breaker.h"
#include "cmd.h"

enum { OPT_FOR = OPT_LONG_BASE, OPT_UNTIL, OPT_REASON };

static const struct option trip_longopts[] = {
	{ "for", required_argument, NULL, OPT_FOR },
	{ "until", required_argument, NULL, OPT_UNTIL },
	{ "reason", required_argument, NULL, OPT_REASON },
	{ NULL, 0, NULL, 0 },
};

/* The reset the options ask for, or false after a usage error. */
static bool
trip_reset(struct args *args, time_t now, double *resets_at)
{
	const struct cmd_entry *self = &cmd_trip_entry;
	double secs;

	if (args_has(args, OPT_FOR) == args_has(args, OPT_UNTIL)) {
		usage_error(self, "give either --for DURATION or --until TIME");
		return false;
	}
	if (args_has(args, OPT_FOR)) {
		if (!opt_duration(self, "--for", args_get(args, OPT_FOR), &secs))
			return false;
		*resets_at = (double)now + secs;
	} else if (!opt_time(self, "--until", args_get(args, OPT_UNTIL), resets_at))
		return false;
	if (*resets_at <= (double)now) {
		usage_error(self, "the reset must be in the future");
		return false;
	}
	return true;
}

static int
trip_exec(struct args *args)
{
	const struct cmd_entry *self = &cmd_trip_entry;
	enum reason reason = REASON_USAGE_LIMIT;
	time_t now = cmd_now();
	struct store_error error;
	struct breaker_key key;
	struct breaker_transitions tripped = { 0 };
	struct breaker after;
	struct config cfg;
	struct cmd_state st;
	char name[512], reset[160];
	double resets_at;
	int rc = 1;

	if (!trip_reset(args, now, &resets_at))
		return EXIT_USAGE;
	if (args_has(args, OPT_REASON) && (!reason_from_name(args_get(args, OPT_REASON), &reason) ||
	    reason == REASON_NONE))
		return usage_error(self, "--reason %s: not a failure reason", args_get(args, OPT_REASON));
	if (!cmd_state_open(&st, &cfg, false))
		return 1;
	if (!cmd_parse_key(self, &cfg, args->operands[0], &key)) {
		cmd_state_close(&st);
		return EXIT_USAGE;
	}
	if (breaker_trip_manual(st.store, &cfg, &key, reason, resets_at, (double)now, &after, &tripped, &error)) {
		key_format(&after.key, name, sizeof(name));
		cmd_format_reset(after.resets_at, now, reset, sizeof(reset));
		print_visible("%s (account %s): open until %s, %s from %s", name, after.key.account, reset,
		    reason_name(after.reason), after.reset_source);
		rc = fflush(stdout) == 0 ? 0 : 1;
		hooks_run_transitions(&cfg, &tripped);
	} else
		warnx_visible("%s", error.message);
	cmd_state_close(&st);
	return rc;
}

static const struct cmd_help trip_help[] = {
	{ "--for DURATION", "open the breaker for a duration from now (90s, 15m, 4h30m)",
	  "rlwrap trip --for 2h codex" },
	{ "--until TIME", "open the breaker until a time (ISO 8601, epoch, or 18:30)",
	  "rlwrap trip --until 2026-12-01T09:00:00Z claude" },
	{ "--reason REASON", "the reason recorded (default usage-limit)",
	  "rlwrap trip --for 15m --reason rate-limit gemini" },
	{ "--help", "this text", "rlwrap trip --help" },
	{ "KEY", "family[:model][@account]: the breaker to open",
	  "rlwrap trip --for 5h claude:opus@work" },
	{ NULL, NULL, NULL },
};

const struct cmd_entry cmd_trip_entry = {
	.name = "trip",
	.optstring = "",
	.longopts = trip_longopts,
	.lower = 1,
	.upper = 1,
	.usage = "trip (--for DURATION | --until TIME) [--reason R] KEY",
	.summary = "open a breaker by hand until a time",
	.help = trip_help,
	.exec = trip_exec,
};
