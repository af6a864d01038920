/*
 * The wrapper's breaker side (breaker.h's "How the wrapper uses this"):
 * the gate before a spawn, with the refusal line and JSON or the wait; the
 * probe's first output; the run's record afterwards.
 *
 * Fail open: every store problem is one warning line per process at most,
 * and from then on the store is dropped; the child runs and its output and
 * exit status are never touched.  on_store_error = closed refuses instead,
 * but only when the store cannot be opened at all, before any spawn.
 */
#include <err.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "host_lease.h"
#include "breaker_memo.h"
#include "cmd.h"
#include "outcome.h"
#include "redact.h"
#include "run.h"
#include "textutil.h"
#include "visible.h"

#define POLL_MS_DEFAULT 5000
/* A waiter for a slot looks after this long (plus or minus a quarter),
 * twice as long after each look that finds no slot, up to the bound:
 * a waiter costs the server a statement a second at most (the server's
 * NOTIFY, where it can, wakes it sooner). */
#define SLOT_POLL_MS_DEFAULT 50
#define SLOT_POLL_MAX_MS_DEFAULT 1000

double
run_clock(const struct run_breaker *b)
{
	return wait_clock_now(&b->clock);
}

bool
run_breaker_init(struct run_breaker *b)
{
	memset(b, 0, sizeof(*b));
	if (!cmd_load_config(&b->cfg))
		return false;
	wait_clock_init(&b->clock);
	holder_self(&b->holder);
	return true;
}

/* A store is let go: one that was the journal leaves a replayer behind
 * at the end (run_breaker_close()). */
static void
store_let_go(struct run_breaker *b)
{
	if (b->store == NULL)
		return;
	b->journaled = b->journaled || store_on_journal(b->store);
	store_close(b->store);
	b->store = NULL;
}

void
run_breaker_close(struct run_breaker *b)
{
	lease_renewer_stop(b->renewer);
	b->renewer = NULL;
	store_let_go(b);
	/* The child's status is known and its bytes out: the caller waits for
	 * a fork, not for the server. */
	if (b->journaled)
		replay_leave_behind(b->store_opts.journal_path);
	free(b->argv_json);
	b->argv_json = NULL;
	free(b->argv_exact);
	b->argv_exact = NULL;
	free(b->env_json);
	b->env_json = NULL;
	memset(b->sign_key, 0, sizeof(b->sign_key));
	config_free(&b->cfg);
}

/* The one store warning of this process; the store is dropped after it so
 * that nothing else about it is said or tried. */
static void
store_trouble(struct run_breaker *b, const struct store_error *error)
{
	if (!b->store_warned)
		warnx_visible("state file: %s; running without it", error->message);
	b->store_warned = true;
	lease_renewer_stop(b->renewer);
	b->renewer = NULL;
	store_let_go(b);
}

void
run_store_trouble(struct run_breaker *b, const struct store_error *error)
{
	store_trouble(b, error);
}

/* Says once what the store has to say (its server went away). */
static void
run_store_notice(struct run_breaker *b)
{
	char notice[512];

	if (b->store == NULL || *store_take_notice(b->store, notice, sizeof(notice)) == '\0')
		return;
	if (!b->store_warned)
		warnx_visible("state file: %s", notice);
	b->store_warned = true;
}

/* ---- refusals ---- */

/* A refusal for --signal-file: the breaker's reason and reset (reason null
 * without one), exit_code 75, no child. */
static void budget_room_text(const struct run_breaker *b, char *buf, size_t size);

static void
write_refusal(const struct run_breaker *b, const struct run_opts *o, const struct run_identity *id,
    const struct breaker *blk, double until, const char *refused_by, const char *store_error)
{
	struct signal_report rep = {
		.refused = true, .refused_by = refused_by, .store_error = store_error,
		.attempts = b->spawns, .now = cmd_now(),
	};
	struct fail_signal sig;
	char budget[160];
	json_t *obj;

	if (o->signal_file == NULL)
		return;
	if (strcmp(refused_by, "budget") == 0) {
		budget_room_text(b, budget, sizeof(budget));
		rep.budget = budget;
	}
	signal_init(&sig);
	sig.resets_at = until;
	sig.reason = blk != NULL ? blk->reason : REASON_NONE;
	sig.confidence = blk != NULL ? 1.0 : 0;
	sig.terminal = true;
	strlcpy(sig.family, id->family, sizeof(sig.family));
	strlcpy(sig.model, id->model, sizeof(sig.model));
	if (blk != NULL) {
		/* a row of a shared store, maybe written by another host: the one
		 * sanitiser's form, as a stream value gets */
		clean_copy_str(sig.scope, sizeof(sig.scope),
		    strcmp(blk->key.scope, SCOPE_FAMILY) == 0 ? "family" : blk->key.scope);
		sig.resets_at = until;
		clean_copy_str(sig.message, sizeof(sig.message), blk->last_message);
		rep.reset_source = blk->reset_source;
	}
	sig.exit_code = EXIT_REFUSED;
	rep.sig = &sig;
	clock_gettime(CLOCK_REALTIME, &rep.started);
	rep.ended = rep.started;
	obj = signal_file_json(o, id, &rep);
	write_json_file("--signal-file", o->signal_file, obj);
	json_decref(obj);
}

