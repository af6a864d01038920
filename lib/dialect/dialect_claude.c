/*
 * Claude Code stream-json and json.  Terminal record: "result".  The
 * families that copy its stream shape (cursor-agent, qwen-code) use its
 * record() and prefilter rule.
 */
#include <string.h>

#include "dialect.h"
#include "linescan.h"
#include "textutil.h"

static bool
claude_detect(json_t *obj)
{
	const char *t = jstr(obj, "type");

	if (t == NULL)
		return false;
	if (strcmp(t, "system") == 0)
		return jstr(obj, "subtype") != NULL;
	if (strcmp(t, "assistant") == 0 || strcmp(t, "user") == 0)
		return json_is_object(json_object_get(obj, "message"));
	if (strcmp(t, "result") == 0)
		return json_object_get(obj, "is_error") != NULL || jstr(obj, "subtype") != NULL;
	return strcmp(t, "rate_limit_event") == 0;
}

/* Claude's `error` codes; "unknown" says nothing. */
static void
claude_error_code(struct evidence *ev, json_t *obj)
{
	const char *code = jstr(obj, "error");

	if (code != NULL && strcmp(code, "unknown") != 0)
		evidence_add_type(ev, code);
}

static enum record_kind
claude_system(struct dialect_ctx *ctx, json_t *obj, struct evidence *ev)
{
	const char *sub = jstr(obj, "subtype");

	if (sub == NULL)
		return REC_EVENT;
	if (strcmp(sub, "init") == 0)
		ctx_set_model(ctx, jstr(obj, "model"));
	if (strcmp(sub, "api_retry") == 0) {
		evidence_set_status(ev, jint(obj, "error_status", 0), true);
		claude_error_code(ev, obj);
		return REC_NOTICE;
	}
	if (strcmp(sub, "task_notification") == 0 && jstr(obj, "status") != NULL &&
	    strcmp(jstr(obj, "status"), "failed") == 0) {
		evidence_text_field(ev, obj, "summary", ctx->now);
		return REC_NOTICE;
	}
	return REC_EVENT;
}

static void
model_class_scope(struct evidence *ev, const char *limit)
{
	static const char *const classes[] = { "opus", "sonnet", "haiku" };

	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		if (strstr(limit, classes[i]) != NULL)
			strlcpy(ev->scope_model, classes[i], sizeof(ev->scope_model));
}

static enum record_kind
claude_rate_limit_event(struct dialect_ctx *ctx, json_t *obj, struct evidence *ev)
{
	json_t *info = json_object_get(obj, "rate_limit_info");
	const char *status = jstr(info, "status"), *limit = jstr(info, "rateLimitType");
	char msg[160];

	if (json_is_object(info))
		readings_from_claude(&ctx->readings, info, (double)ctx->now);
	/* Only "rejected" blocks; allowed, allowed_warning and overage states do not. */
	if (status == NULL || strcmp(status, "rejected") != 0)
		return REC_EVENT;
	ev->rejected_event = true;
	evidence_add_type(ev, "rate_limit_event");
	if (limit != NULL) {
		clean_copy_str(ev->limit_type, sizeof(ev->limit_type), limit);
		model_class_scope(ev, limit);
		evidence_epoch_field(ev, json_object_get(json_object_get(info, "unifiedWindows"), limit),
		    "resetsAt");
	}
	evidence_epoch_field(ev, info, "resetsAt");
	snprintf(msg, sizeof(msg), "rate_limit_event rejected (%s)", limit != NULL ? limit : "unknown");
	evidence_set_message(ev, msg, strlen(msg));
	return REC_CANDIDATE;
}

static void
content_text(struct evidence *ev, json_t *message, time_t now)
{
	json_t *content = json_object_get(message, "content"), *block;
	size_t i;

	if (json_is_string(content)) {
		evidence_add_text(ev, json_string_value(content), json_string_length(content), now);
		return;
	}
	json_array_foreach(content, i, block)
		evidence_text_field(ev, block, "text", now);
}

static enum record_kind
claude_assistant(struct dialect_ctx *ctx, json_t *obj, struct evidence *ev)
{
	json_t *message = json_object_get(obj, "message");
	const char *model = jstr(message, "model");
	bool synthetic = model != NULL && strcmp(model, "<synthetic>") == 0;

	if (synthetic || jstr(obj, "error") != NULL) {
		claude_error_code(ev, obj);
		content_text(ev, message, ctx->now);
		return REC_CANDIDATE;
	}
	ctx_set_model(ctx, model);
	return REC_OUTPUT;
}

