/*
 * failsignal.h: the FailureSignal, how a run ended (docs/design.md section 4).
 *
 * Ownership: a struct fail_signal owns nothing on the heap; every string is a
 * fixed array inside it, so signals are copied by assignment.  The JSON helpers
 * return new jansson references that the caller releases with json_decref().
 */
#ifndef RLWRAP_FAILSIGNAL_H
#define RLWRAP_FAILSIGNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include <jansson.h>

enum reason {
	REASON_NONE,
	REASON_RATE_LIMIT,
	REASON_USAGE_LIMIT,
	REASON_CREDIT_EXHAUSTED,
	REASON_OVERLOADED,
	REASON_UNAVAILABLE,
	REASON_AUTH,
	REASON_TIMEOUT,
	REASON_INVALID_REQUEST,
	REASON_AGENT_ERROR,
	REASON_NO_RESULT,
	REASON_EXIT_NONZERO,
	REASON_COUNT
};

/* Where a reset time came from; DEFAULT is only ever set by the breakers. */
enum reset_source {
	RESET_SRC_NONE,
	RESET_SRC_PROVIDER,
	RESET_SRC_TEXT,
	RESET_SRC_DEFAULT
};

#define SIGNAL_MESSAGE_MAX 512
#define SIGNAL_FIELD_MAX 128

struct fail_signal {
	enum reason reason;
	double confidence;          /* 1.0, 0.8, 0.5, 0.2 or 0 */
	bool terminal;
	char family[32];
	char model[SIGNAL_FIELD_MAX];
	char scope[SIGNAL_FIELD_MAX];    /* "" = null, "family", or a model class */
	int http_status;                 /* 0 = null */
	char error_type[SIGNAL_FIELD_MAX];
	char limit_type[64];
	double resets_at;                /* epoch seconds, 0 = null */
	enum reset_source reset_source;
	char message[SIGNAL_MESSAGE_MAX + 1];
	long line;                       /* 0 = null */
	int exit_code;                   /* -1 = null */
	bool after_output;
};

const char *reason_name(enum reason r);
/* Returns false when name is not exactly one of the reasons. */
bool reason_from_name(const char *name, enum reason *out);
bool reason_trips_by_default(enum reason r);
const char *reset_source_name(enum reset_source s);

void signal_init(struct fail_signal *sig);
/* Copies text into sig->message: control characters dropped, cut to at most
 * SIGNAL_MESSAGE_MAX bytes on a UTF-8 boundary. */
void signal_set_message(struct fail_signal *sig, const char *text, size_t len);

/* The docs/design.md section 4 object; now fixes retry_after_secs. */
json_t *signal_to_json(const struct fail_signal *sig, time_t now);
/* Dump flags for every JSON document rlwrap prints: 15 significant digits,
 * so the ladder's 0.8 prints as 0.8 (jansson's default of 17 prints
 * 0.80000000000000004).  OR them into json_dump*() flags. */
#define SIGNAL_JSON_REALS JSON_REAL_PRECISION(15)
/* One human line, e.g. "usage-limit (confidence 1.0): claude five_hour, resets ...". */
void signal_format_line(const struct fail_signal *sig, time_t now, char *buf, size_t size);
/* "2026-11-30T18:30:00Z", rounding up to the whole second. */
void format_utc_iso(double t, char *buf, size_t size);
/* "4h30m", "2d3h", "45s". */
void format_duration_short(double secs, char *buf, size_t size);

#endif
