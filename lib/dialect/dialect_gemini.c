/*
 * Gemini CLI stream-json, and the --output-format json document (no "type"
 * key; pretty-printed over many lines).  Terminal record: "result".
 */
#include <string.h>

#include "dialect.h"

static bool
gemini_detect(json_t *obj)
{
	const char *t = jstr(obj, "type");

	if (t == NULL)
		return jstr(obj, "session_id") != NULL && (json_object_get(obj, "response") != NULL ||
		    json_object_get(obj, "stats") != NULL || json_object_get(obj, "error") != NULL);
	if (strcmp(t, "result") == 0)
		return jstr(obj, "status") != NULL;
	if (strcmp(t, "init") == 0 || strcmp(t, "message") == 0)
		return jstr(obj, "timestamp") != NULL;
	return strcmp(t, "tool_use") == 0 && jstr(obj, "tool_name") != NULL;
}

static enum record_kind
gemini_result(struct dialect_ctx *ctx, json_t *obj, struct evidence *ev)
{
	json_t *error = json_object_get(obj, "error"), *stats = json_object_get(obj, "stats");
	const char *status = jstr(obj, "status");

	ctx_add_usage(ctx, stats, "input_tokens", "output_tokens");
	if (json_is_object(error)) {
		envelope_evidence(obj, ctx->now, ev, 0);
		return REC_FAILURE;
	}
	if (status != NULL && strcmp(status, "error") == 0)
		return REC_FAILURE;    /* the reason is the severity:error event before it */
	return REC_SUCCESS;
}

static enum record_kind
gemini_record(struct dialect_ctx *ctx, json_t *obj, struct evidence *ev)
{
	const char *t = jstr(obj, "type"), *role, *severity;

	if (t == NULL)
		return gemini_detect(obj) ? gemini_result(ctx, obj, ev) : REC_IGNORE;
	if (strcmp(t, "init") == 0) {
		ctx_set_model(ctx, jstr(obj, "model"));
		return REC_EVENT;
	}
	if (strcmp(t, "message") == 0) {
		role = jstr(obj, "role");
		return role != NULL && strcmp(role, "assistant") == 0 ? REC_OUTPUT : REC_EVENT;
	}
	if (strcmp(t, "tool_use") == 0)
		return REC_OUTPUT;
	if (strcmp(t, "tool_result") == 0)
		return REC_EVENT;
	if (strcmp(t, "error") == 0) {
		severity = jstr(obj, "severity");
		evidence_text_field(ev, obj, "message", ctx->now);
		return severity != NULL && strcmp(severity, "error") == 0 ? REC_CANDIDATE : REC_NOTICE;
	}
	if (strcmp(t, "result") == 0)
		return gemini_result(ctx, obj, ev);
	return REC_IGNORE;
}

static const char *const gemini_commands[] = { "gemini", NULL };
static const char *const gemini_packages[] = { "@google/gemini-cli", NULL };
static const char *const gemini_kept[] = { "result", "init", "error", NULL };
static const char *const gemini_output[] = { "message", "tool_use", NULL };

const struct dialect dialect_gemini = {
	.name = "gemini", .has_terminal = true,
	.commands = gemini_commands, .packages = gemini_packages, .config_dir_env = "GEMINI_CLI_HOME",
	.kept_types = gemini_kept, .output_types = gemini_output,
	.detect = gemini_detect, .record = gemini_record,
};
