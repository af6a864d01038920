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
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "run.h"
#include "visible.h"

#define POLL_MS_DEFAULT 5000

static double
monotonic(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double
run_clock(const struct run_breaker *b)
{
	return b->clock0 + (monotonic() - b->mono0);
}

bool
run_breaker_init(struct run_breaker *b)
{
	memset(b, 0, sizeof(*b));
	if (!cmd_load_config(&b->cfg))
		return false;
	b->clock0 = cmd_now_precise();
	b->mono0 = monotonic();
	probe_holder_self(&b->holder);
	return true;
}

void
run_breaker_close(struct run_breaker *b)
{
	if (b->store != NULL)
		store_close(b->store);
	b->store = NULL;
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
	if (b->store != NULL)
		store_close(b->store);
	b->store = NULL;
}

/* ---- refusals ---- */

static void
now_timespec(struct timespec *ts)
{
	clock_gettime(CLOCK_REALTIME, ts);
}

/* The refusal for --signal-file: the FailureSignal fields (the breaker's
 * reason and reset), then refused, argv, times, exit_code 75. */
static json_t *
refusal_json(const struct run_opts *o, const struct run_identity *id, const struct breaker *blk,
    double until, time_t now)
{
	struct fail_signal sig;
	struct timespec ts;
	char when[48];
	json_t *obj, *argv = json_array();

	signal_init(&sig);
	sig.reason = blk != NULL ? blk->reason : REASON_NONE;
	sig.confidence = blk != NULL ? 1.0 : 0;
	sig.terminal = true;
	strlcpy(sig.family, id->family, sizeof(sig.family));
	strlcpy(sig.model, id->model, sizeof(sig.model));
	if (blk != NULL) {
		strlcpy(sig.scope, strcmp(blk->key.scope, SCOPE_FAMILY) == 0 ? "family" : blk->key.scope,
		    sizeof(sig.scope));
		sig.resets_at = until;
		strlcpy(sig.message, blk->last_message, sizeof(sig.message));
	}
	sig.exit_code = EXIT_REFUSED;
	obj = signal_to_json(&sig, now);
	if (blk == NULL)
		json_object_set_new(obj, "reason", json_null());
	else   /* the breaker's own words: provider, text, default or manual */
		json_object_set_new(obj, "reset_source", json_string(blk->reset_source));
	for (int i = 0; i < o->argc; i++)
		json_array_append_new(argv, json_string(o->argv[i]));
	json_object_set_new(obj, "refused", json_true());
	json_object_set_new(obj, "account", json_string(id->account));
	json_object_set_new(obj, "argv", argv);
	now_timespec(&ts);
	format_iso_ms(&ts, when, sizeof(when));
	json_object_set_new(obj, "started_at", json_string(when));
	json_object_set_new(obj, "ended_at", json_string(when));
	json_object_set_new(obj, "duration_ms", json_integer(0));
	json_object_set_new(obj, "term_signal", json_null());
	json_object_set_new(obj, "run_id", json_null());
	return obj;
}

static void
write_refusal(const struct run_opts *o, const struct run_identity *id, const struct breaker *blk,
    double until, time_t now, const char *store_error)
{
	json_t *obj;

	if (o->signal_file == NULL)
		return;
	obj = refusal_json(o, id, blk, until, now);
	if (store_error != NULL)
		json_object_set_new(obj, "store_error", json_string(store_error));
	write_json_file("--signal-file", o->signal_file, obj);
	json_decref(obj);
}

/* One line: "refused: claude (scope *, account default) open on usage-limit
 * until 2026-11-30T16:00:00Z (2026-11-30 17:00 CET, in 4h0m), reset from provider". */
static int
refuse(const struct run_opts *o, const struct run_identity *id, const struct gate_decision *d,
    double now, double wait_max)
{
	const struct breaker *blk = &d->blocking;
	char reset[160], budget[64] = "", holder[320] = "";

	cmd_format_reset(d->blocked_until, (time_t)now, reset, sizeof(reset));
	if (wait_max >= 0) {
		strlcpy(budget, "; beyond the --wait budget of ", sizeof(budget));
		format_duration_short(wait_max, budget + strlen(budget), sizeof(budget) - strlen(budget));
	}
	if (d->probe_busy)
		snprintf(holder, sizeof(holder), ", a probe (pid %ld on %s) runs until", blk->lease.pid,
		    blk->lease.host);
	warnx_visible("refused: %s (scope %s, account %s) %s on %s%s until %s, reset from %s%s", id->family,
	    blk->key.scope, blk->key.account, d->probe_busy ? "half-open" : "open",
	    reason_name(blk->reason), holder, reset, blk->reset_source, budget);
	write_refusal(o, id, blk, d->blocked_until, (time_t)now, NULL);
	return EXIT_REFUSED;
}

/* on_store_error = closed: no spawn without the state file's say. */
static int
refuse_store(const struct run_opts *o, const struct run_identity *id, const struct store_error *error,
    double now)
{
	warnx_visible("refused: state file: %s (on_store_error = closed)", error->message);
	write_refusal(o, id, NULL, 0, (time_t)now, error->message);
	return EXIT_REFUSED;
}

int
run_breaker_open(struct run_breaker *b, const struct run_opts *o, const struct run_identity *id)
{
	struct store_options opts;
	struct store_error error;

	if (store_options_resolve(&opts, b->cfg.store_path, b->cfg.keep_runs, b->cfg.keep_days, &error) &&
	    store_open(&opts, &b->store, &error))
		return -1;
	if (b->cfg.on_store_error == STORE_ERROR_CLOSED && !o->force)
		return refuse_store(o, id, &error, run_clock(b));
	/* A file we may only read still refuses spawns its breakers block. */
	if (error.status == STORE_ERR_READONLY) {
		struct store_error ro_error;

		opts.read_only = true;
		b->read_only = store_open(&opts, &b->store, &ro_error);
	}
	warnx_visible("state file: %s; running without %s", error.message,
	    b->store != NULL ? "recording" : "it");
	b->store_warned = true;
	return -1;
}

/* ---- waiting ---- */

static double
poll_interval(void)
{
	const char *env = getenv("RLWRAP_POLL_MS");
	long long ms = POLL_MS_DEFAULT;

	if (env != NULL && *env != '\0')
		ms = strtonum(env, 1, 3600000, NULL);
	return (ms > 0 ? (double)ms : POLL_MS_DEFAULT) / 1000;
}

static void no_op(int signo) { (void)signo; }

/* Blocks the signals that end a wait (taken with sigtimedwait), with a
 * handler meanwhile so that an inherited SIG_IGN does not swallow them. */
struct wait_signals {
	sigset_t set, old_mask;
	struct sigaction old[3];
};
static const int wait_signos[3] = { SIGINT, SIGTERM, SIGHUP };

static void
wait_signals_block(struct wait_signals *w)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = no_op;
	sigemptyset(&sa.sa_mask);
	sigemptyset(&w->set);
	for (int i = 0; i < 3; i++)
		sigaddset(&w->set, wait_signos[i]);
	sigprocmask(SIG_BLOCK, &w->set, &w->old_mask);
	for (int i = 0; i < 3; i++)
		sigaction(wait_signos[i], &sa, &w->old[i]);
}

