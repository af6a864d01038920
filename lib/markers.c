/*
 * Evidence from failure records, and the marker tables that turn it into a
 * reason.  The order of the tables is the precedence of docs/design.md section 4
 * rule 7: usage-limit markers first, then credit, then rate-limit, ...
 */
#include <ctype.h>
#include <string.h>

#include "dialect.h"
#include "textutil.h"

struct marker {
	enum reason reason;
	const char *text;
};

/* Substrings of the lowercased message text or typed values. */
static const struct marker text_markers[] = {
	{ REASON_USAGE_LIMIT, "hit your limit" },
	{ REASON_USAGE_LIMIT, "hit your session limit" },
	{ REASON_USAGE_LIMIT, "hit your weekly limit" },
	{ REASON_USAGE_LIMIT, "hit your opus limit" },
	{ REASON_USAGE_LIMIT, "hit your sonnet limit" },
	{ REASON_USAGE_LIMIT, "hit your usage limit" },
	{ REASON_USAGE_LIMIT, "hit your chatgpt usage limit" },
	{ REASON_USAGE_LIMIT, "usage limit reached" },
	{ REASON_USAGE_LIMIT, "your usage limit" },
	{ REASON_USAGE_LIMIT, "usage limit for now" },
	{ REASON_USAGE_LIMIT, "reached your daily" },
	{ REASON_USAGE_LIMIT, "reached your weekly" },
	{ REASON_USAGE_LIMIT, "hour limit reached" },
	{ REASON_USAGE_LIMIT, "out of extra usage" },
	{ REASON_USAGE_LIMIT, "exhausted your daily quota" },
	{ REASON_USAGE_LIMIT, "exhausted your capacity" },
	{ REASON_USAGE_LIMIT, "quota will reset" },
	{ REASON_USAGE_LIMIT, "limit will reset" },
	{ REASON_USAGE_LIMIT, "daily quota" },
	{ REASON_USAGE_LIMIT, "requests per day" },
	{ REASON_USAGE_LIMIT, "tokens per day" },
	{ REASON_USAGE_LIMIT, "perday" },
	{ REASON_USAGE_LIMIT, "(rpd)" },
	{ REASON_USAGE_LIMIT, "(tpd)" },
	{ REASON_USAGE_LIMIT, "free-models-per-day" },
	{ REASON_USAGE_LIMIT, "openrouter_free_tier_daily" },
	{ REASON_USAGE_LIMIT, "limit: 0" },
	{ REASON_USAGE_LIMIT, "usage_limit_reached" },
	{ REASON_USAGE_LIMIT, "terminalquotaerror" },
	{ REASON_USAGE_LIMIT, "monthly usage limit" },
	{ REASON_USAGE_LIMIT, "daily usage limit" },
	{ REASON_USAGE_LIMIT, "weekly usage limit" },
	{ REASON_USAGE_LIMIT, "organization usage limit" },
	{ REASON_USAGE_LIMIT, "org's usage limit" },
	{ REASON_USAGE_LIMIT, "monthly limit reached" },
	{ REASON_USAGE_LIMIT, "daily limit reached" },
	{ REASON_USAGE_LIMIT, "weekly limit reached" },
	{ REASON_USAGE_LIMIT, "reached your monthly" },
	{ REASON_USAGE_LIMIT, "hit your monthly" },
	{ REASON_USAGE_LIMIT, "hit your daily" },
	{ REASON_USAGE_LIMIT, "automatic quota refresh" },
	{ REASON_USAGE_LIMIT, "free allocated quota exceeded" },
	{ REASON_CREDIT_EXHAUSTED, "insufficient credit" },
	{ REASON_CREDIT_EXHAUSTED, "insufficient_quota" },
	{ REASON_CREDIT_EXHAUSTED, "insufficient balance" },
	{ REASON_CREDIT_EXHAUSTED, "insufficient_balance" },
	{ REASON_CREDIT_EXHAUSTED, "insufficient_g1_credits_balance" },
	{ REASON_CREDIT_EXHAUSTED, "credit balance" },
	{ REASON_CREDIT_EXHAUSTED, "credit_balance" },
	{ REASON_CREDIT_EXHAUSTED, "billing_error" },
	{ REASON_CREDIT_EXHAUSTED, "more credits" },
	{ REASON_CREDIT_EXHAUSTED, "purchase credits" },
	{ REASON_CREDIT_EXHAUSTED, "out of credits" },
	{ REASON_CREDIT_EXHAUSTED, "used all available credits" },
	{ REASON_CREDIT_EXHAUSTED, "credits_required" },
	{ REASON_CREDIT_EXHAUSTED, "openrouter_credits" },
	{ REASON_CREDIT_EXHAUSTED, "spend limit" },
	{ REASON_CREDIT_EXHAUSTED, "spend_limit" },
	{ REASON_CREDIT_EXHAUSTED, "spending limit" },
	{ REASON_CREDIT_EXHAUSTED, "api usage limits" },
	{ REASON_CREDIT_EXHAUSTED, "quota exceeded. check your plan" },
	{ REASON_CREDIT_EXHAUSTED, "payment required" },
	{ REASON_CREDIT_EXHAUSTED, "credits exhausted" },
	{ REASON_CREDIT_EXHAUSTED, "credits_exhausted" },
	{ REASON_CREDIT_EXHAUSTED, "no available quota" },
	{ REASON_CREDIT_EXHAUSTED, "out of free credits" },
	{ REASON_CREDIT_EXHAUSTED, "free quota has been exhausted" },
	{ REASON_CREDIT_EXHAUSTED, "allocationquota.freetieronly" },
	{ REASON_CREDIT_EXHAUSTED, "arrearage" },
	{ REASON_CREDIT_EXHAUSTED, "you have no quota" },
	{ REASON_CREDIT_EXHAUSTED, "billing_not_active" },
	{ REASON_CREDIT_EXHAUSTED, "account is not active" },
	{ REASON_CREDIT_EXHAUSTED, "key limit exceeded" },
	{ REASON_CREDIT_EXHAUSTED, "account is in good standing" },
	{ REASON_CREDIT_EXHAUSTED, "budget has been exceeded" },
	{ REASON_CREDIT_EXHAUSTED, "budgetexceedederror" },
	{ REASON_INVALID_REQUEST, "request too large for" },
	{ REASON_RATE_LIMIT, "rate limit" },
	{ REASON_RATE_LIMIT, "rate_limit" },
	{ REASON_RATE_LIMIT, "rate-limit" },
	{ REASON_RATE_LIMIT, "ratelimit" },
	{ REASON_RATE_LIMIT, "rate limited" },
	{ REASON_RATE_LIMIT, "too many requests" },
	{ REASON_RATE_LIMIT, "too many tokens" },
	{ REASON_RATE_LIMIT, "retryablequotaerror" },
	{ REASON_RATE_LIMIT, "resource_exhausted" },
	{ REASON_RATE_LIMIT, "resource exhausted" },
	{ REASON_RATE_LIMIT, "resource has been exhausted" },
	{ REASON_RATE_LIMIT, "quota exceeded for" },
	{ REASON_RATE_LIMIT, "throttl" },
	{ REASON_RATE_LIMIT, "freeusagelimiterror" },
	{ REASON_RATE_LIMIT, "no deployments available" },
	{ REASON_RATE_LIMIT, "allocated quota exceeded" },
	{ REASON_RATE_LIMIT, "servicequotaexceeded" },
	{ REASON_RATE_LIMIT, "exceeds the service quota" },
	{ REASON_OVERLOADED, "overloaded" },
	{ REASON_OVERLOADED, "at capacity" },
	{ REASON_OVERLOADED, "high demand" },
	{ REASON_OVERLOADED, "model_capacity_exhausted" },
	{ REASON_OVERLOADED, "model_capacity_exceeded" },
	{ REASON_OVERLOADED, "capacity exceeded" },
	{ REASON_OVERLOADED, "over capacity" },
	{ REASON_OVERLOADED, "no capacity available" },
	{ REASON_UNAVAILABLE, "internal server error" },
	{ REASON_UNAVAILABLE, "internal_server_error" },
	{ REASON_UNAVAILABLE, "internalservererror" },
	{ REASON_UNAVAILABLE, "service unavailable" },
	{ REASON_UNAVAILABLE, "service_unavailable" },
	{ REASON_UNAVAILABLE, "bad gateway" },
	{ REASON_UNAVAILABLE, "gateway timeout" },
	{ REASON_UNAVAILABLE, "server error" },
	{ REASON_UNAVAILABLE, "stream disconnected" },
	{ REASON_UNAVAILABLE, "upstream connect" },
	{ REASON_UNAVAILABLE, "econnreset" },
	{ REASON_UNAVAILABLE, "econnrefused" },
	{ REASON_UNAVAILABLE, "enotfound" },
	{ REASON_UNAVAILABLE, "eai_again" },
	{ REASON_UNAVAILABLE, "socket hang up" },
	{ REASON_UNAVAILABLE, "fetch failed" },
	{ REASON_UNAVAILABLE, "connection error." },
	{ REASON_UNAVAILABLE, "apiconnectionerror" },
	{ REASON_UNAVAILABLE, "network error" },
	{ REASON_UNAVAILABLE, "could not connect to" },
	{ REASON_UNAVAILABLE, "connection refused" },
	{ REASON_UNAVAILABLE, "serviceunavailableexception" },
	{ REASON_AUTH, "authentication_error" },
	{ REASON_AUTH, "authentication_failed" },
	{ REASON_AUTH, "permission_error" },
	{ REASON_AUTH, "fatalauthenticationerror" },
	{ REASON_AUTH, "validationrequirederror" },
	{ REASON_AUTH, "oauth_org_not_allowed" },
	{ REASON_AUTH, "account_on_hold" },
	{ REASON_AUTH, "verification_required" },
	{ REASON_AUTH, "cloud_credential_error" },
	{ REASON_AUTH, "invalid api key" },
	{ REASON_AUTH, "invalid_api_key" },
	{ REASON_AUTH, "incorrect api key" },
	{ REASON_AUTH, "api key not valid" },
	{ REASON_AUTH, "invalid authentication" },
	{ REASON_AUTH, "authentication failed" },
	{ REASON_AUTH, "token has expired" },
	{ REASON_AUTH, "token expired" },
	{ REASON_AUTH, "invalid credentials" },
	{ REASON_AUTH, "invalid x-api-key" },
	{ REASON_AUTH, "not logged in" },
	{ REASON_AUTH, "please run /login" },
	{ REASON_AUTH, "failed to authenticate" },
	{ REASON_AUTH, "unauthorized" },
	{ REASON_AUTH, "unauthenticated" },
	{ REASON_AUTH, "permission_denied" },
	{ REASON_AUTH, "missing bearer" },
	{ REASON_AUTH, "invalid_grant" },
	{ REASON_AUTH, "refresh token revoked" },
	{ REASON_AUTH, "refresh token has been revoked" },
	{ REASON_AUTH, "refresh_token_reused" },
	{ REASON_AUTH, "oauth authentication is currently not allowed" },
	{ REASON_AUTH, "authentication error" },
	{ REASON_AUTH, "accessdeniedexception" },
	{ REASON_AUTH, "expiredtokenexception" },
	{ REASON_AUTH, "unrecognizedclientexception" },
	{ REASON_AUTH, "security token included in the request is" },
	{ REASON_AUTH, "no auth credentials" },
	{ REASON_TIMEOUT, "timeout_error" },
	{ REASON_TIMEOUT, "idle timeout" },
	{ REASON_TIMEOUT, "timed out" },
	{ REASON_TIMEOUT, "deadline exceeded" },
	{ REASON_TIMEOUT, "deadline_exceeded" },
	{ REASON_TIMEOUT, "apitimeouterror" },
	{ REASON_TIMEOUT, "request timeout" },
	{ REASON_TIMEOUT, "etimedout" },
	{ REASON_TIMEOUT, "request timed out" },
	{ REASON_INVALID_REQUEST, "invalid_request_error" },
	{ REASON_INVALID_REQUEST, "not_found_error" },
	{ REASON_INVALID_REQUEST, "modelnotfounderror" },
	{ REASON_INVALID_REQUEST, "model_not_found" },
	{ REASON_INVALID_REQUEST, "model not found" },
	{ REASON_INVALID_REQUEST, "context_length_exceeded" },
	{ REASON_INVALID_REQUEST, "context window" },
	{ REASON_INVALID_REQUEST, "prompt is too long" },
	{ REASON_INVALID_REQUEST, "maximum context length" },
	{ REASON_INVALID_REQUEST, "request_too_large" },
	{ REASON_INVALID_REQUEST, "is not supported" },
	{ REASON_INVALID_REQUEST, "fatalinputerror" },
	{ REASON_INVALID_REQUEST, "invalid request format" },
	{ REASON_INVALID_REQUEST, "context length exceeded" },
	{ REASON_INVALID_REQUEST, "contextwindowexceedederror" },
	{ REASON_INVALID_REQUEST, "validationexception" },
	{ REASON_INVALID_REQUEST, "input is too long" },
	{ REASON_INVALID_REQUEST, "extra usage is required for" },
};

