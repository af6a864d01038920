/*
 * Provider error envelopes (Anthropic, OpenAI, Google RPC, OpenRouter,
 * Codex backend, Mistral, xAI, opencode, AWS, DashScope), whether they
 * arrive as a JSON record, as JSON inside a JSON string, or as a Python
 * repr inside text.  fixtures/catalogue/signatures.tsv lists the shapes
 * with their sources.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dialect.h"
#include "jsonsubset.h"
#include "textutil.h"
#include "timeparse.h"

#define NESTING_MAX 4
#define REPR_MAX (64 * 1024)

const char *
jstr(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

bool
jtype_is(json_t *obj, const char *type)
{
	const char *t = jstr(obj, "type");

	return t != NULL && strcmp(t, type) == 0;
}

json_int_t
jint(json_t *obj, const char *key, json_int_t dflt)
{
	json_t *v = json_object_get(obj, key);
	const char *s, *errstr;
	long long n;

	if (json_is_integer(v))
		return json_integer_value(v);
	if (json_is_real(v) && isfinite(json_real_value(v)) && fabs(json_real_value(v)) < 1e15)
		return (json_int_t)json_real_value(v);
	if (!json_is_string(v))
		return dflt;
	s = json_string_value(v);
	n = strtonum(s, -999999999999999LL, 999999999999999LL, &errstr);
	return errstr == NULL ? (json_int_t)n : dflt;
}

void
evidence_text_field(struct evidence *ev, json_t *obj, const char *key, time_t now)
{
	json_t *v = json_object_get(obj, key);

	if (json_is_string(v))
		evidence_add_text(ev, json_string_value(v), json_string_length(v), now);
}

void
evidence_epoch_field(struct evidence *ev, json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);
	double t;

	if (json_is_number(v))
		t = json_number_value(v);
	else if (!json_is_string(v) || !time_parse(json_string_value(v), &t))
		return;
	reset_offer(&ev->reset, epoch_normalize(t), RESET_SRC_PROVIDER, RANK_EPOCH_FIELD);
}

static void
offer_seconds(struct evidence *ev, json_t *v, time_t now, enum reset_rank rank)
{
	double secs;

	if (json_is_number(v))
		secs = json_number_value(v);
	else if (!json_is_string(v) || !duration_parse(json_string_value(v), &secs))
		return;
	if (isfinite(secs) && secs > 0)
		reset_offer(&ev->reset, (double)now + secs, RESET_SRC_PROVIDER, rank);
}

/* How deep text -> envelope -> text recursion is; JSON nested in strings
 * nests for as long as the input cares to, so it is cut at NESTING_MAX. */
static int text_depth;

static void
google_details(struct evidence *ev, json_t *details, time_t now)
{
	size_t i;
	json_t *d, *viol, *v;

	json_array_foreach(details, i, d) {
		const char *t = jstr(d, "@type");

		if (t == NULL)
			continue;
		if (strstr(t, "RetryInfo") != NULL)
			offer_seconds(ev, json_object_get(d, "retryDelay"), now, RANK_PROTOBUF);
		else if (strstr(t, "ErrorInfo") != NULL) {
			evidence_add_type(ev, jstr(d, "reason"));
			evidence_text_field(ev, json_object_get(d, "metadata"), "quota_limit", now);
		} else if (strstr(t, "QuotaFailure") != NULL) {
			size_t j;

			json_array_foreach(json_object_get(d, "violations"), j, viol) {
				const char *id = jstr(viol, "quotaId"), *model;
				char low[SIGNAL_FIELD_MAX];

				if (id != NULL)
					append_text(ev->text, sizeof(ev->text), low,
					    lower_copy(low, sizeof(low), id, strlen(id)));
				v = json_object_get(viol, "quotaDimensions");
				model = jstr(v, "model");
				if (model != NULL && ev->scope_model[0] == '\0')
					clean_copy_str(ev->scope_model, sizeof(ev->scope_model), model);
			}
		}
	}
}

