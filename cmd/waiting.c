/* The one waiting loop (waiting.h): clock, nap, signals, view. */
#include <err.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "failsignal.h"
#include "visible.h"
#include "waiting.h"

static void wait_started(const struct wait_loop *w, const struct wait_reason *r, double now);

void
wait_clock_init(struct wait_clock *c)
{
	c->clock0 = cmd_now_precise();
	c->mono0 = cmd_monotonic();
}

double
wait_clock_now(const struct wait_clock *c)
{
	return c->clock0 + (cmd_monotonic() - c->mono0);
}

double
wait_clock_read(const void *clock)
{
	return wait_clock_now(clock);
}

/* ---- signals: blocked, taken with sigtimedwait ---- */

static void no_op(int signo) { (void)signo; }

/* A handler meanwhile, so that an inherited SIG_IGN does not swallow them.
 * SIGCONT is taken too (blocking it never keeps the process stopped): after
 * fg the live line is drawn again at once, not when its text next changes. */
#define WAIT_SIGNALS 4
struct wait_signals {
	sigset_t set, old_mask;
	struct sigaction old[WAIT_SIGNALS];
};
static const int wait_signos[WAIT_SIGNALS] = { SIGINT, SIGTERM, SIGHUP, SIGCONT };

static void
signals_block(struct wait_signals *ws)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = no_op;
	sigemptyset(&sa.sa_mask);
	sigemptyset(&ws->set);
	for (int i = 0; i < WAIT_SIGNALS; i++)
		sigaddset(&ws->set, wait_signos[i]);
	sigprocmask(SIG_BLOCK, &ws->set, &ws->old_mask);
	for (int i = 0; i < WAIT_SIGNALS; i++)
		sigaction(wait_signos[i], &sa, &ws->old[i]);
}

static void
signals_restore(const struct wait_signals *ws)
{
	for (int i = 0; i < WAIT_SIGNALS; i++)
		sigaction(wait_signos[i], &ws->old[i], NULL);
	sigprocmask(SIG_SETMASK, &ws->old_mask, NULL);
}

/* Sleeps secs; the signal that cut it short, or 0. */
static int
nap(const struct wait_signals *ws, double secs)
{
	struct timespec ts;
	int signo;

	if (secs < 0.001)
		secs = 0.001;
	ts.tv_sec = (time_t)secs;
	ts.tv_nsec = (long)((secs - (double)ts.tv_sec) * 1e9);
	signo = sigtimedwait(&ws->set, NULL, &ts);
	return signo > 0 ? signo : 0;
}

/* ---- the view ---- */

struct wait_view {
	bool live, said;
	double since;
	char what[2048], clock[16];   /* "WHO: WHY", made visible (the account is the user's) */
	char shown[2200];             /* the live line last drawn */
};

static void
view_update(struct wait_view *v, const struct wait_loop *w, const struct wait_reason *r, double now)
{
	time_t secs = (time_t)ceil(r->until);
	struct tm tm;
	char reset[160], what[1024];

	strlcpy(v->clock, "", sizeof(v->clock));
	if (r->until > 0 && (localtime_r(&secs, &tm) == NULL ||
	    strftime(v->clock, sizeof(v->clock), "%H:%M", &tm) == 0))
		strlcpy(v->clock, "?", sizeof(v->clock));
	if (r->until > 0)
		setproctitle("waiting for %s until %s", r->title, v->clock);
	else
		setproctitle("waiting for %s", r->title);
	snprintf(what, sizeof(what), "%s: %s", w->who, r->why);
	visible_text(what, v->what, sizeof(v->what));
	if (!w->quiet && !v->live && !v->said) {
		if (r->until > 0) {
			cmd_format_reset(r->until, (time_t)now, reset, sizeof(reset));
			warnx("waiting for %s until %s", v->what, reset);
		} else
			warnx("waiting for %s", v->what);
	}
	v->said = true;
	wait_started(w, r, now);
}

/* The live line, drawn again only when it reads differently (a slot's
 * waiter wakes ten times a second). */
static void
view_tick(struct wait_view *v, const struct wait_reason *r, double now)
{
	char left[32], line[sizeof(v->shown)];

	if (!v->live)
		return;
	if (r->until > 0) {
		format_duration_short(r->until > now ? r->until - now : 0, left, sizeof(left));
		snprintf(line, sizeof(line), "waiting for %s until %s: %s left", v->what, v->clock, left);
	} else {
		format_duration_short(now - v->since, left, sizeof(left));
		snprintf(line, sizeof(line), "waiting for %s: %s so far", v->what, left);
	}
	if (strcmp(line, v->shown) == 0)
		return;
	strlcpy(v->shown, line, sizeof(v->shown));
	fprintf(stderr, "\r%s: %s\033[K", getprogname(), line);
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

/* Called once when a wait begins and again when its reason changes: the
 * one place that knows a spawn started waiting (hooks go here). */
static void
wait_started(const struct wait_loop *w, const struct wait_reason *r, double now)
{
	(void)w;
	(void)r;
	(void)now;
}

/* The next wake-up: the check, the budget's end, a second on a live view. */
static double
next_step(const struct wait_loop *w, const struct wait_view *v, const struct wait_reason *r, double now)
{
	double step = r->next_check - now;

	if (r->until <= 0 && w->budget_end >= 0 && w->budget_end - now < step)
		step = w->budget_end - now;
	if (v->live && step > 1)
		step = 1;
	return step;
}

/* What a nap's signal means: SIGCONT (back from a stop) a redraw, another
 * the end of the wait (128 + n). */
static int
after_nap(struct wait_view *v, int signo)
{
	if (signo == SIGCONT) {
		v->shown[0] = '\0';
		return WAIT_MORE;
	}
	return signo != 0 ? 128 + signo : WAIT_MORE;
}

int
wait_loop_run(const struct wait_loop *w, struct wait_reason *r)
{
	struct wait_view view = { .live = !w->quiet && isatty(STDERR_FILENO) };
	struct wait_reason shown = { .until = -1 };
	struct wait_signals ws;
	int rc = WAIT_MORE, signo;

	view.since = wait_clock_now(w->clock);
	signals_block(&ws);
	while (rc == WAIT_MORE) {
		double now = wait_clock_now(w->clock);

		if (now >= r->next_check && (rc = w->check(w->arg, now, r)) != WAIT_MORE)
			break;
		if (r->until <= 0 && w->budget_end >= 0 && now >= w->budget_end) {
			rc = WAIT_TIMEOUT;
			break;
		}
		if (r->until != shown.until || strcmp(r->why, shown.why) != 0) {
			view_update(&view, w, r, now);
			shown = *r;
		}
		view_tick(&view, r, now);
		if (w->await != NULL && r->until <= 0) {
			if (w->await(w->arg, next_step(w, &view, r, now)))
				r->next_check = 0;
			signo = nap(&ws, 0);
		} else
			signo = nap(&ws, next_step(w, &view, r, now));
		rc = after_nap(&view, signo);
	}
	view_end(&view);
	signals_restore(&ws);
	return rc;
}
