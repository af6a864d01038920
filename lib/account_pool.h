/*
 * account_pool.h: which account of a family's pool (`accounts = work
 * personal`) an unpinned spawn runs on (docs/design.md section 10,
 * "Account pools"): one that is not held (breaker or reserve), the most
 * headroom, then the soonest reset, then the order of the pool; when every
 * account is held, the one freed first.
 *
 * Ownership: plain values; names and readings are borrowed.
 */
#ifndef RLWRAP_ACCOUNT_POOL_H
#define RLWRAP_ACCOUNT_POOL_H

#include <stdbool.h>
#include <stddef.h>

#include "usage_reading.h"

/* What the gate knows of one account of the pool now. */
struct pool_account {
	const char *name;
	double held_until;   /* 0: free now; else when what holds it (breaker, reserve) lets go */
	double headroom;     /* the share left of its tightest current window, 0..1; 1: none says */
	double resets_at;    /* that window's reset; 0 = none known */
};

/* The index of the account to run on, -1 when n is 0; *all_held says
 * that every account is held, and the index is then the one freed first. */
int pool_choose(const struct pool_account *a, size_t n, bool *all_held);

/* An account's headroom from its readings: the least share left among its
 * current readings of windows that limit model ("" = unknown: only the
 * family's windows), and that window's reset.  No such reading: 1 and 0. */
void pool_headroom(const struct usage_reading *rows, size_t n, const char *model, double now,
    double *headroom, double *resets_at);

#endif
