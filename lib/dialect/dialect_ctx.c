/*
 * What a dialect notes in its context (dialect.h): the model, the usage and
 * the cost a stream reports.  The toolkit the dialects use, below the
 * classifier that drives them.
 */
#include <string.h>

#include "classify_int.h"
#include "run_usage.h"
#include "textutil.h"

void
ctx_set_model(struct dialect_ctx *ctx, const char *model)
{
	if (model == NULL || *model == '\0' || ctx->model[0] != '\0' || strcmp(model, "<synthetic>") == 0)
		return;
	clean_copy_str(ctx->model, sizeof(ctx->model), model);
}

void
ctx_add_usage(struct dialect_ctx *ctx, json_t *obj, const char *in_key, const char *out_key)
{
	json_int_t in = jint(obj, in_key, -1), out = jint(obj, out_key, -1);

	if (in >= 0) {
		ctx->input_tokens = ctx->input_tokens < 0 ? 0 : ctx->input_tokens;
		ctx->usage_held |= !usage_add_tokens(&ctx->input_tokens, in);
	}
	if (out >= 0) {
		ctx->output_tokens = ctx->output_tokens < 0 ? 0 : ctx->output_tokens;
		ctx->usage_held |= !usage_add_tokens(&ctx->output_tokens, out);
	}
}

void
ctx_add_cost(struct dialect_ctx *ctx, json_t *cost)
{
	double sum = ctx->cost_usd < 0 ? 0 : ctx->cost_usd;

	if (!json_is_number(cost) || json_number_value(cost) < 0)
		return;
	ctx->usage_held |= !usage_add_cost(&sum, json_number_value(cost));
	ctx->cost_usd = sum;
}