static void
openrouter_metadata(struct evidence *ev, json_t *meta, time_t now, int depth)
{
	json_t *raw = json_object_get(meta, "raw"), *headers = json_object_get(meta, "headers");
	const char *h;
	double t;

	if (json_is_string(raw))
		evidence_add_text(ev, json_string_value(raw), json_string_length(raw), now);
	else if (json_is_object(raw))
		envelope_evidence(raw, now, ev, depth + 1);
	offer_seconds(ev, json_object_get(meta, "retry_after_seconds"), now, RANK_RETRY_AFTER);
	offer_seconds(ev, json_object_get(meta, "retry_after"), now, RANK_RETRY_AFTER);
	evidence_text_field(ev, meta, "limit_source", now);
	/* OpenRouter's own classification of what the upstream provider said. */
	evidence_add_type(ev, jstr(meta, "error_type"));
	if ((h = jstr(headers, "Retry-After")) != NULL) {
		if (http_date_parse(h, &t))
			reset_offer(&ev->reset, t, RESET_SRC_PROVIDER, RANK_RETRY_AFTER);
		else
			offer_seconds(ev, json_object_get(headers, "Retry-After"), now, RANK_RETRY_AFTER);
	}
	evidence_epoch_field(ev, headers, "X-RateLimit-Reset");
}

/* The status-or-type code field: numbers and digit strings are statuses. */
static void
code_field(struct evidence *ev, json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);
	json_int_t n = jint(obj, key, 0);

	if (n >= 100 && n <= 599)
		evidence_set_status(ev, n, true);
	else if (json_is_string(v) && n == 0)
		evidence_add_type(ev, json_string_value(v));
}

static void
error_object(struct evidence *ev, json_t *e, time_t now, int depth)
{
	json_t *data = json_object_get(e, "data");

	code_field(ev, e, "code");
	evidence_add_type(ev, jstr(e, "type"));
	evidence_add_type(ev, jstr(e, "name"));
	code_field(ev, e, "status");
	evidence_add_type(ev, jstr(json_object_get(e, "details"), "error_code"));
	evidence_text_field(ev, e, "message", now);
	if (json_is_object(data)) {
		code_field(ev, data, "statusCode");
		evidence_text_field(ev, data, "message", now);
		evidence_text_field(ev, data, "responseBody", now);
	}
	evidence_epoch_field(ev, e, "resets_at");
	offer_seconds(ev, json_object_get(e, "resets_in_seconds"), now, RANK_RETRY_AFTER);
	if (json_is_array(json_object_get(e, "details")))
		google_details(ev, json_object_get(e, "details"), now);
	if (json_is_object(json_object_get(e, "metadata")))
		openrouter_metadata(ev, json_object_get(e, "metadata"), now, depth);
}

/* An AWS error: the JSON protocol's {"__type":"ns#ThrottlingException",
 * "message":...} body, or an SDK v3 error object as JSON.stringify writes
 * it ({"name":...,"$metadata":{"httpStatusCode":429},"message":...}). */
static bool
aws_error(struct evidence *ev, json_t *obj, time_t now)
{
	const char *type = jstr(obj, "__type"), *hash;
	json_t *meta = json_object_get(obj, "$metadata");

	if (type == NULL && !(json_is_object(meta) && jstr(obj, "name") != NULL))
		return false;
	if (type != NULL && (hash = strrchr(type, '#')) != NULL)
		type = hash + 1;
	evidence_add_type(ev, type != NULL ? type : jstr(obj, "name"));
	if (json_is_object(meta))
		code_field(ev, meta, "httpStatusCode");
	evidence_text_field(ev, obj, "message", now);
	evidence_text_field(ev, obj, "Message", now);
	return true;
}

/* A body of nothing but a message, a request id and perhaps a code
 * (Mistral's {"message":"Unauthorized","request_id":...}, DashScope's
 * {"code":"Throttling.RateQuota","message":...,"request_id":...}): the
 * request id says it is a provider's answer, not any object with a message. */
