/*
 * The streaming classifier: splits bytes into lines (one capped line held at
 * a time), lets a byte-level prefilter drop the lines that cannot matter,
 * parses the rest with jansson, hands records to the family's dialect, and
 * keeps just enough state to name the verdict at the end.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "classify.h"
#include "dialect.h"
#include "textutil.h"

/* Detection order: the first dialect whose detect() accepts a record wins. */
static const struct dialect *const dialects[] = {
	&dialect_claude, &dialect_codex, &dialect_gemini, &dialect_pi, &dialect_opencode,
	&dialect_cursor, &dialect_qwen, &dialect_generic, NULL
};

enum outcome { OUT_PENDING, OUT_SUCCESS, OUT_FAILURE };

struct held {
	bool have;
	bool text_only;
	bool after_output;
	long line;
	struct evidence ev;
};

struct classifier {
	const struct dialect *dialect;
	bool family_forced;
	struct dialect_ctx ctx;
	signal_cb cb;
	void *cb_arg;

	char *buf;                 /* the current (partial) line, at most CLASSIFY_LINE_MAX */
	size_t len, cap;
	size_t dropped;            /* bytes of the current line past the cap */
	char *stash;               /* head of a line an injected record broke in two */
	size_t stash_len;
	bool joining;              /* reading a line that was being written when a record cut in */
	const char *skipped;       /* the line before, when the prefilter dropped it */
	size_t skipped_len;
	char *skipped_copy;        /* its bytes, once the buffer they were in is reused */
	char *doc;                 /* a pretty-printed JSON document being gathered */
	size_t doc_len;
	long doc_line;
	long lineno;

	bool saw_family_event;
	bool saw_output;
	struct held cand;          /* the failure that decides if nothing terminal follows */
	struct held rejected;      /* a rejected rate_limit_event of this run */
	enum outcome outcome;
	struct held term;
	struct reset header_reset; /* from rate-limit headers seen before their failure */
	long last_text_line;       /* the stderr line before this one, for multi-line messages */
};

bool
family_known(const char *name)
{
	for (int i = 0; dialects[i] != NULL; i++)
		if (strcmp(dialects[i]->name, name) == 0)
			return true;
	return false;
}

const char *
family_list(void)
{
	return "claude, codex, gemini, pi, opencode, cursor, qwen, generic";
}

