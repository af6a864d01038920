/*
 * rlwrap status [--json] [--all] | --short
 * The breakers that block spawns (open, half-open; --all: every one), the
 * runs running now and the spawns waiting for a slot, and the runs and
 * failures of each family in the last 24 hours; --short prints one line of
 * the breakers and failures for a prompt (cmd/status_short.c).
 */
#include <err.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "admission.h"
#include "breaker.h"
#include "cmd.h"
#include "visible.h"

enum { OPT_JSON = OPT_LONG_BASE, OPT_ALL, OPT_SHORT, OPT_COLOR };

static const struct option status_longopts[] = {
	{ "json", no_argument, NULL, OPT_JSON },
	{ "all", no_argument, NULL, OPT_ALL },
	{ "short", no_argument, NULL, OPT_SHORT },
	{ "color", optional_argument, NULL, OPT_COLOR },
	{ NULL, 0, NULL, 0 },
};

static json_t *
time_or_null(double t, bool local)
{
	char buf[64];

	if (t <= 0)
		return json_null();
	if (local)
		cmd_format_local(t, buf, sizeof(buf));
	else
		format_utc_iso(t, buf, sizeof(buf));
	return json_string(buf);
}

static json_t *
text_or_null(const char *s)
{
	return s[0] != '\0' ? json_string(s) : json_null();
}

static json_t *
breaker_json(const struct breaker *b, enum breaker_view view, time_t now)
{
	char key[512];
	json_t *probe = json_null();

	key_format(&b->key, key, sizeof(key));
	if (b->lease.pid != 0)
		probe = json_pack("{s:I, s:s, s:o}", "pid", (json_int_t)b->lease.pid, "host", b->lease.host,
		    "expires_at", time_or_null(b->lease.expires_at, false));
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:I, s:o, s:o, s:o}",
	    "key", key, "account", b->key.account, "family", b->key.family, "scope", b->key.scope,
	    "state", breaker_view_name(view),
	    "reason", b->reason != REASON_NONE ? json_string(reason_name(b->reason)) : json_null(),
	    "resets_at", time_or_null(b->resets_at, false), "resets_at_local", time_or_null(b->resets_at, true),
	    "retry_after_secs", b->resets_at > (double)now ? json_integer((json_int_t)ceil(b->resets_at - (double)now))
	    : json_integer(0),
	    "reset_source", text_or_null(b->reset_source), "trips", (json_int_t)b->trips,
	    "last_trip_at", time_or_null(b->last_trip_at, false), "last_message", text_or_null(b->last_message),
	    "probe", probe);
}

static void
print_breaker(const struct breaker *b, enum breaker_view view, time_t now)
{
	char key[512], reset[160], probe[320] = "", raw[2048], head[2200], tail[8192];
	const char *on = "", *off = "";

	key_format(&b->key, key, sizeof(key));
	if (b->resets_at > 0)
		cmd_format_reset(b->resets_at, now, reset, sizeof(reset));
	else
		strlcpy(reset, "-", sizeof(reset));
	if (view == VIEW_HALF_OPEN)
		snprintf(probe, sizeof(probe), "; probe pid %ld on %s", b->lease.pid, b->lease.host);
	/* the key's model, the host and the message came from outside: shown
	 * visibly, apart from the state's colour, which is ours */
	snprintf(raw, sizeof(raw), "%-24s", key);
	visible_text(raw, head, sizeof(head));
	snprintf(raw, sizeof(raw), "%-16s resets %s from %s; %ld trip%s%s%s%s",
	    b->reason != REASON_NONE ? reason_name(b->reason) : "-", reset,
	    b->reset_source[0] != '\0' ? b->reset_source : "-", b->trips, b->trips == 1 ? "" : "s",
	    probe, b->last_message[0] != '\0' ? ": " : "", b->last_message);
	visible_text(raw, tail, sizeof(tail));
	if (cmd_color(STDOUT_FILENO)) {
		on = view == VIEW_OPEN ? COLOR_RED : view == VIEW_HALF_OPEN ? COLOR_YELLOW : COLOR_GREEN;
		off = COLOR_OFF;
	}
	printf("%s %s%-9s%s %s\n", head, on, breaker_view_name(view), off, tail);
}

