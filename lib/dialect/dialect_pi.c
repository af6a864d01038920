/*
 * pi --mode json and --mode rpc.  The run ends at agent_end (unless it says
 * willRetry) or agent_settled, judged by the last assistant message_end; a
 * retry scheduled after agent_end reopens the verdict.
 */
#include <string.h>

#include "dialect.h"
#include "textutil.h"

static const char *const pi_types[] = {
	"session", "agent_start", "agent_end", "agent_settled", "turn_start", "turn_end",
	"message_start", "message_update", "message_end", "auto_retry_start", "auto_retry_end",
	"tool_execution_start", "tool_execution_update", "tool_execution_end",
	"auto_compaction_start", "auto_compaction_end", "compaction_start", "compaction_end",
	"queue_update",
};

static bool
pi_detect(json_t *obj)
{
	const char *t = jstr(obj, "type");

	if (t == NULL)
		return false;
	if (strcmp(t, "response") == 0)
		return jstr(obj, "command") != NULL;
	if (strcmp(t, "session") == 0)
		return json_object_get(obj, "version") != NULL;
	for (size_t i = 1; i < sizeof(pi_types) / sizeof(pi_types[0]); i++)
		if (strcmp(t, pi_types[i]) == 0)
			return true;
	return false;
}

static enum record_kind
pi_message_end(struct dialect_ctx *ctx, json_t *obj, struct evidence *ev)
{
	json_t *msg = json_object_get(obj, "message"), *usage = json_object_get(msg, "usage");
	const char *role = jstr(msg, "role"), *stop = jstr(msg, "stopReason"), *model;

	if (role == NULL || strcmp(role, "assistant") != 0)
		return REC_EVENT;
	ctx_set_model(ctx, jstr(msg, "model"));
	ctx_add_usage(ctx, usage, "input", "output");
	ctx_add_cost(ctx, json_object_get(json_object_get(usage, "cost"), "total"));
	if (stop == NULL || (strcmp(stop, "error") != 0 && strcmp(stop, "aborted") != 0))
		return REC_OUTPUT;
	model = jstr(msg, "model");
	if (model != NULL)
		clean_copy_str(ev->model, sizeof(ev->model), model);
	evidence_text_field(ev, msg, "errorMessage", ctx->now);
	return REC_CANDIDATE;
}

static enum record_kind
pi_record(struct dialect_ctx *ctx, json_t *obj, struct evidence *ev)
{
	const char *t = jstr(obj, "type");

	if (t == NULL)
		return REC_IGNORE;
	if (strcmp(t, "message_end") == 0)
		return pi_message_end(ctx, obj, ev);
	if (strcmp(t, "agent_end") == 0)
		return json_is_true(json_object_get(obj, "willRetry")) ? REC_EVENT : REC_JUDGE;
	if (strcmp(t, "agent_settled") == 0)
		return REC_SETTLE;
	if (strcmp(t, "auto_retry_start") == 0)
		return REC_REOPEN;
	if (strcmp(t, "auto_retry_end") == 0) {
		if (json_is_true(json_object_get(obj, "success")))
			return REC_EVENT;
		evidence_text_field(ev, obj, "finalError", ctx->now);
		return REC_FAILURE;
	}
	if (strcmp(t, "response") == 0) {
		if (!json_is_false(json_object_get(obj, "success")))
			return REC_EVENT;
		/* The error is a string, or an object ({"code":401,"message":...})
		 * read the way a provider envelope's error object is. */
		if (json_is_object(json_object_get(obj, "error")))
			envelope_evidence(obj, ctx->now, ev, 0);
		else
			evidence_text_field(ev, obj, "error", ctx->now);
		return REC_CANDIDATE;
	}
	if (strcmp(t, "tool_execution_start") == 0)
		return REC_OUTPUT;
	return pi_detect(obj) ? REC_EVENT : REC_IGNORE;
}

static const char *const pi_commands[] = { "pi", NULL };
static const char *const pi_packages[] = {
	"@mariozechner/pi-coding-agent", "@earendil-works/pi-coding-agent", NULL
};
static const char *const pi_kept[] = {
	"session", "agent_end", "agent_settled", "auto_retry_start", "auto_retry_end", "response",
	"message_end", NULL
};
static const char *const pi_output[] = { "tool_execution_start", NULL };

const struct dialect dialect_pi = {
	.name = "pi", .has_terminal = true,
	.commands = pi_commands, .packages = pi_packages, .config_dir_env = "PI_CODING_AGENT_DIR",
	.kept_types = pi_kept, .output_types = pi_output,
	.detect = pi_detect, .record = pi_record,
};