/* One line: "refused: claude (scope *, account default) open on usage-limit
 * until 2026-11-30T16:00:00Z (2026-11-30 17:00 CET, in 4h0m), reset from provider". */
static int
refuse(struct run_breaker *b, const struct run_opts *o, const struct run_identity *id,
    const struct gate_decision *d, double now, double wait_max)
{
	const struct breaker *blk = &d->blocking;
	char reset[160], budget[64] = "", holder[320] = "";

	cmd_format_reset(d->blocked_until, (time_t)now, reset, sizeof(reset));
	if (wait_max >= 0) {
		strlcpy(budget, "; beyond the --wait budget of ", sizeof(budget));
		format_duration_short(wait_max, budget + strlen(budget), sizeof(budget) - strlen(budget));
	}
	if (d->probe_busy)
		snprintf(holder, sizeof(holder), ", a probe (pid %ld on %s) runs", blk->lease.pid,
		    blk->lease.host);
	if (d->ramp) {
		warnx_visible("refused: %s (account %s) is being released after its reset, a few spawns at a "
		    "time (release = ramp): its next turn is at %s%s", id->family, blk->key.account, reset, budget);
		write_refusal(b, o, id, blk, d->blocked_until, "release", NULL);
		run_record_refusal(b, o, id, "release", blk, d->blocked_until);
		return EXIT_REFUSED;
	}
	warnx_visible("refused: %s (scope %s, account %s) %s on %s%s until %s, reset from %s%s", id->family,
	    blk->key.scope, blk->key.account, d->probe_busy ? "half-open" : "open",
	    reason_name(blk->reason), holder, reset, blk->reset_source, budget);
	write_refusal(b, o, id, blk, d->blocked_until, "breaker", NULL);
	run_record_refusal(b, o, id, "breaker", blk, d->blocked_until);
	return EXIT_REFUSED;
}

/* on_store_error = closed: no spawn without the state file's say. */
static int
refuse_store(const struct run_breaker *b, const struct run_opts *o, const struct run_identity *id,
    const struct store_error *error)
{
	warnx_visible("refused: state file: %s (on_store_error = closed)", error->message);
	write_refusal(b, o, id, NULL, 0, "store", error->message);
	return EXIT_REFUSED;
}

/* "the budget 30000 tokens per 1m (27000 used)", "... per 1m model=gpt-4o (...)" */
static void
budget_room_text(const struct run_breaker *b, char *buf, size_t size)
{
	const struct budget *bg = &b->budget.budgets[b->slot.look.which];
	char window[32];

	format_duration_short(bg->window, window, sizeof(window));
	snprintf(buf, size, "the budget %g %s per %s%s%s (%g used)", bg->amount, budget_unit_name(bg->unit),
	    window, bg->model[0] != '\0' ? " model=" : "", bg->model,
	    bg->unit == BUDGET_USD ? round(b->slot.look.used * 100) / 100 : round(b->slot.look.used));
}

/* The --wait budget ran out in the queue for a slot. */
static int
refuse_slot(struct run_breaker *b, const struct run_opts *o, const struct run_identity *id)
{
	char budget[32];

	char room[160];

	format_duration_short(o->wait_max, budget, sizeof(budget));
	if (b->slot.ahead == 0 && !b->slot.look.room) {
		budget_room_text(b, room, sizeof(room));
		warnx_visible("refused: %s (account %s): no room in %s; beyond the --wait budget of %s",
		    id->family, id->account, room, budget);
		write_refusal(b, o, id, NULL, b->slot.look.until, "budget", NULL);
		run_record_refusal(b, o, id, "budget", NULL, b->slot.look.until);
		return EXIT_REFUSED;
	}
	warnx_visible("refused: %s (account %s): no slot free: %ld running of max_concurrent %ld, %ld ahead; "
	    "beyond the --wait budget of %s", id->family, id->account, b->slot.running, b->slot.max,
	    b->slot.ahead, budget);
	write_refusal(b, o, id, NULL, 0, "max_concurrent", NULL);
	run_record_refusal(b, o, id, "max_concurrent", NULL, 0);
	return EXIT_REFUSED;
}

/*
 * A spawn that an open breaker in a server store's memo refuses is
 * refused here, before libpq is loaded or the server asked (breaker_memo.h).
 * A wait within the --wait budget is left to the server's gate.
 */
static int
memo_refusal(struct run_breaker *b, const struct run_opts *o, const struct run_identity *id)
{
	struct gate_decision d;
	double now = run_clock(b), wake;

	/* A pool's account is chosen from the server's rows, not the memo's. */
	if (b->cfg.store_memo_ttl <= 0 || !b->cfg.breaker_enabled || run_pool_chooses(b, o, id) ||
	    !memo_path(&b->store_opts, b->memo, sizeof(b->memo))) {
		b->memo[0] = '\0';
		return -1;
	}
	memset(&d, 0, sizeof(d));
	if (o->force || !memo_blocker(b->memo, id->account, id->family, id->model, now, b->cfg.store_memo_ttl,
	    &d.blocking))
		return -1;
	d.blocked_until = d.blocking.resets_at;
	if (o->wait && breaker_wait_plan(d.blocked_until, now, o->wait_max, 0, &wake))
		return -1;
	/* The server's gate would have written a waits row: the next contact does. */
	(void)memo_refusal_count(b->memo, &d.blocking, id->model, now);
	return refuse(b, o, id, &d, now, o->wait ? o->wait_max : -1);
}