struct status_data {
	struct breaker *breakers;
	size_t breakers_len;
	struct family_counts *counts;
	size_t counts_len;
	struct running_run *running;
	size_t running_len;
	struct slot_ticket *tickets;
	size_t tickets_len;
	struct adaptive_limit *limits;
	size_t limits_len;
	struct budget_state *budgets;
	size_t budgets_len;
	struct usage_reading *readings;
	size_t readings_len;
	struct journal_state journal;
	const struct config *cfg;
};

/* release = ramp: the releases after a reset under way (breaker.c's
 * ramp_gate() lets them through; this only shows them). */
static void
print_releases(const struct status_data *d, json_t *out, time_t now)
{
	json_t *list = json_array();

	for (size_t i = 0; i < d->breakers_len; i++) {
		const struct breaker *b = &d->breakers[i];
		const struct family_config *fc = config_family(d->cfg, b->key.family);
		char since[40];

		if (fc == NULL || fc->release_growth <= 0 || b->state != BREAKER_CLOSED || b->ramp_started <= 0)
			continue;
		format_utc_iso(b->ramp_started, since, sizeof(since));
		if (out == NULL)
			print_visible("release %s (account %s): %ld let through since the probe at %s (ramp %gx %gs,"
			    " interval %ld)", b->key.family, b->key.account, b->ramp_released, since, fc->release_growth,
			    fc->release_interval, (long)(((double)now - b->ramp_started) / fc->release_interval));
		else
			json_array_append_new(list, json_pack("{s:s, s:s, s:s, s:I, s:f, s:f, s:I}", "family",
			    b->key.family, "account", b->key.account, "since", since, "released",
			    (json_int_t)b->ramp_released, "growth", fc->release_growth, "interval", fc->release_interval,
			    "cap", (json_int_t)fc->release_cap));
	}
	if (out != NULL)
		json_object_set_new(out, "releases", list);
	else
		json_decref(list);
}

/* The budget without room that holds (account, family) back longest, or NULL. */
static const struct budget_state *
budget_blocking(const struct status_data *d, const char *account, const char *family)
{
	const struct budget_state *worst = NULL;

	for (size_t i = 0; i < d->budgets_len; i++) {
		const struct budget_state *s = &d->budgets[i];

		if (!s->room && strcmp(s->account, account) == 0 && strcmp(s->family, family) == 0 &&
		    (worst == NULL || s->room_at > worst->room_at))
			worst = s;
	}
	return worst;
}

static json_t *
running_json(const struct running_run *r, time_t now)
{
	return json_pack("{s:I, s:s, s:I, s:s, s:o, s:s, s:o, s:o, s:I}", "run_id", (json_int_t)r->id,
	    "host", r->owner.host, "pid", (json_int_t)r->owner.pid, "family", r->family,
	    "model", text_or_null(r->model), "account", r->account, "cwd", text_or_null(r->cwd),
	    "started_at", time_or_null(r->started_at, false),
	    "running_secs", (json_int_t)((double)now > r->started_at ? (double)now - r->started_at : 0));
}

static json_t *
ticket_json(const struct slot_ticket *t, long position, const struct budget_state *budget, time_t now)
{
	char text[160];

	if (budget != NULL)
		status_budget_text(budget, text, sizeof(text));
	return json_pack("{s:s, s:I, s:s, s:s, s:o, s:I, s:I, s:s, s:o, s:o}", "host", t->owner.host,
	    "pid", (json_int_t)t->owner.pid, "family", t->family, "account", t->account,
	    "since", time_or_null(t->at, false),
	    "waiting_secs", (json_int_t)((double)now > t->at ? (double)now - t->at : 0),
	    "position", (json_int_t)position, "for", budget != NULL ? "budget" : "slot",
	    "budget", budget != NULL ? json_string(text) : json_null(),
	    "until", budget != NULL ? time_or_null(budget->room_at, false) : json_null());
}

/* A waiter first in line whose key has a budget without room waits for
 * the budget, not for a slot. */
static void
print_ticket(const struct status_data *d, const struct slot_ticket *t, size_t pos, json_t *out, time_t now)
{
	const struct budget_state *budget = pos == 1 ? budget_blocking(d, t->account, t->family) : NULL;
	char took[32], text[160], until[160];

	format_duration_short((double)now > t->at ? (double)now - t->at : 0, took, sizeof(took));
	if (out != NULL) {
		json_array_append_new(json_object_get(out, "waiting"), ticket_json(t, (long)pos, budget, now));
		return;
	}
	if (budget == NULL) {
		print_visible("waiting for a %s slot (account %s) on %s, pid %ld, for %s, number %zu in line",
		    t->family, t->account, t->owner.host, t->owner.pid, took, pos);
		return;
	}
	status_budget_text(budget, text, sizeof(text));
	cmd_format_reset(budget->room_at, now, until, sizeof(until));
	print_visible("waiting for %s budget room (%s, account %s) until %s, on %s, pid %ld, for %s",
	    t->family, text, t->account, until, t->owner.host, t->owner.pid, took);
}

