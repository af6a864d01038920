/*
 * The verdict state machine: what each kind of record does to the run's
 * outcome (pending, succeeded, failed), the failure candidates it holds
 * until something terminal decides, and the signal it names at the end.
 */
#include <string.h>

#include "classify_int.h"
#include "redact.h"

/* limit_type from wording when no record named it. */
static void
derive_limit_type(const struct evidence *ev, struct fail_signal *sig)
{
	static const struct { const char *marker, *type; } words[] = {
		{ "session limit", "five_hour" }, { "5-hour limit", "five_hour" },
		{ "5 hour limit", "five_hour" }, { "weekly limit", "seven_day" },
		{ "opus limit", "seven_day_opus" }, { "sonnet limit", "seven_day_sonnet" },
		{ "daily quota", "daily" }, { "per day", "daily" }, { "perday", "daily" },
		{ "per_day", "daily" },
		{ "(rpd)", "daily" }, { "(tpd)", "daily" }, { "free-models-per-day", "daily" },
		{ "daily usage limit", "daily" }, { "daily limit", "daily" },
		{ "weekly usage limit", "seven_day" },
		{ "monthly usage limit", "monthly" }, { "monthly limit", "monthly" },
		{ "monthly quota", "monthly" }, { "monthly spend", "monthly" },
	};

	if (ev->limit_type[0] != '\0') {
		strlcpy(sig->limit_type, ev->limit_type, sizeof(sig->limit_type));
		return;
	}
	if (sig->reason != REASON_USAGE_LIMIT && sig->reason != REASON_RATE_LIMIT)
		return;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strstr(ev->text, words[i].marker) != NULL || strstr(ev->types, words[i].marker) != NULL) {
			strlcpy(sig->limit_type, words[i].type, sizeof(sig->limit_type));
			return;
		}
}

static void
derive_scope(const struct evidence *ev, struct fail_signal *sig)
{
	if (ev->scope_model[0] != '\0')
		strlcpy(sig->scope, ev->scope_model, sizeof(sig->scope));
	else if (strstr(ev->text, "on this model") != NULL && sig->model[0] != '\0' &&
	    sig->reason == REASON_USAGE_LIMIT)
		strlcpy(sig->scope, sig->model, sizeof(sig->scope));
	/* A model's server capacity ran out: the run's model, when known. */
	else if (sig->reason == REASON_OVERLOADED && sig->model[0] != '\0' &&
	    (strstr(ev->types, "model_capacity_exhausted") != NULL ||
	    strstr(ev->text, "model_capacity_exhausted") != NULL))
		strlcpy(sig->scope, sig->model, sizeof(sig->scope));
	/* A request the account cannot make (1M context without extra usage, a
	 * model the plan lacks): that model's, not the family's. */
	else if (sig->reason == REASON_INVALID_REQUEST && sig->model[0] != '\0' &&
	    (strstr(ev->text, "extra usage is required for") != NULL ||
	    strstr(ev->text, "not available on your plan") != NULL ||
	    strstr(ev->text, "not included in your plan") != NULL))
		strlcpy(sig->scope, sig->model, sizeof(sig->scope));
	else
		strlcpy(sig->scope, "family", sizeof(sig->scope));
}

static void
signal_base(const struct classifier *c, struct fail_signal *sig)
{
	signal_init(sig);
	strlcpy(sig->family, c->dialect != NULL ? c->dialect->name : "generic", sizeof(sig->family));
	strlcpy(sig->model, c->ctx.model, sizeof(sig->model));
}

static void
signal_from_evidence(const struct classifier *c, const struct held *h, struct fail_signal *sig)
{
	const struct evidence *ev = &h->ev;
	struct reset r = ev->reset;

	signal_base(c, sig);
	if (sig->model[0] == '\0')
		strlcpy(sig->model, ev->model, sizeof(sig->model));
	sig->reason = evidence_reason(ev);
	sig->confidence = evidence_confidence(ev);
	sig->http_status = ev->http_status;
	strlcpy(sig->error_type, ev->error_type, sizeof(sig->error_type));
	derive_limit_type(ev, sig);
	derive_scope(ev, sig);
	reset_clamp(&r, c->ctx.now);
	if (r.at > 0) {
		sig->resets_at = r.at;
		sig->reset_source = r.source;
	}
	/* a key the provider echoes ("Invalid API key sk-ant-...") goes no further */
	redact_text(ev->message, sig->message, sizeof(sig->message));
	sig->line = h->line;
	sig->after_output = h->after_output;
}

void
verdict_emit(struct classifier *c, const struct held *h)
{
	struct fail_signal sig;

	if (c->cb == NULL)
		return;
	signal_from_evidence(c, h, &sig);
	c->cb(&sig, c->cb_arg);
}

void
verdict_hold(struct classifier *c, struct held *h, const struct evidence *ev, bool text_only)
{
	h->have = true;
	h->text_only = text_only;
	h->after_output = c->saw_output;
	h->line = c->lineno;
	h->ev = *ev;
	h->own_reset = ev->reset.at > 0 && ev->reset.source == RESET_SRC_PROVIDER;
	h->error_line = h->exit0_ok = h->soft = false;
	if (h == &c->cand) {
		c->gap_after_cand = false;
		c->message_lines = 0;
	}
	/* Headers printed beside a body may describe other windows (a weekly
	 * one half used): the body's own reset, when it states one, wins. */
	if (h == &c->cand && c->header_reset.at > 0 && !h->own_reset)
		reset_offer(&h->ev.reset, c->header_reset.at, c->header_reset.source, c->header_reset.rank);
	if (h == &c->cand)
		reset_clear(&c->header_reset);
}

