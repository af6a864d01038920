/* breaker.c: trip, close, refuse, wait and probe, over the store. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "breaker.h"
#include "redact.h"

/* Unexpired, and its holder alive (holder.h's one rule). */
static bool
probe_lease_live(const struct probe_lease *lease, double now, const char *host)
{
	return lease->expires_at > now && holder_alive(lease, now, host);
}

enum breaker_view
breaker_view(const struct breaker *b, double now, const char *host)
{
	if (b->state == BREAKER_CLOSED)
		return VIEW_CLOSED;
	if (b->resets_at > now)
		return VIEW_OPEN;
	return probe_lease_live(&b->lease, now, host) ? VIEW_HALF_OPEN : VIEW_EXPIRED;
}

const char *
breaker_view_name(enum breaker_view view)
{
	static const char *const names[] = { "closed", "open", "half-open", "expired" };

	return names[view];
}

const char *
breaker_change_event(enum breaker_change change)
{
	static const char *const events[] = { "none", "trip", "extend", "replace", "keep", "close" };

	return events[change];
}

/* A terminal signal whose reason trips (config trip_on) with enough confidence. */
static bool
breaker_signal_trips(const struct config *cfg, const struct fail_signal *sig)
{
	return sig->terminal && sig->reason > REASON_NONE && sig->reason < REASON_COUNT &&
	    cfg->trip_on[sig->reason] && sig->confidence + 1e-9 >= cfg->min_confidence;
}

/* A run that succeeded: reason none, with something (stream or exit 0) saying so. */
static bool
breaker_signal_succeeded(const struct fail_signal *sig)
{
	return sig->reason == REASON_NONE && sig->confidence > 0;
}

/* The reset of an unknown-reset trip: the cooldown doubled per earlier guess, capped. */
static double
escalated_cooldown(const struct config *cfg, enum reason reason, long consecutive_unknown)
{
	double cooldown = config_cooldown(cfg, reason);
	long doublings = consecutive_unknown < 40 ? consecutive_unknown : 40;

	cooldown = ldexp(cooldown, (int)doublings);
	return cooldown < cfg->max_cooldown ? cooldown : cfg->max_cooldown;
}

/* How long a quota with a stated period lasts at most, 0 for other limits. */
static double
period_secs(const char *limit_type)
{
	if (limit_type == NULL)
		return 0;
	if (strcmp(limit_type, "daily") == 0)
		return 86400;
	if (strncmp(limit_type, "seven_day", 9) == 0 || strcmp(limit_type, "weekly") == 0)
		return 7 * 86400;
	if (strcmp(limit_type, "monthly") == 0)
		return 31 * 86400;
	return 0;
}

/*
 * A daily, weekly or monthly quota that a probe hit again although its
 * retry hint (often seconds) had passed: the hint was about something else,
 * so the next open lasts toward the period's end instead of flapping all
 * day.  Only a hint shorter than the usage-limit cooldown is overridden;
 * bounded: that cooldown doubled per repeat, at most max_cooldown and at
 * most the period.  docs/design.md section 5.
 */
static bool
period_quota_repeat(const struct breaker *b, const struct config *cfg, const struct trip *trip,
    double now, double *reset)
{
	double period = period_secs(trip->limit_type), guess;

	if (period == 0 || trip->reason != REASON_USAGE_LIMIT || b->state == BREAKER_CLOSED ||
	    b->resets_at > now || b->reason != trip->reason)
		return false;
	/* A stated reset at least as long as the usage-limit cooldown is believed. */
	if (trip->resets_at > 0 && trip->resets_at - now >= config_cooldown(cfg, trip->reason))
		return false;
	guess = escalated_cooldown(cfg, trip->reason, b->consecutive_unknown);
	if (guess > period)
		guess = period;
	*reset = now + guess;
	return true;
}