/* Whole typed values too short or too common to be substrings. */
static const struct marker type_markers[] = {
	{ REASON_RATE_LIMIT, "rate_limit" },
	{ REASON_OVERLOADED, "overloaded" },
	{ REASON_UNAVAILABLE, "server_error" },
	{ REASON_UNAVAILABLE, "api_error" },
	{ REASON_UNAVAILABLE, "unavailable" },
	{ REASON_UNAVAILABLE, "internal" },
	{ REASON_INVALID_REQUEST, "invalid_request" },
	{ REASON_INVALID_REQUEST, "invalid_argument" },
	{ REASON_INVALID_REQUEST, "not_found" },
	{ REASON_AUTH, "permission-denied" },
};

/* Precedence of reasons when several match. */
static const enum reason precedence[] = {
	REASON_USAGE_LIMIT, REASON_CREDIT_EXHAUSTED, REASON_RATE_LIMIT, REASON_OVERLOADED,
	REASON_UNAVAILABLE, REASON_AUTH, REASON_TIMEOUT, REASON_INVALID_REQUEST,
};

void
evidence_init(struct evidence *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->forced = REASON_NONE;
	reset_clear(&ev->reset);
}

void
evidence_set_status(struct evidence *ev, json_int_t status, bool structured)
{
	if (status < 100 || status > 599)
		return;
	if (ev->http_status != 0 && (ev->status_structured || !structured))
		return;
	ev->http_status = (int)status;
	ev->status_structured = structured;
}

