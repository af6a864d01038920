/*
 * timeparse.h: the grammars of "how long" and "until when".
 *
 * Ownership: nothing here allocates.  Clock resolution reads the TZ database
 * by switching the TZ environment variable for the duration of one call and
 * restoring it (rlwrap is single-threaded).
 */
#ifndef RLWRAP_TIMEPARSE_H
#define RLWRAP_TIMEPARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

/*
 * A whole string that is a duration: "90" (seconds), "90s", "15m", "1h30m",
 * "2d", Go durations ("6m0s", "1h2m3.5s", "547ms", "1.5us"), protobuf
 * durations ("34s", "0.539477544s").  False on anything else, on negative
 * values and on overflow.
 */
bool duration_parse(const char *s, double *secs);

/*
 * A duration at the start of free text, leniently: everything duration_parse
 * takes, plus "2 days 3 hours 10 minutes", "35 seconds", "~231 min",
 * "41.2s", "5 mins".  Returns the number of bytes used, 0 when there is none.
 */
size_t duration_scan(const char *s, size_t len, double *secs);

/* A whole string that is a point in time: epoch seconds, or ISO 8601 /
 * RFC 3339 ("2026-11-30T14:00:00Z", "2026-11-30T15:00:00+01:00",
 * "2026-11-30 14:00:00Z", "2026-11-30").  Zone-less ISO is UTC. */
bool time_parse(const char *s, double *t);

/* HTTP-date in all three RFC 9110 forms (IMF-fixdate, RFC 850, asctime). */
bool http_date_parse(const char *s, double *t);

/* A number that claims to be an epoch: 13+ digit values are milliseconds. */
double epoch_normalize(double v);

/*
 * A wall-clock expression at the start of free text, resolved against now:
 *   "6:30pm", "2am", "12:16 PM", "6:30pm (Europe/Rome)", "11pm (UTC)",
 *   "Jul 31, 2am (UTC)", "Jul 27 at 4:30am (Asia/Calcutta)", "Sep 15 at 7pm",
 *   "Dec 2nd, 2026 1:36 PM", "Aug 8th, 2026 12:30 PM",
 *   "2026-08-01 at 00:00 UTC", "2026-04-01T00:00:00Z", "2999-01-01",
 *   "10:57 PM GMT-3", "3pm (America/Bogota)".
 * No zone means the local zone (TZ).  A time with no date that is already
 * past rolls to the next day; a month and day with no year that is past
 * rolls to the next year.  An unknown zone name fails the parse.
 * Returns bytes used (0 when there is no clock expression), result in *t.
 */
size_t clock_scan(const char *s, size_t len, time_t now, double *t);

#endif
