/* rlwrap usage [--since D] [--by family|model|account] [--json]: tokens,
 * cost, runs, failures, limit hits and time spent waiting per key, for the
 * last 5 hours, 24 hours and 7 days (or since D). */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "breaker.h"
#include "cmd.h"
#include "history.h"
#include "visible.h"

enum { OPT_JSON = OPT_LONG_BASE, OPT_SINCE, OPT_BY };

static const struct option usage_longopts[] = {
	{ "json", no_argument, NULL, OPT_JSON },
	{ "since", required_argument, NULL, OPT_SINCE },
	{ "by", required_argument, NULL, OPT_BY },
	{ NULL, 0, NULL, 0 },
};

enum group_by { BY_KEY, BY_FAMILY, BY_MODEL, BY_ACCOUNT };
enum wait_kind { WAIT_BREAKER, WAIT_SLOT, WAIT_BUDGET, WAIT_KINDS };
static const char *const wait_kind_names[WAIT_KINDS] = { "breakers", "slots", "budgets" };

/* One key's line of a period. */
struct usage_line {
	char account[KEY_ACCOUNT_MAX], family[KEY_FAMILY_MAX], model[SIGNAL_FIELD_MAX];
	long long input_tokens, output_tokens;
	double cost_usd;
	long runs, failures, limit_hits;
	long refusals;        /* spawns a breaker refused (the waits table's) */
	double waited[WAIT_KINDS];
};

struct period {
	enum group_by by;
	struct usage_line *lines;
	size_t count;
	bool oom;
};

/* The line of (account, family, model) as grouped, made when missing. */
static struct usage_line *
line_of(struct period *p, const char *account, const char *family, const char *model)
{
	struct usage_line key = { .cost_usd = 0 }, *grown;

	if (p->by == BY_KEY || p->by == BY_ACCOUNT)
		strlcpy(key.account, account, sizeof(key.account));
	if (p->by != BY_ACCOUNT)
		strlcpy(key.family, family, sizeof(key.family));
	if (p->by == BY_MODEL)
		strlcpy(key.model, model, sizeof(key.model));
	for (size_t i = 0; i < p->count; i++)
		if (strcmp(p->lines[i].account, key.account) == 0 && strcmp(p->lines[i].family, key.family) == 0 &&
		    strcmp(p->lines[i].model, key.model) == 0)
			return &p->lines[i];
	if ((grown = reallocarray(p->lines, p->count + 1, sizeof(*grown))) == NULL) {
		p->oom = true;
		return NULL;
	}
	p->lines = grown;
	p->lines[p->count] = key;
	return &p->lines[p->count++];
}

static bool
count_run(const struct run_row *row, void *arg)
{
	struct period *p = arg;
	struct usage_line *l = line_of(p, row->account, row->family, row->model);
	enum reason r = row->signal.reason;

	if (l == NULL)
		return false;
	l->runs++;
	(void)usage_add_tokens(&l->input_tokens, row->usage.input_tokens > 0 ? row->usage.input_tokens : 0);
	(void)usage_add_tokens(&l->output_tokens, row->usage.output_tokens > 0 ? row->usage.output_tokens : 0);
	(void)usage_add_cost(&l->cost_usd, row->usage.cost_usd > 0 ? row->usage.cost_usd : 0);
	l->failures += r != REASON_NONE || strcmp(row->state, "lost") == 0;
	l->limit_hits += r == REASON_RATE_LIMIT || r == REASON_USAGE_LIMIT || r == REASON_CREDIT_EXHAUSTED;
	return true;
}