enum breaker_change
breaker_apply_trip(struct breaker *b, const struct config *cfg, const struct trip *trip, double now)
{
	bool known = trip->resets_at > 0, open = b->state != BREAKER_CLOSED && b->resets_at > now;
	double reset = known ? trip->resets_at : now + escalated_cooldown(cfg, trip->reason, b->consecutive_unknown);
	const char *source = known ? trip->source : "default";
	enum breaker_change change;

	if (period_quota_repeat(b, cfg, trip, now, &reset)) {
		known = false;
		source = "default";
	}

	if (!open)
		change = CHANGE_TRIPPED;
	else if (known && strcmp(b->reset_source, "default") == 0)
		change = CHANGE_REPLACED;
	else
		change = reset > b->resets_at ? CHANGE_EXTENDED : CHANGE_KEPT;
	if (change != CHANGE_KEPT) {
		b->resets_at = ceil(reset);
		strlcpy(b->reset_source, source, sizeof(b->reset_source));
		b->reason = trip->reason;
		strlcpy(b->last_message, trip->message != NULL ? trip->message : "", sizeof(b->last_message));
	}
	b->consecutive_unknown = known ? 0 : b->consecutive_unknown + 1;
	b->state = BREAKER_OPEN;
	b->trips++;
	b->last_trip_at = now;
	b->updated_at = now;
	memset(&b->lease, 0, sizeof(b->lease));
	/* A limit signal ends a release: the next probe starts it again. */
	b->ramp_started = 0;
	b->ramp_released = 0;
	return change;
}

static void
close_breaker(struct breaker *b, double now)
{
	b->state = BREAKER_CLOSED;
	b->consecutive_unknown = 0;
	b->updated_at = now;
	memset(&b->lease, 0, sizeof(b->lease));
}

/* A probe's success closes b: the release after the reset starts now
 * (what it lets through is the gate's, under release = ramp). */
static void
close_by_probe(struct breaker *b, double now)
{
	close_breaker(b, now);
	b->ramp_started = now;
	b->ramp_released = 0;
}

static void
breaker_transitions_add(struct breaker_transitions *t, enum breaker_change change, const struct breaker *b)
{
	if (t == NULL)
		return;
	if (t->count == BREAKER_TRANSITIONS_MAX) {
		t->dropped++;
		return;
	}
	t->change[t->count] = change;
	t->breaker[t->count++] = *b;
}

/* Appends what a committed transaction collected to the caller's list. */
static void
transitions_append(struct breaker_transitions *to, const struct breaker_transitions *from)
{
	if (to == NULL)
		return;
	for (size_t i = 0; i < from->count; i++)
		breaker_transitions_add(to, from->change[i], &from->breaker[i]);
	to->dropped += from->dropped;
}

/* Saves b and writes its history row. */
static bool
save_change(struct store *store, const struct breaker *b, const char *event, long long run_id,
    double now, struct store_error *err)
{
	return store_breaker_save(store, b, err) && store_history_add(store, b, event, run_id, now, err);
}

bool
breaker_wait_plan(double blocked_until, double now, double wait_max, double jitter, double *wake_at)
{
	if (wait_max < 0 || blocked_until - now > wait_max)
		return false;
	*wake_at = blocked_until + (jitter > 0 ? jitter : 0);
	return true;
}

double
breaker_jitter(double wait_secs)
{
	double max = wait_secs / 10 < 30 ? wait_secs / 10 : 30;

	if (max < 1)
		max = 1;
	return (double)arc4random_uniform((uint32_t)(max * 1000) + 1) / 1000;
}

/* The breakers that bear on a spawn: not closed, and applying to model. */
static bool
relevant(const struct breaker *b, const char *model)
{
	return b->state != BREAKER_CLOSED && scope_applies(b->key.scope, model);
}

/* The open breaker with the latest reset, or NULL. */
static const struct breaker *
latest_open(const struct breaker *rows, size_t count, const char *model, double now)
{
	const struct breaker *best = NULL;

	for (size_t i = 0; i < count; i++)
		if (relevant(&rows[i], model) && rows[i].resets_at > now &&
		    (best == NULL || rows[i].resets_at > best->resets_at))
			best = &rows[i];
	return best;
}

