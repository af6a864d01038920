/*
 * dialect.h: what a family's records mean.  Each family is one
 * lib/dialect_<name>.c exporting one struct dialect, plus its fixtures: the
 * build generates dialect_table[] from the dialect sources listed in
 * Makefile.am, and everything that names families (detection, the
 * prefilter, config-directory variables, messages) reads that table.  Also
 * the evidence a failure record yields and the helpers (markers.c,
 * envelope.c) that turn it into a signal.
 *
 * Ownership: dialect functions borrow the jansson object they are given and
 * fill caller-owned evidence; nothing is kept between calls except the
 * caller-owned struct dialect_state.
 */
#ifndef RLWRAP_DIALECT_H
#define RLWRAP_DIALECT_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include <jansson.h>

#include "heartbeat.h"
#include "reset_time.h"
#include "failsignal.h"
#include "usage_reading.h"

#define EVIDENCE_TEXT_MAX 8192

/* What one failure record (or notice) said. */
struct evidence {
	int http_status;
	bool status_structured;        /* from a field or an SDK "429 {...}" prefix */
	bool typed;                    /* a typed error value was present */
	bool rejected_event;           /* a Claude rate_limit_event with status rejected */
	enum reason forced;            /* set by a dialect that knows better than markers */
	char error_type[SIGNAL_FIELD_MAX];
	char limit_type[64];
	char scope_model[SIGNAL_FIELD_MAX];  /* a per-model limit names this model class */
	char model[SIGNAL_FIELD_MAX];
	struct reset reset;
	char types[256];               /* typed values, lowercase, space separated */
	char text[EVIDENCE_TEXT_MAX];  /* message text, lowercase, for markers */
	char message[SIGNAL_MESSAGE_MAX + 1];
};

enum record_kind {
	REC_IGNORE,     /* not a record of this family */
	REC_EVENT,      /* the family's record, saying nothing about the outcome */
	REC_OUTPUT,     /* real model output: the run went on */
	REC_NOTICE,     /* retry notice or warning: a signal, never the verdict */
	REC_CANDIDATE,  /* a failure that decides if nothing terminal follows */
	REC_FAILURE,    /* terminal record: the run failed */
	REC_SUCCESS,    /* terminal record: the run succeeded */
	REC_JUDGE,      /* terminal record: failed if a candidate is pending, else succeeded */
	REC_SETTLE,     /* the end of the run: REC_JUDGE unless a verdict is already in */
	REC_REOPEN      /* a retry after a terminal record: the verdict is pending again */
};

struct dialect_ctx {
	time_t now;
	char model[SIGNAL_FIELD_MAX];  /* the run's model, once an init event names it */
	long long input_tokens;        /* -1 until the stream reports usage */
	long long output_tokens;
	double cost_usd;               /* -1 until reported */
	bool usage_held;               /* run_usage.held */
	struct reading_set readings;   /* the windows' usage, as the stream said it */
};

/* Sets the run's model unless it is already known or is a placeholder. */
void ctx_set_model(struct dialect_ctx *ctx, const char *model);
/* Records usage a record reports (numbers absent from obj are left alone). */
void ctx_add_usage(struct dialect_ctx *ctx, json_t *obj, const char *in_key, const char *out_key);
void ctx_add_cost(struct dialect_ctx *ctx, json_t *cost);

/* What a dialect remembers between records, to know a repeat from bytes. */
struct dialect_memo {
	size_t len;                       /* 0 until something is remembered */
	char bytes[HEARTBEAT_STATE_MAX];
	struct heartbeat_template tpl;    /* a line with that state, when len > 0 */
};