/* Failures that are the agent's own, whatever text the result carries. */
static bool
agent_limit(json_t *obj)
{
	static const char *const own[] = {
		"error_max_turns", "error_max_budget_usd", "error_max_structured_output_retries",
		"max_turns", "budget_exhausted", "structured_output_retry_exhausted",
	};
	const char *sub = jstr(obj, "subtype"), *why = jstr(obj, "terminal_reason");

	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		if ((sub != NULL && strcmp(sub, own[i]) == 0) || (why != NULL && strcmp(why, own[i]) == 0))
			return true;
	return false;
}

static enum record_kind
claude_result(struct dialect_ctx *ctx, json_t *obj, struct evidence *ev)
{
	json_t *is_error = json_object_get(obj, "is_error"), *errors = json_object_get(obj, "errors"), *e;
	const char *sub = jstr(obj, "subtype");
	size_t i;

	ctx_add_usage(ctx, json_object_get(obj, "usage"), "input_tokens", "output_tokens");
	ctx_add_cost(ctx, json_object_get(obj, json_object_get(obj, "cost_usd") != NULL ?
	    "cost_usd" : "total_cost_usd"));
	if (json_is_false(is_error))
		return REC_SUCCESS;
	if (!json_is_true(is_error) && (sub == NULL || strncmp(sub, "error", 5) != 0))
		return REC_SUCCESS;
	evidence_set_status(ev, jint(obj, "api_error_status", 0), true);
	evidence_text_field(ev, obj, "result", ctx->now);
	json_array_foreach(errors, i, e)
		if (json_is_string(e))
			evidence_add_text(ev, json_string_value(e), json_string_length(e), ctx->now);
	if (agent_limit(obj) && ev->http_status == 0)
		ev->forced = REASON_AGENT_ERROR;
	return REC_FAILURE;
}

enum record_kind
claude_record(struct dialect_ctx *ctx, json_t *obj, struct evidence *ev)
{
	const char *t = jstr(obj, "type");

	if (t == NULL)
		return REC_IGNORE;
	if (strcmp(t, "system") == 0)
		return claude_system(ctx, obj, ev);
	if (strcmp(t, "rate_limit_event") == 0)
		return claude_rate_limit_event(ctx, obj, ev);
	if (strcmp(t, "assistant") == 0)
		return claude_assistant(ctx, obj, ev);
	if (strcmp(t, "result") == 0)
		return claude_result(ctx, obj, ev);
	if (strcmp(t, "user") == 0 || strcmp(t, "stream_event") == 0)
		return REC_EVENT;
	if (strcmp(t, "tool_call") == 0)
		return REC_OUTPUT;
	return REC_IGNORE;
}

/* Where "model":"<synthetic>" is looked for in a long line: the message's
 * model sits before its content (next to its id) or, written in another
 * key order, after it; only the content is long. */
#define SYNTHETIC_SPAN 1024

/* Where a top-level "error": may end: the line's last bytes. */
#define ERROR_KEY_SPAN 512

static bool
is_assistant(const char *type, size_t type_len)
{
	return type_len == 9 && memcmp(type, "assistant", 9) == 0;
}

/* Does a "<synthetic>" that starts at q count: among the first or the last
 * SYNTHETIC_SPAN bytes of a line of len bytes? */
static bool
synthetic_counts(long q, size_t len)
{
	return q >= 0 && ((size_t)q < SYNTHETIC_SPAN || (size_t)q + SYNTHETIC_SPAN >= len);
}

/* Synthetic errors are assistant records with a top-level error, which
 * comes after the long message content.  A long line is searched for the
 * model at its two ends only: the content between them is most of the
 * bytes of a stream, and reading it twice (here and for its line end)
 * cost a tenth of the classifier.  The last bytes, where the error key
 * would end, are read once for both. */