static bool
bare_error(struct evidence *ev, json_t *obj, time_t now)
{
	const char *key;
	json_t *v;

	if (jstr(obj, "message") == NULL || jstr(obj, "request_id") == NULL)
		return false;
	json_object_foreach(obj, key, v)
		if (strcmp(key, "message") != 0 && strcmp(key, "request_id") != 0 && strcmp(key, "code") != 0)
			return false;
	code_field(ev, obj, "code");
	evidence_text_field(ev, obj, "message", now);
	return true;
}

bool
envelope_evidence(json_t *obj, time_t now, struct evidence *ev, int depth)
{
	json_t *e = json_object_get(obj, "error");
	bool typed_error = jtype_is(obj, "error");
	const char *object = jstr(obj, "object");

	if (!json_is_object(obj) || depth > NESTING_MAX)
		return false;
	if (e == NULL && (aws_error(ev, obj, now) || bare_error(ev, obj, now)))
		return true;
	if (json_is_object(e)) {
		error_object(ev, e, now, depth);
	} else if (json_is_string(e) && (typed_error || json_object_get(obj, "code") != NULL)) {
		code_field(ev, obj, "code");
		evidence_add_text(ev, json_string_value(e), json_string_length(e), now);
	} else if ((typed_error || (object != NULL && strcmp(object, "error") == 0)) &&
	    jstr(obj, "message") != NULL) {
		if (!typed_error)
			evidence_add_type(ev, jstr(obj, "type"));
		code_field(ev, obj, "code");
		evidence_text_field(ev, obj, "message", now);
	} else
		return false;
	code_field(ev, obj, "status_code");
	code_field(ev, obj, "raw_status_code");
	if (json_is_integer(json_object_get(obj, "status")))
		code_field(ev, obj, "status");
	return true;
}

/* A Python literal at s[i].  s is a slice of a stream line with no NUL
 * after it, so the compare must stop at len, as strncmp does not. */
static bool
literal_at(const char *s, size_t len, size_t i, const char *word)
{
	size_t n = strlen(word);

	return len - i >= n && memcmp(s + i, word, n) == 0;
}

/* Rewrites a Python repr dict as JSON: quotes, None, True, False. */
static size_t
repr_to_json(const char *s, size_t len, char *out, size_t size)
{
	size_t o = 0;
	char quote = 0;

	for (size_t i = 0; i < len && o + 8 < size; i++) {
		char c = s[i];

		if (quote != 0) {
			if (c == '\\' && i + 1 < len) {
				char n = s[++i];

				if (n == '\'')
					out[o++] = '\'';
				else if (n == 'x' && o + 6 < size) {
					memcpy(out + o, "\\u00", 4);
					o += 4;
				} else {
					out[o++] = '\\';
					out[o++] = n;
				}
			} else if (c == quote) {
				out[o++] = '"';
				quote = 0;
			} else if (c == '"') {
				out[o++] = '\\';
				out[o++] = '"';
			} else
				out[o++] = c;
			continue;
		}
		if (c == '\'' || c == '"') {
			quote = c;
			out[o++] = '"';
		} else if (literal_at(s, len, i, "None")) {
			memcpy(out + o, "null", 4), o += 4, i += 3;
		} else if (literal_at(s, len, i, "True")) {
			memcpy(out + o, "true", 4), o += 4, i += 3;
		} else if (literal_at(s, len, i, "False")) {
			memcpy(out + o, "false", 5), o += 5, i += 4;
		} else
			out[o++] = c;
		if (c == '}' && quote == 0 && i + 1 < len && s[i + 1] == '\n')
			break;
	}
	out[o] = '\0';
	return o;
}

static json_t *
load_prefix(const char *s, size_t len)
{
	json_error_t jerr;

	return json_load_any(s, len, JSON_DISABLE_EOF_CHECK | JSON_DECODE_ANY, &jerr);
}