/* An expired breaker whose probe lease someone else holds, alive. */
static const struct breaker *
busy_probe(const struct breaker *rows, size_t count, const struct gate_request *req, double now)
{
	for (size_t i = 0; i < count; i++)
		if (relevant(&rows[i], req->model) && rows[i].resets_at <= now &&
		    !holder_same(&rows[i].lease, &req->holder) &&
		    probe_lease_live(&rows[i].lease, now, req->holder.host))
			return &rows[i];
	return NULL;
}

/* Takes the lease of every expired breaker that applies; history for each. */
static bool
take_leases(struct store *store, const struct config *cfg, struct breaker *rows, size_t count,
    const struct gate_request *req, double now, struct gate_decision *d, struct store_error *err)
{
	for (size_t i = 0; i < count; i++) {
		struct breaker *b = &rows[i];
		bool takeover = b->lease.pid != 0 && !holder_same(&b->lease, &req->holder);

		if (!relevant(b, req->model))
			continue;
		b->lease = req->holder;
		b->lease.expires_at = now + cfg->probe_timeout;
		b->state = BREAKER_HALF_OPEN;
		b->updated_at = now;
		if (!save_change(store, b, takeover ? "probe-takeover" : "probe", 0, now, err))
			return false;
		if (d->verdict != GATE_PROBE)
			d->blocking = *b;
		d->verdict = GATE_PROBE;
	}
	return true;
}

/* Sets REFUSE or WAIT for blocker b; writes the waits row when asked. */
static bool
block(struct store *store, const struct gate_request *req, const struct breaker *b, double until,
    double now, struct gate_decision *d, struct store_error *err)
{
	struct wait_record w = { .blocking = b, .model = req->model, .at = now, .pid = req->holder.pid,
		.host = req->holder.host };

	d->blocking = *b;
	d->blocked_until = until;
	d->verdict = breaker_wait_plan(until, now, req->wait_max, req->jitter, &d->until) ? GATE_WAIT
	    : GATE_REFUSE;
	if (d->verdict == GATE_REFUSE)
		d->until = 0;
	w.kind = d->verdict == GATE_WAIT ? "wait" : "refuse";
	w.until = d->verdict == GATE_WAIT ? d->until : until;
	return !req->record || store_wait_add(store, &w, NULL, err);
}

/* A ramp lasts this many intervals at most; then every spawn goes. */
#define RAMP_INTERVALS_MAX 32

/* The release of (account, family) under way, when its config ramps: the
 * closed family-wide row a probe closed.  NULL: none. */
static struct breaker *
ramping(struct breaker *rows, size_t count, const struct family_config *fc)
{
	if (fc == NULL || fc->release_growth <= 0)
		return NULL;
	for (size_t i = 0; i < count; i++)
		if (rows[i].state == BREAKER_CLOSED && rows[i].ramp_started > 0 &&
		    strcmp(rows[i].key.scope, SCOPE_FAMILY) == 0)
			return &rows[i];
	return NULL;
}

/* The ramp's pace in interval n: 1, G, G^2 ... spawns per interval (at
 * most the cap), one every interval / that many seconds. */
static double
ramp_spacing(const struct family_config *fc, long n)
{
	double per = floor(pow(fc->release_growth, (double)n));

	if (fc->release_cap > 0 && per > (double)fc->release_cap)
		per = (double)fc->release_cap;
	return fc->release_interval / (per >= 1 ? per : 1);
}

/*
 * The ramp's say, shared by every process and host on the store through
 * the row: a spawn goes when its pace since the last one let through (the
 * row's updated_at; the probe's close for the first) has passed, so no
 * burst ever exceeds it; the others wait for that time, or are refused
 * beyond their --wait.
 */