/* An HTTP reason phrase ("Too Many Requests") where a gateway put its type:
 * the status already says it, and it is not the provider's own type. */
static bool
reason_phrase(const char *low)
{
	static const char *const phrases[] = {
		"too many requests", "bad request", "unauthorized", "forbidden", "not found",
		"payment required", "internal server error", "service unavailable", "bad gateway",
		"gateway timeout", "request timeout", "unprocessable entity", "conflict",
	};

	for (size_t i = 0; i < sizeof(phrases) / sizeof(phrases[0]); i++)
		if (strcmp(low, phrases[i]) == 0)
			return true;
	return false;
}

void
evidence_add_type(struct evidence *ev, const char *type)
{
	char low[SIGNAL_FIELD_MAX];
	size_t n;

	if (type == NULL || *type == '\0')
		return;
	n = lower_copy(low, sizeof(low), type, strlen(type));
	append_text(ev->types, sizeof(ev->types), low, n);
	if (reason_phrase(low))
		return;
	ev->typed = true;
	if (ev->error_type[0] == '\0')
		clean_copy_str(ev->error_type, sizeof(ev->error_type), type);
}

void
evidence_set_message(struct evidence *ev, const char *s, size_t len)
{
	if (ev->message[0] == '\0')
		clean_copy(ev->message, sizeof(ev->message), s, len);
}