int
run_breaker_open(struct run_breaker *b, const struct run_opts *o, const struct run_identity *id)
{
	struct store_options *opts = &b->store_opts;
	struct store_error error;
	json_t *argv;
	bool resolved = store_options_resolve(opts, b->cfg.store_path, b->cfg.keep_runs, b->cfg.keep_days, &error);
	int rc;

	argv = redact_argv_json(o->argc, o->argv, &b->argv_redacted);
	b->argv_json = argv != NULL ? json_dumps(argv, JSON_COMPACT) : NULL;
	b->argv_exact = b->argv_redacted ? NULL : argv_exact_json(o->argc, o->argv, b->argv_json);
	json_decref(argv);
	run_record_setup(b, o, id);
	if (resolved) {
		store_options_server(opts, b->cfg.store_schema, b->cfg.store_connect_timeout,
		    b->cfg.store_statement_timeout, b->cfg.store_pool);
		opts->trust_away = true;
		if (!holder_lease_stamp(opts, b->holder.host, b->lease_stamp, sizeof(b->lease_stamp)))
			b->lease_stamp[0] = '\0';
		if ((rc = memo_refusal(b, o, id)) >= 0)
			return rc;
	}
	if (resolved && store_open(opts, &b->store, &error)) {
		/* A server away: on_store_error = closed wants its say, not a journal's. */
		if (store_on_journal(b->store) && b->cfg.on_store_error == STORE_ERROR_CLOSED && !o->force) {
			store_take_notice(b->store, error.message, sizeof(error.message));
			store_close(b->store);
			b->store = NULL;
			return refuse_store(b, o, id, &error);
		}
		run_store_notice(b);
		cmd_warn_exposed_store(b->store);
		run_record_settle_journal(b);
		cmd_flush_memo_refusals(opts, b->store);
		return -1;
	}
	if (b->cfg.on_store_error == STORE_ERROR_CLOSED && !o->force)
		return refuse_store(b, o, id, &error);
	/* A file we may only read still refuses spawns its breakers block. */
	if (error.status == STORE_ERR_READONLY) {
		struct store_error ro_error;

		opts->read_only = true;
		b->read_only = store_open(opts, &b->store, &ro_error);
	}
	warnx_visible("state file: %s; running without %s", error.message,
	    b->store != NULL ? "recording" : "it");
	b->store_warned = true;
	return -1;
}

/* ---- waiting: breakers, then a slot, then the running row ---- */

/* The tests' knobs: an hour at most. */
static double
env_secs(const char *name, long long dflt_ms)
{
	return cmd_env_ms(name, dflt_ms, 3600000);
}

/* How often the host's lease is renewed ($RLWRAP_LEASE_RENEW_MS, for tests),
 * and how long a renewal keeps this host's runs alive for the others. */
static double
lease_renew_interval(void)
{
	return env_secs("RLWRAP_LEASE_RENEW_MS", (long long)(HOST_LEASE_RENEW_SECS * 1000));
}

static double
host_lease_ttl(void)
{
	return lease_renew_interval() * (HOST_LEASE_TTL_SECS / HOST_LEASE_RENEW_SECS);
}

/* The host's lease renewed when due: before a look that may write a
 * running row or a place in the queue, so that it is never born dead. */
static void
host_lease_renew(struct run_breaker *b, double now)
{
	struct store_error error;

	if (b->store == NULL || b->read_only || (b->lease_renewed_at > 0 && now - b->lease_renewed_at <
	    lease_renew_interval()))
		return;
	b->lease_renewed_at = now;
	if (!holder_lease_renew(b->store, b->lease_stamp, b->holder.host, now, lease_renew_interval(),
	    host_lease_ttl(), &error))
		store_trouble(b, &error);
}

/* One spawn's way through the gate: what its checks share. */
struct gate {
	struct run_breaker *b;
	const struct run_opts *o;
	const struct run_identity *id;
	struct gate_request req;
	struct gate_decision d;
	double wait_max;            /* the breakers' budget; < 0: refuse at once */
	double breaker_end;         /* start + wait_max */
	double poll, slot_poll;
	double slot_step, slot_poll_max;   /* the next look's interval, its bound */
	double blocked_until, wake; /* a breaker wait: the reset and its jittered end */
	long long wait_id;          /* the waits row of a slot wait; 0 = none */
	double slot_end;            /* the end of the --wait budget for a slot or a budget */
	bool store_closed_refuses;  /* the first look: on_store_error = closed applies */
	bool wait_hooked;           /* on_wait has run for this spawn */
	char cwd[PATH_MAX];
};

/* What the server's gate showed goes to the memo: the breaker that
 * refuses, or, when it lets the spawn through, nothing open.  A wait
 * looks again and again: its answers are not noted. */
static void
memo_after_gate(struct run_breaker *b, const struct gate *g, double now)
{
	if (b->memo[0] == '\0' || store_on_journal(b->store))
		return;
	if (g->d.verdict == GATE_REFUSE && !g->d.probe_busy)
		memo_note(b->memo, g->id->account, g->id->family, g->id->model, &g->d.blocking, now);
	else if (g->d.verdict == GATE_RUN || g->d.verdict == GATE_PROBE)
		memo_note(b->memo, g->id->account, g->id->family, g->id->model, NULL, now);
}