/* Each budget: what its window holds, and when a spawn fits again. */
static void
print_budgets(const struct status_data *d, json_t *out, time_t now)
{
	char text[160], until[160];

	for (size_t i = 0; i < d->budgets_len; i++) {
		const struct budget_state *s = &d->budgets[i];

		status_budget_text(s, text, sizeof(text));
		if (out != NULL) {
			json_array_append_new(json_object_get(out, "budgets"), json_pack(
			    "{s:s, s:s, s:s, s:f, s:s, s:f, s:o, s:f, s:b, s:o}", "family", s->family,
			    "account", s->account, "budget", text, "amount", s->budget.amount,
			    "unit", budget_unit_name(s->budget.unit), "window_secs", s->budget.window,
			    "model", text_or_null(s->budget.model), "used", s->used, "room", s->room,
			    "room_at", s->room ? json_null() : time_or_null(s->room_at, false)));
			continue;
		}
		if (!s->room)
			cmd_format_reset(s->room_at, now, until, sizeof(until));
		print_visible("budget %s (account %s): %g of %s used; %s%s", s->family, s->account, s->used, text,
		    s->room ? "room now" : "no room until ", s->room ? "" : until);
	}
}

/* The live runs and the queue for slots: what runs now, and who waits. */
static void
print_running(const struct status_data *d, json_t *out, time_t now, const char *host)
{
	char took[32];

	for (size_t i = 0; i < d->running_len; i++) {
		const struct running_run *r = &d->running[i];

		if (!holder_alive(&r->owner, (double)now, host))
			continue;
		format_duration_short((double)now > r->started_at ? (double)now - r->started_at : 0, took,
		    sizeof(took));
		if (out != NULL)
			json_array_append_new(json_object_get(out, "running"), running_json(r, now));
		else
			print_visible("running #%lld %s%s%s (account %s) on %s, pid %ld, for %s", r->id, r->family,
			    r->model[0] != '\0' ? "/" : "", r->model, r->account, r->owner.host, r->owner.pid, took);
	}
	for (size_t i = 0, pos = 0; i < d->tickets_len; i++) {
		const struct slot_ticket *t = &d->tickets[i];

		if (!holder_alive(&t->owner, (double)now, host))
			continue;
		/* Places count within the ticket's own (account, family) queue. */
		pos = 1;
		for (size_t j = 0; j < i; j++)
			pos += strcmp(d->tickets[j].family, t->family) == 0 &&
			    strcmp(d->tickets[j].account, t->account) == 0;
		print_ticket(d, t, pos, out, now);
	}
}

/* max_concurrent = auto: each key's limit now, and why it last changed. */
static void
print_limits(const struct status_data *d, json_t *out, time_t now)
{
	char at[160];

	for (size_t i = 0; i < d->limits_len; i++) {
		const struct adaptive_limit *l = &d->limits[i];

		if (out != NULL) {
			json_array_append_new(json_object_get(out, "adaptive_limits"), json_pack(
			    "{s:s, s:s, s:I, s:I, s:o, s:s}", "family", l->family, "account", l->account,
			    "limit", (json_int_t)l->limit, "clean_runs", (json_int_t)l->successes,
			    "changed_at", time_or_null(l->changed_at, false), "why", l->why));
			continue;
		}
		if (l->changed_at > 0)
			cmd_format_reset(l->changed_at, now, at, sizeof(at));
		else
			strlcpy(at, "-", sizeof(at));
		print_visible("max_concurrent auto %ld for %s (account %s): %s, at %s; %ld clean run%s since",
		    l->limit, l->family, l->account, l->why, at, l->successes, l->successes == 1 ? "" : "s");
	}
}

/* Which store was read, for a server store: the server, or its journal
 * while it is away, and what waits to be replayed. */
