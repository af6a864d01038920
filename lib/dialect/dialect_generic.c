/*
 * Any other command, and the fallback for every family: provider error
 * envelopes on a line of their own.
 */
#include <string.h>

#include "dialect.h"

static enum record_kind
generic_record(struct dialect_ctx *ctx, json_t *obj, struct evidence *ev)
{
	if (!envelope_evidence(obj, ctx->now, ev, 0))
		return REC_IGNORE;
	if (text_is_retry_notice(ev->message, strlen(ev->message)))
		return REC_NOTICE;
	return REC_CANDIDATE;
}

/* Error envelopes can come from any family's stream. */
static const char *const generic_kept[] = { "error", NULL };

const struct dialect dialect_generic = {
	.name = "generic", .has_terminal = false,
	.kept_types = generic_kept,
	.detect = NULL, .record = generic_record,
};