static bool
ramp_gate(struct store *store, const struct family_config *fc, struct breaker *b,
    const struct gate_request *req, double now, struct gate_decision *d, struct store_error *err)
{
	long n = (long)floor((now - b->ramp_started) / fc->release_interval);
	double next = b->updated_at + ramp_spacing(fc, n < 0 ? 0 : n);

	if (n >= RAMP_INTERVALS_MAX) {
		b->ramp_started = 0;
		b->ramp_released = 0;
		return save_change(store, b, "release-end", 0, now, err);
	}
	if (now >= next) {
		b->ramp_released++;
		b->updated_at = now;
		return store_breaker_save(store, b, err);
	}
	d->ramp = true;
	return block(store, req, b, next, now, d, err);
}

/* The decision proper, inside BEGIN IMMEDIATE. */
static bool
gate_locked(struct store *store, const struct config *cfg, const struct gate_request *req,
    double now, struct gate_decision *d, struct store_error *err)
{
	struct breaker *rows;
	const struct breaker *blocker;
	struct breaker *ramp;
	size_t count;
	bool ok;

	if (!store_breakers_of(store, req->account, req->family, &rows, &count, err))
		return false;
	if ((blocker = latest_open(rows, count, req->model, now)) != NULL)
		ok = block(store, req, blocker, blocker->resets_at, now, d, err);
	else if ((blocker = busy_probe(rows, count, req, now)) != NULL) {
		d->probe_busy = true;
		ok = block(store, req, blocker, blocker->lease.expires_at, now, d, err);
	} else if ((ramp = ramping(rows, count, config_family(cfg, req->family))) != NULL)
		ok = ramp_gate(store, config_family(cfg, req->family), ramp, req, now, d, err);
	else
		ok = take_leases(store, cfg, rows, count, req, now, d, err);
	free(rows);
	return ok;
}

/* How often a transaction the server rolled back (a deadlock or a
 * serialization failure) is run again before the error is the caller's. */
#define TRANSACTION_ATTEMPTS 8

/* Runs body inside one transaction, rolling back when it fails, and running
 * it again, unseen, when the store says the failure was transient. */
static bool
in_transaction(struct store *store, bool (*body)(struct store *, void *, struct store_error *),
    void *ctx, struct store_error *err)
{
	for (int attempt = 1;; attempt++) {
		if (store_begin(store, err)) {
			if (body(store, ctx, err)) {
				if (store_commit(store, err))
					return true;
			} else {
				store_rollback(store);
			}
		}
		if (err->status != STORE_ERR_RETRY || attempt >= TRANSACTION_ATTEMPTS)
			return false;
		usleep((useconds_t)(attempt * 2000 + getpid() % 1000));
	}
}

struct gate_ctx {
	const struct config *cfg;
	const struct gate_request *req;
	double now;
	struct gate_decision *decision;
};

static bool
gate_body(struct store *store, void *arg, struct store_error *err)
{
	struct gate_ctx *ctx = arg;

	memset(ctx->decision, 0, sizeof(*ctx->decision));
	ctx->decision->verdict = GATE_RUN;
	return gate_locked(store, ctx->cfg, ctx->req, ctx->now, ctx->decision, err);
}

bool
breaker_gate(struct store *store, const struct config *cfg, const struct gate_request *req,
    double now, struct gate_decision *decision, struct store_error *err)
{
	struct breaker *rows;
	const struct breaker *blocker;
	size_t count, relevant_count = 0;
	long trips_seen = 0;
	struct gate_ctx ctx;

	memset(decision, 0, sizeof(*decision));
	decision->verdict = GATE_RUN;
	if (!cfg->breaker_enabled)
		return true;
	if (!store_breakers_of(store, req->account, req->family, &rows, &count, err))
		return false;
	for (size_t i = 0; i < count; i++)
		if (relevant(&rows[i], req->model)) {
			relevant_count++;
			trips_seen += rows[i].trips;
		}
	/* An open breaker is decided on as read, with no transaction: a refusal
	 * (or a wait) changes no breaker, it only adds its waits row, so it
	 * stands as of this read; a reset committed after it is the next
	 * spawn's news. */
	if ((blocker = latest_open(rows, count, req->model, now)) != NULL) {
		bool ok = block(store, req, blocker, blocker->resets_at, now, decision, err);

		free(rows);
		decision->trips_seen = trips_seen;
		if (!ok)
			memset(decision, 0, sizeof(*decision));
		return ok;
	}
	if (ramping(rows, count, config_family(cfg, req->family)) != NULL)
		relevant_count++;   /* a release under way: the transaction decides */
	free(rows);
	decision->trips_seen = trips_seen;
	if (relevant_count == 0)
		return true;
	ctx = (struct gate_ctx){ cfg, req, now, decision };
	if (in_transaction(store, gate_body, &ctx, err)) {
		decision->trips_seen = trips_seen;
		return true;
	}
	memset(decision, 0, sizeof(*decision));
	return false;
}

