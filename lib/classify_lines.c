/*
 * Line assembly: bytes in any chunking become lines (one capped line held
 * at a time); pretty-printed documents are gathered whole; JSON lines the
 * prefilter keeps are parsed; a line an injected record broke in two is
 * repaired (Claude 2.1.74 wrote rate_limit_event into the middle of other
 * lines).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_features.h"
#include "classify_int.h"
#include "classify_masks.h"
#include "jsonsubset.h"
#include "linescan.h"
#include "textutil.h"

#ifdef HAVE_AVX2_PATH
#include <immintrin.h>
#endif


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
		json_t *v = json_load_any(p, len - (size_t)(p - s), JSON_DISABLE_EOF_CHECK, &jerr);

		if (v != NULL) {
			size_t used = (size_t)jerr.position;

			classify_value(c, v);
			json_decref(v);
			if ((size_t)(p - s) + used >= len)
				stash_set(c, s, (size_t)(p - s));
			return;
		}
		p++;
	}
}

/* The prefilter dropped the line: kept in view in case the next line is
 * the tail of a record injected into it (look_back_for_injection). */
static void
line_dropped(struct classifier *c, const char *s, size_t len)
{
	c->skipped = s;
	c->skipped_len = len;
}

static void
handle_json_line(struct classifier *c, const char *s, size_t len)
{
	json_error_t jerr;
	json_t *v;

	if (!prefilter_keeps(c, s, len)) {
		line_dropped(c, s, len);
		return;
	}
	if (prefilter_unchanged(c, s, len))
		return;
	if ((v = json_subset_load(s, len)) == NULL)
		v = json_load_any(s, len, 0, &jerr);
	if (v == NULL) {
		salvage(c, s, len);
		return;
	}
	classify_value(c, v);
	json_decref(v);
}

/* Is the label an error's ("_GaxiosError:", "Error:", "API Error: 429")?
 * Other labels ("Config loaded: {") are gathered too, and then ignored. */
static bool
error_label(const char *s, size_t len)
{
	return find_nocase(s, len, "error") != NULL || find_nocase(s, len, "exception") != NULL;
}

static void
doc_drop(struct classifier *c)
{
	free(c->doc);
	c->doc = NULL;
	c->doc_label_len = 0;
}

/* A whole document: parsed as records, or, after an error label, read as
 * one error line ("_GaxiosError: [{...}]") by the text rules, even when
 * the body never closed (cut off, or too long to be one). */
static void
doc_done(struct classifier *c, json_t *v)
{
	long line = c->lineno;

	c->lineno = c->doc_line;
	if (c->doc_label_len == 0) {
		if (v != NULL)
			classify_value(c, v);
	} else if (error_label(c->doc_label, c->doc_label_len)) {
		char *text = malloc(c->doc_label_len + 1 + c->doc_len);
		size_t n = c->doc_label_len;

		if (text != NULL) {
			/* One line: every run of blanks and newlines becomes one space. */
			memcpy(text, c->doc_label, n);
			text[n++] = ' ';
			for (size_t i = 0; i < c->doc_len; i++) {
				char ch = c->doc[i];

				if (ch == '\n' || ch == ' ' || ch == '\t') {
					if (text[n - 1] != ' ')
						text[n++] = ' ';
				} else
					text[n++] = ch;
			}
			classify_text(c, text, n, 0);
			free(text);
		}
	}
	c->lineno = line;
}

/* Can this line be part of a pretty-printed JSON (or Python repr) body?
 * Such lines start, after their indentation, with a value or a bracket. */
static bool
doc_line_shape(const char *s, size_t len)
{
	size_t i = 0;

	static const char *const words[] = { "true", "false", "null", "True", "False", "None" };

	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (i < len && s[i] != '\0' && strchr("\"'{}[]-0123456789", s[i]) != NULL)
		return true;
	for (size_t k = 0; k < sizeof(words) / sizeof(words[0]); k++)
		if (len - i >= strlen(words[k]) && memcmp(s + i, words[k], strlen(words[k])) == 0)
			return true;
	return false;
}

/*
 * Pretty-printed documents span lines: gemini --output-format json, and
 * bodies printed after a label.  A line that closes at column 0 ends the
 * document when it parses; while the parser only ran out of input, a
 * nested close ("}" before "]") goes on gathering.  A line no body could
 * hold ends it too, unread, and is itself read as usual (false).
 */