static void
print_store(const struct journal_state *j, json_t *out, bool text)
{
	if (j->server[0] == '\0') {
		json_object_set_new(out, "journal", json_null());
		return;
	}
	json_object_set_new(out, "journal", json_pack("{s:s, s:s, s:b, s:I, s:I, s:I, s:I}", "server", j->server,
	    "path", j->path, "in_use", j->in_use, "pending_runs", (json_int_t)j->pending_runs,
	    "pending_breakers", (json_int_t)j->pending_breakers, "replayed_runs", (json_int_t)j->replayed_runs,
	    "replayed_breakers", (json_int_t)j->replayed_breakers));
	if (text) {
		/* The server itself goes unsaid (--json names it): only when what
		 * was read is not simply the server. */
		if (j->in_use)
			print_visible("store: %s did not answer; read the local journal %s", j->server, j->path);
		if (j->replayed_runs > 0 || j->replayed_breakers > 0)
			printf("journal: replayed %ld run%s and %ld breaker%s into the server\n", j->replayed_runs,
			    j->replayed_runs == 1 ? "" : "s", j->replayed_breakers, j->replayed_breakers == 1 ? "" : "s");
		if (j->pending_runs > 0 || j->pending_breakers > 0)
			printf("journal: %ld run%s and %ld breaker%s wait to be replayed into the server\n",
			    j->pending_runs, j->pending_runs == 1 ? "" : "s", j->pending_breakers,
			    j->pending_breakers == 1 ? "" : "s");
	}
}

static int
print_status(const struct status_data *d, bool json, bool all, time_t now, struct store *store)
{
	struct probe_lease self;
	json_t *out = json_pack("{s:o, s:s, s:s, s:[], s:[], s:[], s:[]}", "now", time_or_null((double)now, false),
	    "store", store_path(store), "backend", store_backend_name(store), "breakers", "running", "waiting",
	    "runs_24h");

	json_object_set_new(out, "adaptive_limits", json_array());
	json_object_set_new(out, "budgets", json_array());
	json_object_set_new(out, "readings", json_array());
	size_t shown = 0;

	print_store(&d->journal, out, !json);
	holder_self(&self);
	for (size_t i = 0; i < d->breakers_len; i++) {
		enum breaker_view view = breaker_view(&d->breakers[i], (double)now, self.host);

		if (!all && view != VIEW_OPEN && view != VIEW_HALF_OPEN)
			continue;
		shown++;
		if (json)
			json_array_append_new(json_object_get(out, "breakers"), breaker_json(&d->breakers[i], view, now));
		else
			print_breaker(&d->breakers[i], view, now);
	}
	json_object_set_new(out, "memo", json_array());
	shown += status_print_memo(d->cfg, d->breakers, d->breakers_len, json ? out : NULL, now, self.host);
	if (!json && shown == 0)
		printf(all ? "no breakers\n" : "no open breakers\n");
	print_running(d, json ? out : NULL, now, self.host);
	status_print_hosts_away(store, json ? out : NULL, now, self.host);
	print_limits(d, json ? out : NULL, now);
	print_releases(d, json ? out : NULL, now);
	print_budgets(d, json ? out : NULL, now);
	for (size_t i = 0; i < d->readings_len; i++)
		if (json)
			json_array_append_new(json_object_get(out, "readings"),
			    status_reading_json(d->cfg, store, &d->readings[i], (double)now));
		else
			status_print_reading(d->cfg, store, &d->readings[i], (double)now);
	if (!json && d->counts_len > 0)
		printf("last 24h:\n");
	for (size_t i = 0; i < d->counts_len; i++) {
		const struct family_counts *c = &d->counts[i];

		if (json)
			json_array_append_new(json_object_get(out, "runs_24h"), json_pack("{s:s, s:I, s:I}",
			    "family", c->family, "runs", (json_int_t)c->runs, "failures", (json_int_t)c->failures));
		else
			print_visible("  %-16s %ld run%s, %ld failed", c->family, c->runs, c->runs == 1 ? "" : "s",
			    c->failures);
	}
	if (json) {
		json_dumpf(out, stdout, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII | SIGNAL_JSON_REALS);
		putchar('\n');
	}
	json_decref(out);
	return fflush(stdout) == 0 ? 0 : 1;
}

/* The budgets of the keys that spawn by default, run or wait now. */
static bool
load_budgets(struct store *store, const struct config *cfg, struct status_data *d, time_t now,
    struct store_error *err)
{
	size_t n = d->running_len + d->tickets_len, k = 0;
	const char **accounts = calloc(n + 1, sizeof(*accounts)), **families = calloc(n + 1, sizeof(*families));
	bool ok = accounts != NULL && families != NULL;