/* The breakers: WAIT_GO, WAIT_MORE (r filled), or an exit status. */
static int
check_breakers(struct gate *g, double now, struct wait_reason *r)
{
	struct run_breaker *b = g->b;
	struct store_error error;

	g->req.wait_max = g->wait_max < 0 ? -1 : g->breaker_end > now ? g->breaker_end - now : 0;
	if (!breaker_gate(b->store, &b->cfg, &g->req, now, &g->d, &error)) {
		if (g->store_closed_refuses && b->cfg.on_store_error == STORE_ERROR_CLOSED)
			return refuse_store(b, g->o, g->id, &error);
		store_trouble(b, &error);
		return WAIT_GO;
	}
	g->req.record = false;
	memo_after_gate(b, g, now);
	b->gated = true;
	b->trips_seen = g->d.trips_seen;
	run_store_notice(b);
	switch (g->d.verdict) {
	case GATE_RUN:
		return WAIT_GO;
	case GATE_PROBE:
		b->probing = true;
		return WAIT_GO;
	case GATE_REFUSE:
		return refuse(b, g->o, g->id, &g->d, now, g->wait_max);
	case GATE_WAIT:
		break;
	}
	if (!g->wait_hooked) {   /* a spawn starts waiting: once, however often it looks again */
		hook_run_wait(&b->cfg, &g->d.blocking);
		g->wait_hooked = true;
	}
	if (g->d.blocked_until != g->blocked_until) {
		g->blocked_until = g->d.blocked_until;
		/* A release's turn is a fraction of a second apart: a jitter of
		 * 0.1 s at most spreads the waiters without wasting the turn. */
		g->wake = g->d.blocked_until + (g->d.ramp ? (double)arc4random_uniform(101) / 1000 :
		    breaker_jitter(g->d.blocked_until - now));
	}
	strlcpy(r->why, g->d.ramp ? "its turn in the release after the reset" : reason_name(g->d.blocking.reason),
	    sizeof(r->why));
	strlcpy(r->title, g->id->family, sizeof(r->title));
	r->until = g->wake;
	/* Between the reset and the jitter's end it only sleeps, so that
	 * waiters do not all come back in the same second. */
	r->next_check = now < g->blocked_until && now + g->poll < g->wake ? now + g->poll : g->wake;
	return WAIT_MORE;
}

/* "five_hour (92% used, the reserve keeps 10%)" */
static void
reserve_text(const struct family_config *fc, const struct usage_reading *u, char *buf, size_t size)
{
	double left = reading_left(u);

	snprintf(buf, size, "%s (%.0f%% left, the reserve keeps %.0f%%)", u->window, 100 * left,
	    100 * reserve_for(fc->reserves, fc->reserves_len, u->window_secs));
}

/* The reserve holds the spawn beyond what --wait allows: exit 75, as an
 * open breaker refuses, and kept for recover. */
static int
refuse_reserve(struct gate *g, const struct family_config *fc, const struct usage_reading *u, double now)
{
	char reset[160], why[160], budget[64] = "";

	cmd_format_reset(u->resets_at, (time_t)now, reset, sizeof(reset));
	reserve_text(fc, u, why, sizeof(why));
	if (g->wait_max >= 0) {
		strlcpy(budget, "; beyond the --wait budget of ", sizeof(budget));
		format_duration_short(g->wait_max, budget + strlen(budget), sizeof(budget) - strlen(budget));
	}
	warnx_visible("refused: %s (account %s) is in its reserve: %s until %s%s", g->id->family, g->id->account,
	    why, reset, budget);
	write_refusal(g->b, g->o, g->id, NULL, u->resets_at, "reserve", NULL);
	run_record_refusal(g->b, g->o, g->id, "reserve", NULL, u->resets_at);
	return EXIT_REFUSED;
}

/* The family's reserve against the key's last readings: an interactive
 * spawn passes; a batch one waits for the window's reset, or is refused. */
static int
check_reserve(struct gate *g, double now, struct wait_reason *r)
{
	struct run_breaker *b = g->b;
	const struct family_config *fc = config_family(&b->cfg, g->id->family);
	const struct usage_reading *u;
	struct usage_reading *rows;
	struct store_error error;
	size_t n;
	int rc = WAIT_GO;

	if (fc == NULL || fc->reserves_len == 0 || b->store == NULL || g->o->interactive || g->o->force)
		return WAIT_GO;
	if (!store_readings(b->store, g->id->account, g->id->family, &rows, &n, &error)) {
		store_trouble(b, &error);
		return WAIT_GO;
	}
	if ((u = reserve_holding(fc->reserves, fc->reserves_len, rows, n, g->id->model, now)) != NULL) {
		if (g->wait_max < 0 || u->resets_at > g->breaker_end)
			rc = refuse_reserve(g, fc, u, now);
		else {
			reserve_text(fc, u, r->why, sizeof(r->why));
			snprintf(r->title, sizeof(r->title), "%s reserve", g->id->family);
			r->until = u->resets_at;
			r->next_check = now + g->poll < u->resets_at ? now + g->poll : u->resets_at;
			rc = WAIT_MORE;
		}
	}
	free(rows);
	return rc;
}

