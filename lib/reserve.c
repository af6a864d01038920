/* reserve.c: a family's reserve against its usage readings. */
#include <stdlib.h>
#include <string.h>

#include "key.h"
#include "reserve.h"
#include "timeparse.h"

/* "10%" (the % may be left out: "10"), a share from 0 to 100 exclusive. */
static bool
parse_share(const char *s, double *fraction)
{
	char *end;
	double pct = strtod(s, &end);

	if (end == s || (*end != '\0' && strcmp(end, "%") != 0) || !(pct > 0 && pct < 100))
		return false;
	*fraction = pct / 100;
	return true;
}

static bool
parse_item(char *item, struct reserve *r)
{
	char *colon = strchr(item, ':');

	r->window_secs = 0;
	if (colon != NULL) {
		*colon = '\0';
		if (!duration_parse(item, &r->window_secs) || r->window_secs <= 0)
			return false;
		item = colon + 1;
	}
	return parse_share(item, &r->fraction);
}

bool
reserve_parse(const char *value, struct reserve *out, size_t max, size_t *n)
{
	char copy[256], *item, *save = NULL;

	*n = 0;
	if (strlcpy(copy, value, sizeof(copy)) >= sizeof(copy))
		return false;
	for (item = strtok_r(copy, " \t,", &save); item != NULL; item = strtok_r(NULL, " \t,", &save)) {
		if (*n >= max || !parse_item(item, &out[*n]))
			return false;
		(*n)++;
	}
	return *n > 0;
}

double
reserve_for(const struct reserve *rs, size_t n, double window_secs)
{
	double every = -1;

	for (size_t i = 0; i < n; i++) {
		if (rs[i].window_secs == 0)
			every = rs[i].fraction;
		else if (window_secs > 0 && rs[i].window_secs == window_secs)
			return rs[i].fraction;
	}
	return every;
}

bool
reserve_holds(const struct reserve *rs, size_t n, const struct usage_reading *r, double now)
{
	double keep = reserve_for(rs, n, r->window_secs), left = reading_left(r);

	return keep >= 0 && left >= 0 && left < keep && reading_current(r, now);
}

bool
reserve_starts(const struct reserve *rs, size_t n, const struct usage_reading *stored,
    const struct usage_reading *fresh, double now)
{
	if (!reserve_holds(rs, n, fresh, now))
		return false;
	if (stored == NULL)
		return true;
	if (stored->at > fresh->at)   /* the store keeps the newer one */
		return false;
	return !reserve_holds(rs, n, stored, now) || stored->resets_at != fresh->resets_at;
}

const struct usage_reading *
reserve_holding(const struct reserve *rs, size_t n, const struct usage_reading *rows, size_t nrows,
    const char *model, double now)
{
	const struct usage_reading *worst = NULL;

	for (size_t i = 0; n > 0 && i < nrows; i++) {
		const struct usage_reading *r = &rows[i];

		if (!reserve_holds(rs, n, r, now) ||
		    !scope_applies(r->model[0] != '\0' ? r->model : SCOPE_FAMILY, model))
			continue;
		if (worst == NULL || r->resets_at > worst->resets_at)
			worst = r;
	}
	return worst;
}
