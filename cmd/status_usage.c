/*
 * The usage readings for `status`: per account and window, the agents' last
 * word on how much of the window is used, its age and its reset, and
 * whether the family's reserve holds new spawns because of it.
 */
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "cmd.h"
#include "conf.h"
#include "history.h"
#include "key.h"
#include "reserve.h"
#include "visible.h"

struct meter_sum {
	const struct usage_reading *r;
	struct window_meter m;
};

static bool
meter_run(const struct run_row *row, void *arg)
{
	struct meter_sum *s = arg;
	double tokens = (double)((row->usage.input_tokens > 0 ? row->usage.input_tokens : 0) +
	    (row->usage.output_tokens > 0 ? row->usage.output_tokens : 0));

	if (s->r->model[0] != '\0' && !scope_applies(s->r->model, row->model))
		return true;
	/* a reading's time is kept to the second: a run started within it is
	 * the one that read it, or one of its kind */
	if (row->started_at < s->r->at + 1)
		s->m.before += tokens;
	else
		s->m.after += tokens;
	return true;
}

/* The reading's window as the runs table metered it (a report may read
 * history; admission never does).  A store that cannot say: nothing
 * metered, so the reading's own pace. */
static void
window_meter(struct store *store, const struct usage_reading *r, struct window_meter *m)
{
	struct meter_sum s = { .r = r };
	struct store_error error;
	struct run_filter f;

	*m = (struct window_meter){ 0, 0 };
	if (store == NULL || r->window_secs <= 0 || r->resets_at <= 0)
		return;
	run_filter_init(&f);
	f.since = r->resets_at - r->window_secs;
	f.values[FILTER_FAMILY][f.count[FILTER_FAMILY]++] = cmd_strdup(r->family);
	f.values[FILTER_ACCOUNT][f.count[FILTER_ACCOUNT]++] = cmd_strdup(r->account);
	if (store_runs_each(store, &f, meter_run, &s, &error))
		*m = s.m;
	run_filter_free(&f);
}

/* The share the reading's family keeps of its window; -1: no reserve. */
static double
keep_of(const struct config *cfg, const struct usage_reading *r)
{
	const struct family_config *fc = config_family(cfg, r->family);

	return fc == NULL ? -1 : reserve_for(fc->reserves, fc->reserves_len, r->window_secs);
}

static bool
held(const struct config *cfg, const struct usage_reading *r, double now)
{
	const struct family_config *fc = config_family(cfg, r->family);

	return fc != NULL && reserve_holds(fc->reserves, fc->reserves_len, r, now);
}

static json_t *
number_or_null(double v, bool known)
{
	return known ? json_real(v) : json_null();
}

static json_t *
epoch_iso(double t)
{
	char buf[40];

	if (t <= 0)
		return json_null();
	format_utc_iso(t, buf, sizeof(buf));
	return json_string(buf);
}

double
status_reading_runway(struct store *store, const struct usage_reading *r, double now)
{
	struct window_meter m;

	window_meter(store, r, &m);
	return reading_runway_metered(r, &m, now);
}

json_t *
status_reading_json(const struct config *cfg, struct store *store, const struct usage_reading *r, double now)
{
	double left = reading_left(r), keep = keep_of(cfg, r), runway = status_reading_runway(store, r, now);
	json_t *obj = json_pack("{s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:f, s:b, s:b, s:o, s:b}",
	    "family", r->family, "account", r->account, "window", r->window,
	    "model", r->model[0] != '\0' ? json_string(r->model) : json_null(),
	    "window_secs", number_or_null(r->window_secs, r->window_secs > 0),
	    "used", number_or_null(r->used, r->used >= 0), "left", number_or_null(left, left >= 0),
	    "status", r->status[0] != '\0' ? json_string(r->status) : json_null(),
	    "resets_at", epoch_iso(r->resets_at), "read_at", epoch_iso(r->at),
	    "age_secs", now > r->at ? now - r->at : 0.0, "current", reading_current(r, now),
	    "warning", reading_warns(r) && reading_current(r, now), "reserve", number_or_null(keep, keep >= 0),
	    "held", held(cfg, r, now));

	/* the seconds until used up at the window's pace, and whether that is
	 * before its reset */
	json_object_set_new(obj, "runway_secs", number_or_null(runway, runway >= 0));
	json_object_set_new(obj, "out_before_reset", runway >= 0 ? json_boolean(runway < r->resets_at - now) :
	    json_null());
	return obj;
}

/* "; at this pace: out in 40m, before the reset in 2h10m", or "lasts to
 * the reset"; "" when the reading cannot say. */
static void
runway_text(struct store *store, const struct usage_reading *r, double now, char *buf, size_t size)
{
	double runway = status_reading_runway(store, r, now), to_reset = r->resets_at - now;
	char out[32], reset[32];

	buf[0] = '\0';
	if (runway < 0 || reading_left(r) == 0)
		return;
	format_duration_short(to_reset, reset, sizeof(reset));
	if (runway >= to_reset) {
		snprintf(buf, size, "; at this pace: lasts to the reset in %s", reset);
		return;
	}
	format_duration_short(runway, out, sizeof(out));
	snprintf(buf, size, "; at this pace: out in %s, before the reset in %s", out, reset);
}

/* "usage claude (account work) five_hour: 92% used, allowed_warning, read
 * 5m0s ago, resets ... (in 3h0m); the reserve (10%) holds new spawns" */
void
status_print_reading(const struct config *cfg, struct store *store, const struct usage_reading *r, double now)
{
	char used[48] = "usage not said", age[32], reset[160] = "an unknown time", tail[96] = "", pace[128];

	if (r->used >= 0)
		snprintf(used, sizeof(used), "%.0f%% used", 100 * r->used);
	else if (reading_left(r) == 0)
		strlcpy(used, "used up", sizeof(used));
	format_duration_short(now > r->at ? now - r->at : 0, age, sizeof(age));
	if (r->resets_at > 0)
		cmd_format_reset(r->resets_at, (time_t)now, reset, sizeof(reset));
	if (!reading_current(r, now))
		strlcpy(tail, "; the window has reset since", sizeof(tail));
	else if (held(cfg, r, now))
		snprintf(tail, sizeof(tail), "; the reserve (%.0f%%) holds new spawns%s%s", 100 * keep_of(cfg, r),
		    r->model[0] != '\0' ? " of " : "", r->model);
	runway_text(store, r, now, pace, sizeof(pace));
	print_visible("usage %s (account %s) %s: %s%s%s, read %s ago, resets %s%s%s", r->family, r->account,
	    r->window, used, r->status[0] != '\0' ? ", " : "", r->status, age, reset, pace, tail);
}

/* "claude reserve 3h00m" while the reserve holds, "claude 5h 92%" for a
 * window that warns: status --short's words for the reading. */
bool
status_short_reading(const struct config *cfg, const struct usage_reading *r, double now, char *buf,
    size_t size, bool *holds)
{
	long long m;

	*holds = false;
	if (!reading_current(r, now) || (!reading_warns(r) && !held(cfg, r, now)))
		return false;
	if ((*holds = held(cfg, r, now))) {
		m = (long long)((r->resets_at - now + 59) / 60);
		if (m >= 60)
			snprintf(buf, size, "%s reserve %lldh%02lldm", r->family, m / 60, m % 60);
		else
			snprintf(buf, size, "%s reserve %lldm", r->family, m < 1 ? 1 : m);
		return true;
	}
	if (r->used >= 0)
		snprintf(buf, size, "%s %s %.0f%%", r->family, r->window, 100 * r->used);
	else
		snprintf(buf, size, "%s %s warning", r->family, r->window);
	return true;
}