/* Marker matches respect digit boundaries so "limit: 0" is not "limit: 0.5". */
static bool
marker_in(const char *hay, const char *needle)
{
	size_t n = strlen(needle);

	for (const char *p = strstr(hay, needle); p != NULL; p = strstr(p + 1, needle)) {
		char after = p[n];

		if (isdigit((unsigned char)needle[n - 1]) && (isdigit((unsigned char)after) || after == '.'))
			continue;
		return true;
	}
	return false;
}

static bool
type_token(const char *types, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = strstr(types, word); p != NULL; p = strstr(p + 1, word))
		if ((p == types || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' '))
			return true;
	return false;
}

static enum reason
status_reason(int status)
{
	switch (status) {
	case 429:
		return REASON_RATE_LIMIT;
	case 402:
		return REASON_CREDIT_EXHAUSTED;
	case 529:
		return REASON_OVERLOADED;
	case 500: case 502: case 503: case 504:
		return REASON_UNAVAILABLE;
	case 401: case 403:
		return REASON_AUTH;
	case 408:
		return REASON_TIMEOUT;
	case 400: case 404: case 413: case 422:
		return REASON_INVALID_REQUEST;
	default:
		return REASON_NONE;
	}
}

/* A marker longer than the text cannot be in it: short lines (a pipe of
 * "y") skip the search for every one. */