/* Finds an envelope (JSON or Python repr) inside text; false when none. */
static bool
envelope_in_text(const char *s, size_t len, time_t now, struct evidence *ev, int depth)
{
	const char *p = s;
	int tries = 0;

	if (depth > NESTING_MAX)
		return false;
	while ((p = memchr(p, '{', len - (size_t)(p - s))) != NULL && tries++ < 4) {
		size_t rest = len - (size_t)(p - s);
		json_t *obj = load_prefix(p, rest);
		bool found;

		if (obj == NULL && (memchr(p, '\'', rest < 256 ? rest : 256) != NULL)) {
			char *buf = malloc(REPR_MAX);

			if (buf != NULL) {
				size_t n = repr_to_json(p, rest, buf, REPR_MAX);

				obj = load_prefix(buf, n);
				free(buf);
			}
		}
		found = obj != NULL && envelope_evidence(obj, now, ev, depth + 1);
		json_decref(obj);
		if (found)
			return true;
		p++;
	}
	return false;
}

/* "429 {", "Error code: 429 - {", "API Error: 429 {": the SDKs' own framing. */
static bool
sdk_prefixed(const char *s, size_t len, size_t after)
{
	while (after < len && (s[after] == ' ' || s[after] == '-' || s[after] == ':'))
		after++;
	return after < len && s[after] == '{';
}

static bool
status_context(const char *s, size_t len, size_t i)
{
	static const char *const before[] = {
		"status", "error code", "api error", "error", "http", "code", "(", "http/1.1", "http/2",
		"exhausted",   /* google.api_core.exceptions.ResourceExhausted: 429 ... */
		"failed",      /* "Execution failed: 402 You have no quota" */
	};
	static const char *const after[] = {
		" too many", " unauthorized", " payment required", " forbidden", " not found",
		" bad request", " service unavailable", " internal server", " bad gateway",
		" gateway timeout", " overloaded", " request timeout", " status code", ")", " {", ":",
	};
	size_t b = i;
	char low[24];

	if (i == 0)
		return true;
	while (b > 0 && (s[b - 1] == ' ' || s[b - 1] == ':' || s[b - 1] == '='))
		b--;
	lower_copy(low, sizeof(low), s + (b > 16 ? b - 16 : 0), b > 16 ? 16 : b);
	for (size_t k = 0; k < sizeof(before) / sizeof(before[0]); k++) {
		size_t n = strlen(before[k]), l = strlen(low);

		if (l >= n && strcmp(low + l - n, before[k]) == 0)
			return true;
	}
	for (size_t k = 0; k < sizeof(after) / sizeof(after[0]); k++)
		if (find_nocase(s + i + 3, len - i - 3 < 24 ? len - i - 3 : 24, after[k]) == s + i + 3)
			return true;
	return false;
}

static void
status_from_text(struct evidence *ev, const char *s, size_t len)
{
	for (size_t i = 0; i + 3 <= len; i++) {
		json_int_t code;

		if ((s[i] != '4' && s[i] != '5') || !isdigit((unsigned char)s[i + 1]) ||
		    !isdigit((unsigned char)s[i + 2]))
			continue;
		if (i > 0 && (isalnum((unsigned char)s[i - 1]) || s[i - 1] == '.'))
			continue;
		if (i + 3 < len && (isalnum((unsigned char)s[i + 3]) || s[i + 3] == '.'))
			continue;
		code = (s[i] - '0') * 100 + (s[i + 1] - '0') * 10 + (s[i + 2] - '0');
		if (status_context(s, len, i)) {
			evidence_set_status(ev, code, sdk_prefixed(s, len, i + 3));
			return;
		}
	}
}

/* "No capacity available for model gemini-2.5-pro": the capacity is that
 * model's, so a signal about it is scoped to it. */
static void
capacity_model(struct evidence *ev, const char *low, size_t n)
{
	static const char lead[] = "no capacity available for model ";
	const char *p = memmem(low, n, lead, sizeof(lead) - 1);
	size_t len = 0;
	char model[SIGNAL_FIELD_MAX];

	if (p == NULL || ev->scope_model[0] != '\0')
		return;
	p += sizeof(lead) - 1;
	while (p + len < low + n && len + 1 < sizeof(model) &&
	    (isalnum((unsigned char)p[len]) || strchr("-._/:", p[len]) != NULL))
		len++;
	while (len > 0 && (p[len - 1] == '.' || p[len - 1] == ':'))
		len--;
	if (len == 0)
		return;
	memcpy(model, p, len);
	model[len] = '\0';
	clean_copy_str(ev->scope_model, sizeof(ev->scope_model), model);
}