static bool
count_waits(struct store *store, struct period *p, double since, struct store_error *err)
{
	struct wait_total *rows;
	size_t count;

	if (!store_wait_totals(store, since, &rows, &count, err))
		return false;
	for (size_t i = 0; i < count; i++) {
		struct usage_line *l = line_of(p, rows[i].account, rows[i].family, rows[i].model);
		enum wait_kind k = strcmp(rows[i].why, "budget") == 0 ? WAIT_BUDGET :
		    strcmp(rows[i].why, "max-concurrent") == 0 ? WAIT_SLOT : WAIT_BREAKER;

		if (l != NULL) {
			l->waited[k] += rows[i].secs;
			l->refusals += rows[i].refusals;
		}
	}
	free(rows);
	return true;
}

static void
print_line(const struct usage_line *l)
{
	char who[KEY_ACCOUNT_MAX + KEY_FAMILY_MAX + SIGNAL_FIELD_MAX + 32], waited[160] = "", d[32], raw[768];

	snprintf(who, sizeof(who), "%s%s%s%s%s%s", l->family, *l->model != '\0' ? "/" : "", l->model,
	    *l->account != '\0' ? (*l->family != '\0' ? " (account " : "account ") : "", l->account,
	    *l->account != '\0' && *l->family != '\0' ? ")" : "");
	for (int k = 0; k < WAIT_KINDS; k++) {
		if (l->waited[k] <= 0)
			continue;
		format_duration_short(l->waited[k], d, sizeof(d));
		snprintf(waited + strlen(waited), sizeof(waited) - strlen(waited), "%s%s %s",
		    *waited != '\0' ? ", " : "", wait_kind_names[k], d);
	}
	snprintf(raw, sizeof(raw), "  %s: %ld runs, %ld failed, %ld limit hits, tokens %lld in %lld out, $%.2f,"
	    " waited %s", who, l->runs, l->failures, l->limit_hits, l->input_tokens, l->output_tokens,
	    l->cost_usd, *waited != '\0' ? waited : "0s");
	if (l->refusals > 0)
		snprintf(raw + strlen(raw), sizeof(raw) - strlen(raw), ", %ld refused by a breaker", l->refusals);
	visible_text(raw, who, sizeof(who));
	puts(who);
}

static json_t *
line_json(const struct usage_line *l)
{
	json_t *o = json_object(), *w = json_object();

	if (*l->account != '\0')
		json_object_set_new(o, "account", json_string(l->account));
	if (*l->family != '\0')
		json_object_set_new(o, "family", json_string(l->family));
	if (*l->model != '\0')
		json_object_set_new(o, "model", json_string(l->model));
	json_object_set_new(o, "runs", json_integer(l->runs));
	json_object_set_new(o, "failures", json_integer(l->failures));
	json_object_set_new(o, "limit_hits", json_integer(l->limit_hits));
	json_object_set_new(o, "refusals", json_integer(l->refusals));
	json_object_set_new(o, "input_tokens", json_integer(l->input_tokens));
	json_object_set_new(o, "output_tokens", json_integer(l->output_tokens));
	json_object_set_new(o, "cost_usd", json_real(l->cost_usd));
	for (int k = 0; k < WAIT_KINDS; k++)
		json_object_set_new(w, wait_kind_names[k], json_real(l->waited[k]));
	json_object_set_new(o, "waited_secs", w);
	return o;
}

/* One period: its lines printed, or appended to out as an object. */
static bool
report(struct store *store, enum group_by by, const char *label, double since, json_t *out,
    struct store_error *err)
{
	struct period p = { .by = by };
	struct run_filter f;
	bool ok;

	run_filter_init(&f);
	f.since = since;
	ok = store_runs_each(store, &f, count_run, &p, err) && count_waits(store, &p, since, err);
	run_filter_free(&f);
	if (ok && p.oom)
		ok = (snprintf(err->message, sizeof(err->message), "out of memory"), false);
	if (ok && out != NULL) {
		json_t *o = json_object(), *a = json_array();

		json_object_set_new(o, "period", json_string(label));
		json_object_set_new(o, "since", json_real(since));
		for (size_t i = 0; i < p.count; i++)
			json_array_append_new(a, line_json(&p.lines[i]));
		json_object_set_new(o, "keys", a);
		json_array_append_new(out, o);
	} else if (ok) {
		printf("last %s:%s\n", label, p.count == 0 ? " nothing" : "");
		for (size_t i = 0; i < p.count; i++)
			print_line(&p.lines[i]);
	}
	free(p.lines);
	return ok;
}

