/*
 * classify_int.h: the classifier's parts, shared by the files it is split
 * into along its seams:
 *   classify.c        the API, records handed to the dialect, stderr text
 *   classify_lines.c  line assembly, pretty-printed documents, the repair of
 *                     lines an injected record broke
 *   prefilter.c       which lines are worth a JSON parse, from their bytes
 *   verdict.c         the verdict state machine and the signals it names
 *
 * Ownership: struct classifier belongs to classify.c (classifier_new and
 * classifier_free); the other parts only work on the one they are given.
 */
#ifndef RLWRAP_CLASSIFY_INT_H
#define RLWRAP_CLASSIFY_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "classify.h"
#include "dialect.h"
#include "textline.h"

enum outcome { OUT_PENDING, OUT_SUCCESS, OUT_FAILURE };

/* An error label before a pretty-printed body: at most this long; the body
 * at most DOC_LABELLED_LINES lines, or it was no body. */
#define DOC_LABEL_MAX 128
#define DOC_LABELLED_LINES 1000

struct held {
	bool have;
	bool text_only;
	bool error_line;   /* read from an error line (not a banner): indented lines
	                    * after it are its stack trace */
	bool exit0_ok;     /* read from text that was all the output so far: stands at
	                    * exit 0 if nothing but its details follows */
	bool soft;         /* its message took an ordinary line after it (a wrap) */
	bool after_output;
	bool own_reset;   /* the record stated its own reset (a field of its body) */
	long line;
	struct evidence ev;
};

/* The "type" values the dialects keep, gathered once per classifier. */
#define PREFILTER_TYPES_MAX 64
/* The longest type name the prefilter looks for the end of. */
#define PREFILTER_NAME_MAX 40

typedef bool (*output_hook)(const char *type, size_t type_len, const char *line, size_t len);
typedef size_t (*output_hook_ahead)(const char *type, size_t type_len, const char *p, size_t avail,
    bool *may_fail);

/* The output hooks one type has: those of the dialects that list it. */
#define PREFILTER_TYPE_HOOKS 4

/* A type name shorter than this is matched with its closing quote in one
 * compare of this many bytes (two of 16). */
#define PREFILTER_HEAD 32

struct prefilter_type {
	const char *name;
	size_t len;
	bool output;      /* kept only until the first output was seen */
	unsigned char head[PREFILTER_HEAD];   /* name", when shorter */
	uint32_t head_mask;                   /* its bytes, as bits */
	/* Of the dialects that list it in output_types: their output_may_fail
	 * (each once), and its _ahead twin (NULL where there is none). */
	output_hook hooks[PREFILTER_TYPE_HOOKS];
	output_hook_ahead hooks_ahead[PREFILTER_TYPE_HOOKS];
	size_t nhooks;
};

struct prefilter {
	struct prefilter_type types[PREFILTER_TYPES_MAX];
	size_t ntypes;
	/* The types[] (bit i) a first byte may start, a last byte may end, a
	 * length may be: their intersection is nearly always one type or none
	 * ("agent_end" and "assistant" share a first byte and a length). */
	uint64_t by_first[256], by_last[256], by_len[PREFILTER_NAME_MAX + 1];
	uint64_t by_second[256];   /* the byte after the first: a one-byte name's quote */
	uint64_t short_names;      /* the types with a head */
};

struct classifier {
	const struct dialect *dialect;
	bool family_forced;
	struct dialect_ctx ctx;
	signal_cb cb;
	void *cb_arg;
	struct prefilter prefilter;
	struct dialect_memo memo;  /* the dialect's, reset when the dialect changes */

	char *buf;                 /* the current (partial) line, at most CLASSIFY_LINE_MAX */
	size_t len, cap;
	size_t dropped;            /* bytes of the current line past the cap */
	char *stash;               /* head of a line an injected record broke in two */
	size_t stash_len;
	bool joining;              /* reading a line that was being written when a record cut in */
	const char *skipped;       /* the line before, when the prefilter dropped it */
	size_t skipped_len;
	char *skipped_copy;        /* its bytes, once the buffer they were in is reused */
	size_t skipped_cap;        /* skipped_copy's size: it only grows */
	char *doc;                 /* a pretty-printed JSON document being gathered */
	size_t doc_len;
	long doc_line;
	long doc_lines;            /* lines gathered so far */
	char doc_label[DOC_LABEL_MAX];  /* "_GaxiosError:" before a body on stderr, or "" */
	size_t doc_label_len;
	char *plain;               /* a line without its escape sequences */
	size_t plain_cap;
	long lineno;
	size_t slice_len;          /* the plain-text pass's next slice (classify_lines.c) */
	long region_after;         /* no counted region is tried before this line */

