/*
 * codex exec --json: the current thread/turn/item events, the transitional
 * item_type form and the legacy {"id","msg"} envelope.  Terminal records:
 * turn.completed / turn.failed (legacy task_complete).
 */
#include <string.h>

#include "dialect.h"
#include "textutil.h"

static bool
codex_detect(json_t *obj)
{
	const char *t = jstr(obj, "type");

	if (t != NULL)
		return strncmp(t, "thread.", 7) == 0 || strncmp(t, "turn.", 5) == 0 ||
		    strncmp(t, "item.", 5) == 0;
	return json_is_object(json_object_get(obj, "msg")) && json_object_get(obj, "id") != NULL;
}

static bool
is_output_item(const char *type)
{
	/* Reasoning is not operational: nothing was answered or done yet. */
	static const char *const outputs[] = {
		"agent_message", "assistant_message", "command_execution", "file_change",
		"mcp_tool_call", "web_search", "todo_list", "collab_tool_call",
		"exec_command_begin", "exec_command_end", "patch_apply_begin",
	};

	for (size_t i = 0; type != NULL && i < sizeof(outputs) / sizeof(outputs[0]); i++)
		if (strcmp(type, outputs[i]) == 0)
			return true;
	return false;
}

/* A top-level error: retry notices are not failures. */
static enum record_kind
codex_error(struct dialect_ctx *ctx, json_t *obj, struct evidence *ev)
{
	const char *msg = jstr(obj, "message");

	if (msg == NULL)
		return REC_EVENT;
	evidence_add_text(ev, msg, strlen(msg), ctx->now);
	if (strncmp(msg, "Reconnecting", 12) == 0 || text_is_retry_notice(msg, strlen(msg)))
		return REC_NOTICE;
	return REC_CANDIDATE;
}

static enum record_kind
codex_item(struct dialect_ctx *ctx, json_t *obj, struct evidence *ev)
{
	json_t *item = json_object_get(obj, "item");
	const char *type = jstr(item, "type") != NULL ? jstr(item, "type") : jstr(item, "item_type");

	if (type != NULL && strcmp(type, "error") == 0) {
		/* Item errors are warnings: config, deprecation, transport fallback. */
		evidence_text_field(ev, item, "message", ctx->now);
		return REC_NOTICE;
	}
	return is_output_item(type) ? REC_OUTPUT : REC_EVENT;
}

static enum record_kind
codex_legacy(struct dialect_ctx *ctx, json_t *msg, struct evidence *ev)
{
	const char *type = jstr(msg, "type"), *text = jstr(msg, "message");

	if (type == NULL)
		return REC_EVENT;
	if (strcmp(type, "session_configured") == 0)
		ctx_set_model(ctx, jstr(msg, "model"));
	if (strcmp(type, "task_complete") == 0)
		return REC_SUCCESS;
	if (strcmp(type, "token_count") == 0) {
		readings_from_codex(&ctx->readings, json_object_get(msg, "rate_limits"), (double)ctx->now);
		return REC_EVENT;
	}
	/* Retry notices, and MCP servers that fail to start, do not end the run. */
	if (strcmp(type, "stream_error") == 0 ||
	    (strcmp(type, "error") == 0 && text != NULL && strstr(text, "MCP client") != NULL)) {
		if (text != NULL)
			evidence_add_text(ev, text, strlen(text), ctx->now);
		return REC_NOTICE;
	}
	if (strcmp(type, "error") == 0)
		return codex_error(ctx, msg, ev);
	return is_output_item(type) ? REC_OUTPUT : REC_EVENT;
}

static enum record_kind
codex_record(struct dialect_ctx *ctx, json_t *obj, struct evidence *ev)
{
	const char *t = jstr(obj, "type");
	json_t *msg = json_object_get(obj, "msg");

	if (t == NULL)
		return json_is_object(msg) ? codex_legacy(ctx, msg, ev) : REC_IGNORE;
	if (strcmp(t, "turn.completed") == 0) {
		ctx_add_usage(ctx, json_object_get(obj, "usage"), "input_tokens", "output_tokens");
		return REC_SUCCESS;
	}
	if (strcmp(t, "turn.failed") == 0) {
		evidence_text_field(ev, json_object_get(obj, "error"), "message", ctx->now);
		return REC_FAILURE;
	}
	if (strcmp(t, "error") == 0)
		return codex_error(ctx, obj, ev);
	if (strcmp(t, "token_count") == 0) {   /* the event stream's form of the legacy record */
		readings_from_codex(&ctx->readings, json_object_get(obj, "rate_limits"), (double)ctx->now);
		return REC_EVENT;
	}
	if (strncmp(t, "item.", 5) == 0)
		return codex_item(ctx, obj, ev);
	if (strncmp(t, "thread.", 7) == 0 || strncmp(t, "turn.", 5) == 0)
		return REC_EVENT;
	return REC_IGNORE;
}

static const char *const codex_commands[] = { "codex", NULL };
static const char *const codex_packages[] = { "@openai/codex", NULL };
/* task_complete and stream_error are the legacy envelope's msg types. */
static const char *const codex_kept[] = {
	"error", "turn.completed", "turn.failed", "turn.started", "thread.started",
	"task_complete", "stream_error", "token_count", NULL
};
static const char *const codex_output[] = {
	"item.completed", "agent_message", "exec_command_begin", "exec_command_end",
	"patch_apply_begin", NULL
};

const struct dialect dialect_codex = {
	.name = "codex", .has_terminal = true,
	.commands = codex_commands, .packages = codex_packages, .config_dir_env = "CODEX_HOME",
	.kept_types = codex_kept, .output_types = codex_output,
	.detect = codex_detect, .record = codex_record,
};