struct probe_output_ctx {
	const char *account, *family;
	const struct probe_lease *holder;
	double now;
	int closed;
	struct breaker_transitions transitions;
};

static bool
probe_output_locked(struct store *store, void *arg, struct store_error *err)
{
	struct probe_output_ctx *ctx = arg;
	struct breaker *rows;
	size_t count;
	bool ok = true;

	ctx->closed = 0;
	if (!store_breakers_of(store, ctx->account, ctx->family, &rows, &count, err))
		return false;
	for (size_t i = 0; i < count && ok; i++) {
		if (rows[i].state != BREAKER_HALF_OPEN || !holder_same(&rows[i].lease, ctx->holder))
			continue;
		close_by_probe(&rows[i], ctx->now);
		ok = save_change(store, &rows[i], "probe-success", 0, ctx->now, err);
		breaker_transitions_add(&ctx->transitions, CHANGE_CLOSED, &rows[i]);
		ctx->closed++;
	}
	free(rows);
	return ok;
}

bool
breaker_probe_output(struct store *store, const char *account, const char *family,
    const struct probe_lease *holder, double now, int *closed, struct breaker_transitions *transitions,
    struct store_error *err)
{
	struct probe_output_ctx ctx = { .account = account, .family = family, .holder = holder, .now = now };
	bool ok = in_transaction(store, probe_output_locked, &ctx, err);

	*closed = ok ? ctx.closed : 0;
	if (ok)
		transitions_append(transitions, &ctx.transitions);
	return ok;
}

struct record_ctx {
	const struct config *cfg;
	const struct run_report *run;
	const struct fail_signal *sig;
	struct run_row record;
	struct record_outcome *out;
};

/* Did a breaker that applies trip after the run's gate read them?  Its
 * success then says nothing about that trip: it never saw it (a trip
 * another process recorded between this run's gate and its spawn). */
static bool
tripped_since_gate(const struct record_ctx *ctx, const struct breaker *rows, size_t count)
{
	long trips = 0;

	if (!ctx->run->gated)
		return false;
	for (size_t i = 0; i < count; i++)
		if (relevant(&rows[i], ctx->record.model))
			trips += rows[i].trips;
	return trips > ctx->run->trips_seen;
}

/* Finds key's row in rows, or starts a closed one. */
static struct breaker
find_or_new(const struct breaker *rows, size_t count, const struct breaker_key *key)
{
	struct breaker fresh;

	for (size_t i = 0; i < count; i++)
		if (strcmp(rows[i].key.scope, key->scope) == 0)
			return rows[i];
	memset(&fresh, 0, sizeof(fresh));
	fresh.key = *key;
	return fresh;
}

static bool
record_trip(struct store *store, struct record_ctx *ctx, const struct breaker *rows, size_t count,
    struct store_error *err)
{
	const struct fail_signal *sig = ctx->sig;
	double now = ctx->run->ended_at, cap = now + ctx->cfg->max_provider_reset;
	struct trip trip = { .reason = sig->reason, .message = sig->message,
		.limit_type = sig->limit_type };
	struct breaker_key key;

