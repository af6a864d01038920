/*
 * opencode run --format json.  There is no terminal record: the run ends at
 * exit, and an "error" event is the failure.
 */
#include <string.h>

#include "dialect.h"

static bool
opencode_detect(json_t *obj)
{
	return jstr(obj, "sessionID") != NULL && jstr(obj, "type") != NULL;
}

static enum record_kind
opencode_record(struct dialect_ctx *ctx, json_t *obj, struct evidence *ev)
{
	const char *t = jstr(obj, "type");
	json_t *part = json_object_get(obj, "part");

	if (t == NULL)
		return REC_IGNORE;
	if (strcmp(t, "error") == 0)
		return envelope_evidence(obj, ctx->now, ev, 0) ? REC_CANDIDATE : REC_EVENT;
	if (strcmp(t, "text") == 0 || strcmp(t, "tool_use") == 0 || strcmp(t, "reasoning") == 0)
		return REC_OUTPUT;
	if (strcmp(t, "step_finish") == 0) {
		ctx_add_usage(ctx, json_object_get(part, "tokens"), "input", "output");
		ctx_add_cost(ctx, json_object_get(part, "cost"));
	}
	return REC_EVENT;
}

static const char *const opencode_commands[] = { "opencode", NULL };
static const char *const opencode_packages[] = { "opencode-ai", NULL };
static const char *const opencode_kept[] = { "error", "step_finish", NULL };
static const char *const opencode_output[] = { "text", "tool_use", NULL };

const struct dialect dialect_opencode = {
	.name = "opencode", .has_terminal = false,
	.commands = opencode_commands, .packages = opencode_packages,
	.config_dir_env = "OPENCODE_CONFIG_DIR",
	.kept_types = opencode_kept, .output_types = opencode_output,
	.detect = opencode_detect, .record = opencode_record,
};