/* The running row this spawn would write. */
static void
running_row(struct gate *g, double now, struct run_row *rec)
{
	memset(rec, 0, sizeof(*rec));
	rec->argv_json = g->b->argv_json;
	rec->argv_redacted = g->b->argv_redacted;
	rec->argv_exact = g->b->argv_exact;
	rec->cwd = g->cwd;
	rec->family = g->id->family;
	rec->model = g->id->model;
	rec->account = g->id->account;
	rec->source = "wrap";
	rec->started_at = now;
	rec->exit_code = -1;
	signal_init(&rec->signal);
	rec->usage.input_tokens = rec->usage.output_tokens = -1;
	rec->usage.cost_usd = -1;
	rec->origin = g->b->origin;
	rec->env_json = g->b->env_json;
	strlcpy(rec->uid, g->b->uid, sizeof(rec->uid));
	strlcpy(rec->hmac, g->b->hmac, sizeof(rec->hmac));
}

/* The waits row of a slot wait: who, why, since when (its end at the end). */
static void
slot_wait_row(struct gate *g, double now)
{
	struct wait_record w = {
		.kind = "wait", .model = g->id->model, .at = now, .pid = g->b->holder.pid,
		.host = g->b->holder.host, .account = g->id->account, .family = g->id->family,
		.why = g->b->slot.max == LONG_MAX || (g->b->slot.ahead == 0 && !g->b->slot.look.room) ?
		    "budget" : "max-concurrent",
	};
	struct store_error error;

	if (g->wait_id == 0 && !store_wait_add(g->b->store, &w, &g->wait_id, &error))
		store_trouble(g->b, &error);
}

/* A slot: take is false for a look that only keeps our place. */
static int
check_slot(struct gate *g, double now, struct wait_reason *r, bool take)
{
	struct run_breaker *b = g->b;
	struct run_row rec;
	struct store_error error;
	bool admitted;

	running_row(g, now, &rec);
	host_lease_renew(b, now);
	if (b->store == NULL)
		return WAIT_GO;
	if (!admission_try(b->store, &b->slot, take ? &rec : NULL, now, &admitted, &b->run_id, &error)) {
		store_trouble(b, &error);
		return WAIT_GO;
	}
	if (admitted)
		return WAIT_GO;
	slot_wait_row(g, now);
	r->next_check = now + g->slot_step * (0.75 + (double)arc4random_uniform(501) / 1000);
	g->slot_step = g->slot_step * 2 < g->slot_poll_max ? g->slot_step * 2 : g->slot_poll_max;
	r->until = 0;
	if (b->slot.ahead == 0 && !b->slot.look.room) {
		strlcpy(r->why, "room in ", sizeof(r->why));
		budget_room_text(b, r->why + strlen(r->why), sizeof(r->why) - strlen(r->why));
		snprintf(r->title, sizeof(r->title), "%s budget", g->id->family);
		r->until = b->slot.look.until;
		if (g->o->wait_max >= 0 && r->until > g->slot_end)
			return WAIT_TIMEOUT;   /* known now: no use waiting for it */
		if (r->until < r->next_check)
			r->next_check = r->until;
		return WAIT_MORE;
	}
	if (b->slot.max == LONG_MAX)
		snprintf(r->why, sizeof(r->why), "its turn (%ld ahead)", b->slot.ahead);
	else
		snprintf(r->why, sizeof(r->why), "a slot (%ld running of max_concurrent %s%ld, %ld ahead)",
		    b->slot.running, b->slot.auto_max > 0 ? "auto " : "", b->slot.max, b->slot.ahead);
	snprintf(r->title, sizeof(r->title), "a %s slot", g->id->family);
	return WAIT_MORE;
}

/* The gate proper.  With a limit, the queue is looked at first, so that a
 * waiter for a slot takes no probe lease it would sit on. */
static int
check_gate(void *arg, double now, struct wait_reason *r)
{
	struct gate *g = arg;
	struct run_breaker *b = g->b;
	int rc = WAIT_GO;

	if (b->store != NULL && !b->read_only && (b->slot.max > 0 || b->budget.count > 0))
		rc = check_slot(g, now, r, false);
	/* Before the breakers, for the same reason: no probe lease sat on. */
	if (rc == WAIT_GO)
		rc = check_reserve(g, now, r);
	if (rc == WAIT_GO && b->store != NULL && !g->o->force)
		rc = check_breakers(g, now, r);
	g->store_closed_refuses = false;
	if (rc == WAIT_GO && b->store != NULL && !b->read_only)
		rc = check_slot(g, now, r, true);
	return rc;
}

/* A store that can tell (PostgreSQL) wakes a waiter for a slot as soon as
 * one may have freed; it still looks every poll interval besides. */
static bool
await_slot(void *arg, double secs)
{
	struct gate *g = arg;
	struct store_error error;
	bool told;

	if (g->b->store == NULL)
		return true;
	if (!store_await_slot(g->b->store, secs, &told, &error)) {
		store_trouble(g->b, &error);
		return true;
	}
	return told;
}

/* Whatever way the wait ended: our ticket back, the waits row's end. */
static void
gate_done(struct gate *g)
{
	struct run_breaker *b = g->b;
	struct store_error error;

	if (b->store == NULL)
		return;
	if ((b->slot.ticket != 0 && !admission_leave(b->store, &b->slot, &error)) ||
	    (g->wait_id != 0 && !store_wait_end(b->store, g->wait_id, run_clock(b), &error)))
		store_trouble(b, &error);
}