	memset(&key, 0, sizeof(key));
	strlcpy(key.account, ctx->record.account, sizeof(key.account));
	strlcpy(key.family, ctx->record.family, sizeof(key.family));
	strlcpy(key.scope, sig->scope[0] == '\0' || strcmp(sig->scope, "family") == 0 ? SCOPE_FAMILY
	    : sig->scope, sizeof(key.scope));
	/* A stated wait is still the provider's word when it has passed by the
	 * run's end ("try again in 0.186s", read to the second): the next spawn
	 * may probe at once, never after the unknown-reset cooldown.  A stale
	 * one was dropped when the stream was read (reset_clamp). */
	if (sig->resets_at > 0) {
		trip.resets_at = sig->resets_at < now ? now : sig->resets_at < cap ? sig->resets_at : cap;
		trip.source = sig->reset_source == RESET_SRC_TEXT ? "text" : "provider";
	}
	ctx->out->breaker = find_or_new(rows, count, &key);
	ctx->out->change = breaker_apply_trip(&ctx->out->breaker, ctx->cfg, &trip, now);
	if (ctx->out->change == CHANGE_TRIPPED)
		breaker_transitions_add(&ctx->out->transitions, CHANGE_TRIPPED, &ctx->out->breaker);
	return save_change(store, &ctx->out->breaker, breaker_change_event(ctx->out->change),
	    ctx->out->run_id, now, err);
}

/* Success: closes what applies to the model and was tripped before the run started;
 * then releases the leases this process still holds. */
static bool
record_success_and_leases(struct store *store, struct record_ctx *ctx, struct breaker *rows,
    size_t count, bool succeeded, struct store_error *err)
{
	const struct probe_lease *holder = ctx->run->holder;
	double now = ctx->run->ended_at;

	if (tripped_since_gate(ctx, rows, count))
		succeeded = false;
	for (size_t i = 0; i < count; i++) {
		struct breaker *b = &rows[i];
		const char *event = NULL;

		if (succeeded && relevant(b, ctx->record.model) && b->last_trip_at < ctx->run->started_at) {
			if (holder != NULL && b->state == BREAKER_HALF_OPEN && holder_same(&b->lease, holder))
				close_by_probe(b, now);
			else
				close_breaker(b, now);
			event = "close";
			ctx->out->closed++;
			breaker_transitions_add(&ctx->out->transitions, CHANGE_CLOSED, b);
		} else if (holder != NULL && b->state == BREAKER_HALF_OPEN &&
		    holder_same(&b->lease, holder)) {
			memset(&b->lease, 0, sizeof(b->lease));
			b->state = BREAKER_OPEN;
			b->updated_at = now;
			event = "probe-release";
		}
		if (event != NULL && !save_change(store, b, event, ctx->out->run_id, now, err))
			return false;
	}
	if (ctx->out->closed > 0 && ctx->out->change == CHANGE_NONE)
		ctx->out->change = CHANGE_CLOSED;
	return true;
}

static bool
record_locked(struct store *store, void *arg, struct store_error *err)
{
	struct record_ctx *ctx = arg;
	struct breaker *rows;
	size_t count;
	bool ok = true;

	if (!store_run_add(store, &ctx->record, ctx->run->ended_at, &ctx->out->run_id, err) ||
	    (ctx->run->budgets != NULL && !budget_settle_rows(store, ctx->run->budgets, err)))
		return false;
	if (!ctx->cfg->breaker_enabled)
		return true;
	if (!store_breakers_of(store, ctx->record.account, ctx->record.family, &rows, &count, err))
		return false;
	/* A trip wrote a row: the rest looks at the breakers as they are now. */
	if (breaker_signal_trips(ctx->cfg, ctx->sig)) {
		ok = record_trip(store, ctx, rows, count, err);
		free(rows);
		if (!ok || !store_breakers_of(store, ctx->record.account, ctx->record.family, &rows, &count, err))
			return false;
	}
	ok = record_success_and_leases(store, ctx, rows, count, breaker_signal_succeeded(ctx->sig), err);
	free(rows);
	return ok;
}

