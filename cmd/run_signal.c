/*
 * The wrapper's JSON files: the --signal-file document (the verdict, the
 * command line, the timing) and the one way they are written (replaced
 * whole, through the guard for rlwrap's own files).  Used by the wrapper
 * (cmd/run.c) and its gate (cmd/run_gate.c), which depend on it, not on
 * each other.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd.h"
#include "outfile.h"
#include "redact.h"
#include "run.h"

bool signal_file_written;

/* "2026-11-30T12:00:00.123Z" */
static void
format_iso_ms(const struct timespec *t, char *buf, size_t size)
{
	struct tm tm;
	time_t secs = t->tv_sec;
	char base[32];

	gmtime_r(&secs, &tm);
	strftime(base, sizeof(base), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, size, "%s.%03ldZ", base, t->tv_nsec / 1000000L);
}

static long long
elapsed_ms(const struct timespec *a, const struct timespec *b)
{
	return (long long)(b->tv_sec - a->tv_sec) * 1000 + (b->tv_nsec - a->tv_nsec) / 1000000L;
}

/* The command for --signal-file: redacted like the store's. */
static json_t *
signal_argv_json(const struct run_opts *o)
{
	bool redacted = false;
	json_t *argv = redact_argv_json(o->argc, o->argv, &redacted);

	return argv != NULL ? argv : json_array();
}

json_t *
signal_file_json(const struct run_opts *o, const struct run_identity *id, const struct signal_report *s)
{
	json_t *obj = signal_to_json(s->sig, s->now);
	char when[48];

	/* A refusal by a budget names it as the reason; other refusals with
	 * no failure behind them have none. */
	if (s->refused && s->sig->reason == REASON_NONE)
		json_object_set_new(obj, "reason", s->budget != NULL ? json_string("budget") :
		    strcmp(s->refused_by, "reserve") == 0 ? json_string("reserve") : json_null());
	if (s->reset_source != NULL)
		json_object_set_new(obj, "reset_source", json_string(s->reset_source));
	json_object_set_new(obj, "account", json_string(id->account));
	json_object_set_new(obj, "argv", signal_argv_json(o));
	format_iso_ms(&s->started, when, sizeof(when));
	json_object_set_new(obj, "started_at", json_string(when));
	format_iso_ms(&s->ended, when, sizeof(when));
	json_object_set_new(obj, "ended_at", json_string(when));
	json_object_set_new(obj, "duration_ms", json_integer(elapsed_ms(&s->started, &s->ended)));
	json_object_set_new(obj, "exit_code",
	    s->term_signal != 0 ? json_null() : json_integer(s->sig->exit_code));
	json_object_set_new(obj, "term_signal", s->term_signal != 0 ? json_integer(s->term_signal) : json_null());
	json_object_set_new(obj, "refused", json_boolean(s->refused));
	if (s->refused)
		json_object_set_new(obj, "refused_by", json_string(s->refused_by));
	if (s->store_error != NULL)
		json_object_set_new(obj, "store_error", json_string(s->store_error));
	if (s->budget != NULL)
		json_object_set_new(obj, "budget", json_string(s->budget));
	json_object_set_new(obj, "run_id", s->run_id != 0 ? json_integer(s->run_id) : json_null());
	json_object_set_new(obj, "attempts", json_integer(s->attempts));
	return obj;
}

void
write_json_file(const char *option, const char *path, json_t *obj)
{
	char *text = json_dumps(obj, JSON_COMPACT | JSON_PRESERVE_ORDER | SIGNAL_JSON_REALS), *doc;
	char error[PATH_MAX + 128];

	if (text == NULL || asprintf(&doc, "%s\n", text) < 0) {
		warnx_visible("%s %s: out of memory", option, path);
		free(text);
		return;
	}
	if (!outfile_replace(path, &run_own_files, doc, strlen(doc), error, sizeof(error)))
		warnx_visible("%s %s", option, error);
	if (strcmp(option, "--signal-file") == 0)
		signal_file_written = true;
	free(doc);
	free(text);
}