bool
claude_output_may_fail(const char *type, size_t type_len, const char *line, size_t len)
{
	size_t tail = len < ERROR_KEY_SPAN ? len : ERROR_KEY_SPAN, from = len - tail;
	size_t head = len <= 2 * SYNTHETIC_SPAN ? 0 : len - SYNTHETIC_SPAN;

	if (!is_assistant(type, type_len))
		return false;
	if (head > 0 && has_rare(line, SYNTHETIC_SPAN + 10, "<synthetic>", 11))
		return true;
	/* The model's starts before the tail (it may end ten bytes into it),
	 * then both in the tail. */
	return (from > head && has_rare(line + head, from - head + 10, "<synthetic>", 11)) ||
	    has_key_colon_or_rare(line + from, tail, "\"error\"", 7, "<synthetic>", 11);
}

/* claude_output_may_fail(), with the search for "<synthetic>" made in the
 * pass that finds the line's end: the same starts count (synthetic_counts
 * holds for exactly those the searches above look at). */
size_t
claude_output_may_fail_ahead(const char *type, size_t type_len, const char *p, size_t avail,
    bool *may_fail)
{
	struct line_marks syn;
	const char *nl;
	size_t end, len, tail;

	if (!is_assistant(type, type_len)) {
		*may_fail = false;
		return (nl = memchr(p, '\n', avail)) != NULL ? (size_t)(nl - p) : 0;
	}
	if ((end = line_scan(p, avail, "<synthetic>", 11, &syn)) == avail)
		return 0;
	len = line_without_cr(p, end);
	tail = len < ERROR_KEY_SPAN ? len : ERROR_KEY_SPAN;
	*may_fail = synthetic_counts(syn.first, len) || synthetic_counts(syn.last, len) ||
	    has_key_colon(p + len - tail, tail, "\"error\"", 7);
	return end;
}

/*
 * An allowed heartbeat whose reset and overage state (heartbeat.h) is the
 * one the last heartbeat had: record() would answer REC_EVENT, as for
 * every allowed one, and claude_detect() accepts it, as it is the first
 * dialect in the table.  A heartbeat with a new state, or after one that
 * was not an allowed one the scan could read, is parsed, so every change
 * of status, reset or overage state passes through record().
 */
bool
claude_heartbeat_unchanged(struct dialect_memo *memo, const char *line, size_t len)
{
	static const char event[] = "{\"type\":\"rate_limit_event\"";
	char state[HEARTBEAT_STATE_MAX];
	struct heartbeat_template tpl;
	size_t n;
	bool same;

	/* Most heartbeats: the last one's bytes but for utilization and uuid. */
	if (memo->len > 0 && heartbeat_like(&memo->tpl, line, len))
		return true;
	if (!heartbeat_scan_template(line, len, state, &n, &tpl)) {
		/* Another status, or bytes the scan leaves to the parser: the
		 * next allowed heartbeat is a change again. */
		if (len >= sizeof(event) - 1 && memcmp(line, event, sizeof(event) - 1) == 0)
			memo->len = 0;
		return false;
	}
	same = n == memo->len && memcmp(state, memo->bytes, n) == 0;
	memcpy(memo->bytes, state, n);
	memo->len = n;
	memo->tpl = tpl;
	return same;
}

/* The template's length ahead: a heartbeat like the last one, rewritten in
 * place (a new uuid, a utilization), ends exactly there. */
size_t
claude_heartbeat_ahead(const struct dialect_memo *memo, const char *p, size_t avail)
{
	size_t n = memo->tpl.len;

	return memo->len > 0 && n > 0 && n < avail && p[n] == '\n' &&
	    heartbeat_in_place(&memo->tpl, p, n) ? n : 0;
}

static const char *const claude_commands[] = { "claude", NULL };
static const char *const claude_packages[] = { "@anthropic-ai/claude-code", NULL };
static const char *const claude_kept[] = { "result", "rate_limit_event", "system", NULL };
static const char *const claude_output[] = { "assistant", NULL };

const struct dialect dialect_claude = {
	.name = "claude", .has_terminal = true,
	.commands = claude_commands, .packages = claude_packages,
	.config_dir_env = "CLAUDE_CONFIG_DIR",
	.kept_types = claude_kept, .output_types = claude_output,
	.output_may_fail = claude_output_may_fail,
	.output_may_fail_ahead = claude_output_may_fail_ahead,
	.unchanged = claude_heartbeat_unchanged, .unchanged_ahead = claude_heartbeat_ahead,
	.detect = claude_detect, .record = claude_record,
};