/*
 * On a server, a run that trips nothing, settles no budget, and whose key
 * has no breaker row, changes no breaker: its row is written alone (one
 * statement), after a read without the lock.  A row another process writes
 * meanwhile is ordered after this run, which is what its success would
 * have said of it anyway (tripped_since_gate()).  *done false: the
 * transaction decides.
 */
static bool
record_plain(struct store *store, struct record_ctx *ctx, bool *done, struct store_error *err)
{
	struct breaker *rows;
	size_t count;

	*done = false;
	/* A file commits each statement by itself: one transaction is cheaper there. */
	if (strcmp(store_backend_name(store), "postgresql") != 0 || store_on_journal(store))
		return true;
	if (ctx->run->budgets != NULL || (ctx->cfg->breaker_enabled && breaker_signal_trips(ctx->cfg, ctx->sig)))
		return true;
	if (ctx->cfg->breaker_enabled) {
		if (!store_breakers_of(store, ctx->record.account, ctx->record.family, &rows, &count, err))
			return false;
		free(rows);
		if (count > 0)
			return true;
	}
	*done = true;
	return store_run_add(store, &ctx->record, ctx->run->ended_at, &ctx->out->run_id, err);
}

static const char *
first_set(const char *a, const char *b, const char *fallback)
{
	if (a != NULL && *a != '\0')
		return a;
	return b != NULL && *b != '\0' ? b : fallback;
}

bool
breaker_record_run(struct store *store, const struct config *cfg, const struct run_report *run,
    const struct fail_signal *sig, struct record_outcome *outcome, struct store_error *err)
{
	struct record_ctx ctx = { .cfg = cfg, .run = run, .sig = sig, .out = outcome };
	json_t *argv = NULL;
	char *argv_text = NULL, *exact = NULL;
	bool ok, done;

	memset(outcome, 0, sizeof(*outcome));
	if (run->argv != NULL && (argv = redact_argv_json(run->argc, run->argv, &outcome->argv_redacted)) == NULL) {
		err->status = STORE_ERR_IO;
		snprintf(err->message, sizeof(err->message), "%s: out of memory", store_path(store));
		return false;
	}
	if (argv != NULL)
		argv_text = json_dumps(argv, JSON_COMPACT);
	/* what recover replays: only an argv that held no secret */
	if (run->argv != NULL && !outcome->argv_redacted)
		exact = argv_exact_json(run->argc, run->argv, argv_text);
	ctx.record = (struct run_row){
		.id = run->run_id, .argv_json = argv_text, .state = "finished",
		.host = run->holder != NULL ? run->holder->host : NULL,
		.pid = run->holder != NULL ? run->holder->pid : 0,
		.pid_start_time = run->holder != NULL ? run->holder->start_time : 0,
		.argv_redacted = outcome->argv_redacted, .argv_exact = exact, .cwd = run->cwd,
		.family = first_set(run->family, sig->family, "generic"),
		.model = first_set(run->model, sig->model, ""),
		.account = first_set(run->account, NULL, "default"), .source = run->source,
		.started_at = run->started_at, .ended_at = run->ended_at, .exit_code = run->exit_code,
		.term_signal = run->term_signal, .signal = *sig, .usage = run->usage,
		.origin = run->origin, .env_json = run->env_json,
	};
	strlcpy(ctx.record.uid, run->uid != NULL ? run->uid : "", sizeof(ctx.record.uid));
	strlcpy(ctx.record.hmac, run->hmac != NULL ? run->hmac : "", sizeof(ctx.record.hmac));
	ok = record_plain(store, &ctx, &done, err) && (done || in_transaction(store, record_locked, &ctx, err));
	if (!ok)   /* rolled back: nothing changed */
		memset(&outcome->transitions, 0, sizeof(outcome->transitions));
	free(argv_text);
	free(exact);
	json_decref(argv);
	return ok;
}