/* A terminal failure takes what it lacks from the same run's candidates. */
static void
conclude_failure(struct classifier *c, struct held *h)
{
	enum reason own = evidence_reason(&h->ev);

	if (c->cand.have && &c->cand != h)
		evidence_merge(&h->ev, &c->cand.ev);
	if (c->rejected.have && (own == REASON_RATE_LIMIT || own == REASON_USAGE_LIMIT ||
	    own == REASON_AGENT_ERROR)) {
		evidence_merge(&h->ev, &c->rejected.ev);
		h->ev.rejected_event = true;
		strlcpy(h->ev.limit_type, c->rejected.ev.limit_type, sizeof(h->ev.limit_type));
		reset_offer(&h->ev.reset, c->rejected.ev.reset.at, c->rejected.ev.reset.source,
		    c->rejected.ev.reset.rank);
	}
	c->term = *h;
	c->outcome = OUT_FAILURE;
	c->cand.have = c->rejected.have = false;
}

void
verdict_apply(struct classifier *c, enum record_kind kind, const struct evidence *ev)
{
	struct held h;

	switch (kind) {
	case REC_IGNORE:
	case REC_EVENT:
		return;
	case REC_OUTPUT:
		c->saw_output = true;
		/* Output already being written when a failure record cut into it
		 * does not show that the run went on after the failure. */
		if (!c->joining)
			c->cand.have = c->rejected.have = false;
		return;
	case REC_NOTICE:
		verdict_hold(c, &h, ev, false);
		verdict_emit(c, &h);
		return;
	case REC_CANDIDATE:
		verdict_hold(c, &c->cand, ev, false);
		/* An error body amid text (no family's records) is read like an
		 * error line, and like one stands at exit 0 only as all the output. */
		if (!c->saw_family_event) {
			c->cand.error_line = c->saw_text;
			c->cand.exit0_ok = !c->content_seen && c->text_failures++ == 0;
		}
		if (ev->rejected_event)
			verdict_hold(c, &c->rejected, ev, false);
		verdict_emit(c, &c->cand);
		return;
	case REC_FAILURE:
		verdict_hold(c, &h, ev, false);
		conclude_failure(c, &h);
		verdict_emit(c, &c->term);
		return;
	case REC_SETTLE:
		if (c->outcome != OUT_PENDING)
			return;
		__attribute__((fallthrough));   /* clang takes no comment for it */
	case REC_JUDGE:
		if (c->cand.have) {
			h = c->cand;
			h.line = c->lineno;
			conclude_failure(c, &h);
			return;
		}
		__attribute__((fallthrough));   /* clang takes no comment for it */
	case REC_SUCCESS:
		c->term.have = true;
		c->term.line = c->lineno;
		c->outcome = OUT_SUCCESS;
		c->cand.have = c->rejected.have = false;
		return;
	case REC_REOPEN:
		if (c->outcome == OUT_FAILURE)
			c->cand = c->term;
		c->outcome = OUT_PENDING;
		return;
	}
}

static void
verdict_without_records(const struct classifier *c, int exit_code, struct fail_signal *out)
{
	if (c->saw_family_event && c->dialect->has_terminal) {
		out->reason = REASON_NO_RESULT;
		out->confidence = 0.5;
	} else if (exit_code > 0) {
		out->reason = REASON_EXIT_NONZERO;
		out->confidence = 0.2;
	} else {
		out->reason = REASON_NONE;
		out->confidence = exit_code == 0 ? 0.2 : 0;
	}
	if (out->reason != REASON_NONE)
		strlcpy(out->scope, "family", sizeof(out->scope));
}

/*
 * Does a failure read from text (or an error body amid text) stand at the
 * end?  It is how the output ended (classify_text dropped it otherwise);
 * in pipe mode an exit 0 says the answer was given, unless the failure
 * was all the output (fixtures/README.md, "Plain text and screens").  A
 * drawn screen shows what the person saw, whatever the exit.
 */
static bool
text_failure_stands(const struct classifier *c, int exit_code)
{
	if (!c->cand.text_only && c->saw_family_event)
		return true;
	if (c->screen_drawn || exit_code != 0)
		return true;
	return c->cand.exit0_ok && !c->cand.soft;
}

void
verdict_finish(struct classifier *c, int exit_code, struct fail_signal *out)
{
	if (c->outcome == OUT_PENDING && c->cand.have && !text_failure_stands(c, exit_code))
		c->cand.have = false;
	if (c->outcome == OUT_FAILURE)
		signal_from_evidence(c, &c->term, out);
	else if (c->outcome == OUT_SUCCESS) {
		signal_base(c, out);
		out->confidence = 1.0;
		out->line = c->term.line;
	} else if (c->cand.have)
		signal_from_evidence(c, &c->cand, out);
	else {
		signal_base(c, out);
		verdict_without_records(c, exit_code, out);
	}
	out->after_output = out->reason != REASON_NONE && out->reason != REASON_EXIT_NONZERO &&
	    (out->reason == REASON_NO_RESULT ? c->saw_output : out->after_output);
	out->terminal = true;
	out->exit_code = exit_code;
	if (c->cb != NULL)
		c->cb(out, c->cb_arg);
}
