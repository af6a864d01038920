/* rlwrap reset (--all | KEY): close breakers by hand. */
#include <err.h>
#include <stdio.h>
#include <string.h>

#include "breaker.h"
#include "cmd.h"
#include "failsignal.h"

enum { OPT_ALL = OPT_LONG_BASE };

static const struct option reset_longopts[] = {
	{ "all", no_argument, NULL, OPT_ALL },
	{ NULL, 0, NULL, 0 },
};

static int
reset_exec(struct args *args)
{
	const struct cmd_entry *self = &cmd_reset_entry;
	bool all = args_has(args, OPT_ALL);
	struct store_error error;
	struct breaker_transitions closes = { 0 };
	struct breaker_key key;
	struct config cfg;
	struct cmd_state st;
	int matched, closed, rc = 1;
	char name[512];

	if (all == (args->count == 1))
		return usage_error(self, "give either --all or one KEY");
	if (!cmd_state_open(&st, &cfg, false))
		return 1;
	if (!all && !cmd_parse_key(self, &cfg, args->operands[0], &key)) {
		cmd_state_close(&st);
		return EXIT_USAGE;
	}
	if (!breaker_reset(st.store, all ? NULL : &key, (double)cmd_now(), &matched, &closed, &closes, &error))
		warnx_visible("%s", error.message);
	else if (!all && matched == 0) {
		key_format(&key, name, sizeof(name));
		warnx_visible("no breaker %s (account %s)", name, key.account);
	} else {
		cmd_forget_memo(&cfg);
		printf("closed %d breaker%s", closed, closed == 1 ? "" : "s");
		/* Other hosts' memos refuse from what they read until it ages out. */
		if (closed > 0 && cfg.store_memo_ttl > 0 && strcmp(store_backend_name(st.store), "postgresql") == 0) {
			format_duration_short(cfg.store_memo_ttl, name, sizeof(name));
			printf("; other hosts see it within %s (memo_ttl)", name);
		}
		putchar('\n');
		rc = fflush(stdout) == 0 ? 0 : 1;
		hooks_run_transitions(&cfg, &closes);
	}
	cmd_state_close(&st);
	return rc;
}

static const struct cmd_help reset_help[] = {
	{ "--all", "close every breaker",
	  "rlwrap reset --all" },
	{ "--help", "this text", "rlwrap reset --help" },
	{ "KEY", "family[:model][@account]: close that breaker (no model: every scope of the family)",
	  "rlwrap reset claude@work" },
	{ NULL, NULL, NULL },
};

const struct cmd_entry cmd_reset_entry = {
	.name = "reset",
	.optstring = "",
	.longopts = reset_longopts,
	.lower = 0,
	.upper = 1,
	.usage = "reset (--all | KEY)",
	.summary = "close a breaker (KEY is family[:model][@account]) or all of them",
	.help = reset_help,
	.exec = reset_exec,
};
