/*
 * admission.h: who may spawn besides the breakers (docs/design.md section
 * 10): every run is in the store from spawn to exit, owned by its wrapper;
 * a run whose wrapper died is lost; [family.NAME] max_concurrent slots per
 * (account, family), handed out first come, first served across every
 * process and host on the store.
 *
 * Ownership: struct admission is the caller's and borrows its strings.
 * Nothing here prints; store failures come back as struct store_error.
 * Times are the caller's clock.
 */
#ifndef RLWRAP_ADMISSION_H
#define RLWRAP_ADMISSION_H

#include <stdbool.h>

#include "budget.h"
#include "store.h"

/* How long a running row or a place in the queue lives by its own
 * alive_until, for a reader that finds no lease of its host (holder.h). */
#define HEARTBEAT_SECS 30.0
#define HEARTBEAT_TTL_FACTOR 3

/* In one transaction: marks lost every running row whose owner died, and
 * drops dead owners' tickets.  *lost counts the rows marked (may be NULL).
 * Only reads when nobody died. */
bool admission_reap(struct store *store, double now, const char *local_host, int *lost,
    struct store_error *err);

/* One spawn's way through the concurrency gate. */
struct admission {
	const char *account, *family;
	long max;                 /* slots of (account, family); 0 = no limit */
	struct probe_lease self;  /* this wrapper; expires_at is set at each write */
	double ttl;               /* how long a write keeps self alive for other hosts */
	long long ticket;         /* our place in the queue; 0 = none */
	/* At the last look: live runs, live tickets before ours.  A waiter
	 * behind a live head reads neither (one row per look): they are its
	 * last full look's (joining, or when the head was dead). */
	long running, ahead;
	/* Budgets of (account, family) (NULL or count 0: none): a slot is also
	 * free only when every one has room for reserve tokens and a run; the
	 * run that takes it reserves them in the same transaction. */
	const struct budget_key *budget;
	double reserve;
	struct budget_look look;  /* at the last look */
	double reserved_at;       /* the admitted run's reservation; 0 = none */
	/* max_concurrent = auto LO..HI (auto_max 0: not auto): max is the
	 * key's adaptive limit, read from the store at each look. */
	long auto_min, auto_max;
};

/*
 * Starts run as a running row (*run_id) when a slot is free for us: fewer
 * live runs of (account, family) than max, and no live ticket ahead of
 * ours.  Else *admitted is false and we hold a ticket (joining
 * the queue at the first call).  run NULL: only looks (and keeps our place,
 * or takes one when no slot is free): *admitted says whether a slot is free
 * for us.  Most calls while waiting
 * only read: the write lock is taken when a slot looks free for us, a dead
 * owner needs clearing, or our ticket's heartbeat is due.  max 0 and no
 * budget: no limit, the run starts at once.
 */
bool admission_try(struct store *store, struct admission *a, const struct run_row *run,
    double now, bool *admitted, long long *run_id, struct store_error *err);
/*
 * Adaptive concurrency (max_concurrent = auto LO..HI): one limit per key in
 * the store, HI until the first outcome moves it.  A run that ends on a
 * rate limit or an overload halves it (not below LO), once per congestion
 * event: a run that started before the last change is the same event.  A
 * clean run counts towards a clean window: limit clean runs in a row, and
 * window seconds since the last change, then it grows by one (not above
 * HI).  Other outcomes leave it alone.
 */
enum adaptive_outcome { ADAPTIVE_CLEAN, ADAPTIVE_LIMITED, ADAPTIVE_OTHER };
#define ADAPTIVE_WINDOW_SECS 60.0

/* The key's limit now (HI when the store has none), within LO..HI. */
bool adaptive_current(struct store *store, const char *account, const char *family, long lo, long hi,
    struct adaptive_limit *l, struct store_error *err);
/* Moves l by one outcome of a run started at started_at; true when l
 * changed and is to be saved. */
bool adaptive_next(struct adaptive_limit *l, long lo, long hi, enum adaptive_outcome outcome,
    double started_at, double now, double window);
/* adaptive_next() on the stored limit, in one transaction. */
bool adaptive_record(struct store *store, const char *account, const char *family, long lo, long hi,
    enum adaptive_outcome outcome, double started_at, double now, double window, struct store_error *err);

/* Gives up our ticket (a wait that ends without a spawn). */
bool admission_leave(struct store *store, struct admission *a, struct store_error *err);

#endif
