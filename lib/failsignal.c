#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "failsignal.h"
#include "textutil.h"

static const char *const reason_names[REASON_COUNT] = {
	[REASON_NONE] = "none",
	[REASON_RATE_LIMIT] = "rate-limit",
	[REASON_USAGE_LIMIT] = "usage-limit",
	[REASON_CREDIT_EXHAUSTED] = "credit-exhausted",
	[REASON_OVERLOADED] = "overloaded",
	[REASON_UNAVAILABLE] = "unavailable",
	[REASON_AUTH] = "auth",
	[REASON_TIMEOUT] = "timeout",
	[REASON_INVALID_REQUEST] = "invalid-request",
	[REASON_AGENT_ERROR] = "agent-error",
	[REASON_NO_RESULT] = "no-result",
	[REASON_EXIT_NONZERO] = "exit-nonzero",
};

const char *
reason_name(enum reason r)
{
	return (r >= 0 && r < REASON_COUNT) ? reason_names[r] : "none";
}

bool
reason_from_name(const char *name, enum reason *out)
{
	for (int r = 0; r < REASON_COUNT; r++)
		if (strcmp(reason_names[r], name) == 0) {
			*out = (enum reason)r;
			return true;
		}
	return false;
}

bool
reason_trips_by_default(enum reason r)
{
	return r == REASON_RATE_LIMIT || r == REASON_USAGE_LIMIT || r == REASON_CREDIT_EXHAUSTED;
}

const char *
reset_source_name(enum reset_source s)
{
	switch (s) {
	case RESET_SRC_PROVIDER:
		return "provider";
	case RESET_SRC_TEXT:
		return "text";
	case RESET_SRC_DEFAULT:
		return "default";
	case RESET_SRC_NONE:
		break;
	}
	return NULL;
}

void
signal_init(struct fail_signal *sig)
{
	memset(sig, 0, sizeof(*sig));
	sig->reason = REASON_NONE;
	sig->exit_code = -1;
}

void
signal_set_message(struct fail_signal *sig, const char *text, size_t len)
{
	clean_copy(sig->message, sizeof(sig->message), text, len);
}

void
format_utc_iso(double t, char *buf, size_t size)
{
	time_t secs = (time_t)ceil(t);
	struct tm tm;

	if (gmtime_r(&secs, &tm) == NULL || strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(buf, size, "%lld", (long long)secs);
}

void
format_duration_short(double secs, char *buf, size_t size)
{
	long long s = (long long)ceil(secs < 0 ? 0 : secs);
	long long d = s / 86400, h = s % 86400 / 3600, m = s % 3600 / 60;

	if (d > 0)
		snprintf(buf, size, "%lldd%lldh", d, h);
	else if (h > 0)
		snprintf(buf, size, "%lldh%lldm", h, m);
	else if (m > 0)
		snprintf(buf, size, "%lldm%llds", m, s % 60);
	else
		snprintf(buf, size, "%llds", s);
}

static json_t *
string_or_null(const char *s)
{
	return (s != NULL && *s != '\0') ? json_string(s) : json_null();
}

static void
put_reset(json_t *o, const struct fail_signal *sig, time_t now)
{
	char iso[40];

	if (sig->resets_at <= 0) {
		json_object_set_new(o, "retry_after_secs", json_null());
		json_object_set_new(o, "resets_at", json_null());
		json_object_set_new(o, "reset_source", json_null());
		return;
	}
	format_utc_iso(sig->resets_at, iso, sizeof(iso));
	json_object_set_new(o, "retry_after_secs",
	    json_integer((json_int_t)fmax(0, ceil(ceil(sig->resets_at) - (double)now))));
	json_object_set_new(o, "resets_at", json_string(iso));
	json_object_set_new(o, "reset_source", string_or_null(reset_source_name(sig->reset_source)));
}

json_t *
signal_to_json(const struct fail_signal *sig, time_t now)
{
	json_t *o = json_object();

	json_object_set_new(o, "reason", json_string(reason_name(sig->reason)));
	json_object_set_new(o, "confidence", json_real(sig->confidence));
	json_object_set_new(o, "terminal", json_boolean(sig->terminal));
	json_object_set_new(o, "family", string_or_null(sig->family));
	json_object_set_new(o, "model", string_or_null(sig->model));
	json_object_set_new(o, "scope", string_or_null(sig->scope));
	json_object_set_new(o, "http_status",
	    sig->http_status > 0 ? json_integer(sig->http_status) : json_null());
	json_object_set_new(o, "error_type", string_or_null(sig->error_type));
	json_object_set_new(o, "limit_type", string_or_null(sig->limit_type));
	put_reset(o, sig, now);
	json_object_set_new(o, "message", string_or_null(sig->message));
	json_object_set_new(o, "line", sig->line > 0 ? json_integer(sig->line) : json_null());
	json_object_set_new(o, "exit_code", sig->exit_code >= 0 ? json_integer(sig->exit_code) : json_null());
	json_object_set_new(o, "after_output", json_boolean(sig->after_output));
	return o;
}

void
signal_format_line(const struct fail_signal *sig, time_t now, char *buf, size_t size)
{
	char when[40], in[32];
	int n;

	n = snprintf(buf, size, "%s (confidence %.1f): %s", reason_name(sig->reason),
	    sig->confidence, sig->family[0] != '\0' ? sig->family : "unknown");
	if (n < 0 || (size_t)n >= size)
		return;
	if (sig->limit_type[0] != '\0')
		n += snprintf(buf + n, size - (size_t)n, " %s", sig->limit_type);
	if ((size_t)n < size && sig->scope[0] != '\0' && strcmp(sig->scope, "family") != 0)
		n += snprintf(buf + n, size - (size_t)n, " (model %s)", sig->scope);
	if ((size_t)n < size && sig->http_status > 0)
		n += snprintf(buf + n, size - (size_t)n, ", http %d", sig->http_status);
	if ((size_t)n < size && sig->resets_at > 0) {
		time_t t = (time_t)ceil(sig->resets_at);
		struct tm tm;

		gmtime_r(&t, &tm);
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M", &tm);
		format_duration_short(sig->resets_at - (double)now, in, sizeof(in));
		snprintf(buf + n, size - (size_t)n, ", resets %s UTC (in %s)", when, in);
	}
}