static bool
marker_fits_in(const char *hay, size_t hay_len, const char *needle)
{
	for (size_t i = 0; i <= hay_len; i++)
		if (needle[i] == '\0')
			return marker_in(hay, needle);
	return false;
}

static bool
markers_match(const struct evidence *ev, enum reason r)
{
	size_t text_len = strlen(ev->text), types_len = strlen(ev->types);

	for (size_t i = 0; i < sizeof(text_markers) / sizeof(text_markers[0]); i++)
		if (text_markers[i].reason == r &&
		    (marker_fits_in(ev->text, text_len, text_markers[i].text) ||
		    marker_fits_in(ev->types, types_len, text_markers[i].text)))
			return true;
	for (size_t i = 0; i < sizeof(type_markers) / sizeof(type_markers[0]); i++)
		if (type_markers[i].reason == r && type_token(ev->types, type_markers[i].text))
			return true;
	return false;
}

/* "The model 'x' does not exist": the words are apart, so no one marker. */
static bool
model_missing(const struct evidence *ev)
{
	return marker_in(ev->text, "does not exist") && marker_in(ev->text, "model");
}

static bool
reason_matches(const struct evidence *ev, enum reason r)
{
	if (r == REASON_INVALID_REQUEST && model_missing(ev))
		return true;
	/* A 402 whose words say the wall moves ("rate limit exceeded", "try
	 * again later" beside a usage limit) is that limit, not spent credit. */
	if (r == REASON_CREDIT_EXHAUSTED && !markers_match(ev, r) && ev->http_status == 402 &&
	    markers_match(ev, REASON_RATE_LIMIT))
		return false;
	return markers_match(ev, r) || status_reason(ev->http_status) == r;
}

/* Words of a short window beside "exceeded your current quota".  The SDK's
 * class name (openai.error.RateLimitError) is not one: it wraps
 * insufficient_quota too. */
static bool
window_words(const struct evidence *ev)
{
	static const char *const words[] = {
		"resource_exhausted", "resource exhausted", "resource has been exhausted",
		"quota exceeded for", "rate limit", "rate_limit", "too many requests", "per minute",
		"perminute", "retry in", "retryablequotaerror", "throttl",
	};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (marker_in(ev->text, words[i]) || marker_in(ev->types, words[i]))
			return true;
	return false;
}

/* Server capacity, not the caller's quota, whatever class wraps it. */
static bool
capacity_exhausted(const struct evidence *ev)
{
	return marker_in(ev->text, "no capacity available") ||
	    marker_in(ev->text, "model_capacity_exhausted") ||
	    marker_in(ev->types, "model_capacity_exhausted");
}