static void
wait_signals_restore(struct wait_signals *w)
{
	for (int i = 0; i < 3; i++)
		sigaction(wait_signos[i], &w->old[i], NULL);
	sigprocmask(SIG_SETMASK, &w->old_mask, NULL);
}

/* Sleeps secs; the signal that cut it short, or 0. */
static int
nap(const struct wait_signals *w, double secs)
{
	struct timespec ts;
	int signo;

	if (secs < 0.001)
		secs = 0.001;
	ts.tv_sec = (time_t)secs;
	ts.tv_nsec = (long)((secs - (double)ts.tv_sec) * 1e9);
	signo = sigtimedwait(&w->set, NULL, &ts);
	return signo > 0 ? signo : 0;
}

/* What a wait shows: the title, and one line (or a live countdown). */
struct wait_view {
	bool live, shown;
	char what[2048], clock[16];
	double until;
};

static void
view_start(struct wait_view *v, const struct run_opts *o, const struct run_identity *id,
    const char *why, double until, double now)
{
	time_t secs = (time_t)ceil(until);
	struct tm tm;
	char reset[160], what[512];

	v->live = !o->quiet && isatty(STDERR_FILENO);
	v->until = until;
	/* shown on every tick, so made visible once (the account is the user's) */
	snprintf(what, sizeof(what), "%s (account %s): %s", id->family, id->account, why);
	visible_text(what, v->what, sizeof(v->what));
	if (localtime_r(&secs, &tm) == NULL || strftime(v->clock, sizeof(v->clock), "%H:%M", &tm) == 0)
		strlcpy(v->clock, "?", sizeof(v->clock));
	setproctitle("waiting for %s until %s", id->family, v->clock);
	if (!o->quiet && !v->live && !v->shown) {
		cmd_format_reset(until, (time_t)now, reset, sizeof(reset));
		warnx("waiting for %s until %s", v->what, reset);
	}
	v->shown = true;
}

static void
view_tick(const struct wait_view *v, double now)
{
	char left[32];

	if (!v->live)
		return;
	format_duration_short(v->until > now ? v->until - now : 0, left, sizeof(left));
	fprintf(stderr, "\r%s: waiting for %s until %s: %s left\033[K", getprogname(), v->what, v->clock,
	    left);
	fflush(stderr);
}

static void
view_end(const struct wait_view *v)
{
	if (v->live) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
}

/* The gate again during a wait: -1 go, 0 keep waiting (d updated), else
 * the exit status. */
