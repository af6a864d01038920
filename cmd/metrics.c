/*
 * rlwrap metrics: the state file as OpenMetrics text, for node_exporter's
 * textfile collector or any scraper.  The names and labels are documented
 * in rlwrap(1) and docs/design.md section 10 and are stable: a new figure
 * gets a new name.  Every figure is a gauge of what the store holds now
 * (the run counts are of the last 24 hours), so that a scrape of any host
 * on a shared store reads the same numbers.
 */
#include <err.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admission.h"
#include "breaker.h"
#include "cmd.h"
#include "history.h"
#include "holder.h"
#include "reserve.h"

#define DAY 86400.0

struct metrics {
	struct breaker *breakers;
	size_t nbreakers;
	struct usage_reading *readings;
	size_t nreadings;
	double *runways;           /* each reading's, as status says it; -1: it cannot say */
	struct running_run *running;
	size_t nrunning;
	struct slot_ticket *tickets;
	size_t ntickets;
	struct budget_state *budgets;
	size_t nbudgets;
	struct run_tally *tally;   /* runs of the last 24 hours by family and outcome */
	size_t ntally;
	bool oom;
	const struct config *cfg;
	struct probe_lease self;
	double now;
};

struct run_tally {
	char family[KEY_FAMILY_MAX];
	char what[32];             /* a reason, or for a refusal what refused it */
	bool refused;
	long n;
};

/* One label value, escaped as the exposition format says (\\, \", \n). */
static void
put_value(const char *s)
{
	putchar('"');
	for (; *s != '\0'; s++) {
		if (*s == '\\' || *s == '"')
			printf("\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", stdout);
		else if ((unsigned char)*s >= 0x20 && *s != 0x7f)
			putchar(*s);
	}
	putchar('"');
}

static void
family_head(const char *name, const char *help)
{
	printf("# TYPE %s gauge\n# HELP %s %s\n", name, name, help);
}

/* name{k1="v1",...} value: labels NULL-terminated pairs. */
static void
sample(const char *name, const char *const *labels, double value)
{
	fputs(name, stdout);
	for (size_t i = 0; labels[i] != NULL; i += 2) {
		printf("%s%s=", i == 0 ? "{" : ",", labels[i]);
		put_value(labels[i + 1]);
	}
	printf("%s %.15g\n", labels[0] != NULL ? "}" : "", isfinite(value) ? value : 0);
}

static void
breaker_metrics(const struct metrics *m)
{
	family_head("rlwrap_breaker_open", "1 while the breaker blocks spawns (open, or half-open with a probe), else 0.");
	for (size_t i = 0; i < m->nbreakers; i++) {
		const struct breaker *b = &m->breakers[i];
		enum breaker_view v = breaker_view(b, m->now, m->self.host);
		const char *l[] = { "family", b->key.family, "account", b->key.account, "scope", b->key.scope,
			"reason", b->reason != REASON_NONE ? reason_name(b->reason) : "", NULL };

		sample("rlwrap_breaker_open", l, v == VIEW_OPEN || v == VIEW_HALF_OPEN);
	}
	family_head("rlwrap_breaker_reset_timestamp_seconds", "When the breaker's reset is due (Unix time).");
	for (size_t i = 0; i < m->nbreakers; i++) {
		const struct breaker *b = &m->breakers[i];
		const char *l[] = { "family", b->key.family, "account", b->key.account, "scope", b->key.scope, NULL };

		if (b->state != BREAKER_CLOSED && b->resets_at > 0)
			sample("rlwrap_breaker_reset_timestamp_seconds", l, b->resets_at);
	}
}

/* The three figures of each reading, a family each. */
static void
reading_metric(const struct metrics *m, const char *name, const char *help, int which)
{
	family_head(name, help);
	for (size_t i = 0; i < m->nreadings; i++) {
		const struct usage_reading *r = &m->readings[i];
		const struct family_config *fc = config_family(m->cfg, r->family);
		const char *l[] = { "family", r->family, "account", r->account, "window", r->window,
			"model", r->model, NULL };
		double v = which == 0 ? 1 - reading_left(r) : which == 1 ? r->resets_at : which == 2 ? r->at :
		    which == 3 ? fc != NULL && reserve_holds(fc->reserves, fc->reserves_len, r, m->now) :
		    m->runways[i];

		if ((which == 0 && reading_left(r) < 0) || (which == 1 && r->resets_at <= 0) || (which == 4 && v < 0))
			continue;
		sample(name, l, v);
	}
}

