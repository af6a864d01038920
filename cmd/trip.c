/* rlwrap trip (--for DURATION | --until TIME) [--reason R] KEY: open a breaker by hand. */
#include <err.h>
#include <stdio.h>
#include <string.h>

#include "breaker.h"
#include "cmd.h"
#include "detect.h"
#include "textutil.h"
#include "timeparse.h"

enum { OPT_FOR = OPT_LONG_BASE, OPT_UNTIL, OPT_REASON, OPT_FORCE };

static const struct option trip_longopts[] = {
	{ "for", required_argument, NULL, OPT_FOR },
	{ "until", required_argument, NULL, OPT_UNTIL },
	{ "reason", required_argument, NULL, OPT_REASON },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ NULL, 0, NULL, 0 },
};

/* --until: epoch, ISO 8601, or a clock time ("18:30", "6:30pm", "Dec 2
 * 9am"), local unless it names a zone, today or else tomorrow. */
static bool
until_parse(const char *s, time_t now, double *t)
{
	return time_parse(s, t) || (*s != '\0' && clock_scan(s, strlen(s), now, t) == strlen(s));
}

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
	} else if (!until_parse(args_get(args, OPT_UNTIL), now, resets_at)) {
		usage_error(self, "--until %s: not a time (18:30, 6:30pm, 2026-11-30T14:00:00Z, epoch seconds)",
		    args_get(args, OPT_UNTIL));
		return false;
	}
	if (*resets_at <= (double)now) {
		usage_error(self, "the reset must be in the future");
		return false;
	}
	return true;
}

/* A breaker for a family nothing detects is one nothing will ever hit:
 * a typo, unless --force says it is meant. */
static bool
family_checked(const struct args *args, const struct config *cfg, const char *family)
{
	const char *near = NULL, *list = family_list();
	char name[64];
	size_t n;

	if (family_known(family) || config_family(cfg, family) != NULL || args_has(args, OPT_FORCE))
		return true;
	for (const char *p = list; *p != '\0'; p += n + strspn(p + n, ", ")) {
		n = strcspn(p, ", ");
		snprintf(name, sizeof(name), "%.*s", (int)n, p);
		if (n < sizeof(name) && edit_distance(family, name, 2) <= 2) {
			near = strstr(list, name);
			break;
		}
	}
	if (near != NULL)
		usage_error(&cmd_trip_entry, "%s: not a family (did you mean %.*s?); --force trips it anyway",
		    family, (int)strcspn(near, ", "), near);
	else
		usage_error(&cmd_trip_entry, "%s: not a family (%s); --force trips it anyway", family, list);
	return false;
}

/* A trip never shortens an open breaker: say so when it asked for less. */
static void
note_not_shortened(const struct breaker *after, double asked, time_t now)
{
	char want[160], have[160];

	if (after->resets_at <= asked + 0.5)
		return;
	cmd_format_reset(asked, now, want, sizeof(want));
	cmd_format_reset(after->resets_at, now, have, sizeof(have));
	print_visible("not applied: the breaker was already open until %s, later than %s; a trip only "
	    "lengthens an open breaker (rlwrap reset first to shorten it)", have, want);
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
	if (!cmd_parse_key(self, &cfg, args->operands[0], &key) || !family_checked(args, &cfg, key.family)) {
		cmd_state_close(&st);
		return EXIT_USAGE;
	}
	if (breaker_trip_manual(st.store, &cfg, &key, reason, resets_at, (double)now, &after, &tripped, &error)) {
		key_format(&after.key, name, sizeof(name));
		cmd_format_reset(after.resets_at, now, reset, sizeof(reset));
		print_visible("%s (account %s): open until %s, %s from %s", name, after.key.account, reset,
		    reason_name(after.reason), after.reset_source);
		note_not_shortened(&after, resets_at, now);
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
	{ "--until TIME", "open the breaker until a time (ISO 8601, epoch, or 18:30 local, today or tomorrow)",
	  "rlwrap trip --until 18:30 claude" },
	{ "--reason REASON", "the reason recorded (default usage-limit)",
	  "rlwrap trip --for 15m --reason rate-limit gemini" },
	{ "--force", "trip a family rlwrap does not know (one of your own wrappers' names)",
	  "rlwrap trip --force --for 1h my-agent" },
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
	.usage = "trip (--for DURATION | --until TIME) [--reason R] [--force] KEY",
	.summary = "open a breaker by hand until a time",
	.help = trip_help,
	.exec = trip_exec,
};
