/* rlwrap [options] [--] command [arg ...]: the wrapper (placeholder). */
#include <err.h>

#include "cmd.h"

static int
run_exec(struct args *args)
{
	warnx("the wrapper is not built yet");
	return EXIT_INTERNAL;
}

const struct cmd_entry cmd_run_entry = {
	.name = "run",
	.optstring = "",
	.lower = 1,
	.upper = -1,
	.usage = "[run] [options] [--] command [arg ...]",
	.summary = "run a command under the breakers and classify how it ended",
	.exec = run_exec,
};