struct manual_trip_ctx {
	const struct config *cfg;
	const struct breaker_key *key;
	struct trip trip;
	double now;
	struct breaker *after;
	enum breaker_change change;
};

static bool
manual_trip_locked(struct store *store, void *arg, struct store_error *err)
{
	struct manual_trip_ctx *ctx = arg;
	struct breaker *rows;
	size_t count;

	if (!store_breakers_of(store, ctx->key->account, ctx->key->family, &rows, &count, err))
		return false;
	*ctx->after = find_or_new(rows, count, ctx->key);
	free(rows);
	ctx->change = breaker_apply_trip(ctx->after, ctx->cfg, &ctx->trip, ctx->now);
	return save_change(store, ctx->after, "manual-trip", 0, ctx->now, err);
}

bool
breaker_trip_manual(struct store *store, const struct config *cfg, const struct breaker_key *key,
    enum reason reason, double resets_at, double now, struct breaker *after,
    struct breaker_transitions *transitions, struct store_error *err)
{
	struct manual_trip_ctx ctx = {
		.cfg = cfg, .key = key, .now = now, .after = after,
		.trip = { .reason = reason, .resets_at = resets_at, .source = "manual", .message = "manual trip" },
	};

	if (!in_transaction(store, manual_trip_locked, &ctx, err))
		return false;
	if (ctx.change == CHANGE_TRIPPED)
		breaker_transitions_add(transitions, CHANGE_TRIPPED, after);
	return true;
}

struct reset_ctx {
	const struct breaker_key *key;
	double now;
	int matched, closed;
	struct breaker_transitions transitions;
};

static bool
reset_matches(const struct breaker *b, const struct breaker_key *key)
{
	return key == NULL || (strcmp(b->key.account, key->account) == 0 &&
	    strcmp(b->key.family, key->family) == 0 &&
	    (strcmp(key->scope, SCOPE_FAMILY) == 0 || strcmp(key->scope, b->key.scope) == 0));
}

static bool
reset_locked(struct store *store, void *arg, struct store_error *err)
{
	struct reset_ctx *ctx = arg;
	struct breaker *rows;
	size_t count;
	bool ok = true;

	ctx->matched = ctx->closed = 0;
	if (!store_breakers_all(store, &rows, &count, err))
		return false;
	for (size_t i = 0; i < count && ok; i++) {
		if (!reset_matches(&rows[i], ctx->key))
			continue;
		ctx->matched++;
		if (rows[i].state == BREAKER_CLOSED)
			continue;
		close_breaker(&rows[i], ctx->now);
		ok = save_change(store, &rows[i], "reset", 0, ctx->now, err);
		breaker_transitions_add(&ctx->transitions, CHANGE_CLOSED, &rows[i]);
		ctx->closed++;
	}
	free(rows);
	return ok;
}

bool
breaker_reset(struct store *store, const struct breaker_key *key, double now,
    int *matched, int *closed, struct breaker_transitions *transitions, struct store_error *err)
{
	struct reset_ctx ctx = { .key = key, .now = now };
	bool ok = in_transaction(store, reset_locked, &ctx, err);

	*matched = ok ? ctx.matched : 0;
	*closed = ok ? ctx.closed : 0;
	if (ok)
		transitions_append(transitions, &ctx.transitions);
	return ok;
}

bool
breaker_blocked(struct store *store, const char *account, const char *family, const char *model,
    double now, bool *blocked, struct breaker *blocking, struct store_error *err)
{
	struct gate_request req = { .account = account, .family = family, .model = model };
	const struct breaker *found;
	struct breaker *rows;
	size_t count;

	*blocked = false;
	if (!store_breakers_of(store, account, family, &rows, &count, err))
		return false;
	holder_local_host(req.holder.host, sizeof(req.holder.host));
	if ((found = latest_open(rows, count, model, now)) == NULL)
		found = busy_probe(rows, count, &req, now);
	if (found != NULL) {
		*blocked = true;
		*blocking = *found;
	}
	free(rows);
	return true;
}