/* A model name at p (lowercase text): letters, digits and "-._/:", no
 * trailing dot; with a digit and a '-' in it, or it is no model's name. */
static size_t
model_name_len(const char *p, const char *end)
{
	size_t len = 0;
	bool digit = false, dash = false;

	while (p + len < end && len + 1 < SIGNAL_FIELD_MAX &&
	    (isalnum((unsigned char)p[len]) || strchr("-._/:", p[len]) != NULL)) {
		digit |= isdigit((unsigned char)p[len]) != 0;
		dash |= p[len] == '-';
		len++;
	}
	while (len > 0 && (p[len - 1] == '.' || p[len - 1] == ':'))
		len--;
	return digit && dash ? len : 0;
}

static void
scope_set(struct evidence *ev, const char *p, size_t len)
{
	char model[SIGNAL_FIELD_MAX];

	if (len == 0 || len >= sizeof(model) || ev->scope_model[0] != '\0')
		return;
	memcpy(model, p, len);
	model[len] = '\0';
	utf8_copy(ev->scope_model, sizeof(ev->scope_model), model);
}

/* Gemini's per-model quota in words: "limit: 0, model: gemini-3-pro",
 * "your daily gemini-2.5-pro quota". */
static void
quota_model(struct evidence *ev, const char *low, size_t n)
{
	const char *end = low + n, *p;

	if ((p = memmem(low, n, ", model: ", 9)) != NULL && memmem(low, (size_t)(p - low), "limit: ", 7) != NULL)
		scope_set(ev, p + 9, model_name_len(p + 9, end));
	for (p = memmem(low, n, "daily ", 6); p != NULL && ev->scope_model[0] == '\0';
	    p = memmem(p + 6, (size_t)(end - p - 6), "daily ", 6)) {
		size_t len = model_name_len(p + 6, end);

		if (len > 0 && (size_t)(end - p - 6) > len + 6 && memcmp(p + 6 + len, " quota", 6) == 0)
			scope_set(ev, p + 6, len);
	}
}

/* "quota metric 'Gemini 2.5 Pro Requests'": the metric of one model,
 * named in words; its model is "gemini-2.5-pro". */
static void
metric_model(struct evidence *ev, const char *low, size_t n)
{
	static const char lead[] = "quota metric '";
	static const char *const units[] = { " input tokens", " output tokens", " tokens", " requests" };
	const char *p = memmem(low, n, lead, sizeof(lead) - 1), *q;
	char model[SIGNAL_FIELD_MAX];
	size_t len;

	if (p == NULL || ev->scope_model[0] != '\0')
		return;
	p += sizeof(lead) - 1;
	if ((q = memchr(p, '\'', (size_t)(low + n - p))) == NULL || (len = (size_t)(q - p)) >= sizeof(model))
		return;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		size_t u = strlen(units[i]);

		if (len > u && memcmp(p + len - u, units[i], u) == 0) {
			len -= u;
			break;
		}
	}
	for (size_t i = 0; i < len; i++)
		model[i] = p[i] == ' ' ? '-' : p[i];
	scope_set(ev, model, model_name_len(model, model + len) == len ? len : 0);
}

void
evidence_add_text(struct evidence *ev, const char *s, size_t len, time_t now)
{
	struct reset r;
	char low[EVIDENCE_TEXT_MAX];
	size_t n;

	if (len == 0)
		return;
	n = lower_copy(low, sizeof(low), s, len);
	append_text(ev->text, sizeof(ev->text), low, n);
	capacity_model(ev, low, n);
	quota_model(ev, low, n);
	metric_model(ev, low, n);
	evidence_set_message(ev, s, len);
	status_from_text(ev, s, len < 4096 ? len : 4096);
	if (text_depth < NESTING_MAX && memchr(s, '{', len) != NULL) {
		text_depth++;
		envelope_in_text(s, len, now, ev, text_depth);
		text_depth--;
	}
	if (reset_from_text(s, len < 16384 ? len : 16384, now, &r))
		reset_offer(&ev->reset, r.at, r.source, r.rank);
}
