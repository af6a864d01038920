/* admission.c: running rows, lost runs, concurrency slots. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "admission.h"
#include "holder.h"

/* What the store holds for one key (or all), with the dead cleared when
 * clear is set (inside a transaction). */
struct census {
	long running, ahead, tickets;
	bool dead;                /* a dead owner was seen */
	bool ours;                /* our ticket is still there */
};

static bool
count_running(struct store *store, const char *account, const char *family, double now,
    const char *host, bool clear, struct census *c, int *lost, struct store_error *err)
{
	struct running_run *rows;
	size_t count;
	bool ok = true;

	if (!store_running(store, account, family, &rows, &count, err))
		return false;
	for (size_t i = 0; i < count && ok; i++) {
		if (holder_alive(&rows[i].owner, now, host)) {
			c->running++;
			continue;
		}
		c->dead = true;
		if (clear && (ok = store_run_mark_lost(store, rows[i].id, err)) && lost != NULL)
			(*lost)++;
	}
	free(rows);
	return ok;
}

static bool
count_tickets(struct store *store, const char *account, const char *family, long long ticket,
    double now, const char *host, bool clear, struct census *c, struct store_error *err)
{
	struct slot_ticket *rows;
	size_t count;
	bool ok = true;

	if (!store_tickets(store, account, family, &rows, &count, err))
		return false;
	for (size_t i = 0; i < count && ok; i++) {
		if (rows[i].id == ticket) {
			c->ours = true;
			continue;
		}
		if (!holder_alive(&rows[i].owner, now, host)) {
			c->dead = true;
			if (clear)
				ok = store_ticket_remove(store, rows[i].id, err);
			continue;
		}
		c->tickets++;
		if (ticket == 0 || rows[i].id < ticket)
			c->ahead++;
	}
	free(rows);
	return ok;
}

bool
admission_reap(struct store *store, double now, const char *local_host, int *lost, struct store_error *err)
{
	struct census c = { 0 };

	if (lost != NULL)
		*lost = 0;
	/* A look first: the lock only when someone died. */
	if (!count_running(store, NULL, NULL, now, local_host, false, &c, NULL, err) ||
	    !count_tickets(store, NULL, NULL, 0, now, local_host, false, &c, err))
		return false;
	if (!c.dead)
		return true;
	if (!store_begin(store, err))
		return false;
	if (!count_running(store, NULL, NULL, now, local_host, true, &c, lost, err) ||
	    !count_tickets(store, NULL, NULL, 0, now, local_host, true, &c, err)) {
		store_rollback(store);
		return false;
	}
	return store_commit(store, err);
}

static bool
has_budget(const struct admission *a)
{
	return a->budget != NULL && a->budget->count > 0;
}

/* The budgets are looked at only by the head of the queue (or a spawn
 * with nobody ahead): those behind it wait for their place anyway.  A
 * first look without the lock skips them: room or not, the spawn takes the
 * lock next (to start, or to join the queue), and looks there. */
static bool
census_take(struct store *store, struct admission *a, double now, bool clear, struct census *c,
    struct store_error *err)
{
	memset(c, 0, sizeof(*c));
	a->look = (struct budget_look){ .room = true };
	return count_running(store, a->account, a->family, now, a->self.host, clear, c, NULL, err) &&
	    count_tickets(store, a->account, a->family, a->ticket, now, a->self.host, clear, c, err) &&
	    (!has_budget(a) || c->ahead > 0 || c->running >= a->max || (!clear && a->ticket == 0) ||
	    budget_look(store, a->budget, now, a->reserve, &a->look, err));
}

/* run, owned by us, as a running row. */
static bool
start_run(struct store *store, const struct admission *a, const struct run_row *run, long long *run_id,
    struct store_error *err)
{
	struct run_row row = *run;

	row.state = "running";
	row.host = a->self.host;
	row.pid = a->self.pid;
	row.pid_start_time = a->self.start_time;
	row.alive_until = a->self.expires_at;
	return store_run_start(store, &row, run_id, err);
}

