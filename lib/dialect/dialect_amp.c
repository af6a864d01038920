/*
 * amp -x --stream-json (Sourcegraph Amp): Claude Code's stream shape and
 * records, except that a failed result states its error in "error" rather
 * than in "result".  Its stream cannot be told from Claude's, so the family
 * comes from the command.
 */
#include "dialect.h"

static enum record_kind
amp_record(struct dialect_ctx *ctx, json_t *obj, struct evidence *ev)
{
	enum record_kind kind = claude_record(ctx, obj, ev);

	if (kind == REC_FAILURE)
		evidence_text_field(ev, obj, "error", ctx->now);
	return kind;
}

static const char *const amp_commands[] = { "amp", NULL };
static const char *const amp_packages[] = { "@sourcegraph/amp", NULL };

const struct dialect dialect_amp = {
	.name = "amp", .has_terminal = true,
	.commands = amp_commands, .packages = amp_packages,
	.detect = NULL, .record = amp_record,
};
