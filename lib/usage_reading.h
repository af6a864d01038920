/*
 * usage_reading.h: what an agent says about how close a usage window is to
 * its wall (Claude's rate_limit_event, Codex's token_count rate_limits),
 * read from the stream and kept in the store per account and window
 * (docs/design.md section 10, "Usage readings").
 *
 * Ownership: plain values with fixed arrays, copied by assignment; the
 * json_t given to the readers is borrowed.
 */
#ifndef RLWRAP_USAGE_READING_H
#define RLWRAP_USAGE_READING_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#define READING_WINDOW_MAX 48
#define READING_STATUS_MAX 24
#define READING_MODEL_MAX 32
/* Windows one run can report: Claude has five, Codex two. */
#define READINGS_MAX 8

struct usage_reading {
	char account[256], family[32];
	char window[READING_WINDOW_MAX];  /* five_hour, seven_day, seven_day_opus, primary, ... */
	char model[READING_MODEL_MAX];    /* the model class the window limits; "" = every model */
	double window_secs;               /* its length; 0 = unknown */
	double used;                      /* fraction used, 0..1; -1 = unknown */
	char status[READING_STATUS_MAX];  /* allowed, allowed_warning, rejected; "" = not said */
	double resets_at;                 /* epoch seconds; 0 = unknown */
	double at;                        /* when it was read */
};

/* One run's readings: the newest per window. */
struct reading_set {
	size_t n;
	struct usage_reading r[READINGS_MAX];
};

/* Claude's rate_limit_info: the window it names, and each of
 * unifiedWindows. */
void readings_from_claude(struct reading_set *set, json_t *info, double now);
/* Codex's rate_limits: primary and secondary. */
void readings_from_codex(struct reading_set *set, json_t *rate_limits, double now);

/* Is the reading still about the window it read (its reset not passed)? */
bool reading_current(const struct usage_reading *r, double now);
/* Fraction left (0..1), or -1 when the reading does not say: a rejection
 * leaves nothing, a warning at least its threshold is used. */
double reading_left(const struct usage_reading *r);
/* Seconds from now until the window is used up at the pace it was used
 * at until the reading (its used share over the time since the window
 * began: its reset less its length); 0 when nothing is left, -1 when the
 * reading cannot say (no share, no length, or its window reset since). */
double reading_runway(const struct usage_reading *r, double now);
/* The tokens the runs table metered for a reading's key (account,
 * family; a model window's model) in its window, on every host: those of
 * the runs started from the window's start up to the reading, and since. */
struct window_meter {
	double before, after;
};
/* The runway with the runs metered since the reading: the share a token
 * costs from the runs up to it (its used share over their tokens), the
 * share used by now with the runs since, and the window's pace from its
 * start to now.  reading_runway() when m is NULL or either side metered
 * nothing (the runs table cannot tell an idle account from one used
 * outside rlwrap, so no runs since is no evidence). */
double reading_runway_metered(const struct usage_reading *r, const struct window_meter *m, double now);
/* Does the reading warn (a warning or a rejection, or 75% used or more)? */
bool reading_warns(const struct usage_reading *r);

#endif