struct classifier *
classifier_new(const char *family, time_t now)
{
	struct classifier *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
	c->ctx.now = now;
	reset_clear(&c->header_reset);
	c->ctx.input_tokens = c->ctx.output_tokens = -1;
	c->ctx.cost_usd = -1;
	if (family != NULL && *family != '\0') {
		c->family_forced = true;
		c->dialect = &dialect_generic;
		for (int i = 0; dialects[i] != NULL; i++)
			if (strcmp(dialects[i]->name, family) == 0)
				c->dialect = dialects[i];
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
}

void
ctx_set_model(struct dialect_ctx *ctx, const char *model)
{
	if (model == NULL || *model == '\0' || ctx->model[0] != '\0' || strcmp(model, "<synthetic>") == 0)
		return;
	utf8_copy(ctx->model, sizeof(ctx->model), model);
}

void
ctx_add_usage(struct dialect_ctx *ctx, json_t *obj, const char *in_key, const char *out_key)
{
	json_int_t in = jint(obj, in_key, -1), out = jint(obj, out_key, -1);

	if (in >= 0)
		ctx->input_tokens = (ctx->input_tokens < 0 ? 0 : ctx->input_tokens) + in;
	if (out >= 0)
		ctx->output_tokens = (ctx->output_tokens < 0 ? 0 : ctx->output_tokens) + out;
}

void
ctx_add_cost(struct dialect_ctx *ctx, json_t *cost)
{
	if (json_is_number(cost) && json_number_value(cost) >= 0)
		ctx->cost_usd = (ctx->cost_usd < 0 ? 0 : ctx->cost_usd) + json_number_value(cost);
}

/* limit_type from wording when no record named it. */
static void
derive_limit_type(const struct evidence *ev, struct fail_signal *sig)
{
	static const struct { const char *marker, *type; } words[] = {
		{ "session limit", "five_hour" }, { "5-hour limit", "five_hour" },
		{ "5 hour limit", "five_hour" }, { "weekly limit", "seven_day" },
		{ "opus limit", "seven_day_opus" }, { "sonnet limit", "seven_day_sonnet" },
		{ "daily quota", "daily" }, { "per day", "daily" }, { "perday", "daily" },
		{ "(rpd)", "daily" }, { "(tpd)", "daily" }, { "free-models-per-day", "daily" },
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
	strlcpy(sig->message, ev->message, sizeof(sig->message));
	sig->line = h->line;
	sig->after_output = h->after_output;
}

static void
emit(struct classifier *c, const struct held *h)
{
	struct fail_signal sig;

	if (c->cb == NULL)
		return;
	signal_from_evidence(c, h, &sig);
	c->cb(&sig, c->cb_arg);
}

static void
hold(struct classifier *c, struct held *h, const struct evidence *ev, bool text_only)
{
	h->have = true;
	h->text_only = text_only;
	h->after_output = c->saw_output;
	h->line = c->lineno;
	h->ev = *ev;
	if (h == &c->cand && c->header_reset.at > 0) {
		reset_offer(&h->ev.reset, c->header_reset.at, c->header_reset.source, c->header_reset.rank);
		reset_clear(&c->header_reset);
	}
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

static void
apply_record(struct classifier *c, enum record_kind kind, const struct evidence *ev)
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
		hold(c, &h, ev, false);
		emit(c, &h);
		return;
	case REC_CANDIDATE:
		hold(c, &c->cand, ev, false);
		if (ev->rejected_event)
			hold(c, &c->rejected, ev, false);
		emit(c, &c->cand);
		return;
	case REC_FAILURE:
		hold(c, &h, ev, false);
		conclude_failure(c, &h);
		emit(c, &c->term);
		return;
	case REC_SETTLE:
		if (c->outcome != OUT_PENDING)
			return;
		/* FALLTHROUGH */
	case REC_JUDGE:
		if (c->cand.have) {
			h = c->cand;
			h.line = c->lineno;
			conclude_failure(c, &h);
			return;
		}
		/* FALLTHROUGH */
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

static const struct dialect *
detect_dialect(json_t *obj)
{
	for (int i = 0; dialects[i] != &dialect_generic; i++)
		if (dialects[i]->detect != NULL && dialects[i]->detect(obj))
			return dialects[i];
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

		/* cursor-agent streams look like Claude's until a tool_call shows. */
		if (d != NULL && (c->dialect == NULL || c->dialect == &dialect_generic ||
		    (c->dialect == &dialect_claude && d == &dialect_cursor)))
			c->dialect = d;
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
	apply_record(c, kind, &ev);
}

static void
handle_value(struct classifier *c, json_t *v)
{
	size_t i;
	json_t *e;

	if (json_is_array(v)) {
		json_array_foreach(v, i, e)
			handle_object(c, e);
	} else
		handle_object(c, v);
}

/*
 * "retry-after-ms: 8750", "< Retry-After: ...", "x-ratelimit-reset-tokens:
 * 6m0s": HTTP headers printed around a failure carry its reset; they are
 * not failures themselves.
 */
static bool
is_rate_header(const char *s, size_t len)
{
	size_t i = 0, start;

	while (i < len && (s[i] == '<' || s[i] == ' '))
		i++;
	start = i;
	while (i < len && (isalnum((unsigned char)s[i]) || s[i] == '-' || s[i] == '_'))
		i++;
	if (i == start || i >= len || s[i] != ':')
		return false;
	return find_nocase(s + start, i - start, "retry-after") != NULL ||
	    find_nocase(s + start, i - start, "ratelimit") != NULL ||
	    find_nocase(s + start, i - start, "x-codex") != NULL;
}

static void
handle_header(struct classifier *c, const char *s, size_t len)
{
	struct reset r;

	if (!reset_from_text(s, len, c->ctx.now, &r))
		return;
	if (c->cand.have)
		reset_offer(&c->cand.ev.reset, r.at, r.source, r.rank);
	else
		reset_offer(&c->header_reset, r.at, r.source, r.rank);
}

/* A stderr line: it counts when it names a failure and is not a retry notice. */
static void
handle_text(struct classifier *c, const char *s, size_t len)
{
	struct evidence ev;

	bool continues = c->last_text_line == c->lineno - 1;

	c->last_text_line = c->lineno;
	if (len > 16384)
		len = 16384;
	if (is_rate_header(s, len)) {
		handle_header(c, s, len);
		return;
	}
	evidence_init(&ev);
	evidence_add_text(&ev, s, len, c->ctx.now);
	if (!text_names_failure(&ev))
		return;
	/* The detail lines of a multi-line message add to it, not replace it. */
	if (continues && c->cand.have && c->cand.text_only) {
		reset_offer(&c->cand.ev.reset, ev.reset.at, ev.reset.source, ev.reset.rank);
		return;
	}
	if (text_is_retry_notice(s, len)) {
		apply_record(c, REC_NOTICE, &ev);
		return;
	}
	if (c->cand.have && !c->cand.text_only) {
		struct held h;

		hold(c, &h, &ev, true);
		emit(c, &h);
		return;
	}
	hold(c, &c->cand, &ev, true);
	emit(c, &c->cand);
}

/*
 * The prefilter.  A record matters when one of its "type" values is in this
 * list; a needle inside a JSON string is escaped (\"type\") and so never
 * matches, which keeps tool output and prose out at byte level.
 */
static const char *const always_types[] = {
	"result", "rate_limit_event", "system", "error", "turn.completed", "turn.failed",
	"turn.started", "thread.started", "init", "session", "agent_end", "agent_settled",
	"auto_retry_start", "auto_retry_end", "response", "message_end", "task_complete",
	"stream_error", "step_finish", "tool_call",
};
/* Output records matter only until the first one is seen. */
static const char *const output_types[] = {
	"assistant", "item.completed", "message", "text", "tool_use", "agent_message",
	"exec_command_begin", "exec_command_end", "patch_apply_begin", "tool_execution_start",
};

/* v is a slice of stream bytes and may hold a NUL, where strncmp would stop
 * early and list[i][n] lie past the name: bound the name's length first. */
static bool
type_in(const char *v, size_t n, const char *const *list, size_t count)
{
	for (size_t i = 0; i < count; i++)
		if (list[i][0] == v[0] && strnlen(list[i], n + 1) == n && memcmp(list[i], v, n) == 0)
			return true;
	return false;
}

static bool
type_value_matters(const struct classifier *c, const char *s, size_t len, bool *assistant)
{
	const char *v = s, *end;

	while (v < s + len && (*v == ' ' || *v == ':'))
		v++;
	if (v >= s + len || *v != '"')
		return false;
	v++;
	end = memchr(v, '"', (size_t)(s + len - v) < 40 ? (size_t)(s + len - v) : 40);
	if (end == NULL)
		return false;
	if (type_in(v, (size_t)(end - v), always_types, sizeof(always_types) / sizeof(*always_types)))
		return true;
	if ((size_t)(end - v) == 9 && memcmp(v, "assistant", 9) == 0)
		*assistant = true;
	return !c->saw_output &&
	    type_in(v, (size_t)(end - v), output_types, sizeof(output_types) / sizeof(*output_types));
}

/*
 * An unescaped {"type": can only follow '[', ',' or ':' in valid JSON; after
 * anything else it is a record written into the middle of another line.
 */
static bool
has_injected_record(const char *s, size_t len)
{
	const char *p = s + 1, *end = s + len, *b;

	/* Braces are rare in prose: find them with memchr, not memmem. */
	while (p + 8 <= end && (p = memchr(p, '{', (size_t)(end - p - 7))) != NULL) {
		if (memcmp(p + 1, "\"type\":", 7) == 0) {
			for (b = p - 1; b > s && (*b == ' ' || *b == '\t'); b--)
				;
			if (*b != '[' && *b != ',' && *b != ':')
				return true;
		}
		p++;
	}
	return false;
}

/* Does s hold needle, which starts with a byte that is rare in prose?
 * memchr on that byte runs far faster than memmem. */
static bool
has_rare(const char *s, size_t len, const char *needle, size_t n)
{
	const char *p = s, *end = s + len;

	while (p + n <= end && (p = memchr(p, needle[0], (size_t)(end - p) - n + 1)) != NULL) {
		if (memcmp(p, needle, n) == 0)
			return true;
		p++;
	}
	return false;
}

/* Synthetic errors are assistant records with a top-level error, which
 * comes after the long message content. */
static bool
assistant_matters(const struct classifier *c, const char *s, size_t len)
{
	size_t tail = len < 512 ? len : 512;

	return !c->saw_output || has_rare(s, len, "<synthetic>", 11) ||
	    memmem(s + len - tail, tail, "\"error\":", 8) != NULL;
}

static bool
line_matters(const struct classifier *c, const char *s, size_t len)
{
	const char *p = s, *end = s + len;
	bool typed = false, assistant = false;

	if (c->dialect == NULL || (!c->family_forced && c->dialect == &dialect_generic))
		return true;
	/* When "type" is the first key it is the top-level type: decide on it
	 * alone, without reading the rest of a long line. */
	if (len > 9 && memcmp(s, "{\"type\":", 8) == 0) {
		return type_value_matters(c, s + 7, len - 7, &assistant) ||
		    (assistant && assistant_matters(c, s, len));
	}
	while ((p = memmem(p, (size_t)(end - p), "\"type\"", 6)) != NULL) {
		p += 6;
		typed = true;
		if (type_value_matters(c, p, (size_t)(end - p), &assistant))
			return true;
	}
	if (assistant && assistant_matters(c, s, len))
		return true;
	return !typed && memmem(s, len, "\"error\"", 7) != NULL;
}

static void
stash_set(struct classifier *c, const char *s, size_t len)
{
	char *p = realloc(c->stash, len + 1);

	if (p == NULL)
		return;
	memcpy(p, s, len);
	c->stash = p;
	c->stash_len = len;
}

/* A line that does not parse may hold a record injected into it (Claude
 * 2.1.74 wrote rate_limit_event mid-line); its head joins the next line. */
static void
salvage(struct classifier *c, const char *s, size_t len)
{
	const char *p = s + 1;
	int tries = 0;

	while ((p = memmem(p, len - (size_t)(p - s), "{\"type\":", 8)) != NULL && tries++ < 8) {
		json_error_t jerr;
		json_t *v = json_loadb(p, len - (size_t)(p - s), JSON_DISABLE_EOF_CHECK, &jerr);

		if (v != NULL) {
			size_t used = (size_t)jerr.position;

			handle_value(c, v);
			json_decref(v);
			if ((size_t)(p - s) + used >= len)
				stash_set(c, s, (size_t)(p - s));
			return;
		}
		p++;
	}
}

static void
handle_json_line(struct classifier *c, const char *s, size_t len)
{
	json_error_t jerr;
	json_t *v;

	if (!line_matters(c, s, len)) {
		c->skipped = s;
		c->skipped_len = len;
		return;
	}
	v = json_loadb(s, len, 0, &jerr);
	if (v == NULL) {
		salvage(c, s, len);
		return;
	}
	handle_value(c, v);
	json_decref(v);
}

/* Pretty-printed documents (gemini --output-format json) span lines. */
static bool
doc_feed(struct classifier *c, const char *s, size_t len)
{
	char *p;

	if (c->doc == NULL)
		return false;
	if (c->doc_len + len + 1 > CLASSIFY_LINE_MAX) {
		free(c->doc);
		c->doc = NULL;
		return true;
	}
	p = realloc(c->doc, c->doc_len + len + 2);
	if (p == NULL)
		return true;
	c->doc = p;
	memcpy(c->doc + c->doc_len, s, len);
	c->doc_len += len;
	c->doc[c->doc_len++] = '\n';
	if (len >= 1 && (s[0] == '}' || s[0] == ']')) {
		json_error_t jerr;
		json_t *v = json_loadb(c->doc, c->doc_len, 0, &jerr);
		long line = c->lineno;

		free(c->doc);
		c->doc = NULL;
		if (v != NULL) {
			c->lineno = c->doc_line;
			handle_value(c, v);
			c->lineno = line;
			json_decref(v);
		}
	}
	return true;
}

static void
process_line(struct classifier *c, const char *s, size_t len)
{
	size_t i = 0;

	c->lineno++;
	if (len > 0 && s[len - 1] == '\r')
		len--;
	if (doc_feed(c, s, len))
		return;
	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (i == len)
		return;
	if ((s[i] == '{' || s[i] == '[') && i + 1 == len) {
		c->doc = malloc(2);
		if (c->doc != NULL) {
			memcpy(c->doc, s + i, 1);
			c->doc[1] = '\n';
			c->doc_len = 2;
			c->doc_line = c->lineno;
		}
		return;
	}
	if (s[i] == '{' || s[i] == '[')
		handle_json_line(c, s + i, len - i);
	else
		handle_text(c, s + i, len - i);
}

/* Keeps the skipped line's bytes before the buffer they are in is reused. */
static void
keep_skipped(struct classifier *c)
{
	char *p;

	if (c->skipped == NULL || c->skipped == c->skipped_copy)
		return;
	if ((p = realloc(c->skipped_copy, c->skipped_len + 1)) == NULL) {
		c->skipped = NULL;
		return;
	}
	memcpy(p, c->skipped, c->skipped_len);
	c->skipped = c->skipped_copy = p;
}

/*
 * A record injected into a line splits it: the tail arrives as a line of
 * its own that is not JSON.  Only then is the line before (which the
 * prefilter may have dropped unread) searched for the injected record, so
 * the hot path never scans for it.
 */
static void
look_back_for_injection(struct classifier *c, const char *s, size_t len)
{
	const char *prev = c->skipped;
	size_t i = 0;

	c->skipped = NULL;
	if (prev == NULL)
		return;
	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (i < len && (s[i] == '{' || s[i] == '['))
		return;
	if (has_injected_record(prev, c->skipped_len))
		salvage(c, prev, c->skipped_len);
}

/* Joins a stashed head to this line, then processes it. */
static void
process_joined(struct classifier *c, const char *s, size_t len)
{
	char *joined;
	size_t n;

	look_back_for_injection(c, s, len);
	if (c->stash == NULL) {
		process_line(c, s, len);
		return;
	}
	n = c->stash_len + len;
	if (n > CLASSIFY_LINE_MAX)
		n = CLASSIFY_LINE_MAX;
	joined = malloc(n + 1);
	if (joined != NULL) {
		memcpy(joined, c->stash, c->stash_len);
		memcpy(joined + c->stash_len, s, n - c->stash_len);
	}
	free(c->stash);
	c->stash = NULL;
	c->stash_len = 0;
	if (joined == NULL)
		return;
	c->joining = true;
	process_line(c, joined, n);
	c->joining = false;
	keep_skipped(c);
	free(joined);
}

static void
buffer_append(struct classifier *c, const char *s, size_t len)
{
	size_t room = CLASSIFY_LINE_MAX - c->len;
	char *p;

	if (len > room) {
		c->dropped += len - room;
		len = room;
	}
	if (len == 0)
		return;
	if (c->len + len > c->cap) {
		size_t cap = c->cap == 0 ? 4096 : c->cap;

		while (cap < c->len + len)
			cap *= 2;
		if (cap > CLASSIFY_LINE_MAX)
			cap = CLASSIFY_LINE_MAX;
		p = realloc(c->buf, cap);
		if (p == NULL) {
			c->dropped += len;
			return;
		}
		c->buf = p;
		c->cap = cap;
	}
	memcpy(c->buf + c->len, s, len);
	c->len += len;
}

void
classifier_feed(struct classifier *c, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len, *nl;

	while (p < end && (nl = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		size_t n = (size_t)(nl - p);

		if (c->len == 0 && c->dropped == 0) {
			/* The common case: a whole line inside this chunk, no copy. */
			process_joined(c, p, n < CLASSIFY_LINE_MAX ? n : CLASSIFY_LINE_MAX);
		} else {
			buffer_append(c, p, n);
			process_joined(c, c->buf, c->len);
			keep_skipped(c);
			c->len = c->dropped = 0;
		}
		p = nl + 1;
	}
	keep_skipped(c);
	if (p < end)
		buffer_append(c, p, (size_t)(end - p));
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

void
classifier_finish(struct classifier *c, int exit_code, struct fail_signal *out)
{
	if (c->len > 0 || c->dropped > 0) {
		process_joined(c, c->buf, c->len);
		c->len = c->dropped = 0;
	} else if (c->stash != NULL)
		process_joined(c, "", 0);
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