static void
reading_metrics(const struct metrics *m)
{
	reading_metric(m, "rlwrap_usage_used_ratio", "The share of the usage window used, as the agent last said.", 0);
	reading_metric(m, "rlwrap_usage_reset_timestamp_seconds", "When the usage window resets (Unix time).", 1);
	reading_metric(m, "rlwrap_usage_read_timestamp_seconds", "When the agent last said it (Unix time).", 2);
	reading_metric(m, "rlwrap_usage_reserve_holding", "1 while the family's reserve holds new batch spawns.", 3);
	reading_metric(m, "rlwrap_usage_runway_seconds", "Seconds until the window is used up at its pace so far.", 4);
}

/* A row of the runs or the queue, as the slot figures read it. */
struct key_row {
	const char *family, *account;
	const struct probe_lease *owner;
};

/* The live rows of each key, one sample per key (at its first live row:
 * a dead row must not start a second series of the same key). */
static void
live_per_key(const struct metrics *m, const char *name, const struct key_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *l[] = { "family", rows[i].family, "account", rows[i].account, NULL };
		long count = 0;
		bool first = true;

		if (!holder_alive(rows[i].owner, m->now, m->self.host))
			continue;
		for (size_t j = 0; j < n; j++) {
			if (strcmp(rows[j].family, rows[i].family) != 0 ||
			    strcmp(rows[j].account, rows[i].account) != 0 ||
			    !holder_alive(rows[j].owner, m->now, m->self.host))
				continue;
			first = first && j >= i;
			count++;
		}
		if (first)
			sample(name, l, (double)count);
	}
}

static void
slot_metrics(const struct metrics *m)
{
	size_t n = m->nrunning > m->ntickets ? m->nrunning : m->ntickets;
	struct key_row *rows = n > 0 ? reallocarray(NULL, n, sizeof(*rows)) : NULL;

	if (n > 0 && rows == NULL)
		err(EXIT_INTERNAL, "reallocarray");
	for (size_t i = 0; i < m->nrunning; i++)
		rows[i] = (struct key_row){ m->running[i].family, m->running[i].account, &m->running[i].owner };
	family_head("rlwrap_slots_in_use", "Runs running now, whose owner is alive, per key.");
	live_per_key(m, "rlwrap_slots_in_use", rows, m->nrunning);
	for (size_t i = 0; i < m->ntickets; i++)
		rows[i] = (struct key_row){ m->tickets[i].family, m->tickets[i].account, &m->tickets[i].owner };
	family_head("rlwrap_slots_waiting", "Spawns waiting for a slot or budget room, per key.");
	live_per_key(m, "rlwrap_slots_waiting", rows, m->ntickets);
	free(rows);
}

static void
budget_metrics(const struct metrics *m)
{
	char window[32];

	family_head("rlwrap_budget_used", "What the budget's sliding window holds now, in its unit.");
	for (size_t i = 0; i < m->nbudgets; i++) {
		const struct budget_state *s = &m->budgets[i];
		const char *l[] = { "family", s->family, "account", s->account, "unit", budget_unit_name(s->budget.unit),
			"window_seconds", window, "model", s->budget.model, NULL };

		snprintf(window, sizeof(window), "%g", s->budget.window);
		sample("rlwrap_budget_used", l, s->used);
	}
	family_head("rlwrap_budget_limit", "The budget's amount per window, in its unit.");
	for (size_t i = 0; i < m->nbudgets; i++) {
		const struct budget_state *s = &m->budgets[i];
		const char *l[] = { "family", s->family, "account", s->account, "unit", budget_unit_name(s->budget.unit),
			"window_seconds", window, "model", s->budget.model, NULL };

		snprintf(window, sizeof(window), "%g", s->budget.window);
		sample("rlwrap_budget_limit", l, s->budget.amount);
	}
}

