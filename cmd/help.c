/* rlwrap help [command]: the overview, or one command's options with what
 * each does and an example (the tables are in each cmd/<verb>.c). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"

/* Items longer than this get their description on the next line. */
#define HELP_ITEM_WIDTH 24
/* Descriptions wrap before this column; examples are never wrapped, so
 * that they can be copied whole. */
#define HELP_LINE_WIDTH 79

static void
help_overview(void)
{
	printf("usage: rlwrap [options] [--] command [arg ...]\n"
	    "       rlwrap COMMAND [options] [operands]\n\n"
	    "Runs an AI coding-agent CLI, passes its output through untouched,\n"
	    "classifies how the run ended, and refuses to spawn a family whose\n"
	    "provider said \"stop until T\" before T.\n\ncommands:\n");
	for (const struct cmd_entry *const *e = cmd_table; *e != NULL; e++)
		printf("  %-18s %s\n", (*e)->name, (*e)->summary);
	printf("\n  %-18s %s\n  %-18s %s\n", "-h, --help", "this overview",
	    "-V, --version", "the version, store backends and library versions");
	printf("\nexit status: the command's own; 75 refused; 125 rlwrap failed before the command\n"
	    "ran (its usage errors too); a subcommand 0, 1 on failure, 2 on a usage error.\n");
	printf("\n`rlwrap help COMMAND` or `rlwrap COMMAND --help` lists a command's options\n"
	    "(`rlwrap help run` the wrapper's).  See rlwrap(1) and rlwrap.conf(5).\n");
}

/* Prints text from column HELP_ITEM_WIDTH + 2, wrapped at word boundaries
 * before HELP_LINE_WIDTH; the first line continues the current one. */
static void
print_wrapped(const char *text)
{
	int col = HELP_ITEM_WIDTH + 2;

	while (*text != '\0') {
		size_t word = strcspn(text, " ");

		if (col > HELP_ITEM_WIDTH + 2 && col + 1 + (int)word > HELP_LINE_WIDTH) {
			printf("\n%*s", HELP_ITEM_WIDTH + 2, "");
			col = HELP_ITEM_WIDTH + 2;
		} else if (col > HELP_ITEM_WIDTH + 2) {
			putchar(' ');
			col++;
		}
		printf("%.*s", (int)word, text);
		col += (int)word;
		text += word;
		text += strspn(text, " ");
	}
	putchar('\n');
}

void
cmd_print_help(const struct cmd_entry *entry)
{
	printf("usage: rlwrap %s\n\n%c%s.\n", entry->usage, toupper((unsigned char)entry->summary[0]),
	    entry->summary + 1);
	if (entry->help == NULL || entry->help[0].item == NULL)
		return;
	printf("\n");
	for (const struct cmd_help *h = entry->help; h->item != NULL; h++) {
		if (strlen(h->item) > HELP_ITEM_WIDTH - 2)
			printf("  %s\n  %-*s", h->item, HELP_ITEM_WIDTH, "");
		else
			printf("  %-*s", HELP_ITEM_WIDTH, h->item);
		print_wrapped(h->does);
		if (h->example != NULL)
			printf("  %-*s$ %s\n", HELP_ITEM_WIDTH, "", h->example);
	}
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
	cmd_print_help(entry);
	return 0;
}

static const struct cmd_help help_help[] = {
	{ "COMMAND", "the command to describe; without it, the list of commands", "rlwrap help status" },
	{ "--help", "this text", "rlwrap help --help" },
	{ NULL, NULL, NULL },
};

const struct cmd_entry cmd_help_entry = {
	.name = "help",
	.optstring = "",
	.lower = 0,
	.upper = 1,
	.usage = "help [command]",
	.summary = "show usage of rlwrap or of one command",
	.help = help_help,
	.exec = help_exec,
};