/* The key's budgets and what a spawn reserves: the configured estimate,
 * else the median of the key's recent runs. */
static void
budget_setup(struct run_breaker *b, const struct run_identity *id)
{
	const struct family_config *fc = config_family(&b->cfg, id->family);
	struct store_error error;

	b->budget = (struct budget_key){ .account = id->account, .family = id->family };
	if (fc == NULL || fc->budgets_len == 0 || b->store == NULL)
		return;
	b->budget.budgets = b->budgets;
	b->budget.count = budget_select(fc->budgets, fc->budgets_len, id->model, b->budgets);
	if (b->budget.count == 0)
		return;
	b->slot.budget = &b->budget;
	b->slot.reserve = fc->estimate_tokens;
	if (b->slot.reserve == 0 && !budget_median_tokens(b->store, id->account, id->family, &b->slot.reserve,
	    &error))
		store_trouble(b, &error);
}

/* max_concurrent = auto: the bounds; the limit itself is read at each look. */
static void
auto_setup(struct run_breaker *b, const struct run_identity *id)
{
	const struct family_config *fc = config_family(&b->cfg, id->family);

	if (fc == NULL || fc->auto_max == 0 || b->store == NULL)
		return;
	b->slot.auto_min = fc->auto_min;
	b->slot.auto_max = fc->auto_max;
	b->slot.max = fc->auto_max;
}

/* A server's connection is closed before the spawn: a running agent holds
 * none (its liveness is its host's lease).  A journal in the server's
 * place is a file of this host: kept, its row ids are its own. */
static void
store_park(struct run_breaker *b)
{
	if (b->store == NULL || b->read_only || !store_is_server_url(b->store_opts.path) ||
	    store_on_journal(b->store))
		return;
	b->store_opts.schema_known = store_schema_version(b->store) == STORE_SCHEMA_VERSION;
	store_close(b->store);
	b->store = NULL;
	b->parked = true;
}

/* Opened again when the run needs it: the probe's first output, the end. */
static void
store_resume(struct run_breaker *b)
{
	struct store_error error;

	if (!b->parked)
		return;
	b->parked = false;
	if (!store_open(&b->store_opts, &b->store, &error)) {
		store_trouble(b, &error);
		return;
	}
	if (b->run_id != 0)
		store_carry_run(b->store, b->run_id, b->uid);
	run_store_notice(b);
}

static int
gate_spawn(struct run_breaker *b, const struct run_opts *o, const struct run_identity *id, double wait_max,
    bool force)
{
	double now = run_clock(b);
	struct gate g = {
		.b = b, .o = o, .id = id, .wait_max = wait_max, .breaker_end = now + wait_max,
		.slot_end = now + o->wait_max,
		.poll = env_secs("RLWRAP_POLL_MS", POLL_MS_DEFAULT),
		.slot_poll = env_secs("RLWRAP_SLOT_POLL_MS", SLOT_POLL_MS_DEFAULT),
		.slot_poll_max = env_secs("RLWRAP_SLOT_POLL_MAX_MS", SLOT_POLL_MAX_MS_DEFAULT),
		.store_closed_refuses = true,
		.req = { .account = id->account, .family = id->family, .model = id->model,
		    .holder = b->holder, .record = !b->read_only },
	};
	char who[CONFIG_ACCOUNT_MAX + 64];
	struct wait_loop w = {
		.clock = &b->clock, .who = who, .quiet = o->quiet, .budget_end = now + o->wait_max,
		.check = check_gate, .arg = &g,
	};
	struct wait_reason r = { .until = 0 };
	int rc;

	snprintf(who, sizeof(who), "%s (account %s)", id->family, id->account);
	if (b->store != NULL && store_tells_slots(b->store))
		w.await = await_slot;
	if (getcwd(g.cwd, sizeof(g.cwd)) == NULL)
		g.cwd[0] = '\0';
	run_record_sign(b, o, id);
	b->probing = false;
	b->run_id = 0;
	b->slot = (struct admission){
		.account = id->account, .family = id->family, .self = b->holder,
		.max = force ? 0 : config_max_concurrent(&b->cfg, id->family),
		.ttl = HEARTBEAT_SECS * HEARTBEAT_TTL_FACTOR,
	};
	if (!force) {
		budget_setup(b, id);
		auto_setup(b, id);
	}
	g.slot_step = g.slot_poll < g.slot_poll_max ? g.slot_poll : g.slot_poll_max;
	if ((rc = check_gate(&g, now, &r)) == WAIT_MORE)
		rc = wait_loop_run(&w, &r);
	gate_done(&g);
	if (rc == WAIT_TIMEOUT)
		return refuse_slot(b, o, id);
	if (rc == WAIT_GO)
		store_park(b);
	return rc == WAIT_GO ? -1 : rc;
}

int
gate_before_spawn(struct run_breaker *b, const struct run_opts *o, struct run_identity *id, double wait_max,
    bool force)
{
	run_pool_select(b, o, id);
	return gate_spawn(b, o, id, wait_max, force);
}

/* ---- a plain wait (--retry's backoff) ---- */

struct plain_wait {
	double wake;
	const char *why, *family;
};

static int
check_plain(void *arg, double now, struct wait_reason *r)
{
	const struct plain_wait *p = arg;

	if (now >= p->wake)
		return WAIT_GO;
	strlcpy(r->why, p->why, sizeof(r->why));
	strlcpy(r->title, p->family, sizeof(r->title));
	r->until = r->next_check = p->wake;
	return WAIT_MORE;
}

