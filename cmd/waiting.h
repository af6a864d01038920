/*
 * waiting.h: the one waiting loop, for every wait rlwrap does: a breaker's
 * reset, a concurrency slot, a --retry's backoff (the wrapper) and
 * `rlwrap wait`.  One clock (monotonic time from an origin on the store's
 * clock), one nap that SIGINT, SIGTERM and SIGHUP cut short (128+n), one
 * view: a line on stderr (or a live countdown on a terminal) and the
 * process title, said again whenever what is waited for changes.
 *
 * Ownership: the caller's struct wait_loop and its check's state; the loop
 * owns nothing after it returns.
 */
#ifndef RLWRAP_CMD_WAITING_H
#define RLWRAP_CMD_WAITING_H

#include <stdbool.h>

/* The clock of the store's times: cmd_now() at the origin plus monotonic
 * time since, so that an injected RLWRAP_TEST_NOW still moves in a wait. */
struct wait_clock {
	double clock0, mono0;
};
void wait_clock_init(struct wait_clock *c);
double wait_clock_now(const struct wait_clock *c);
/* The same, in the shape lease_renewer_start() takes. */
double wait_clock_read(const void *clock);

/* What a check saw: why we still wait and until when. */
struct wait_reason {
	char why[160];      /* "usage-limit", "a slot (3 running, 2 ahead)" */
	char title[96];     /* the process title's subject: "claude", "a claude slot" */
	double until;       /* when it should end (store clock); 0 = unknown */
	double next_check;  /* when to call check again */
};

enum { WAIT_GO = -1, WAIT_MORE = -2, WAIT_TIMEOUT = -3 };

struct wait_loop {
	const struct wait_clock *clock;
	const char *who;        /* "claude (account default)" */
	bool quiet;             /* no line, no countdown (the title still says it) */
	/* Store clock; past it, a wait of unknown end (until 0) ends in
	 * WAIT_TIMEOUT.  A wait with a known end is the check's to refuse (the
	 * breakers weigh the reset against what is left).  < 0: none. */
	double budget_end;
	/* WAIT_GO, WAIT_MORE (r updated), or an exit status >= 0 to end with. */
	int (*check)(void *arg, double now, struct wait_reason *r);
	/* Optional, for a wait of unknown end: sleeps up to secs in place of
	 * the nap, true when told to look again at once (a slot may have
	 * freed).  Signals are then taken after it, so it must not sleep long. */
	bool (*await)(void *arg, double secs);
	void *arg;
};

/*
 * Waits from a check that said WAIT_MORE (r as it left it) until a check
 * says go (WAIT_GO) or ends it (its status), the budget runs out
 * (WAIT_TIMEOUT) or a signal comes (128+n).
 */
int wait_loop_run(const struct wait_loop *w, struct wait_reason *r);

#endif
