/*
 * textline.h: the grammar of a failure line in plain text (stderr, the
 * output of an agent in text mode, the text of a screen).  A line counts
 * only when it has the shape of an error line or of an agent's own banner,
 * read from where the line starts: never words inside a sentence, a code
 * block, a test name, a quoted string or a log summary.  docs/design.md
 * section 4 rule 1 and fixtures/README.md "Plain text and screens" give the
 * rules; the shapes are listed in textline.c.
 *
 * Ownership: nothing here allocates.  struct textline_state is a plain
 * value the caller owns (zeroed to start a stream).
 */
#ifndef RLWRAP_TEXTLINE_H
#define RLWRAP_TEXTLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum textline_kind {
	TEXTLINE_PLAIN,    /* prose, code, test output, logs, quotes: never a failure */
	TEXTLINE_HEADER,   /* "Retry-After: 30", "x-ratelimit-reset-tokens: 6m0s" */
	TEXTLINE_ERROR,    /* an error line: an error label, an exception class or an
	                    * HTTP status where the line starts */
	TEXTLINE_BANNER,   /* an agent's or provider's own failure wording at line start */
};

struct textline_state {
	bool in_fence;     /* inside a ``` or ~~~ code block */
	char fence_char;   /* the block's '`' or '~' */
	size_t fence_len;  /* and how many opened it: only as many or more close it */
};

/*
 * The shape of one line.  s is the line after its leading blanks (indent of
 * them), without its line end.  *body is set to the offset where the error
 * text starts after the labels, for TEXTLINE_ERROR and TEXTLINE_BANNER.
 * Reads at most the first TEXTLINE_HEAD_SPAN bytes unless the line is one.
 */
#define TEXTLINE_HEAD_SPAN 160
enum textline_kind textline_kind(struct textline_state *st, const char *s, size_t len,
    size_t indent, size_t *body);

/* Does s (after its leading blanks) start like a rate-limit header with a
 * reset ("retry-after: 30", "x-ratelimit-reset-tokens: 6m0s")?  Where it is
 * not indented past 2 blanks and starts worth reading, textline_kind says
 * TEXTLINE_HEADER for it. */
bool textline_may_be_header(const char *s, size_t len);

/* What a whole-chunk pass found: bit k is set when byte k of the caller's
 * buffer is a ':' (colon), a ' ' (space). */
struct textline_bits {
	const uint64_t *colon;
	const uint64_t *space;
};

/*
 * The hot loop's first look at a whole line (leading blanks and all, no
 * line end), read with no code block open: true only when the line is
 * plain by every step a reader takes (not blank, no JSON, no body opening
 * at its end, no fence mark, textline_kind says TEXTLINE_PLAIN or it is
 * indented past 2 blanks); false when it cannot tell cheaply.  Settled by
 * first bytes, first word, last byte and b, the line starting at bit off.
 */
bool textline_quick_plain(const char *s, size_t len, const struct textline_bits *b, size_t off);

/*
 * Is a line that follows a failure line ordinary output, a sign that the
 * run went on?  Prose, tables, quotes, lists and link definitions are;
 * detail lines (indented, the rest of a JSON body, closing brackets,
 * response headers, slash-command hints, a box's frame) are not.  kind is
 * its textline_kind.
 */
bool textline_is_ordinary(const char *s, size_t len, size_t indent, enum textline_kind kind);

/* Can a line starting with '[' be JSON ("[{", "[1, 2]", "[\"a\"]"), not a
 * bracketed timestamp or label ("[2024-12-25T00:40:02Z] ERROR ...")? */
bool textline_bracket_json(const char *s, size_t len);

/*
 * Is this line (after its leading blanks) the CLI's own chrome: a footer,
 * a hint, a turn summary, a status line; on a screen also the prompt and
 * its box?  Chrome after a failure leaves it standing.
 */
bool textline_is_chrome(const char *s, size_t len, bool screen);

/*
 * Copies s without its escape sequences (CSI such as colours, OSC, and the
 * two-byte ones) into dst, which holds len bytes; returns the length.
 */
size_t textline_strip_escapes(char *dst, const char *s, size_t len);

/*
 * Copies the body of an error line into dst (size >= 1) without what is
 * quoted (`...`, "...", '...') or path-like (words with '/') outside braces:
 * the words an error line is judged by.  Returns the length.
 */
size_t textline_unquoted(char *dst, size_t size, const char *s, size_t len);

#endif
