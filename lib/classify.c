/*
 * The streaming classifier: bytes become lines (classify_lines.c), a
 * byte-level prefilter drops the lines that cannot matter (prefilter.c),
 * jansson parses the rest, the family's dialect says what each record
 * means (here), and the verdict state machine keeps just enough state to
 * name the verdict at the end (verdict.c).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "classify_int.h"
#include "textutil.h"

struct classifier *
classifier_new(const char *family, time_t now)
{
	struct classifier *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
	if (!prefilter_init(&c->prefilter)) {
		free(c);
		return NULL;
	}
	c->ctx.now = now;
	reset_clear(&c->header_reset);
	c->ctx.input_tokens = c->ctx.output_tokens = -1;
	c->ctx.cost_usd = -1;
	if (family != NULL && *family != '\0') {
		c->family_forced = true;
		c->dialect = dialect_find(family) != NULL ? dialect_find(family) : &dialect_generic;
	}
	return c;
}

void
classifier_free(struct classifier *c)
{
	if (c == NULL)
		return;
	free(c->buf);
	free(c->stash);
	free(c->doc);
	free(c->skipped_copy);
	free(c);
}

void
classifier_on_signal(struct classifier *c, signal_cb cb, void *arg)
{
	c->cb = cb;
	c->cb_arg = arg;
}

void
classifier_set_now(struct classifier *c, time_t now)
{
	c->ctx.now = now;
}

const char *
classifier_family(const struct classifier *c)
{
	return c->dialect != NULL ? c->dialect->name : "";
}

const char *
classifier_model(const struct classifier *c)
{
	return c->ctx.model;
}

bool
classifier_saw_output(const struct classifier *c)
{
	return c->saw_output;
}

void
classifier_usage(const struct classifier *c, struct run_usage *out)
{
	out->input_tokens = c->ctx.input_tokens;
	out->output_tokens = c->ctx.output_tokens;
	out->cost_usd = c->ctx.cost_usd;
	out->held = c->ctx.usage_held;
}

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

static const struct dialect *
detect_dialect(json_t *obj)
{
	for (int i = 0; dialect_table[i] != NULL; i++)
		if (dialect_table[i]->detect != NULL && dialect_table[i]->detect(obj))
			return dialect_table[i];
	return NULL;
}

static void
handle_object(struct classifier *c, json_t *obj)
{
	struct evidence ev;
	enum record_kind kind = REC_IGNORE;

	if (!json_is_object(obj))
		return;
	if (!c->family_forced) {
		const struct dialect *d = detect_dialect(obj);

		/* A family that refines another takes over once its own records show. */
		if (d != NULL && (c->dialect == NULL || c->dialect == &dialect_generic ||
		    (d->refines != NULL && d->refines == c->dialect))) {
			c->dialect = d;
			c->memo.len = 0;
		}
	}
	evidence_init(&ev);
	if (c->dialect != NULL && c->dialect != &dialect_generic) {
		kind = c->dialect->record(&c->ctx, obj, &ev);
		if (kind != REC_IGNORE)
			c->saw_family_event = true;
	}
	if (kind == REC_IGNORE) {
		evidence_init(&ev);
		kind = dialect_generic.record(&c->ctx, obj, &ev);
	}
	verdict_apply(c, kind, &ev);
}

void
classify_value(struct classifier *c, json_t *v)
{
	size_t i;
	json_t *e;

	if (json_is_array(v)) {
		json_array_foreach(v, i, e)
			handle_object(c, e);
	} else
		handle_object(c, v);
}

static void
handle_header(struct classifier *c, const char *s, size_t len)
{
	struct reset r;

	if (!reset_from_text(s, len, c->ctx.now, &r))
		return;
	if (c->cand.have && c->cand.own_reset)
		return;    /* the body said when its own window resets */
	if (c->cand.have)
		reset_offer(&c->cand.ev.reset, r.at, r.source, r.rank);
	else
		reset_offer(&c->header_reset, r.at, r.source, r.rank);
}

/*
 * Ordinary text after a failure candidate read from text is the run going
 * on; verdict_finish weighs it with the exit status (fixtures/README.md,
 * "Plain text and screens").
 */
