/* rlwrap history [--json] [--since D] [--limit N] [--filter K=V]...: every
 * recorded run, running, finished or lost, newest first. */
#include <err.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "breaker.h"
#include "cmd.h"
#include "history.h"
#include "redact.h"
#include "timeparse.h"
#include "visible.h"

enum { OPT_JSON = OPT_LONG_BASE, OPT_SINCE, OPT_LIMIT, OPT_FILTER };

static const struct option history_longopts[] = {
	{ "filter", required_argument, NULL, OPT_FILTER },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "since", required_argument, NULL, OPT_SINCE },
	{ "limit", required_argument, NULL, OPT_LIMIT },
	{ NULL, 0, NULL, 0 },
};

struct print_ctx {
	bool json;
	time_t now;
	json_t *array;
};

bool
cmd_parse_since(const struct cmd_entry *entry, const char *s, time_t now, double *since)
{
	double d;

	if (duration_parse(s, &d)) {
		*since = (double)now - d;
		return true;
	}
	if (time_parse(s, since))
		return true;
	usage_error(entry, "--since %s: not a duration (24h, 2d) or a time (ISO 8601, epoch)", s);
	return false;
}

/* The command as one line: its exact bytes when stored, else the JSON's strings. */
static void
format_command(const struct run_row *r, char *buf, size_t size)
{
	const char *exact_text = argv_exact_text(r->argv_exact, r->argv_json);
	json_t *a = json_loads(exact_text != NULL ? exact_text : r->argv_json != NULL ? r->argv_json : "[]",
	    0, NULL), *v;
	char exact[512];
	size_t i;

	buf[0] = '\0';
	json_array_foreach(a, i, v) {
		const char *s = json_string_value(v) != NULL ? json_string_value(v) : "?";

		if (i > 0)
			strlcat(buf, " ", size);
		if (r->argv_exact != NULL && strlen(s) < sizeof(exact)) {
			argv_exact_decode(s, exact);
			s = exact;
		}
		strlcat(buf, s, size);
	}
	json_decref(a);
}

/* How a run ended: its exit status, or the signal that killed it (whose
 * -1 would read as a status). */
static void
format_ended(const struct run_row *r, char *buf, size_t size)
{
	const char *sig;

	if (r->term_signal > 0 && (sig = sigabbrev_np(r->term_signal)) != NULL)
		snprintf(buf, size, "signal SIG%s", sig);
	else if (r->term_signal > 0)
		snprintf(buf, size, "signal %d", r->term_signal);
	else
		snprintf(buf, size, "exit=%d", r->exit_code);
}

/* Where the verdict goes: the reason, a refused spawn's cause (the
 * breaker's reason, or the queue's), or the state of one not finished. */
static void
format_verdict(const struct run_row *r, char *buf, size_t size)
{
	if (strcmp(r->state, "refused") == 0)
		snprintf(buf, size, "refused %s", r->signal.reason != REASON_NONE ?
		    reason_name(r->signal.reason) : *r->refused_by != '\0' ? r->refused_by : "");
	else
		strlcpy(buf, strcmp(r->state, "finished") == 0 ? reason_name(r->signal.reason) : r->state, size);
}

void
cmd_format_run_line(const struct run_row *r, char *buf, size_t size)
{
	char when[40], argv[256], reset[48] = "", raw[1024], verdict[64], ended[32];

	format_utc_iso(r->started_at, when, sizeof(when));
	format_verdict(r, verdict, sizeof(verdict));
	format_ended(r, ended, sizeof(ended));
	format_command(r, argv, sizeof(argv));
	if (r->signal.resets_at > 0) {
		strlcpy(reset, " resets ", sizeof(reset));
		format_utc_iso(r->signal.resets_at, reset + 8, sizeof(reset) - 8);
	}
	/* A run that has not finished shows its state where the verdict goes. */
	snprintf(raw, sizeof(raw), "#%lld %s %s%s%s %s%s %s %s: %s", r->id, when,
	    *r->family != '\0' ? r->family : "?", *r->model != '\0' ? "/" : "", r->model,
	    verdict, reset, ended,
	    *r->cwd != '\0' ? r->cwd : "?", argv);
	/* model, cwd and argv came from the child's stream or command line */
	visible_text(raw, buf, size);
}

static bool
print_row(const struct run_row *row, void *arg)
{
	struct print_ctx *ctx = arg;
	char line[1024];

	if (ctx->json) {
		json_array_append_new(ctx->array, run_row_to_json(row, ctx->now));
		return true;
	}
	cmd_format_run_line(row, line, sizeof(line));
	puts(line);   /* already visible */
	return true;
}

static int
history_exec(struct args *args)
{
	const struct cmd_entry *self = &cmd_history_entry;
	struct print_ctx ctx = { .json = args_has(args, OPT_JSON), .now = cmd_now() };
	struct run_filter filter;
	struct store_error error;
	struct config cfg;
	struct cmd_state st;
	long long limit = 0;
	char why[512];
	bool ok;

	run_filter_init(&filter);
	if ((args_has(args, OPT_SINCE) &&
	    !cmd_parse_since(self, args_get(args, OPT_SINCE), ctx.now, &filter.since)) ||
	    (args_has(args, OPT_LIMIT) &&
	    !opt_int(self, "--limit", args_get(args, OPT_LIMIT), 1, 1000000000, &limit)))
		return EXIT_USAGE;
	filter.limit = (long)limit;
	for (int i = 0; i < args->list_len[OPT_FILTER]; i++)
		if (!run_filter_add(&filter, args->list[OPT_FILTER][i], why, sizeof(why))) {
			run_filter_free(&filter);
			return usage_error(self, "--filter %s", why);
		}
	if (!cmd_state_open(&st, &cfg, true)) {
		run_filter_free(&filter);
		return 1;
	}
	ctx.array = json_array();
	ok = store_runs_each(st.store, &filter, print_row, &ctx, &error);
	cmd_state_close(&st);
	run_filter_free(&filter);
	if (ok && ctx.json) {
		json_dumpf(ctx.array, stdout,
		    JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII | SIGNAL_JSON_REALS);
		putchar('\n');
	}
	json_decref(ctx.array);
	if (!ok)
		warnx_visible("%s", error.message);
	return ok ? 0 : 1;
}

static const struct cmd_help history_help[] = {
	{ "--json", "print an array of objects with every stored field",
	  "rlwrap history --json | jq '.[0]'" },
	{ "--since D", "only runs that started within a duration back from now, or after a time",
	  "rlwrap history --since 24h" },
	{ "--limit N", "at most N runs, newest first",
	  "rlwrap history --limit 20" },
	{ "--filter K=V", "only runs whose K (reason, family, model, account, exit, cwd, state) is V;"
	  " a comma is any of", "rlwrap history --filter state=running,lost" },
	{ "--help", "this text", "rlwrap history --help" },
	{ NULL, NULL, NULL },
};

const struct cmd_entry cmd_history_entry = {
	.name = "history",
	.optstring = "",
	.longopts = history_longopts,
	.lower = 0,
	.upper = 0,
	.usage = "history [--json] [--since D] [--limit N] [--filter K=V]...",
	.summary = "list the recorded runs, succeeded and failed, newest first",
	.help = history_help,
	.exec = history_exec,
};
