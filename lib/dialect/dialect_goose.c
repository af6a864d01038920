/*
 * goose run --output-format stream-json (best with --quiet).  Top-level
 * records: "message" (a conversation message: text, toolRequest,
 * toolResponse, systemNotification, ...), "notification" (an extension's
 * log or progress), "error" (the agent loop's error, a string) and
 * "complete" (teardown, with token counts).  "complete" also follows an
 * error, so it is judged: failed when an error is pending.  Setup failures
 * print text and exit with no record at all.
 */
#include <string.h>

#include "dialect.h"

static bool
goose_detect(json_t *obj)
{
	const char *t = jstr(obj, "type");
	json_t *msg = json_object_get(obj, "message");

	if (t == NULL)
		return false;
	if (strcmp(t, "message") == 0)
		return json_is_object(msg) && jstr(msg, "role") != NULL &&
		    json_is_array(json_object_get(msg, "content"));
	if (strcmp(t, "notification") == 0)
		return jstr(obj, "extension_id") != NULL;
	return strcmp(t, "complete") == 0 && json_object_get(obj, "total_tokens") != NULL;
}

/* A systemNotification of type creditsExhausted is goose's own credit wall. */
static bool
credits_exhausted(json_t *block, struct dialect_ctx *ctx, struct evidence *ev)
{
	const char *kind = jstr(block, "notificationType");

	if (!jtype_is(block, "systemNotification") || kind == NULL ||
	    strcmp(kind, "creditsExhausted") != 0)
		return false;
	evidence_add_type(ev, kind);
	evidence_text_field(ev, block, "msg", ctx->now);
	ev->forced = REASON_CREDIT_EXHAUSTED;
	return true;
}

static enum record_kind
goose_message(struct dialect_ctx *ctx, json_t *obj, struct evidence *ev)
{
	json_t *msg = json_object_get(obj, "message"), *block;
	json_t *inference = json_object_get(json_object_get(msg, "metadata"), "inference");
	const char *role = jstr(msg, "role");
	bool output = false;
	size_t i;

	if (role == NULL || strcmp(role, "assistant") != 0)
		return REC_EVENT;
	json_array_foreach(json_object_get(msg, "content"), i, block) {
		if (credits_exhausted(block, ctx, ev))
			return REC_CANDIDATE;
		output |= jtype_is(block, "text") || jtype_is(block, "toolRequest");
	}
	if (!output)
		return REC_EVENT;
	ctx_set_model(ctx, jstr(inference, jstr(inference, "resolvedModel") != NULL ?
	    "resolvedModel" : "requestedModel"));
	return REC_OUTPUT;
}

static enum record_kind
goose_record(struct dialect_ctx *ctx, json_t *obj, struct evidence *ev)
{
	const char *t = jstr(obj, "type");

	if (t == NULL)
		return REC_IGNORE;
	if (strcmp(t, "message") == 0)
		return goose_message(ctx, obj, ev);
	if (strcmp(t, "error") == 0 && json_is_string(json_object_get(obj, "error"))) {
		evidence_text_field(ev, obj, "error", ctx->now);
		return REC_CANDIDATE;
	}
	if (strcmp(t, "complete") == 0) {
		ctx_add_usage(ctx, obj, "input_tokens", "output_tokens");
		return REC_JUDGE;
	}
	return goose_detect(obj) ? REC_EVENT : REC_IGNORE;
}

static const char *const goose_commands[] = { "goose", NULL };
static const char *const goose_kept[] = { "error", "complete", NULL };
static const char *const goose_output[] = { "message", NULL };

/* A goose "message" record is output, or the rare credits notification.
 * Only goose's own shape (serde writes the tag first) is searched, so the
 * other families' "message" values cost nothing. */
static bool
goose_output_may_fail(const char *type, size_t type_len, const char *line, size_t len)
{
	static const char head[] = "{\"type\":\"message\",\"message\":";

	/* The line's first type is its type: the head can only match a
	 * "message". */
	return type_len == 7 && memcmp(type, "message", 7) == 0 &&
	    len > sizeof(head) && memcmp(line, head, sizeof(head) - 1) == 0 &&
	    memmem(line, len, "creditsExhausted", 16) != NULL;
}

const struct dialect dialect_goose = {
	.name = "goose", .has_terminal = true,
	.commands = goose_commands,
	.kept_types = goose_kept, .output_types = goose_output,
	.output_may_fail = goose_output_may_fail,
	.detect = goose_detect, .record = goose_record,
};