/* A slot is ours when one is free and nobody queued before us: the head of
 * the queue takes it, the next one the slot after (at its next look), so
 * that children start in the order their wrappers came. */
static bool
slot_free(const struct admission *a, const struct census *c)
{
	return c->running < a->max && c->ahead == 0 && a->look.room;
}

/* Inside the transaction: run (when run is given and a slot is free for
 * us), or take or keep a ticket. */
static bool
admit_locked(struct store *store, struct admission *a, const struct run_row *run, double now,
    bool *admitted, long long *run_id, struct store_error *err)
{
	struct census c;
	struct slot_ticket t = { .at = now };

	if (!census_take(store, a, now, true, &c, err))
		return false;
	a->running = c.running;
	a->ahead = c.ahead;
	a->self.expires_at = now + a->ttl;
	*admitted = slot_free(a, &c);
	if (*admitted && run == NULL && a->ticket == 0)
		return true;
	if (*admitted && run != NULL) {
		if (a->ticket != 0 && !store_ticket_remove(store, a->ticket, err))
			return false;
		a->ticket = 0;
		if (has_budget(a) && (!budget_reserve(store, a->budget, now, a->reserve, err) ||
		    (a->look.expired >= BUDGET_PRUNE_AT && !budget_prune(store, a->budget, now, err))))
			return false;
		a->reserved_at = has_budget(a) ? now : 0;
		return start_run(store, a, run, run_id, err);
	}
	if (a->ticket != 0 && c.ours)
		return store_ticket_renew(store, a->ticket, a->self.expires_at, err);
	/* First call, or our ticket was cleared as dead (we were stopped for
	 * longer than the ttl): join at the back. */
	t.owner = a->self;
	strlcpy(t.account, a->account, sizeof(t.account));
	strlcpy(t.family, a->family, sizeof(t.family));
	return store_ticket_add(store, &t, &a->ticket, err);
}

/* Our ticket's heartbeat: renewed at half its ttl. */
static bool
place_due(const struct admission *a, double now)
{
	return a->self.expires_at - now <= a->ttl / 2;
}

/*
 * A waiter's look, O(1) in the queue's length: one row says who heads the
 * queue.  Behind a live head it stays behind (*decided, not admitted; its
 * ahead is the last full look's), renewing its ticket when due.  At the
 * head, the key's running rows (at most max live ones) and its budgets are
 * read, as census_take() would with nobody ahead.  A dead head, a lost
 * ticket, or a head that finds a slot free or a dead run goes on to the
 * transaction (*decided false, c filled).
 */
static bool
waiter_look(struct store *store, struct admission *a, double now, struct census *c, bool *admitted,
    bool *decided, struct store_error *err)
{
	struct slot_ticket head;
	bool ours;

	*decided = false;
	memset(c, 0, sizeof(*c));
	a->look = (struct budget_look){ .room = true };
	if (!store_queue_head(store, a->account, a->family, a->ticket, &head, &ours, err))
		return false;
	if (!ours || (head.id != a->ticket && !holder_alive(&head.owner, now, a->self.host))) {
		c->dead = true;   /* the transaction clears it, or puts us back */
		return true;
	}
	c->ours = true;
	if (head.id != a->ticket) {
		a->ahead = a->ahead > 0 ? a->ahead : 1;
		*admitted = false;
		*decided = true;
		/* One row's write, no lock: a dead-owner sweep that removed it
		 * first is seen at the next look (!ours). */
		if (!place_due(a, now))
			return true;
		a->self.expires_at = now + a->ttl;
		return store_ticket_renew(store, a->ticket, a->self.expires_at, err);
	}
	return count_running(store, a->account, a->family, now, a->self.host, false, c, NULL, err) &&
	    (!has_budget(a) || c->running >= a->max ||
	    budget_look(store, a->budget, now, a->reserve, &a->look, err));
}

