/*
 * rlwrap: a rate-limit-aware prefix for AI coding-agent CLIs.
 *
 * The first operand is a subcommand only when it names one exactly;
 * anything else (or anything after "--") is a command to wrap.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <sqlite3.h>

#include "cmd.h"

const struct cmd_entry *const cmd_table[] = {
	&cmd_run_entry,
	&cmd_classify_failure_entry,
	&cmd_record_entry,
	&cmd_status_entry,
	&cmd_reset_entry,
	&cmd_trip_entry,
	&cmd_wait_entry,
	&cmd_recover_entry,
	&cmd_history_entry,
	&cmd_usage_entry,
	&cmd_metrics_entry,
	&cmd_replay_entry,
	&cmd_config_entry,
	&cmd_help_entry,
	NULL
};

#ifdef HAVE_LIBPQ
/* lib/store/pq_loader.h, declared here so that this file needs no libpq include
 * path: configure defines HAVE_LIBPQ when the PostgreSQL store is built. */
int pq_lib_version(void);
#define STORE_BACKENDS "sqlite, postgresql"
#else
#define STORE_BACKENDS "sqlite"
#endif

/* The first line is the version alone, for scripts; then what this build
 * can store to and the libraries it runs with (their run-time versions). */
static void
print_version(void)
{
	printf("rlwrap %s\n", RLWRAP_VERSION);
	printf("store backends: %s\n", STORE_BACKENDS);
	printf("libraries: SQLite %s, jansson %s", sqlite3_libversion(), jansson_version_str());
#ifdef HAVE_LIBPQ
	if (pq_lib_version() > 0)   /* libpq is loaded only now (lib/store/pq_loader.c) */
		printf(", libpq %d.%d", pq_lib_version() / 10000, pq_lib_version() % 10000);
	else
		printf(", libpq not found (%s)", "libpq.so.5");
#endif
	printf("\n");
}

/* The one check of everything printed, at the end of every command but the
 * wrapper (whose status is the child's): flushed, no error, closed, or exit 1. */
static int
stdout_checked(int rc)
{
	if (fflush(stdout) == 0 && !ferror(stdout) && fclose(stdout) == 0)
		return rc;
	warn("standard output");
	return rc == 0 ? 1 : rc;
}

static int
dispatch(const struct cmd_entry *entry, int argc, char **argv)
{
	struct args args;
	int rc;

	if (!args_parse(entry, argc, argv, &args)) {
		args_free(&args);
		return usage_status(entry);
	}
	if (args.help) {
		cmd_print_help(entry);
		args_free(&args);
		return 0;
	}
	rc = entry->exec(&args);
	args_free(&args);
	return rc;
}

static int
main_status(int argc, char **argv)
{
	static char run_name[] = "run", help_name[] = "help";
	char *help_argv[] = { help_name, NULL };
	const struct cmd_entry *entry;

	setprogname("rlwrap");
	setproctitle_init(argc, argv, environ);
	exe_path_init(argv[0]);
	if (argc < 2) {
		fprintf(stderr, "usage: rlwrap [options] [--] command [arg ...]\n"
		    "       rlwrap help\n");
		return EXIT_INTERNAL;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
		return stdout_checked(dispatch(&cmd_help_entry, 1, help_argv));
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
		print_version();
		return stdout_checked(0);
	}
	entry = cmd_find(argv[1]);
	if (entry == &cmd_run_entry)
		return dispatch(entry, argc - 1, argv + 1);
	if (entry != NULL)
		return stdout_checked(dispatch(entry, argc - 1, argv + 1));
	/* Not a subcommand: the whole command line is the wrapper's. */
	argv[0] = run_name;
	return dispatch(&cmd_run_entry, argc, argv);
}

/* By exit(3), so that where on_exit is missing its stand-in sees the
 * status (compat/compat.h). */
int
main(int argc, char **argv)
{
	exit(main_status(argc, argv));
}
