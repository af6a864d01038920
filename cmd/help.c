/* rlwrap help [command]: the overview, or one command's synopsis. */
#include <stdio.h>

#include "cmd.h"

static void
help_overview(void)
{
	printf("usage: rlwrap [options] [--] command [arg ...]\n\n"
	    "Runs an AI coding-agent CLI, passes its output through untouched,\n"
	    "classifies how the run ended, and refuses to spawn a family whose\n"
	    "provider said \"stop until T\" before T.\n\ncommands:\n");
	for (const struct cmd_entry *const *e = cmd_table; *e != NULL; e++)
		printf("  %-18s %s\n", (*e)->name, (*e)->summary);
	printf("\nSee rlwrap(1) and rlwrap.conf(5); `rlwrap help COMMAND` for one command.\n");
}

static int
help_exec(struct args *args)
{
	const struct cmd_entry *entry;

	if (args->count == 0) {
		help_overview();
		return 0;
	}
	entry = cmd_find(args->operands[0]);
	if (entry == NULL)
		return usage_error(&cmd_help_entry, "no such command: %s", args->operands[0]);
	printf("usage: rlwrap %s\n\n%s\n", entry->usage, entry->summary);
	return 0;
}

const struct cmd_entry cmd_help_entry = {
	.name = "help",
	.optstring = "",
	.lower = 0,
	.upper = 1,
	.usage = "help [command]",
	.summary = "show usage of rlwrap or of one command",
	.exec = help_exec,
};