static bool
doc_feed(struct classifier *c, const char *s, size_t len)
{
	char *p;

	if (c->doc == NULL)
		return false;
	if (!doc_line_shape(s, len)) {
		doc_done(c, NULL);
		doc_drop(c);
		return false;
	}
	if (c->doc_len + len + 1 > CLASSIFY_LINE_MAX ||
	    (c->doc_label_len > 0 && ++c->doc_lines > DOC_LABELLED_LINES)) {
		doc_done(c, NULL);
		doc_drop(c);
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
		json_t *v = json_load_any(c->doc, c->doc_len, 0, &jerr);

		if (v == NULL && (size_t)jerr.position >= c->doc_len)
			return true;    /* not closed yet */
		if (v != NULL)
			doc_done(c, v);
		json_decref(v);
		doc_drop(c);
	}
	return true;
}

/*
 * "_GaxiosError: [{", "Error: {", "API Error: 429 {": a label, then the
 * opening of a body that the next lines pretty-print.  Returns where the
 * body opens, 0 when the line is not that shape.
 */
static size_t
labelled_body_at(const char *s, size_t len)
{
	size_t open = len, label;

	while (open > 0 && s[open - 1] == ' ')
		open--;
	if (open >= 2 && s[open - 1] == '{' && s[open - 2] == '[')
		open -= 2;
	else if (open >= 1 && (s[open - 1] == '{' || s[open - 1] == '['))
		open -= 1;
	else
		return 0;
	for (label = open; label > 0 && s[label - 1] == ' '; label--)
		;
	if (label == 0 || label >= DOC_LABEL_MAX || memchr(s, '{', label) != NULL ||
	    (s[label - 1] != ':' && (s[label - 1] < '0' || s[label - 1] > '9')))
		return 0;
	return open;
}

static void
doc_start(struct classifier *c, const char *body, size_t n, const char *label, size_t label_len)
{
	c->doc = malloc(n + 1);
	if (c->doc == NULL)
		return;
	memcpy(c->doc, body, n);
	c->doc[n] = '\n';
	c->doc_len = n + 1;
	c->doc_line = c->lineno;
	c->doc_lines = 1;
	memcpy(c->doc_label, label, label_len);
	c->doc_label_len = label_len;
}

/*
 * Can the line be JSON?  An array starts like one ("[ 42%] Building" and
 * "[API Error: ...]" do not), and JSON in a code block of a text-mode
 * answer is an example, not a record.
 */
static bool
json_possible(const struct classifier *c, const char *s, size_t len)
{
	if (c->text.in_fence && !c->saw_family_event)
		return false;
	if (s[0] == '{')
		return true;
	if (s[0] != '[')
		return false;
	return textline_bracket_json(s, len);
}

/* Does a line have a colour or another escape sequence where it is judged
 * (codex exec --color always)?  The hot loop's first look,
 * textline_quick_plain, reads a first word up to an escape. */
static bool
coloured(const char *s, size_t len)
{
	return memchr(s, '\x1b', len < TEXTLINE_HEAD_SPAN ? len : TEXTLINE_HEAD_SPAN) != NULL;
}

/* Such a line, read without its escape sequences; NULL when the copy
 * cannot be made. */
static const char *
without_escapes(struct classifier *c, const char *s, size_t *len)
{
	if (*len > c->plain_cap) {
		char *p = realloc(c->plain, *len);

		if (p == NULL)
			return NULL;
		c->plain = p;
		c->plain_cap = *len;
	}
	*len = textline_strip_escapes(c->plain, s, *len);
	return c->plain;
}

static void
process_line(struct classifier *c, const char *s, size_t len)
{
	size_t i = 0, open;

	c->lineno++;
	if (len > 0 && s[len - 1] == '\r')
		len--;
	if (c->doc != NULL && doc_feed(c, s, len))
		return;
	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (i < len && coloured(s + i, len - i) && (s = without_escapes(c, s, &len)) != NULL)
		for (i = 0; i < len && (s[i] == ' ' || s[i] == '\t'); i++)
			;
	if (s == NULL || i == len) {
		c->gap_after_cand = true;
		return;
	}
	if (json_possible(c, s + i, len - i)) {
		if (i + 1 == len)
			doc_start(c, s + i, 1, "", 0);
		else
			handle_json_line(c, s + i, len - i);
		return;
	}
	if ((s[len - 1] == '{' || s[len - 1] == '[' || s[len - 1] == ' ') &&
	    (open = labelled_body_at(s + i, len - i)) > 0 && !(c->text.in_fence && !c->saw_family_event)) {
		size_t label = open;

		while (label > 0 && s[i + label - 1] == ' ')
			label--;
		doc_start(c, s + i + open, len - i - open, s + i, label);
	} else
		classify_text(c, s + i, len - i, i);
}