/* The windows whose reading is current, each with its runway, as status
 * shows them. */
static bool
print_windows(struct store *store, const struct config *cfg, double now, struct store_error *err)
{
	struct usage_reading *rows;
	size_t n;
	bool any = false;

	if (!store_readings(store, NULL, NULL, &rows, &n, err))
		return false;
	for (size_t i = 0; i < n; i++) {
		if (!reading_current(&rows[i], now))
			continue;
		if (!any)
			printf("windows:\n");
		any = true;
		status_print_reading(cfg, store, &rows[i], now);
	}
	free(rows);
	return true;
}

static bool
parse_by(const char *s, enum group_by *by)
{
	static const char *const names[] = { "key", "family", "model", "account" };

	for (int i = 0; i < 4; i++)
		if (strcmp(s, names[i]) == 0) {
			*by = (enum group_by)i;
			return true;
		}
	return false;
}

static int
usage_exec(struct args *args)
{
	const struct cmd_entry *self = &cmd_usage_entry;
	static const char *const labels[] = { "5h", "24h", "7d" };
	static const double backs[] = { 5 * 3600, 86400, 7 * 86400 };
	time_t now = cmd_now();
	enum group_by by = BY_KEY;
	double since = 0;
	struct store_error error;
	struct config cfg;
	struct cmd_state st;
	json_t *out = args_has(args, OPT_JSON) ? json_array() : NULL;
	bool ok = true;

	if (args_has(args, OPT_BY) && !parse_by(args_get(args, OPT_BY), &by)) {
		json_decref(out);
		return usage_error(self, "--by %s: not family, model or account", args_get(args, OPT_BY));
	}
	if (args_has(args, OPT_SINCE) && !cmd_parse_since(self, args_get(args, OPT_SINCE), now, &since)) {
		json_decref(out);
		return EXIT_USAGE;
	}
	if (!cmd_state_open(&st, &cfg, true)) {
		json_decref(out);
		return 1;
	}
	if (args_has(args, OPT_SINCE))
		ok = report(st.store, by, args_get(args, OPT_SINCE), since, out, &error);
	for (int i = 0; i < 3 && ok && !args_has(args, OPT_SINCE); i++)
		ok = report(st.store, by, labels[i], (double)now - backs[i], out, &error);
	if (ok && out == NULL)
		ok = print_windows(st.store, &cfg, (double)now, &error);
	cmd_state_close(&st);
	if (ok && out != NULL) {
		json_dumpf(out, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII | SIGNAL_JSON_REALS);
		putchar('\n');
	}
	json_decref(out);
	if (!ok)
		warnx_visible("%s", error.message);
	return ok ? 0 : 1;
}

static const struct cmd_help usage_help[] = {
	{ "--since D", "one period: within a duration back from now, or after a time (default: 5h, 24h and 7d)",
	  "rlwrap usage --since 1d" },
	{ "--by K", "one line per family, model or account instead of per (account, family)",
	  "rlwrap usage --by model" },
	{ "--json", "print an array of periods, each with its keys' numbers",
	  "rlwrap usage --json | jq '.[1].keys'" },
	{ "--help", "this text", "rlwrap usage --help" },
	{ NULL, NULL, NULL },
};

const struct cmd_entry cmd_usage_entry = {
	.name = "usage",
	.optstring = "",
	.longopts = usage_longopts,
	.lower = 0,
	.upper = 0,
	.usage = "usage [--since D] [--by family|model|account] [--json]",
	.summary = "tokens, cost, runs, failures, limit hits and time spent waiting per key",
	.help = usage_help,
	.exec = usage_exec,
};