enum reason
evidence_reason(const struct evidence *ev)
{
	if (ev->forced != REASON_NONE)
		return ev->forced;
	if (ev->rejected_event)
		return REASON_USAGE_LIMIT;
	if (capacity_exhausted(ev))
		return REASON_OVERLOADED;
	/* Too-large requests say "rate limit" but never succeed as they are;
	 * nor does a long-context request the plan does not include, whatever
	 * status it came with (a 429 rate_limit_error). */
	if ((marker_in(ev->text, "request too large for") || marker_in(ev->text, "extra usage is required for")) &&
	    !reason_matches(ev, REASON_USAGE_LIMIT))
		return REASON_INVALID_REQUEST;
	/* OpenAI's insufficient_quota text; Gemini's per-minute limit says the
	 * same words beside words of a window (RESOURCE_EXHAUSTED, a metric). */
	if (marker_in(ev->text, "exceeded your current quota") && !window_words(ev) &&
	    !reason_matches(ev, REASON_USAGE_LIMIT))
		return REASON_CREDIT_EXHAUSTED;
	/* "The engine is currently overloaded" sent with a 429 (Kimi): the
	 * words name the server's capacity, the status only the refusal. */
	if (ev->http_status == 429 && markers_match(ev, REASON_OVERLOADED) && !markers_match(ev, REASON_RATE_LIMIT) &&
	    !reason_matches(ev, REASON_USAGE_LIMIT) && !markers_match(ev, REASON_CREDIT_EXHAUSTED))
		return REASON_OVERLOADED;
	for (size_t i = 0; i < sizeof(precedence) / sizeof(precedence[0]); i++)
		if (reason_matches(ev, precedence[i]))
			return precedence[i];
	return REASON_AGENT_ERROR;
}

bool
text_names_failure(const struct evidence *ev)
{
	for (size_t i = 0; i < sizeof(precedence) / sizeof(precedence[0]); i++)
		if (reason_matches(ev, precedence[i]))
			return true;
	return false;
}

double
evidence_confidence(const struct evidence *ev)
{
	if (ev->rejected_event || (ev->status_structured && ev->typed))
		return 1.0;
	if (ev->status_structured)
		return 0.8;
	return 0.5;
}

bool
text_is_retry_notice(const char *s, size_t len)
{
	static const char *const words[] = {
		"retrying", "reconnecting", "will retry", "retry attempt", "auto-retry",
	};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (find_nocase(s, len, words[i]) != NULL)
			return true;
	return false;
}

void
evidence_merge(struct evidence *ev, const struct evidence *earlier)
{
	if (ev->http_status == 0 && earlier->http_status != 0) {
		ev->http_status = earlier->http_status;
		ev->status_structured = earlier->status_structured;
	}
	if (earlier->typed && ev->error_type[0] == '\0')
		strlcpy(ev->error_type, earlier->error_type, sizeof(ev->error_type));
	ev->typed |= earlier->typed;
	append_text(ev->types, sizeof(ev->types), earlier->types, strlen(earlier->types));
	if (ev->limit_type[0] == '\0')
		strlcpy(ev->limit_type, earlier->limit_type, sizeof(ev->limit_type));
	if (ev->scope_model[0] == '\0')
		strlcpy(ev->scope_model, earlier->scope_model, sizeof(ev->scope_model));
	if (ev->model[0] == '\0')
		strlcpy(ev->model, earlier->model, sizeof(ev->model));
	if (earlier->reset.at > 0)
		reset_offer(&ev->reset, earlier->reset.at, earlier->reset.source, earlier->reset.rank);
	if (ev->message[0] == '\0')
		strlcpy(ev->message, earlier->message, sizeof(ev->message));
	if (ev->text[0] == '\0')
		strlcpy(ev->text, earlier->text, sizeof(ev->text));
	if (ev->forced == REASON_NONE)
		ev->forced = earlier->forced;
}
