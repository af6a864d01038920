/*
 * reserve.h: a family's reserve, the headroom of a usage window that new
 * batch spawns leave alone (`reserve = 10%`, `reserve = 5h:10% 7d:5%`),
 * and which of the store's usage readings hold a spawn because of it
 * (docs/design.md section 10, "Reserve").
 *
 * Ownership: plain values; the readings are borrowed.
 */
#ifndef RLWRAP_RESERVE_H
#define RLWRAP_RESERVE_H

#include <stdbool.h>
#include <stddef.h>

#include "usage_reading.h"

#define RESERVES_MAX 4

struct reserve {
	double window_secs;   /* the window's length; 0 = every window */
	double fraction;      /* left untouched, 0 < fraction < 1 */
};

/* "10%" or "5h:10% 7d:5%" (a window's length, then its share): false on
 * anything else, or more than max. */
bool reserve_parse(const char *value, struct reserve *out, size_t max, size_t *n);
/* The share kept of a window of that length: its own entry, else the
 * entry for every window; -1 when none applies. */
double reserve_for(const struct reserve *rs, size_t n, double window_secs);
/* The reading that holds a spawn of model ("" = unknown) now: current,
 * of a window that limits that model, with less left than its reserve;
 * the one whose reset is latest.  NULL when none. */
const struct usage_reading *reserve_holding(const struct reserve *rs, size_t n,
    const struct usage_reading *rows, size_t nrows, const char *model, double now);

/* Does the reading hold spawns (of its window's models) now? */
bool reserve_holds(const struct reserve *rs, size_t n, const struct usage_reading *r, double now);
/* Does the new reading start a hold the window's stored one (NULL: none)
 * did not: for on_reserve, once per window and reset. */
bool reserve_starts(const struct reserve *rs, size_t n, const struct usage_reading *stored,
    const struct usage_reading *fresh, double now);

#endif