	for (size_t i = 0; ok && i < d->running_len; i++, k++)
		accounts[k] = d->running[i].account, families[k] = d->running[i].family;
	for (size_t i = 0; ok && i < d->tickets_len; i++, k++)
		accounts[k] = d->tickets[i].account, families[k] = d->tickets[i].family;
	if (ok)
		ok = status_budgets(store, cfg, accounts, families, k, (double)now, &d->budgets, &d->budgets_len, err);
	else
		strlcpy(err->message, "out of memory", sizeof(err->message));
	free(accounts);
	free(families);
	return ok;
}

static int
status_exec(struct args *args)
{
	struct status_data d = { .cfg = NULL };
	struct store_error error;
	struct config cfg;
	struct cmd_state st;
	time_t now = cmd_now();
	int rc = 1;

	if (args_has(args, OPT_SHORT) && (args_has(args, OPT_JSON) || args_has(args, OPT_ALL)))
		return usage_error(&cmd_status_entry, "--short takes neither --json nor --all");
	if (args_has(args, OPT_COLOR) && !cmd_color_set(args_get(args, OPT_COLOR)))
		return usage_error(&cmd_status_entry, "--color=%s: not always, never or auto", args_get(args, OPT_COLOR));
	if (!(args_has(args, OPT_SHORT) ? cmd_state_look(&st, &cfg) : cmd_state_open(&st, &cfg, true)))
		return 1;
	d.cfg = &cfg;
	if (!store_journal_state(st.store, &d.journal, &error) ||
	    !store_breakers_all(st.store, &d.breakers, &d.breakers_len, &error) ||
	    !(args_has(args, OPT_SHORT) ? store_families_since : store_family_counts)(st.store,
	    (double)now - 86400, &d.counts, &d.counts_len, &error) ||
	    (!args_has(args, OPT_SHORT) &&
	    (!store_running(st.store, NULL, NULL, &d.running, &d.running_len, &error) ||
	    !store_tickets(st.store, NULL, NULL, &d.tickets, &d.tickets_len, &error) ||
	    !store_adaptive_limits(st.store, NULL, NULL, &d.limits, &d.limits_len, &error))) ||
	    !store_readings(st.store, NULL, NULL, &d.readings, &d.readings_len, &error) ||
	    !load_budgets(st.store, &cfg, &d, now, &error))
		warnx_visible("%s", error.message);
	else if (args_has(args, OPT_SHORT))
		rc = status_print_short(d.breakers, d.breakers_len, d.counts, d.counts_len, d.budgets,
		    d.budgets_len, &(struct short_readings){ d.readings, d.readings_len, &cfg }, now);
	else
		rc = print_status(&d, args_has(args, OPT_JSON), args_has(args, OPT_ALL), now, st.store);
	free(d.breakers);
	free(d.counts);
	free(d.running);
	free(d.tickets);
	free(d.limits);
	free(d.budgets);
	free(d.readings);
	cmd_state_close(&st);
	return rc;
}

static const struct cmd_help status_help[] = {
	{ "--json", "print one JSON object: the breakers, the running and waiting spawns, "
	  "the adaptive limits and the runs of the last 24 hours",
	  "rlwrap status --json | jq -r '.breakers[].key'" },
	{ "--all", "list closed and expired breakers too",
	  "rlwrap status --all" },
	{ "--short", "one line for a prompt or status bar: the blocking breakers with the time left, "
	  "and \"ok\" for the other families that ran in the last 24 hours; nothing when there are none",
	  "tmux set -g status-right '#(rlwrap status --short 2>/dev/null)'" },
	{ "--color[=WHEN]", "colour the states: always (the default for --color), never, or auto (on a "
	  "terminal, unless NO_COLOR is set; the default)", "rlwrap status --color=always | less -R" },
	{ "--help", "this text", "rlwrap status --help" },
	{ NULL, NULL, NULL },
};

const struct cmd_entry cmd_status_entry = {
	.name = "status",
	.optstring = "",
	.longopts = status_longopts,
	.lower = 0,
	.upper = 0,
	.usage = "status [--json] [--all] [--color[=WHEN]] | --short",
	.summary = "show the open and half-open breakers and the last 24 hours of runs",
	.help = status_help,
	.exec = status_exec,
};