struct dialect {
	const char *name;
	bool has_terminal;   /* the family writes a terminal record */
	/* Launching it: command names (without a script suffix such as .js)
	 * and npm packages; NULL-terminated, or NULL. */
	const char *const *commands;
	const char *const *packages;
	const char *config_dir_env;  /* the agent's config-directory variable, or NULL */
	/* The prefilter parses a record when one of its "type" values is in
	 * kept_types, or in output_types until the first output was seen
	 * (NULL-terminated, or NULL); every other record is dropped unread. */
	const char *const *kept_types;
	const char *const *output_types;
	/* An output record that may still carry a failure once output was seen
	 * (type is one of its "type" values, and one of this dialect's
	 * output_types: the prefilter asks about no other): parse it anyway.
	 * May be NULL. */
	bool (*output_may_fail)(const char *type, size_t type_len, const char *line, size_t len);
	/* output_may_fail()'s answer for the line at p (avail bytes there),
	 * whose end is not known yet, found in the pass that finds the end:
	 * the offset of its newline, or 0 when it has none within avail.  The
	 * answer is for the line as the hooks see it: without the newline, or
	 * the '\r' before it.  May be NULL. */
	size_t (*output_may_fail_ahead)(const char *type, size_t type_len, const char *p, size_t avail,
	    bool *may_fail);
	/* Streams of `refines` look like this family's until one of this
	 * family's own records shows: detection then moves to this family. */
	const struct dialect *refines;
	/* Can the line (a JSON record the prefilter kept) be known from its
	 * bytes to change nothing?  True only when record() would answer
	 * REC_EVENT and detection would not move, so that once the family's
	 * records have been seen the parse can be skipped.  The memo is the
	 * dialect's own, kept for one stream.  May be NULL. */
	bool (*unchanged)(struct dialect_memo *memo, const char *line, size_t len);
	/* unchanged()'s common case, known before the line's end is looked
	 * for: the length of such a line at p (avail bytes there), followed by
	 * its newline, or 0.  May be NULL. */
	size_t (*unchanged_ahead)(const struct dialect_memo *memo, const char *p, size_t avail);
	/* Does this top-level object belong to the family (for detection)? */
	bool (*detect)(json_t *obj);
	/* What the record means; fills ev for NOTICE, CANDIDATE and FAILURE. */
	enum record_kind (*record)(struct dialect_ctx *ctx, json_t *obj, struct evidence *ev);
};

/* Every dialect, in detection order (generic last), NULL-terminated. */
extern const struct dialect *const dialect_table[];
extern const struct dialect dialect_generic, dialect_claude;
/* The dialect named name, or NULL. */
const struct dialect *dialect_find(const char *name);
/* Claude's records, shared by the families that copy its stream shape. */
enum record_kind claude_record(struct dialect_ctx *ctx, json_t *obj, struct evidence *ev);
bool claude_output_may_fail(const char *type, size_t type_len, const char *line, size_t len);
size_t claude_output_may_fail_ahead(const char *type, size_t type_len, const char *p, size_t avail,
    bool *may_fail);
bool claude_heartbeat_unchanged(struct dialect_memo *memo, const char *line, size_t len);
size_t claude_heartbeat_ahead(const struct dialect_memo *memo, const char *p, size_t avail);

/* evidence and markers (markers.c) */
void evidence_init(struct evidence *ev);
/* Adds message text: its status forms, an embedded envelope, stated resets. */
void evidence_add_text(struct evidence *ev, const char *s, size_t len, time_t now);
/* Adds a typed error value (error code, class name, status word). */
void evidence_add_type(struct evidence *ev, const char *type);
void evidence_set_status(struct evidence *ev, json_int_t status, bool structured);
void evidence_set_message(struct evidence *ev, const char *s, size_t len);
/* The reason the markers give, REASON_AGENT_ERROR when nothing matches. */
enum reason evidence_reason(const struct evidence *ev);
/* The confidence ladder of docs/design.md section 4. */
double evidence_confidence(const struct evidence *ev);
/* Does free text (a stderr line) name a failure at all, and is it a retry notice? */
bool text_names_failure(const struct evidence *ev);
bool text_is_retry_notice(const char *s, size_t len);
/* Fills in what ev lacks from earlier (same run) evidence. */
void evidence_merge(struct evidence *ev, const struct evidence *earlier);

/* provider envelopes (envelope.c) */
/* Reads a provider error envelope; false when obj is not one. */
bool envelope_evidence(json_t *obj, time_t now, struct evidence *ev, int depth);

/* small jansson helpers (envelope.c) */
const char *jstr(json_t *obj, const char *key);          /* NULL unless a string */
bool jtype_is(json_t *obj, const char *type);             /* obj.type == type */
json_int_t jint(json_t *obj, const char *key, json_int_t dflt);  /* numbers and digit strings */
/* Adds a string field as message text, if present. */
void evidence_text_field(struct evidence *ev, json_t *obj, const char *key, time_t now);
/* Offers an epoch field (seconds, or ms when 13+ digits) as a provider reset. */
void evidence_epoch_field(struct evidence *ev, json_t *obj, const char *key);

#endif