int
wait_plain(struct run_breaker *b, const struct run_opts *o, const struct run_identity *id,
    const char *why, double wake)
{
	struct plain_wait p = { .wake = wake, .why = why, .family = id->family };
	char who[CONFIG_ACCOUNT_MAX + 64];
	struct wait_loop w = {
		.clock = &b->clock, .who = who, .quiet = o->quiet, .budget_end = -1,
		.check = check_plain, .arg = &p,
	};
	struct wait_reason r;
	int rc;

	snprintf(who, sizeof(who), "%s (account %s)", id->family, id->account);
	if ((rc = check_plain(&p, run_clock(b), &r)) == WAIT_MORE)
		rc = wait_loop_run(&w, &r);
	return rc == WAIT_GO ? -1 : rc;
}

/* ---- the lease renewer ---- */

/* When to make the lease renewer: a second into the run, or half an
 * interval when the interval is shorter (tests). */
int
run_lease_renew_delay_ms(void)
{
	double half = lease_renew_interval() * 1000 / 2;

	return half < 1000 ? (int)half : 1000;
}

void
run_lease_renewer_start(struct run_breaker *b)
{
	double interval = lease_renew_interval();

	if ((b->store != NULL || b->parked) && b->run_id != 0 && b->renewer == NULL)
		b->renewer = lease_renewer_start(&b->store_opts, b->lease_stamp, b->holder.host, interval,
		    host_lease_ttl(), wait_clock_read, &b->clock);
}

/* ---- during and after the run ---- */

void
probe_output_seen(struct run_breaker *b, const struct run_identity *id)
{
	struct store_error error;
	int closed;

	if (!b->probing)
		return;
	store_resume(b);
	if (b->store == NULL)
		return;
	b->probing = false;
	/* The closes go to the hooks after the attempt: never mid-stream. */
	if (!breaker_probe_output(b->store, id->account, id->family, &b->holder, run_clock(b), &closed,
	    &b->probe_closes, &error))
		store_trouble(b, &error);
}

/* The state file was deleted or replaced while the child ran: what is
 * recorded into the old one vanishes with it, so the path is opened again. */
static void
reopen_moved_store(struct run_breaker *b)
{
	struct store_options opts;
	struct store_error error;

	warnx_visible("state file %s was deleted or replaced while this run went on; opening it again",
	    store_path(b->store));
	store_close(b->store);
	b->store = NULL;
	if (!store_options_resolve(&opts, b->cfg.store_path, b->cfg.keep_runs, b->cfg.keep_days, &error) ||
	    !store_open(&opts, &b->store, &error))
		store_trouble(b, &error);
}

/* The reservation gives way to what the stream metered, in the run's
 * record (at the end: see docs/design.md section 10).  NULL: no budget. */
static const struct budget_settlement *
budget_settlement_of(struct run_breaker *b, const struct run_result *r, struct budget_settlement *s)
{
	const struct run_usage *u = &r->usage;

	if (b->store == NULL || b->read_only || b->budget.count == 0)
		return NULL;
	*s = (struct budget_settlement){
		.key = &b->budget, .reserved_at = b->slot.reserved_at,
		.reserved = b->slot.reserved_at > 0 ? b->slot.reserve : 0, .now = run_clock(b),
		.actual_tokens = -1, .actual_usd = u->cost_usd,
	};
	if (u->input_tokens >= 0 || u->output_tokens >= 0)
		s->actual_tokens = (double)((u->input_tokens > 0 ? u->input_tokens : 0) +
		    (u->output_tokens > 0 ? u->output_tokens : 0));
	b->slot.reserved_at = 0;
	return s;
}

/* max_concurrent = auto: the run's outcome moves the key's limit (a rate
 * limit or an overload halves it, a clean run counts towards growing it). */
static void
adaptive_record_run(struct run_breaker *b, const struct run_identity *id, const struct run_result *r)
{
	enum adaptive_outcome outcome = ADAPTIVE_OTHER;
	struct store_error error;

	if (b->store == NULL || b->read_only || b->slot.auto_max == 0)
		return;
	if (r->sig.reason == REASON_RATE_LIMIT || r->sig.reason == REASON_OVERLOADED)
		outcome = ADAPTIVE_LIMITED;
	else if (r->sig.reason == REASON_NONE && r->exit_code == 0 && r->term_signal == 0)
		outcome = ADAPTIVE_CLEAN;
	if (!adaptive_record(b->store, id->account, id->family, b->slot.auto_min, b->slot.auto_max, outcome,
	    r->clock_started, run_clock(b), env_secs("RLWRAP_ADAPTIVE_WINDOW_MS",
	    (long long)(ADAPTIVE_WINDOW_SECS * 1000)), &error))
		store_trouble(b, &error);
}

/* The readings of the family's reserve that start holding with this run's
 * (on_reserve fires for them once the run is recorded); -1: none. */
