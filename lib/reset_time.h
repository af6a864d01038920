/*
 * reset_time.h: finding "wait until T" in what a provider or an agent printed.
 *
 * Ownership: nothing here allocates; results are plain values.
 */
#ifndef RLWRAP_RESET_TIME_H
#define RLWRAP_RESET_TIME_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "failsignal.h"

/* Lower rank = more trusted (docs/design.md section 4, "Reset times"). */
enum reset_rank {
	RANK_EPOCH_FIELD = 1,   /* resetsAt, resets_at, X-RateLimit-Reset, ...|epoch */
	RANK_RETRY_AFTER_MS,
	RANK_RETRY_AFTER,
	RANK_PROTOBUF,
	RANK_GO_DURATION,
	RANK_TEXT,
	RANK_NONE = 99
};

struct reset {
	double at;                 /* epoch seconds; 0 = none */
	enum reset_source source;  /* PROVIDER for fields and header values, TEXT for prose */
	enum reset_rank rank;
};

void reset_clear(struct reset *r);
/* Keeps in *best whichever of the two is more trusted (then the later). */
void reset_offer(struct reset *best, double at, enum reset_source src, enum reset_rank rank);

/*
 * Scans free text for every stated reset and keeps the most trusted:
 * header lines ("retry-after-ms: 20000", "Retry-After: 120",
 * "Retry-After: Fri, 31 Dec 1999 23:59:59 GMT",
 * "anthropic-ratelimit-unified-reset: 1770685200",
 * "x-ratelimit-reset-tokens: 6m0s", "X-RateLimit-Reset: 1765661760000")
 * give source PROVIDER; prose gives TEXT:
 * "try again in 1m2.5s", "Please retry in 41.2s", "retry after 20 seconds",
 * "try again in 5 days 22 hours 11 minutes", "reset after 3h20m5s",
 * "resets 6:30pm (Europe/Rome)", "resets Jul 31, 2am (UTC)",
 * "try again at 3:28 PM", "try again at Dec 2nd, 2026 1:36 PM",
 * "regain access on 2026-08-01 at 00:00 UTC", "reset at 5pm (Europe/Warsaw)",
 * "Access resets at 10:57 PM GMT-3", "usage limit reached|1755615600",
 * "Try again in ~231 min".
 * Returns true when something was found.
 */
bool reset_from_text(const char *s, size_t len, time_t now, struct reset *out);

/*
 * docs/design.md: resets more than 8 days ahead are clamped to 8 days; past ones,
 * one at now itself (no wait), non-finite ones and ones more than a year
 * ahead are dropped.
 */
#define RESET_MAX_AHEAD (8 * 86400)
void reset_clamp(struct reset *r, time_t now);

#endif