static int
recheck(struct run_breaker *b, const struct run_opts *o, const struct run_identity *id,
    struct gate_request *req, struct gate_decision *d, double budget_end)
{
	double now = run_clock(b);
	struct store_error error;

	req->record = false;
	req->wait_max = budget_end > now ? budget_end - now : 0;
	if (!breaker_gate(b->store, &b->cfg, req, now, d, &error)) {
		store_trouble(b, &error);
		return -1;
	}
	if (d->verdict == GATE_RUN || d->verdict == GATE_PROBE) {
		b->probing = d->verdict == GATE_PROBE;
		return -1;
	}
	if (d->verdict == GATE_REFUSE)
		return refuse(o, id, d, now, o->wait_max);
	d->until = d->blocked_until + breaker_jitter(d->blocked_until - now);
	return 0;
}

/*
 * Waits out d (WAIT): sleeps in steps, shows the countdown, and asks the
 * store again every poll interval while the reset is ahead (a reset or a
 * probe's success ends the wait, a new trip moves it) and once the reset
 * plus jitter has passed.  Between the reset and the jitter's end it only
 * sleeps, so that waiters do not all come back in the same second.
 */
static int
wait_gate(struct run_breaker *b, const struct run_opts *o, const struct run_identity *id,
    struct gate_request *req, struct gate_decision *d)
{
	double start = run_clock(b), budget_end = start + req->wait_max, poll = poll_interval();
	double next_check = start + poll, shown_until = -1;
	struct wait_signals ws;
	struct wait_view view = { 0 };
	int rc = 0, signo;

	wait_signals_block(&ws);
	while (rc == 0) {
		double now = run_clock(b), step;

		if (now >= d->until || (now < d->blocked_until && now >= next_check)) {
			if ((rc = recheck(b, o, id, req, d, budget_end)) != 0)
				break;
			next_check = now + poll;
		}
		if (d->until != shown_until)
			view_start(&view, o, id, reason_name(d->blocking.reason), d->until, now);
		shown_until = d->until;
		view_tick(&view, now);
		step = d->until - now;
		if (now < d->blocked_until && next_check - now < step)
			step = next_check - now;
		if (view.live && step > 1)
			step = 1;
		if ((signo = nap(&ws, step)) != 0)
			rc = 128 + signo;
	}
	view_end(&view);
	wait_signals_restore(&ws);
	return rc;
}

int
wait_plain(struct run_breaker *b, const struct run_opts *o, const struct run_identity *id,
    const char *why, double wake)
{
	struct wait_signals ws;
	struct wait_view view = { 0 };
	double now;
	int signo = 0;

	wait_signals_block(&ws);
	view_start(&view, o, id, why, wake, run_clock(b));
	while (signo == 0 && (now = run_clock(b)) < wake) {
		view_tick(&view, now);
		signo = nap(&ws, view.live && wake - now > 1 ? 1 : wake - now);
	}
	view_end(&view);
	wait_signals_restore(&ws);
	return signo != 0 ? 128 + signo : -1;
}

int
gate_before_spawn(struct run_breaker *b, const struct run_opts *o, const struct run_identity *id,
    double wait_max)
{
	struct gate_request req = {
		.account = id->account, .family = id->family, .model = id->model,
		.holder = b->holder, .wait_max = wait_max, .jitter = 0, .record = !b->read_only,
	};
	struct gate_decision d;
	struct store_error error;
	double now = run_clock(b);

	b->probing = false;
	if (b->store == NULL)
		return -1;
	if (!breaker_gate(b->store, &b->cfg, &req, now, &d, &error)) {
		if (b->cfg.on_store_error == STORE_ERROR_CLOSED)
			return refuse_store(o, id, &error, now);
		store_trouble(b, &error);
		return -1;
	}
	switch (d.verdict) {
	case GATE_RUN:
		return -1;
	case GATE_PROBE:
		b->probing = true;
		return -1;
	case GATE_REFUSE:
		return refuse(o, id, &d, now, wait_max);
	case GATE_WAIT:
		break;
	}
	d.until = d.blocked_until + breaker_jitter(d.blocked_until - now);
	return wait_gate(b, o, id, &req, &d);
}

/* ---- during and after the run ---- */

void
probe_output_seen(struct run_breaker *b, const struct run_identity *id)
{
	struct store_error error;
	int closed;

	if (!b->probing || b->store == NULL)
		return;
	b->probing = false;
	if (!breaker_probe_output(b->store, id->account, id->family, &b->holder, run_clock(b), &closed,
	    &error))
		store_trouble(b, &error);
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
		.usage = r->usage, .holder = &b->holder,
	};
	struct store_error error;

	r->run_id = 0;
	b->probing = false;
	if (b->store == NULL)
		return;
	if (!breaker_record_run(b->store, &b->cfg, &run, &r->sig, &r->outcome, &error)) {
		store_trouble(b, &error);
		return;
	}
	r->run_id = r->outcome.run_id;
}