static void
note_text_after(struct classifier *c, const char *s, size_t len, size_t indent,
    enum textline_kind kind)
{
	if (!c->cand.have || (!c->cand.text_only && c->saw_family_event))
		return;
	if (!textline_is_ordinary(s, len, indent, kind))
		return;
	c->ordinary_after_cand++;
	if (c->gap_after_cand)
		c->went_on_after_gap = true;
	/* verdict_finish would drop it whatever the exit: dropped now, so that
	 * nothing later (a JSON failure taking what it lacks, a judging record,
	 * the plain-text hot path) sees a failure the run went on from. */
	if (c->ordinary_after_cand >= TEXT_WENT_ON_LINES && c->cand.text_only)
		c->cand.have = false;
}

/* Does the body of an error line, quotes and paths left out, name a failure? */
static bool
body_names_failure(const struct classifier *c, const char *s, size_t len)
{
	char body[1024];
	struct evidence ev;
	size_t n = textline_unquoted(body, sizeof(body), s, len);

	evidence_init(&ev);
	evidence_add_text(&ev, body, n, c->ctx.now);
	return text_names_failure(&ev);
}

/* Does a line of this kind name a failure (ev: what it says)?  An error
 * line only by its body, quotes and paths left out. */
static bool
line_names_failure(const struct classifier *c, const char *s, size_t len, enum textline_kind kind,
    size_t body, struct evidence *ev)
{
	evidence_init(ev);
	evidence_add_text(ev, s, len, c->ctx.now);
	return text_names_failure(ev) && (kind != TEXTLINE_ERROR || body_names_failure(c, s + body, len - body));
}

bool
text_line_inert(struct classifier *c, const char *s, size_t len, size_t indent, bool *ordinary)
{
	struct evidence ev;
	size_t body;
	enum textline_kind kind = textline_kind(&c->text, s, len, indent, &body);

	*ordinary = textline_is_ordinary(s, len, indent, kind);
	if (kind == TEXTLINE_PLAIN)
		return true;
	return kind != TEXTLINE_HEADER && !line_names_failure(c, s, len < 16384 ? len : 16384, kind, body, &ev);
}

/*
 * A text line (stderr, text mode, a screen): it counts only in the shape of
 * an error line or a banner (textline.h), when it names a failure and is
 * not a retry notice.  The lines right after a text failure are its
 * message going on (details, a message wrapped at the terminal's width):
 * they add their reset; past MESSAGE_LINES_MAX they are output again.
 */
void
classify_text(struct classifier *c, const char *s, size_t len, size_t indent)
{
	struct evidence ev;
	size_t body;
	bool continues = c->last_text_line == c->lineno - 1;
	enum textline_kind kind = textline_kind(&c->text, s, len, indent, &body);
	bool message = continues && c->cand.have && c->cand.text_only && c->text_end == c->lineno - 1;

	c->last_text_line = c->lineno;
	c->saw_text = true;
	if (!message || ++c->message_lines > MESSAGE_LINES_MAX)
		note_text_after(c, s, len, indent, kind);
	if (len > 16384)
		len = 16384;
	if (kind == TEXTLINE_HEADER) {
		handle_header(c, s, len);
		return;
	}
	if (message) {
		evidence_init(&ev);
		evidence_add_text(&ev, s, len, c->ctx.now);
		if (ev.reset.at > 0)
			reset_offer(&c->cand.ev.reset, ev.reset.at, ev.reset.source, ev.reset.rank);
		c->text_end = c->lineno;
		return;
	}
	if (kind == TEXTLINE_PLAIN || !line_names_failure(c, s, len, kind, body, &ev))
		return;
	if (text_is_retry_notice(s, len)) {
		verdict_apply(c, REC_NOTICE, &ev);
		return;
	}
	if (c->cand.have && !c->cand.text_only) {
		struct held h;

		verdict_hold(c, &h, &ev, true);
		verdict_emit(c, &h);
		return;
	}
	verdict_hold(c, &c->cand, &ev, true);
	c->text_end = c->lineno;
	c->cand.needs_failed_exit = kind == TEXTLINE_ERROR;
	verdict_emit(c, &c->cand);
}

void
classifier_finish(struct classifier *c, int exit_code, struct fail_signal *out)
{
	lines_finish(c);
	verdict_finish(c, exit_code, out);
}
