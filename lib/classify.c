/*
 * The streaming classifier: bytes become lines (classify_lines.c), a
 * byte-level prefilter drops the lines that cannot matter (prefilter.c),
 * jansson parses the rest, the family's dialect says what each record
 * means (here), and the verdict state machine keeps just enough state to
 * name the verdict at the end (verdict.c).
 */
#include <sys/mman.h>

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "classify_int.h"
#include "textutil.h"

/*
 * A classifier is 50 KiB, most of it the three held failures' evidence,
 * which a run that fails nowhere never writes.  Mapped, it comes zeroed
 * by the kernel and only the pages written are touched; calloc's memset
 * of heap memory touched all thirteen (page faults, docs/benchmarks.md).
 * AddressSanitizer sees into the heap only: its builds keep calloc.
 */
#if defined(__SANITIZE_ADDRESS__)
#define CLASSIFIER_ON_HEAP 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CLASSIFIER_ON_HEAP 1
#endif
#endif

static struct classifier *
classifier_alloc(void)
{
#ifdef CLASSIFIER_ON_HEAP
	return calloc(1, sizeof(struct classifier));
#else
	void *p = mmap(NULL, sizeof(struct classifier), PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
#endif
}

static void
classifier_unmap(struct classifier *c)
{
#ifdef CLASSIFIER_ON_HEAP
	free(c);
#else
	munmap(c, sizeof(*c));
#endif
}

struct classifier *
classifier_new(const char *family, time_t now)
{
	struct classifier *c = classifier_alloc();

	if (c == NULL)
		return NULL;
	if (!prefilter_init(&c->prefilter)) {
		classifier_unmap(c);
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
	free(c->plain);
	classifier_unmap(c);
}

void
classifier_set_screen(struct classifier *c, enum screen_mode mode)
{
	c->screen = mode != SCREEN_NONE;
	c->screen_drawn = mode == SCREEN_DRAWN;
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
classifier_readings(const struct classifier *c, struct reading_set *out)
{
	*out = c->ctx.readings;
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

	/* Chrome is neither: it ends no failure, so it is not counted as one. */
	*ordinary = textline_is_ordinary(s, len, indent, kind) && !textline_is_chrome(s, len, c->screen);
	if (kind == TEXTLINE_PLAIN)
		return true;
	return kind != TEXTLINE_HEADER && !line_names_failure(c, s, len < 16384 ? len : 16384, kind, body, &ev);
}

/* What a text line after a text failure is to it. */
enum text_after { AFTER_CHROME, AFTER_DETAIL, AFTER_WRAP, AFTER_CONTENT };

/*
 * Chrome (the CLI's footers, turn summaries, prompts) and details (a stack
 * trace under an error line, the rest of a body, a screen's layout) leave
 * a failure standing; a line indented a little may be its message wrapped;
 * anything else is the answer going on: prose, a table, a list, a quote, a
 * link definition, code indented under a banner.
 */
static enum text_after
text_after(const struct classifier *c, const char *s, size_t len, size_t indent, enum textline_kind kind)
{
	if (textline_is_chrome(s, len, c->screen))
		return AFTER_CHROME;
	if (kind == TEXTLINE_HEADER)
		return AFTER_DETAIL;
	if (indent > 0) {
		/* Four blanks after an empty line open a code block (CommonMark). */
		if (indent >= 4 && c->gap_after_cand && !c->screen_drawn)
			return AFTER_CONTENT;
		/* A stack trace, a drawn screen's layout, lines indented under it. */
		if (c->screen_drawn || c->cand.error_line || indent >= 4)
			return AFTER_DETAIL;
		return AFTER_WRAP;
	}
	if (!textline_is_ordinary(s, len, 0, kind))
		return AFTER_DETAIL;
	/* A drawn screen's rows come joined where they wrapped: a line is a line. */
	return c->screen_drawn ? AFTER_CONTENT : AFTER_WRAP;
}

/* Does an ordinary line continue the message before it, wrapped at a
 * width?  Only right after it, when that line ended mid-sentence or this
 * one starts as no sentence does. */
static bool
message_wraps(const struct classifier *c, const char *s, bool adjacent)
{
	char last = c->text_end_byte;

	if (!adjacent || c->message_lines >= MESSAGE_LINES_MAX)
		return false;
	return (last != '.' && last != '!' && last != '?') || (*s >= 'a' && *s <= 'z') || *s == '(';
}

/* A line's last byte, blanks left out. */
static char
last_byte(const char *s, size_t len)
{
	while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	return len > 0 ? s[len - 1] : '\0';
}

/* A line that names no failure, after a text failure (fixtures/README.md,
 * "Plain text and screens": the failure counts only where it is how the
 * output ends). */
static void
text_after_candidate(struct classifier *c, const char *s, size_t len, size_t indent,
    enum textline_kind kind, bool adjacent)
{
	struct evidence ev;
	enum text_after after = text_after(c, s, len, indent, kind);

	if (after == AFTER_CHROME)
		return;
	if (after == AFTER_WRAP && message_wraps(c, s, adjacent)) {
		c->message_lines++;
		c->cand.soft = true;
	} else if (after != AFTER_DETAIL) {
		c->cand.have = false;   /* the run went on */
		return;
	}
	evidence_init(&ev);
	evidence_add_text(&ev, s, len, c->ctx.now);
	if (ev.reset.at > 0 && !c->cand.own_reset)
		reset_offer(&c->cand.ev.reset, ev.reset.at, ev.reset.source, ev.reset.rank);
	c->text_end = c->lineno;
	c->text_end_byte = last_byte(s, len);
}

/* A failure read from a text line: the last one decides. */
static void
text_candidate(struct classifier *c, const char *s, size_t len, enum textline_kind kind,
    const struct evidence *ev, bool content_before)
{
	if (c->cand.have && !c->cand.text_only) {
		struct held h;

		verdict_hold(c, &h, ev, true);
		verdict_emit(c, &h);
		return;
	}
	verdict_hold(c, &c->cand, ev, true);
	c->text_end = c->lineno;
	c->text_end_byte = last_byte(s, len);
	c->cand.error_line = kind == TEXTLINE_ERROR;
	/* A CLI that prints its own error and exits 0 prints one; a list of
	 * them is an answer about them. */
	c->cand.exit0_ok = !content_before && c->text_failures == 0;
	c->text_failures++;
	verdict_emit(c, &c->cand);
}

/*
 * A text line (stderr, text mode, a screen): it counts only in the shape of
 * an error line or a banner (textline.h), when it names a failure and is
 * not a retry notice, and only where nothing but its details and the CLI's
 * chrome follow it.
 */
void
classify_text(struct classifier *c, const char *s, size_t len, size_t indent)
{
	struct evidence ev;
	size_t body;
	bool adjacent = c->last_text_line == c->lineno - 1 && c->text_end == c->lineno - 1;
	bool content_before = c->content_seen;
	enum textline_kind kind = textline_kind(&c->text, s, len, indent, &body);
	bool pending = c->cand.have && (c->cand.text_only || !c->saw_family_event);

	c->last_text_line = c->lineno;
	c->saw_text = true;
	if (len > 16384)
		len = 16384;
	if (kind == TEXTLINE_HEADER) {
		handle_header(c, s, len);
		if (pending)
			c->text_end = c->lineno;
		return;
	}
	if (kind != TEXTLINE_PLAIN && line_names_failure(c, s, len, kind, body, &ev)) {
		if (text_is_retry_notice(s, len))
			verdict_apply(c, REC_NOTICE, &ev);
		else
			text_candidate(c, s, len, kind, &ev, content_before);
		return;
	}
	if (pending) {
		text_after_candidate(c, s, len, indent, kind, adjacent);
		if (!c->cand.have)
			c->content_seen = true;   /* the line the run went on with */
	} else if (!c->content_seen)
		text_content_note(c, s, len);
}

void
text_content_note(struct classifier *c, const char *s, size_t len)
{
	size_t i = 0;

	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (++c->head_lines > HEAD_CHROME_LINES || !textline_is_chrome(s + i, len - i, c->screen))
		c->content_seen = true;
}

void
classifier_finish(struct classifier *c, int exit_code, struct fail_signal *out)
{
	lines_finish(c);
	verdict_finish(c, exit_code, out);
}
