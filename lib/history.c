/* history.c: the run history above the store interface. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "holder.h"
#include "history.h"
#include "store_backend.h"

/* A claim of a host that keeps no lease (an older rlwrap) is trusted this
 * long after it was made. */
#define CLAIM_TRUST_SECS 86400.0

struct claim_read {
	double now, since;
	enum run_claim result;
	struct probe_lease *by;
	bool ask;                 /* held unless its holder died: holder.h decides */
};

static bool
claim_decide(const struct run_row *row, void *arg)
{
	struct claim_read *c = arg;

	*c->by = row->claim;
	c->by->expires_at = row->claimed_at + CLAIM_TRUST_SECS;
	c->result = CLAIM_TAKEN;
	if (row->recovered_by != 0)
		c->result = CLAIM_RECOVERED;
	else if (row->claim.pid != 0 && row->claimed_at >= c->since)
		c->result = CLAIM_HELD;
	else
		c->ask = row->claim.pid != 0;
	return false;
}

/* The one liveness rule on the claim's holder, with its host's lease. */
static bool
claim_settle(struct store *store, struct claim_read *c, struct store_error *err)
{
	char host[sizeof(c->by->host)];

	if (!c->ask)
		return true;
	holder_local_host(host, sizeof(host));
	if (strcmp(c->by->host, host) != 0 && !store_host_lease(store, c->by->host, &c->by->host_until, err))
		return false;
	c->result = holder_alive(c->by, c->now, host) ? CLAIM_HELD : CLAIM_TAKEN;
	return true;
}

/* A re-run that spawned: its running row was written before the child. */
static bool
count_attempt(const struct run_row *row, void *arg)
{
	if (strcmp(row->state, "refused") != 0)
		++*(long *)arg;
	return true;
}

bool
store_run_claim_origin(struct store *store, long long id, const struct probe_lease *holder, double now,
    double since, long max_attempts, enum run_claim *result, struct probe_lease *by, long *attempts,
    struct store_error *err)
{
	struct run_filter only = { .id = id }, reruns = { .origin = id };
	struct claim_read c = { .now = now, .since = since, .result = CLAIM_RECOVERED, .by = by };

	memset(by, 0, sizeof(*by));
	*attempts = 0;
	if (!store_begin(store, err))
		return false;
	if (!store_runs_each(store, &only, claim_decide, &c, err) || !claim_settle(store, &c, err) ||
	    (c.result == CLAIM_TAKEN && !store_runs_each(store, &reruns, count_attempt, attempts, err)))
		goto fail;
	if (c.result == CLAIM_TAKEN && max_attempts > 0 && *attempts >= max_attempts)
		c.result = CLAIM_EXHAUSTED;
	if (c.result == CLAIM_TAKEN && !store->ops->run_claim_set(store, id, holder, now, err))
		goto fail;
	*result = c.result;
	return store_commit(store, err);
fail:
	store_rollback(store);
	return false;
}

bool
store_run_claim(struct store *store, long long id, const struct probe_lease *holder, double now,
    double since, enum run_claim *result, struct probe_lease *by, struct store_error *err)
{
	long attempts;

	return store_run_claim_origin(store, id, holder, now, since, 0, result, by, &attempts, err);
}

static json_t *
time_or_null(double t)
{
	char iso[40];

	if (t <= 0)
		return json_null();
	format_utc_iso(t, iso, sizeof(iso));
	return json_string(iso);
}

static json_t *
int_or_null(long long v, long long null_value)
{
	return v == null_value ? json_null() : json_integer(v);
}

json_t *
run_row_to_json(const struct run_row *row, time_t now)
{
	json_t *o = json_object(), *sig = signal_to_json(&row->signal, now);
	json_t *argv = row->argv_json != NULL ? json_loads(row->argv_json, 0, NULL) : NULL;

	json_object_set_new(o, "id", json_integer(row->id));
	json_object_set_new(o, "state", json_string(row->state));
	json_object_set_new(o, "host", *row->host != '\0' ? json_string(row->host) : json_null());
	json_object_set_new(o, "pid", int_or_null(row->pid, 0));
	json_object_set_new(o, "argv", argv != NULL ? argv : json_null());
	json_object_set_new(o, "argv_redacted", json_boolean(row->argv_redacted));
	json_object_set_new(o, "cwd", *row->cwd != '\0' ? json_string(row->cwd) : json_null());
	json_object_set_new(o, "account", *row->account != '\0' ? json_string(row->account) : json_null());
	json_object_set_new(o, "source", *row->source != '\0' ? json_string(row->source) : json_null());
	json_object_set_new(o, "started_at", time_or_null(row->started_at));
	json_object_set_new(o, "ended_at", time_or_null(row->ended_at));
	json_object_set_new(o, "term_signal", int_or_null(row->term_signal, 0));
	json_object_set_new(o, "input_tokens", int_or_null(row->usage.input_tokens, -1));
	json_object_set_new(o, "output_tokens", int_or_null(row->usage.output_tokens, -1));
	json_object_set_new(o, "cost_usd", row->usage.cost_usd >= 0 ? json_real(row->usage.cost_usd) : json_null());
	json_object_set_new(o, "recovered_by", int_or_null(row->recovered_by, 0));
	json_object_set_new(o, "origin", int_or_null(row->origin, 0));
	json_object_set_new(o, "refused_by", *row->refused_by != '\0' ? json_string(row->refused_by) : json_null());
	json_object_set_new(o, "recover_note", *row->recover_note != '\0' ? json_string(row->recover_note) :
	    json_null());
	json_object_update(o, sig);
	json_decref(sig);
	return o;
}
