/* account_pool.c: the choice of an account from a family's pool. */
#include <math.h>
#include <string.h>

#include "account_pool.h"
#include "key.h"

/* Is a better than b, both free?  Headroom in whole percents (readings
 * are percents; a difference below one is noise), then the sooner reset
 * (its headroom comes back first, so it is spent first; an unknown reset
 * last), then the pool's order (b is later in it). */
static bool
better(const struct pool_account *a, const struct pool_account *b)
{
	long ha = lround(a->headroom * 100), hb = lround(b->headroom * 100);

	if (ha != hb)
		return ha > hb;
	if (a->resets_at > 0 && (b->resets_at <= 0 || a->resets_at < b->resets_at))
		return true;
	return false;
}

int
pool_choose(const struct pool_account *a, size_t n, bool *all_held)
{
	int best = -1, first_freed = -1;

	*all_held = false;
	for (size_t i = 0; i < n; i++) {
		if (a[i].held_until > 0) {
			if (first_freed < 0 || a[i].held_until < a[first_freed].held_until)
				first_freed = (int)i;
			continue;
		}
		if (best < 0 || better(&a[i], &a[best]))
			best = (int)i;
	}
	if (best >= 0)
		return best;
	*all_held = first_freed >= 0;
	return first_freed;
}

void
pool_headroom(const struct usage_reading *rows, size_t n, const char *model, double now,
    double *headroom, double *resets_at)
{
	*headroom = 1;
	*resets_at = 0;
	for (size_t i = 0; i < n; i++) {
		const struct usage_reading *r = &rows[i];
		double left = reading_left(r);

		if (left < 0 || !reading_current(r, now) ||
		    !scope_applies(r->model[0] != '\0' ? r->model : SCOPE_FAMILY, model))
			continue;
		if (left < *headroom || (left == *headroom && (*resets_at == 0 || r->resets_at < *resets_at))) {
			*headroom = left;
			*resets_at = r->resets_at;
		}
	}
}