/* Keeps the skipped line's bytes before the buffer they are in is reused
 * (at the end of every chunk).  The copy's buffer only grows: a realloc to
 * each line's size moved it up the heap chunk after chunk, a fresh page
 * touched every few chunks (docs/benchmarks.md). */
static void
keep_skipped(struct classifier *c)
{
	size_t cap = c->skipped_cap == 0 ? 4096 : c->skipped_cap;
	char *p;

	if (c->skipped == NULL || c->skipped == c->skipped_copy)
		return;
	while (cap < c->skipped_len + 1)
		cap *= 2;
	if (cap > c->skipped_cap) {
		free(c->skipped_copy);
		c->skipped_copy = NULL;
		c->skipped_cap = 0;
		if ((p = malloc(cap)) == NULL) {
			c->skipped = NULL;
			return;
		}
		c->skipped_copy = p;
		c->skipped_cap = cap;
	}
	memcpy(c->skipped_copy, c->skipped, c->skipped_len);
	c->skipped = c->skipped_copy;
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

/* What process_joined() does first with a line that opens an object. */
static void
object_counted(struct classifier *c)
{
	c->skipped = NULL;   /* look_back_for_injection() at a '{' */
	c->lineno++;
}

/*
 * A line that opens an object while nothing is pending (no stashed head,
 * no document, no code fence ahead of the family's first record): what
 * process_joined() does with it, without the checks that only text,
 * indented and joined lines need.  False (nothing done) for any other.
 */
static bool
object_line(struct classifier *c, const char *s, size_t len)
{
	if (len > 0 && s[len - 1] == '\r')
		len--;
	if (len < 2 || s[0] != '{' || c->stash != NULL || c->doc != NULL ||
	    (c->text.in_fence && !c->saw_family_event))
		return false;
	object_counted(c);
	handle_json_line(c, s, len);
	return true;
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

/*
 * The whole-chunk pass: one bit per byte for each '\n', ':' and ' ' of a
 * slice (classify_masks.c), so that finding a line's end and a colon near
 * its start cost no call per line.  The colons and blanks only past a
 * region that was skipped.
 */

/*
 * With nothing pending, does process_line only count this line as plain
 * text?  The same steps, in the same order, without their effects: a
 * blank line, JSON, a labelled body, a fence mark or any kind of line but
 * plain is left to process_line.
 */
static bool
read_as_plain(struct classifier *c, const char *s, size_t len)
{
	size_t i = 0, body;

	if (s[len - 1] == '\r')
		len--;
	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (i < len && coloured(s + i, len - i)) {   /* as process_line reads it */
		if ((s = without_escapes(c, s, &len)) == NULL)
			return false;
		for (i = 0; i < len && (s[i] == ' ' || s[i] == '\t'); i++)
			;
	}
	if (i == len || s[i] == '`' || s[i] == '~' || json_possible(c, s + i, len - i))
		return false;
	if ((s[len - 1] == '{' || s[len - 1] == '[' || s[len - 1] == ' ') &&
	    labelled_body_at(s + i, len - i) > 0)
		return false;
	/* Indented past 2 (and no fence mark): plain, as textline_kind says. */
	return i > 2 || textline_kind(&c->text, s + i, len - i, i, &body) == TEXTLINE_PLAIN;
}

/*
 * Is this line (of a slice, at bit off) only counted?  textline_quick_plain
 * settles most lines by their first bytes; the rest take read_as_plain's
 * steps, and nothing else has a say: a line counted here is one that
 * process_line() would only count, so what a line does never depends on
 * whether it came whole in one chunk or was put together from two (an
 * older prefilter once also counted lines such as `abc"def":{ `, whose
 * body process_line() opens).
 */
static bool
only_counted(struct classifier *c, const char *s, size_t len, const struct textline_bits *b, size_t off)
{
	if (textline_quick_plain(s, len, b, off)) {
#ifdef RLWRAP_CHECK_FAST_PATH
		if (!read_as_plain(c, s, len))
			abort();   /* the quick look called plain what the reader would not */
#endif
		return true;
	}
	return read_as_plain(c, s, len);
}

/*
 * Skipping a region of text.  With nothing pending (plain_run), a line can
 * do two kinds of things to the classifier: structural ones that last
 * (JSON, a body opening at its end, a fence mark, a rate-limit header)
 * and text ones: a failure line, a notice, the lines of its message.  A
 * text failure is dropped once three ordinary lines follow it beyond the
 * four lines its message may take (note_text_after), and leaves nothing
 * behind.  So in a run of lines with no structural one that ends in seven
 * ordinary lines which themselves name nothing, no line leaves a trace but
 * its count: the run is counted, not read.  The cheap look per line is
 * its first and last bytes; only the last lines are read in full.
 */
enum region_line { REGION_TEXT, REGION_BLANK, REGION_STOP };

/* A first byte (after blanks) that may end a region: JSON, a fence, a
 * rate-limit header; a blank or a carriage return needs a closer look. */
static const unsigned char region_first[256] = {
	['{'] = 1, ['`'] = 1, ['~'] = 1, ['['] = 1, [' '] = 1, ['\t'] = 1, ['\r'] = 1,
	['r'] = 1, ['R'] = 1, ['x'] = 1, ['X'] = 1, ['a'] = 1, ['A'] = 1, ['<'] = 1,
};
/* Bytes of a header's name. */
static const unsigned char name_byte[256] = {
	['0' ... '9'] = 1, ['A' ... 'Z'] = 1, ['a' ... 'z'] = 1, ['_'] = 1, ['-'] = 1,
};
/* A last byte where a labelled body may open (labelled_body_at), or '\r'. */
static const unsigned char region_last[256] = {
	['{'] = 1, ['['] = 1, [' '] = 1, ['\t'] = 1, ['\r'] = 1,
};

/* Can a header name start here?  The names textline_may_be_header takes
 * hold "x-codex", "ratelimit" or "retry-after": seven bytes of letters,
 * digits, '_' or '-' at least (or a "<" prompt first).  Most prose fails
 * at its first blank. */
static bool
header_name_start(const char *s, size_t len)
{
	if (s[0] == '<')
		return true;
	if (len < 8)
		return false;
	for (size_t k = 1; k < 7; k++)
		if (!name_byte[(unsigned char)s[k]])
			return false;
	return true;
}

/* The closer look, for a line whose first or last byte asked for it. */
static enum region_line
region_line(const struct classifier *c, const char *s, size_t len)
{
	size_t i = 0;

	if (len > 0 && s[len - 1] == '\r')
		len--;
	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (i == len)
		return REGION_BLANK;
	switch (s[i]) {
	case '{': case '`': case '~':
		return REGION_STOP;
	case '[':
		if (json_possible(c, s + i, len - i))
			return REGION_STOP;
		break;
	default:
		if (header_name_start(s + i, len - i) && textline_may_be_header(s + i, len - i))
			return REGION_STOP;
		break;
	}
	return region_last[(unsigned char)s[len - 1]] ? REGION_STOP : REGION_TEXT;
}

/* Lines read in full at most, looking for that tail: text of error lines
 * that name nothing would otherwise be read twice over, slice by slice. */
#define REGION_TAIL_READS 32
/* Past the lines a message may take, enough to drop a failure. */
#define REGION_ORDINARY_TAIL (MESSAGE_LINES_MAX + TEXT_WENT_ON_LINES)

struct region {
	size_t end;                   /* where the first line not in it starts */
	long lines, last_text;        /* lines in it; the last text line's number in it (0: none) */
	bool blank;                   /* a blank line in it */
};

/* The lines of a region that end in word w, by the cheap look: most are
 * settled by a table lookup of their first and their last byte.  False
 * at a line that ends the region (r->end is its start then). */
static bool
region_word(const struct classifier *c, const char *base, uint64_t nl, size_t w, struct region *r)
{
	for (uint64_t m = nl; m != 0; m &= m - 1) {
		size_t e = w * 64 + (size_t)__builtin_ctzll(m), pos = r->end;
		enum region_line k = e == pos ? REGION_BLANK : REGION_TEXT;

		if (k == REGION_TEXT &&
		    (region_first[(unsigned char)base[pos]] | region_last[(unsigned char)base[e - 1]]) &&
		    (k = region_line(c, base + pos, e - pos)) == REGION_STOP)
			return false;
		r->lines++;
		if (k == REGION_BLANK)
			r->blank = true;
		else
			r->last_text = r->lines;
		r->end = e + 1;
	}
	return true;
}

/* The region a slice starts with, line by line. */
static void
region_scan(const struct classifier *c, const char *base, const uint64_t *nl, size_t words,
    struct region *r)
{
	*r = (struct region){ 0 };
	for (size_t w = 0; w < words && region_word(c, base, nl[w], w, r); w++)
		;
}

/* The '\n' before byte pos (its index), or -1. */
static long
nl_before(const uint64_t *nl, size_t pos)
{
	size_t w = pos / 64;
	uint64_t m = pos % 64 == 0 ? 0 : nl[w] & (~0ULL >> (64 - pos % 64));

	while (m == 0) {
		if (w == 0)
			return -1;
		m = nl[--w];
	}
	return (long)(w * 64 + 63 - (size_t)__builtin_clzll(m));
}

#ifdef HAVE_AVX2_PATH
/*
 * The same region, a word at a time where the masks allow.  A line asks
 * for a closer look when its first non-blank is a head byte or its last
 * byte a tail byte (the bytes region_line looks at); only those lines are
 * read, each once, and the others are counted by popcounts.  The first
 * non-blanks: line starts that are not blank, and the byte after each run
 * of blanks that begins at a line start (adding those starts to the blank
 * mask carries through exactly those runs).
 */
struct first_nonblank {
	uint64_t start_in;     /* the word before ended a line (the slice starts one) */
	unsigned char carry;   /* a run of leading blanks goes on into this word */
};

static inline uint64_t
first_nonblank(struct first_nonblank *f, uint64_t nl, uint64_t blank)
{
	uint64_t starts = nl << 1 | f->start_in;
	unsigned long long run;

	f->carry = _addcarry_u64(f->carry, starts & blank, blank, &run);
	f->start_in = nl >> 63;
	return (starts | run) & ~blank;
}

/* The '\n' at or after byte pos (its index), or SIZE_MAX. */
static size_t
nl_from(const uint64_t *nl, size_t words, size_t pos)
{
	size_t w = pos / 64;
	uint64_t m = nl[w] & (~0ULL << (pos % 64));

	while (m == 0) {
		if (++w == words)
			return SIZE_MAX;
		m = nl[w];
	}
	return w * 64 + (size_t)__builtin_ctzll(m);
}

/* May region_line stop at a line for its first non-blank, the head byte
 * s[0] (len bytes to the line's end)?  Short of its last byte, which
 * asks for itself (a tail byte): region_line's cases, cheaply. */
static bool
head_may_stop(const char *s, size_t len)
{
	switch (s[0]) {
	case '[':   /* textline_bracket_json */
		return s[1] == '{' || s[1] == '[' || s[1] == '\r' || s[1] == '\n' || s[len - 1] == ']';
	case 'r': case 'x': case 'a': case 'R': case 'X': case 'A':
		return header_name_start(s, len);
	default:
		return true;
	}
}

/* Where the masked scan stops (returned, or SIZE_MAX): the lines that
 * ask in word w (the bits ask), read by region_line, each once (those
 * that end before *read were read).  At a line that ends the region, or
 * at a blank one the masks count as text (it has a CR: *resume, and the
 * region goes on line by line from there).  Out of line: the scan's loop
 * keeps its registers. */
__attribute__((noinline)) static size_t
region_asks(const struct classifier *c, const char *base, const struct slice_bits *b, size_t words,
    size_t w, uint64_t ask, size_t *read, bool *resume)
{
	for (; ask != 0; ask &= ask - 1) {
		size_t at = w * 64 + (size_t)__builtin_ctzll(ask), start, e;
		enum region_line k;

		if (at < *read)
			continue;
		if ((e = nl_from(b->nl, words, at)) == SIZE_MAX)
			break;   /* an unfinished line, in no region */
		if (base[at] != '\n' && !head_may_stop(base + at, e - at))
			continue;   /* its last byte may still ask */
		start = (size_t)(nl_before(b->nl, at) + 1);
		*read = e + 1;
		if (e == start)
			continue;
		if ((k = region_line(c, base + start, e - start)) == REGION_STOP ||
		    (k == REGION_BLANK && base[e - 1] == '\r')) {
			*resume = k == REGION_BLANK;
			return start;
		}
	}
	return SIZE_MAX;
}

/* The counts of the lines a masked scan passed, kept as it goes: the
 * last word with a text line is looked at again only at the end. */
struct region_counts {
	long lines, lines_before_text;   /* all; those before the last word with text */
	uint64_t blank_ends;             /* the ends of blank lines (any word) */
	uint64_t text, text_nl;          /* that word's text line ends and its line ends */
};

/* Adds the lines that end at the bits nl of a word; first: the word's
 * first non-blanks (a line whose first non-blank is its end is blank). */
__attribute__((target("popcnt"))) static inline void
region_count(struct region_counts *n, uint64_t nl, uint64_t first)
{
	uint64_t text = nl & ~first;

	n->blank_ends |= nl & first;
	if (text != 0) {
		n->lines_before_text = n->lines;
		n->text = text;
		n->text_nl = nl;
	}
	n->lines += __builtin_popcountll(nl);
}

/* The region of those counts, its lines ending in the words before upto. */
__attribute__((target("popcnt"))) static void
region_counted(struct region *r, const struct region_counts *n, const uint64_t *nl, size_t upto)
{
	long last = upto == 0 ? -1 : nl_before(nl, upto * 64);

	r->lines = n->lines;
	r->blank = n->blank_ends != 0;
	r->last_text = n->text == 0 ? 0 :
	    n->lines_before_text + __builtin_popcountll(n->text_nl & (~0ULL >> __builtin_clzll(n->text)));
	r->end = (size_t)(last + 1);
}

/* The masked words; returns where the region goes on line by line, or
 * SIZE_MAX where it ended. */
__attribute__((target("popcnt"))) static size_t
region_scan_words(const struct classifier *c, const char *base, const struct slice_bits *b,
    size_t words, struct region *r)
{
	struct first_nonblank f = { 1, 0 };
	struct region_counts n = { 0 };
	uint64_t tail_in = 0;
	size_t read = 0, w, at = SIZE_MAX;
	bool resume = false;

	for (w = 0; w < b->masked; w++) {
		uint64_t nl = b->nl[w], first = first_nonblank(&f, nl, b->blank[w]), ask;

		ask = (first & b->head[w]) | (nl & (b->tail[w] << 1 | tail_in));
		tail_in = b->tail[w] >> 63;
		if (ask != 0 && (at = region_asks(c, base, b, words, w, ask, &read, &resume)) != SIZE_MAX) {
			/* No line ends between that line's start and word w. */
			if (at > w * 64)
				region_count(&n, nl & (~0ULL >> (64 - (at - w * 64))), first);
			break;
		}
		region_count(&n, nl, first);
	}
	if (at == SIZE_MAX) {
		region_counted(r, &n, b->nl, b->masked);
		return b->masked * 64;
	}
	region_counted(r, &n, b->nl, 0);
	r->end = at;
	return resume ? at : SIZE_MAX;
}

static void
region_scan_masked(const struct classifier *c, const char *base, const struct slice_bits *b,
    size_t words, struct region *r)
{
	size_t from;

	*r = (struct region){ 0 };
	if ((from = region_scan_words(c, base, b, words, r)) == SIZE_MAX)
		return;
	for (size_t w = from / 64; w < words; w++)
		if (!region_word(c, base, b->nl[w] & (w == from / 64 ? ~0ULL << (from % 64) : ~0ULL), w, r))
			return;
}
#endif

/* The region a slice starts with: by words where the masks were made. */
static void
region_find(const struct classifier *c, const char *base, const struct slice_bits *b, size_t words,
    struct region *r)
{
#ifdef HAVE_AVX2_PATH
	if (b->masked > 0) {
		region_scan_masked(c, base, b, words, r);
#ifdef RLWRAP_CHECK_FAST_PATH
		struct region line_by_line;

		region_scan(c, base, b->nl, words, &line_by_line);
		if (line_by_line.end != r->end || line_by_line.lines != r->lines ||
		    line_by_line.last_text != r->last_text || line_by_line.blank != r->blank)
			abort();   /* the word masks settled a region the lines would not */
#endif
		return;
	}
#endif
	region_scan(c, base, b->nl, words, r);
}

/* Does the region end in REGION_ORDINARY_TAIL ordinary lines, none of
 * which names anything, after its last line that might? */
static bool
region_tail_inert(struct classifier *c, const char *base, const uint64_t *nl, const struct region *r)
{
	long e = (long)r->end - 1, start;
	int ordinary = 0, reads = 0;

	for (; e >= 0 && reads < REGION_TAIL_READS; e = start - 1) {
		const char *s;
		size_t len, i = 0;
		bool is_ordinary;

		start = nl_before(nl, (size_t)e) + 1;
		s = base + start;
		len = (size_t)(e - start);
		if (len > 0 && s[len - 1] == '\r')
			len--;
		while (i < len && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i == len)
			continue;   /* blank */
		reads++;
		if (!text_line_inert(c, s + i, len - i, i, &is_ordinary))
			return false;
		if (is_ordinary && ++ordinary == REGION_ORDINARY_TAIL)
			return true;
	}
	return false;
}

#ifdef RLWRAP_CHECK_FAST_PATH
/* The region read line by line after all: it must leave nothing but its count. */
static void
region_check(struct classifier *c, const char *base, const struct region *r)
{
	long lineno = c->lineno + r->lines, last_text = r->last_text > 0 ? c->lineno + r->last_text :
	    c->last_text_line;
	const char *p = base, *end = base + r->end, *nl;

	while (p < end && (nl = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		process_joined(c, p, (size_t)(nl - p));
		p = nl + 1;
	}
	if (c->cand.have || c->doc != NULL || c->stash != NULL || c->skipped != NULL || c->text.in_fence ||
	    c->header_reset.at > 0 || c->lineno != lineno || c->last_text_line != last_text)
		abort();   /* a skipped region left a trace */
}
#endif

/* May a region start at this line?  --all reads every line; a header
 * waits; a region that just failed is not looked at again, line after
 * line. */
static bool
region_possible(const struct classifier *c, long lineno)
{
	/* Until content came, each line is looked at for it (text_content_note). */
	return c->cb == NULL && c->header_reset.at == 0 && lineno >= c->region_after && c->content_seen;
}

/* Skips the region a slice starts with when it may be (see above); returns
 * where reading goes on, and the counts in *lineno, *last_text, *gap. */
static size_t
region_skip(struct classifier *c, const char *base, const struct slice_bits *b, size_t words,
    long *lineno, long *last_text, bool *gap)
{
	struct region r;

	if (!region_possible(c, *lineno))
		return 0;
	region_find(c, base, b, words, &r);
	/* A coloured line is read without its escapes (process_line): its
	 * first and last bytes are not the ones the cheap look saw. */
	if (r.end == 0 || memchr(base, '\x1b', r.end) != NULL || !region_tail_inert(c, base, b->nl, &r)) {
		c->region_after = *lineno + r.lines;
		return 0;
	}
#ifdef RLWRAP_CHECK_FAST_PATH
	region_check(c, base, &r);
	*lineno = c->lineno;
	*last_text = c->last_text_line;
#else
	if (r.last_text > 0)
		*last_text = *lineno + r.last_text;
	*lineno += r.lines;
	*gap = *gap || r.blank;
#endif
	return r.end;
}

/* Counts the empty and plain lines a slice starts with; returns where the
 * first line that needs reading, or the first unfinished line, starts. */
static const char *
plain_slice(struct classifier *c, const char *base, size_t len, bool *stopped)
{
	struct slice_bits bits;
	const struct textline_bits tb = { bits.colon, bits.space };
	size_t pos = 0, words = (len + 63) / 64;
	long lineno = c->lineno, last_text = c->last_text_line;
	bool gap = false;

	bits.masked = 0;
	/* The masks only where a region may be skipped (region_skip). */
	if (region_possible(c, lineno))
		(void)slice_region_masks(&bits, base, len / 64);
	slice_bits_of(bits.nl, '\n', base, len, bits.masked, words);
	pos = region_skip(c, base, &bits, words, &lineno, &last_text, &gap);
	slice_bits_of(bits.colon, ':', base, len, pos / 64, words);
	slice_bits_of(bits.space, ' ', base, len, pos / 64, words);
	for (size_t w = pos / 64; w < words && !*stopped; w++)
		for (uint64_t m = bits.nl[w] & (~0ULL << (w == pos / 64 ? pos % 64 : 0)); m != 0;
		    m &= m - 1) {   /* each line end in turn */
			size_t e = w * 64 + (size_t)__builtin_ctzll(m);

			if (e == pos) {   /* what process_line does with an empty line */
				lineno++;
				gap = true;
			} else if (only_counted(c, base + pos, e - pos, &tb, pos)) {
				last_text = ++lineno;
				if (!c->content_seen)
					text_content_note(c, base + pos, line_without_cr(base + pos, e - pos));
			} else {
				*stopped = true;
				break;
			}
			pos = e + 1;
		}
	if (last_text != c->last_text_line)
		c->saw_text = true;
	if (gap)
		c->gap_after_cand = true;
	c->lineno = lineno;
	c->last_text_line = last_text;
	return base + pos;
}

/*
 * While nothing is pending, a run of empty and plain lines is only counted,
 * slice by slice (the common case of text output).  Returns where the
 * first line that needs reading starts; a line longer than a slice is left
 * to the caller.
 */
static const char *
plain_run(struct classifier *c, const char *p, const char *end)
{
	bool stopped = false;

	if (c->cand.have || c->stash != NULL || c->doc != NULL || c->skipped != NULL ||
	    c->text.in_fence || c->len != 0 || c->dropped != 0)
		return p;
	/* A JSON record is read whatever follows it: marking a whole slice for
	 * it would cost each line of a JSONL stream a slice's scan. */
	while (!stopped && p < end && *p != '{') {
		size_t want = c->slice_len > 0 ? c->slice_len : SCAN_SLICE_MIN;
		size_t len = (size_t)(end - p) < want ? (size_t)(end - p) : want;
		const char *q = plain_slice(c, p, len, &stopped);

		/* Slices grow while text runs on and start small again after a
		 * line that needs reading: a slice is marked whole, and text
		 * that stops every few lines would pay a large one each time. */
		c->slice_len = stopped ? SCAN_SLICE_MIN : want * 2 < SCAN_SLICE ? want * 2 : SCAN_SLICE;
		if (q == p || len < want)
			return q;
		p = q;
	}
	return p;
}

/*
 * A line the prefilter can judge before its end is known: a record the
 * dialect knows to change nothing (a heartbeat like the last one), or one
 * whose first type settles whether it is parsed (the end is then found in
 * the pass that judges it).  Counted and handled as object_line() would,
 * without reading the line a second time.  Returns the bytes it took,
 * newline included, or 0.
 */
static size_t
known_line(struct classifier *c, const char *p, const char *end)
{
	size_t n, len;
	bool keep;

	if (c->len != 0 || c->dropped != 0 || c->stash != NULL || c->doc != NULL || *p != '{' ||
	    (c->text.in_fence && !c->saw_family_event))
		return 0;
	/* A heartbeat is of a kept type, which prefilter_ahead() leaves. */
	if ((n = prefilter_ahead(c, p, (size_t)(end - p), &keep)) == 0) {
		if ((n = prefilter_unchanged_ahead(c, p, (size_t)(end - p))) == 0)
			return 0;
		object_counted(c);
		return n + 1;
	}
	object_counted(c);
	len = line_without_cr(p, n);
	if (keep)
		handle_json_line(c, p, len);
	else
		line_dropped(c, p, len);
	return n + 1;
}

void
classifier_feed(struct classifier *c, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len, *nl;
	size_t known;

	while ((p = plain_run(c, p, end)) < end) {
		size_t n;

		if ((known = known_line(c, p, end)) > 0) {
			p += known;
			continue;
		}
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			break;
		n = (size_t)(nl - p);

		if (c->len == 0 && c->dropped == 0) {
			/* A whole line inside this chunk, no copy. */
			if (!object_line(c, p, n < CLASSIFY_LINE_MAX ? n : CLASSIFY_LINE_MAX))
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

void
lines_finish(struct classifier *c)
{
	if (c->len > 0 || c->dropped > 0) {
		process_joined(c, c->buf, c->len);
		c->len = c->dropped = 0;
	} else if (c->stash != NULL)
		process_joined(c, "", 0);
	if (c->doc != NULL) {
		doc_done(c, NULL);
		doc_drop(c);
	}
}