bool
admission_try(struct store *store, struct admission *a, const struct run_row *run, double now,
    bool *admitted, long long *run_id, struct store_error *err)
{
	struct census c;
	bool place_kept;

	*admitted = false;
	if (a->auto_max > 0) {
		struct adaptive_limit l;

		if (!adaptive_current(store, a->account, a->family, a->auto_min, a->auto_max, &l, err))
			return false;
		a->max = l.limit;
	}
	if (has_budget(a) && a->max <= 0)
		a->max = LONG_MAX;
	if (a->max <= 0) {
		a->self.expires_at = now + a->ttl;
		*admitted = true;
		return run == NULL || start_run(store, a, run, run_id, err);
	}
	if (a->ticket != 0) {
		bool decided;

		if (!waiter_look(store, a, now, &c, admitted, &decided, err))
			return false;
		if (decided)
			return true;
	} else if (!census_take(store, a, now, false, &c, err))
		/* Everyone else looks first without the lock: a free slot costs
		 * a spawn one transaction, the one that writes its row. */
		return false;
	a->running = c.running;
	a->ahead = c.ahead;
	*admitted = slot_free(a, &c);
	place_kept = a->ticket != 0 && c.ours && !place_due(a, now);
	if (!c.dead && ((run == NULL && *admitted) || (!*admitted && place_kept)))
		return true;
	if (!store_begin(store, err))
		return false;
	if (!admit_locked(store, a, run, now, admitted, run_id, err)) {
		store_rollback(store);
		*admitted = false;
		return false;
	}
	return store_commit(store, err);
}

/* ---- adaptive concurrency ---- */

bool
adaptive_current(struct store *store, const char *account, const char *family, long lo, long hi,
    struct adaptive_limit *l, struct store_error *err)
{
	struct adaptive_limit *rows;
	size_t count;

	memset(l, 0, sizeof(*l));
	if (!store_adaptive_limits(store, account, family, &rows, &count, err))
		return false;
	if (count > 0)
		*l = rows[0];
	free(rows);
	strlcpy(l->account, account, sizeof(l->account));
	strlcpy(l->family, family, sizeof(l->family));
	if (count == 0) {
		l->limit = hi;
		snprintf(l->why, sizeof(l->why), "the upper bound, before any outcome");
	}
	/* The bounds may have changed in the config since it was stored. */
	l->limit = l->limit < lo ? lo : l->limit > hi ? hi : l->limit;
	return true;
}

bool
adaptive_next(struct adaptive_limit *l, long lo, long hi, enum adaptive_outcome outcome, double started_at,
    double now, double window)
{
	long was = l->limit;

	if (outcome == ADAPTIVE_LIMITED) {
		if (started_at < l->changed_at)
			return false;   /* this congestion event has been counted */
		l->limit = was / 2 < lo ? lo : was / 2;
		l->successes = 0;
		l->changed_at = now;
		snprintf(l->why, sizeof(l->why), "%s from %ld on a rate limit or overload",
		    l->limit < was ? "halved" : "held at the lower bound", was);
		return true;
	}
	if (outcome != ADAPTIVE_CLEAN)
		return false;
	l->successes++;
	if (l->successes >= was && now - l->changed_at >= window && was < hi) {
		l->limit = was + 1;
		l->successes = 0;
		l->changed_at = now;
		snprintf(l->why, sizeof(l->why), "grew from %ld after a clean window", was);
	}
	return true;
}

bool
adaptive_record(struct store *store, const char *account, const char *family, long lo, long hi,
    enum adaptive_outcome outcome, double started_at, double now, double window, struct store_error *err)
{
	struct adaptive_limit l;

	if (outcome == ADAPTIVE_OTHER)
		return true;
	if (!store_begin(store, err))
		return false;
	if (!adaptive_current(store, account, family, lo, hi, &l, err) ||
	    (adaptive_next(&l, lo, hi, outcome, started_at, now, window) && !store_adaptive_save(store, &l, err))) {
		store_rollback(store);
		return false;
	}
	return store_commit(store, err);
}

bool
admission_leave(struct store *store, struct admission *a, struct store_error *err)
{
	long long ticket = a->ticket;

	a->ticket = 0;
	return ticket == 0 || store_ticket_remove(store, ticket, err);
}