	bool saw_family_event;
	bool saw_output;
	enum outcome outcome;
	struct reset header_reset; /* from rate-limit headers seen before their failure */
	long last_text_line;       /* the stderr line before this one, for multi-line messages */
	long text_end;             /* the last line of the text candidate's message */
	struct textline_state text;
	bool saw_text;             /* a line of text, not JSON, came */
	bool gap_after_cand;       /* an empty line came after the candidate */
	int message_lines;         /* ordinary lines the text candidate's message took */
	char text_end_byte;        /* the last byte of its message's last line */
	bool screen;               /* the text is a screen's (classifier_set_screen) */
	bool screen_drawn;         /* and a program drew it */
	bool content_seen;         /* a text line that is not chrome came */
	int head_lines;            /* text lines looked at for content (text_content_note) */
	int text_failures;         /* failure lines read from text so far */
	/* Last: most of their pages are written only when a failure is held
	 * (classifier_new maps the classifier, so those stay untouched). */
	struct held cand;          /* the failure that decides if nothing terminal follows */
	struct held rejected;      /* a rejected rate_limit_event of this run */
	struct held term;
};

/* The ordinary lines right after a text failure that may be its message
 * wrapped at a width; TEXT_WENT_ON_LINES is what the region skip counts
 * on (it takes fewer: one content line past the message ends a failure). */
#define MESSAGE_LINES_MAX 4
#define TEXT_WENT_ON_LINES 3

/* classify.c: a parsed JSON value (object or array of them); a text line
 * (s after its indent of leading blanks). */
void classify_value(struct classifier *c, json_t *v);
void classify_text(struct classifier *c, const char *s, size_t len, size_t indent);
/* Would classify_text, with nothing pending, only count this line (no
 * failure, notice or header in it)?  Its decision without its effects;
 * *ordinary: a line that shows the run went on (textline_is_ordinary). */
bool text_line_inert(struct classifier *c, const char *s, size_t len, size_t indent, bool *ordinary);
/* A text line that named no failure, while no content had come: content
 * unless it is chrome (past the first HEAD_CHROME_LINES, whatever it is). */
#define HEAD_CHROME_LINES 24
void text_content_note(struct classifier *c, const char *s, size_t len);

/* classify_lines.c: the line still being assembled, at the end of input. */
void lines_finish(struct classifier *c);

/* prefilter.c */
/* Gathers the dialects' type lists; false when they exceed the table. */
bool prefilter_init(struct prefilter *pf);
/* Can this JSON line matter?  When false it is dropped unparsed. */
bool prefilter_keeps(const struct classifier *c, const char *s, size_t len);
/* Is this kept line one the dialect knows from its bytes changes nothing? */
bool prefilter_unchanged(struct classifier *c, const char *s, size_t len);
/* The length of such a line at p, known before its newline is looked for
 * (avail bytes there), or 0. */
size_t prefilter_unchanged_ahead(struct classifier *c, const char *p, size_t avail);
/* A line at p whose first key's type settles whether it is kept, told
 * before its end is looked for: the offset of its newline (found in the
 * same pass as what the output hooks look for), *keep what
 * prefilter_keeps() would answer; 0 when the line must be read as usual. */
size_t prefilter_ahead(const struct classifier *c, const char *p, size_t avail, bool *keep);

/* verdict.c */
/* Holds ev in h as seen at the current line. */
void verdict_hold(struct classifier *c, struct held *h, const struct evidence *ev, bool text_only);
/* Hands h to the signal callback (the --all view). */
void verdict_emit(struct classifier *c, const struct held *h);
/* What a record of this kind does to the verdict. */
void verdict_apply(struct classifier *c, enum record_kind kind, const struct evidence *ev);
/* The verdict at the end of the stream. */
void verdict_finish(struct classifier *c, int exit_code, struct fail_signal *out);

#endif
