/*
 * GitHub Copilot CLI (copilot -p): text only.  A failure is an error line
 * on the screen ("✗ Sorry, you've hit a rate limit ... Please try again in
 * 2 hours.", "× Model call failed: {...}", "Error: 402 {...}"), read by the
 * text rules; there is no record of its own and no terminal record.  The
 * dialect exists so that the family (and its breakers) has its own name.
 */
#include "dialect.h"

static enum record_kind
copilot_record(struct dialect_ctx *ctx, json_t *obj, struct evidence *ev)
{
	(void)ctx, (void)obj, (void)ev;
	return REC_IGNORE;
}

static const char *const copilot_commands[] = { "copilot", NULL };
static const char *const copilot_packages[] = { "@github/copilot", NULL };

const struct dialect dialect_copilot = {
	.name = "copilot", .has_terminal = false,
	.commands = copilot_commands, .packages = copilot_packages,
	.detect = NULL, .record = copilot_record,
};
