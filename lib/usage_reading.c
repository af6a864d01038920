/* usage_reading.c: usage readings from the agents' own records. */
#include <math.h>
#include <string.h>

#include "textutil.h"
#include "usage_reading.h"

#define HOUR 3600.0
#define DAY (24 * HOUR)

/* Puts r in the set, replacing the window's older reading (a full set
 * drops the new window). */
static void
reading_set_put(struct reading_set *set, const struct usage_reading *r)
{
	for (size_t i = 0; i < set->n; i++)
		if (strcmp(set->r[i].window, r->window) == 0) {
			set->r[i] = *r;
			return;
		}
	if (set->n < READINGS_MAX)
		set->r[set->n++] = *r;
}

/* A number of the object, or -1 (negative and non-finite values too). */
static double
number_of(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);
	double d;

	if (!json_is_number(v))
		return -1;
	d = json_number_value(v);
	return isfinite(d) && d >= 0 ? d : -1;
}

/* Epoch seconds from seconds or milliseconds; 0 when not a plausible time. */
static double
epoch_of(json_t *obj, const char *key)
{
	double d = number_of(obj, key);

	if (d > 1e11)
		d /= 1000;
	return d >= 1e9 && d < 1e11 ? d : 0;
}

static double
fraction(double used)
{
	return used < 0 ? -1 : used > 1 ? 1 : used;
}

/* Claude's window names: their length, and the model class some limit. */
static void
claude_window(struct usage_reading *r, const char *name)
{
	static const char *const classes[] = { "opus", "sonnet", "haiku" };

	clean_copy_str(r->window, sizeof(r->window), name);
	r->window_secs = strcmp(name, "five_hour") == 0 ? 5 * HOUR :
	    strncmp(name, "seven_day", 9) == 0 ? 7 * DAY : 0;
	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		if (strstr(name, classes[i]) != NULL)
			strlcpy(r->model, classes[i], sizeof(r->model));
}

void
readings_from_claude(struct reading_set *set, json_t *info, double now)
{
	json_t *windows = json_object_get(info, "unifiedWindows"), *w, *type = json_object_get(info, "rateLimitType");
	const char *name, *status = json_string_value(json_object_get(info, "status"));
	struct usage_reading r;

	json_object_foreach(windows, name, w) {
		if (!json_is_object(w) || *name == '\0')
			continue;
		memset(&r, 0, sizeof(r));
		claude_window(&r, name);
		r.used = fraction(number_of(w, "utilization"));
		r.resets_at = epoch_of(w, "resetsAt");
		r.at = now;
		if (r.used >= 0 || r.resets_at > 0)
			reading_set_put(set, &r);
	}
	if (!json_is_string(type) || json_string_length(type) == 0)
		return;
	memset(&r, 0, sizeof(r));
	claude_window(&r, json_string_value(type));
	if ((r.used = fraction(number_of(info, "utilization"))) < 0)
		r.used = fraction(number_of(json_object_get(windows, json_string_value(type)), "utilization"));
	if (r.used < 0)   /* a warning says at least its threshold is used */
		r.used = fraction(number_of(info, "surpassedThreshold"));
	if (status != NULL)
		clean_copy_str(r.status, sizeof(r.status), status);
	r.resets_at = epoch_of(info, "resetsAt");
	r.at = now;
	reading_set_put(set, &r);
}

static void
codex_window(struct reading_set *set, json_t *w, const char *name, double now)
{
	struct usage_reading r = { .at = now };
	double minutes = number_of(w, "window_minutes"), in = number_of(w, "resets_in_seconds");
	double pct = number_of(w, "used_percent");

	if (!json_is_object(w) || pct < 0)
		return;
	strlcpy(r.window, name, sizeof(r.window));
	r.window_secs = minutes > 0 ? minutes * 60 : 0;
	r.used = fraction(pct / 100);
	r.resets_at = epoch_of(w, "resets_at");
	if (r.resets_at == 0 && in >= 0 && in < 366 * DAY)
		r.resets_at = now + in;
	reading_set_put(set, &r);
}

void
readings_from_codex(struct reading_set *set, json_t *rate_limits, double now)
{
	codex_window(set, json_object_get(rate_limits, "primary"), "primary", now);
	codex_window(set, json_object_get(rate_limits, "secondary"), "secondary", now);
}

bool
reading_current(const struct usage_reading *r, double now)
{
	return r->resets_at > now;
}

double
reading_left(const struct usage_reading *r)
{
	if (strcmp(r->status, "rejected") == 0)
		return 0;
	return r->used < 0 ? -1 : 1 - r->used;
}

double
reading_runway(const struct usage_reading *r, double now)
{
	double left = reading_left(r), start = r->resets_at - r->window_secs, spent = r->at - start, out;

	if (!reading_current(r, now) || left < 0)
		return -1;
	if (left == 0)
		return 0;
	if (r->window_secs <= 0 || r->used <= 0 || spent <= 0)
		return -1;
	out = r->at + left * spent / r->used;
	return out > now ? out - now : 0;
}

double
reading_runway_metered(const struct usage_reading *r, const struct window_meter *m, double now)
{
	double start = r->resets_at - r->window_secs, used;

	if (m == NULL || m->before <= 0 || m->after <= 0 || r->used <= 0 || r->window_secs <= 0 ||
	    reading_left(r) <= 0 || !reading_current(r, now) || now <= start)
		return reading_runway(r, now);
	used = r->used + m->after * r->used / m->before;
	if (used >= 1)
		return 0;
	return (1 - used) * (now - start) / used;
}

bool
reading_warns(const struct usage_reading *r)
{
	return strcmp(r->status, "allowed_warning") == 0 || strcmp(r->status, "rejected") == 0 ||
	    r->used >= 0.75;
}