static void
reserve_starts_of(struct run_breaker *b, const struct run_identity *id, const char *family,
    const struct reading_set *fresh, double keep[READINGS_MAX])
{
	const struct family_config *fc = config_family(&b->cfg, family);
	struct usage_reading *rows = NULL;
	struct store_error error;
	size_t n = 0;

	for (size_t i = 0; i < READINGS_MAX; i++)
		keep[i] = -1;
	if (fc == NULL || fc->reserves_len == 0 || b->cfg.hooks[HOOK_RESERVE][0] == '\0')
		return;
	if (!store_readings(b->store, id->account, family, &rows, &n, &error)) {
		store_trouble(b, &error);
		return;
	}
	for (size_t i = 0; i < fresh->n; i++) {
		const struct usage_reading *stored = NULL;

		for (size_t j = 0; j < n; j++)
			if (strcmp(rows[j].window, fresh->r[i].window) == 0)
				stored = &rows[j];
		if (reserve_starts(fc->reserves, fc->reserves_len, stored, &fresh->r[i], run_clock(b)))
			keep[i] = reserve_for(fc->reserves, fc->reserves_len, fresh->r[i].window_secs);
	}
	free(rows);
}

/* The stream's readings, one row per window, after the run (never per
 * turn: the relay path writes nothing); keep: as reserve_starts_of(). */
static void
readings_record_run(struct run_breaker *b, const struct run_identity *id, const char *family,
    struct run_result *r, double keep[READINGS_MAX])
{
	struct store_error error;

	for (size_t i = 0; i < READINGS_MAX; i++)
		keep[i] = -1;
	if (b->store == NULL || b->read_only || r->readings.n == 0)
		return;
	for (size_t i = 0; i < r->readings.n; i++) {
		strlcpy(r->readings.r[i].account, id->account, sizeof(r->readings.r[i].account));
		strlcpy(r->readings.r[i].family, family, sizeof(r->readings.r[i].family));
	}
	reserve_starts_of(b, id, family, &r->readings, keep);
	if (!store_readings_save(b->store, r->readings.r, r->readings.n, &error))
		store_trouble(b, &error);
}

/* What this run's record did: a trip refuses this host's next spawn from
 * the memo; a success that closed breakers empties it (forgetting costs
 * only a question to the server). */
static void
memo_after_run(struct run_breaker *b, const struct run_result *r)
{
	enum breaker_change c = r->outcome.change;

	if (b->memo[0] == '\0' || b->store == NULL || store_on_journal(b->store) || r->run_id == 0)
		return;
	if (r->outcome.closed > 0 || c == CHANGE_CLOSED)
		memo_forget(b->memo);
	else if (c != CHANGE_NONE)
		memo_note(b->memo, r->outcome.breaker.key.account, r->outcome.breaker.key.family, NULL,
		    &r->outcome.breaker, run_clock(b));
}

void
record_after_run(struct run_breaker *b, const struct run_opts *o, const struct run_identity *id,
    struct run_result *r)
{
	char cwd[PATH_MAX];
	struct run_report run = {
		.argc = o->argc, .argv = o->argv, .cwd = getcwd(cwd, sizeof(cwd)),
		.account = id->account,
		.family = r->sig.family[0] != '\0' ? r->sig.family : id->family,
		.model = r->sig.model, .source = "wrap",
		.started_at = r->clock_started, .ended_at = r->clock_ended,
		.exit_code = r->term_signal != 0 ? -1 : r->exit_code, .term_signal = r->term_signal,
		.usage = r->usage, .holder = &b->holder, .run_id = b->run_id, .trips_seen = b->trips_seen,
		.origin = b->origin, .uid = b->uid, .env_json = b->env_json, .hmac = b->hmac,
	};
	struct budget_settlement settlement;
	struct store_error error;
	double reserve_keep[READINGS_MAX];

	/* The gate's count is of the family it asked about. */
	run.gated = b->gated && strcmp(run.family, id->family) == 0;
	lease_renewer_stop(b->renewer);
	b->renewer = NULL;
	store_resume(b);
	r->run_id = 0;
	b->run_id = 0;
	b->probing = false;
	if (b->store != NULL && store_path_moved(b->store)) {
		reopen_moved_store(b);
		run.run_id = 0;   /* its running row went with the old file */
	}
	run.budgets = budget_settlement_of(b, r, &settlement);
	adaptive_record_run(b, id, r);
	readings_record_run(b, id, run.family, r, reserve_keep);
	/* The outcome is journaled only when the write failed (its transaction
	 * rolled back, the row still running): a wrapper killed before the
	 * write never gave its caller the status either, and its run is lost
	 * (docs/design.md section 7). */
	if (b->store != NULL && breaker_record_run(b->store, &b->cfg, &run, &r->sig, &r->outcome, &error))
		r->run_id = r->outcome.run_id;
	else if (b->store != NULL) {
		run_record_journal(b, run.run_id, r);
		store_trouble(b, &error);
	}
	b->gated = false;
	run_record_settle_origin(b, r);
	run_store_notice(b);
	/* The child's bytes are out and its status known: now the hooks of
	 * what changed, the probe's closes first. */
	hooks_run_transitions(&b->cfg, &b->probe_closes);
	memset(&b->probe_closes, 0, sizeof(b->probe_closes));
	if (r->run_id != 0)
		hooks_run_transitions(&b->cfg, &r->outcome.transitions);
	for (size_t i = 0; i < r->readings.n; i++)
		if (reserve_keep[i] >= 0)
			hook_run_reserve(&b->cfg, &r->readings.r[i], reserve_keep[i]);
	memo_after_run(b, r);
}