static bool
tally_run(const struct run_row *row, void *arg)
{
	struct metrics *m = arg;
	bool refused = row->state != NULL && strcmp(row->state, "refused") == 0;
	const char *what = refused ? (row->signal.reason != REASON_NONE ? "breaker" : row->refused_by) :
	    row->state != NULL && strcmp(row->state, "finished") != 0 ? row->state : reason_name(row->signal.reason);
	struct run_tally *grown;

	for (size_t i = 0; i < m->ntally; i++)
		if (m->tally[i].refused == refused && strcmp(m->tally[i].family, row->family) == 0 &&
		    strcmp(m->tally[i].what, what != NULL ? what : "") == 0) {
			m->tally[i].n++;
			return true;
		}
	if ((grown = reallocarray(m->tally, m->ntally + 1, sizeof(*grown))) == NULL) {
		m->oom = true;
		return false;
	}
	m->tally = grown;
	memset(&m->tally[m->ntally], 0, sizeof(*grown));
	strlcpy(m->tally[m->ntally].family, row->family != NULL ? row->family : "", sizeof(grown->family));
	strlcpy(m->tally[m->ntally].what, what != NULL ? what : "", sizeof(grown->what));
	m->tally[m->ntally].refused = refused;
	m->tally[m->ntally++].n = 1;
	return true;
}

static void
run_metrics(const struct metrics *m)
{
	family_head("rlwrap_runs_24h", "Runs of the last 24 hours by how they ended (a reason, none, running, lost).");
	for (size_t i = 0; i < m->ntally; i++) {
		const char *l[] = { "family", m->tally[i].family, "reason", m->tally[i].what, NULL };

		if (!m->tally[i].refused)
			sample("rlwrap_runs_24h", l, (double)m->tally[i].n);
	}
	family_head("rlwrap_refusals_24h", "Spawns refused in the last 24 hours by what refused them.");
	for (size_t i = 0; i < m->ntally; i++) {
		const char *l[] = { "family", m->tally[i].family, "by", m->tally[i].what, NULL };

		if (m->tally[i].refused)
			sample("rlwrap_refusals_24h", l, (double)m->tally[i].n);
	}
}

static bool
metrics_load(struct metrics *m, struct store *store, struct store_error *err)
{
	struct run_filter f;
	const char *none[1] = { NULL };
	bool ok;

	run_filter_init(&f);
	f.since = m->now - DAY;
	ok = store_breakers_all(store, &m->breakers, &m->nbreakers, err) &&
	    store_readings(store, NULL, NULL, &m->readings, &m->nreadings, err) &&
	    store_running(store, NULL, NULL, &m->running, &m->nrunning, err) &&
	    store_tickets(store, NULL, NULL, &m->tickets, &m->ntickets, err) &&
	    status_budgets(store, m->cfg, none, none, 0, m->now, &m->budgets, &m->nbudgets, err) &&
	    store_runs_each(store, &f, tally_run, m, err);
	run_filter_free(&f);
	if (ok && (m->runways = calloc(m->nreadings + 1, sizeof(*m->runways))) == NULL)
		m->oom = true;
	for (size_t i = 0; ok && !m->oom && i < m->nreadings; i++)
		m->runways[i] = status_reading_runway(store, &m->readings[i], m->now);
	if (ok && m->oom)
		strlcpy(err->message, "out of memory", sizeof(err->message));
	return ok && !m->oom;
}

static void
metrics_free(struct metrics *m)
{
	free(m->breakers);
	free(m->readings);
	free(m->runways);
	free(m->running);
	free(m->tickets);
	free(m->budgets);
	free(m->tally);
}

static int
metrics_exec(struct args *args)
{
	struct metrics m = { .now = cmd_now_precise() };
	struct store_error error;
	struct config cfg;
	struct cmd_state st;
	int rc = 1;

	(void)args;
	if (!cmd_state_look(&st, &cfg))
		return 1;
	m.cfg = &cfg;
	holder_self(&m.self);
	if (!metrics_load(&m, st.store, &error))
		warnx_visible("%s", error.message);
	else {
		breaker_metrics(&m);
		reading_metrics(&m);
		slot_metrics(&m);
		budget_metrics(&m);
		run_metrics(&m);
		fputs("# EOF\n", stdout);
		rc = fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
	}
	metrics_free(&m);
	cmd_state_close(&st);
	return rc;
}

static const struct cmd_help metrics_help[] = {
	{ "--help", "this text", "rlwrap metrics > /var/lib/node_exporter/rlwrap.prom.$$ && "
	  "mv /var/lib/node_exporter/rlwrap.prom.$$ /var/lib/node_exporter/rlwrap.prom" },
	{ NULL, NULL, NULL },
};

const struct cmd_entry cmd_metrics_entry = {
	.name = "metrics",
	.optstring = "",
	.longopts = NULL,
	.lower = 0,
	.upper = 0,
	.usage = "metrics",
	.summary = "print the breakers, usage readings, slots, budgets and runs as OpenMetrics text",
	.help = metrics_help,
	.exec = metrics_exec,
};
