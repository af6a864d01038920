/*
 * The grammar of failure lines in plain text.  A line is read from its
 * start as
 *
 *     line   := lead* (label+ body | core)
 *     lead   := screen glyph | timestamp | log level | component ":" |
 *               words "failed:"
 *     label  := "Error:" | "ERROR" | "fatal:" | exception class ":" |
 *               "API Error" | "[API Error:" | <Provider> "API error (429):"
 *     core   := banner | "HTTP/1.1 429" | "429 Too Many Requests" | "429 {" |
 *               "Error code: 429"
 *
 * A banner is an agent's or a provider's own failure sentence (the Claude,
 * Codex, Gemini, cursor and pi wordings, the OpenAI and Anthropic messages)
 * with the punctuation that follows it.  Anything else is plain: a sentence
 * that mentions a limit, a test name, code that raises an error, a quoted
 * message, a grep hit, a changelog entry, an indented or fenced block.
 *
 * Only the first TEXTLINE_HEAD_SPAN bytes are read, and most lines are
 * settled by their first word, so the cost per line is small and flat.
 */
#include <stdint.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "textline.h"

#define IS_DIGIT(c) ((unsigned)(unsigned char)(c) - '0' < 10u)
#define IS_UPPER(c) ((unsigned)(unsigned char)(c) - 'A' < 26u)
#define IS_LOWER(c) ((unsigned)(unsigned char)(c) - 'a' < 26u)
#define IS_ALPHA(c) (IS_UPPER(c) || IS_LOWER(c))

/* Bytes of an identifier: letters, digits, '_'. */
static const unsigned char ident_byte[256] = {
	['0' ... '9'] = 1, ['A' ... 'Z'] = 1, ['a' ... 'z'] = 1, ['_'] = 1,
};
#define IS_IDENT(c) (ident_byte[(unsigned char)(c)] != 0)

/* Bytes of a first word: letters, digits, '_', '.', '-', '\''. */
static const unsigned char word_byte[256] = {
	['0' ... '9'] = 1, ['A' ... 'Z'] = 1, ['a' ... 'z'] = 1,
	['_'] = 1, ['.'] = 1, ['-'] = 1, ['\''] = 1,
};
#define IS_WORD(c) (word_byte[(unsigned char)(c)] != 0)

enum strength { NONE, ERROR, BANNER };

/* p starts with the n bytes of lit. */
static bool
at(const char *p, const char *end, const char *lit, size_t n)
{
	return (size_t)(end - p) >= n && memcmp(p, lit, n) == 0;
}
#define AT(p, end, lit) at(p, end, lit, sizeof(lit) - 1)

static const char *
skip_blanks(const char *p, const char *end)
{
	while (p < end && *p == ' ')
		p++;
	return p;
}

/* ---- leads ---- */

/* Glyphs the agents' screens put before their own messages (U+23BF, U+2715,
 * U+2716, U+2717, U+2718, U+00D7, U+26A0, U+26A1, U+273B, U+25A0, U+25CF,
 * U+23FA), what a spinner leaves behind on a line it shared (U+2591
 * to U+2593, U+2588) and the left border of a box (U+2502, U+2503,
 * U+2551): a line is judged by what they frame. */
static const char *const glyphs[] = {
	"\xe2\x8e\xbf", "\xe2\x9c\x95", "\xe2\x9c\x96", "\xe2\x9c\x97", "\xe2\x9c\x98",
	"\xc3\x97", "\xe2\x9a\xa0", "\xe2\x9a\xa1", "\xe2\x9c\xbb", "\xe2\x96\xa0",
	"\xe2\x97\x8f", "\xe2\x8f\xba",
	"\xe2\x96\x91", "\xe2\x96\x92", "\xe2\x96\x93", "\xe2\x96\x88",
	"\xe2\x94\x82", "\xe2\x94\x83", "\xe2\x95\x91",
};
/* glyphs[] from here on are box borders, whose right border ends the line. */
#define GLYPH_BORDER_FIRST 16

/* A braille spinner frame (U+2800 to U+28FF). */
static bool
braille_at(const char *p, const char *end)
{
	return end - p >= 3 && p[0] == '\xe2' && (unsigned char)p[1] >= 0xa0 &&
	    (unsigned char)p[1] <= 0xa3 && (unsigned char)p[2] >= 0x80 && (unsigned char)p[2] <= 0xbf;
}

/* The glyph at p (its index in glyphs[]; -2 for a braille frame), or -1. */
static int
glyph_at(const char *p, const char *end)
{
	/* Every glyph starts with C3 97 or E2. */
	if (end - p < 2 || (p[0] != '\xe2' && p[0] != '\xc3'))
		return -1;
	if (braille_at(p, end))
		return -2;
	for (size_t i = 0; i < sizeof(glyphs) / sizeof(glyphs[0]); i++) {
		const char *g = glyphs[i];
		size_t n = g[0] == '\xc3' ? 2 : 3;

		/* Byte by byte: most glyphs differ in their first two bytes. */
		if ((size_t)(end - p) >= n && p[0] == g[0] && p[1] == g[1] && (n == 2 || p[2] == g[2]))
			return (int)i;
	}
	return -1;
}

/* Past the glyphs and blanks at p (up to four, "⎿  ■ "), or NULL when p
 * starts with none.  *gutter is set for U+23BF, the gutter a screen draws
 * a tool's output in; *border for a box's left border. */
static const char *
skip_glyph_border(const char *p, const char *end, bool *gutter, bool *border)
{
	const char *start = p;
	int g;

	for (int k = 0; k < 4 && (g = glyph_at(p, end)) != -1; k++) {
		if (g == 0)
			*gutter = true;
		if (g >= GLYPH_BORDER_FIRST)
			*border = true;
		p += g == -2 || glyphs[g][0] != '\xc3' ? 3 : 2;
		if (AT(p, end, "\xef\xb8\x8f"))   /* emoji presentation selector */
			p += 3;
		while (AT(p, end, "\xc2\xa0") || AT(p, end, " "))   /* Claude puts U+00A0 after ⎿ */
			p += *p == ' ' ? 1 : 2;
	}
	return p == start ? NULL : p;
}

static const char *
skip_glyph(const char *p, const char *end, bool *gutter)
{
	bool border = false;

	*gutter = false;
	return skip_glyph_border(p, end, gutter, &border);
}

/* The end of a line a box's left border started, before its right one. */
static const char *
before_right_border(const char *p, const char *end)
{
	while (end > p && end[-1] == ' ')
		end--;
	for (size_t i = GLYPH_BORDER_FIRST; i < sizeof(glyphs) / sizeof(glyphs[0]); i++)
		if (end - p >= 3 && memcmp(end - 3, glyphs[i], 3) == 0) {
			end -= 3;
			while (end > p && end[-1] == ' ')
				end--;
			break;
		}
	return end;
}

/* Bytes of a timestamp: '+' to ':' (the digits, ":.,-+/"), 'T' and 'Z'. */
static const unsigned char stamp_bytes[256] = {
	['0' ... '9'] = 1, [':'] = 1, ['.'] = 1, [','] = 1, ['-'] = 1, ['+'] = 1, ['T'] = 1,
	['Z'] = 1, ['/'] = 1,
};
#define stamp_byte(c) (stamp_bytes[(unsigned char)(c)] != 0)

/* Past the run of timestamp bytes at q, 16 at a time where SSE2 is. */
static const char *
skip_stamp_bytes(const char *q, const char *end)
{
#ifdef __SSE2__
	const __m128i base = _mm_set1_epi8('+'), high = _mm_set1_epi8((char)0xf0);
	const __m128i t = _mm_set1_epi8('T'), z = _mm_set1_epi8('Z'), zero = _mm_setzero_si128();

	while (end - q >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)q);
		__m128i in_range = _mm_cmpeq_epi8(_mm_and_si128(_mm_sub_epi8(v, base), high), zero);
		__m128i ok = _mm_or_si128(in_range, _mm_or_si128(_mm_cmpeq_epi8(v, t), _mm_cmpeq_epi8(v, z)));
		unsigned bad = ~(unsigned)_mm_movemask_epi8(ok) & 0xffffu;

		if (bad != 0)
			return q + __builtin_ctz(bad);
		q += 16;
	}
#endif
	while (q < end && stamp_byte(*q))
		q++;
	return q;
}

/* "2026-11-30T11:59:58.204Z ", "2026-11-30 11:59:58,412 ", "[2026-11-30 11:59:58] ",
 * "11:59:58 ". */
static const char *
skip_timestamp(const char *p, const char *end)
{
	const char *q = p + (p < end && *p == '[');
	const char *start = q;

	if (end - q < 8 || !IS_DIGIT(q[0]) || !IS_DIGIT(q[1]))
		return NULL;
	if (!(q[4] == '-' && q[7] == '-') && !(q[4] == '/' && q[7] == '/') &&
	    !(q[2] == ':' && q[5] == ':'))
		return NULL;
	for (int pieces = 0; pieces < 2; pieces++) {
		q = skip_stamp_bytes(q, end);
		if (pieces == 0 && q + 1 < end && *q == ' ' && IS_DIGIT(q[1]) && q - start == 10)
			q++;
		else
			break;
	}
	if (*start == '[' || p[0] == '[') {
		if (q >= end || *q != ']')
			return NULL;
		q++;
	}
	if (q < end && *q != ' ')
		return NULL;
	q = skip_blanks(q, end);
	/* "23:27:08 - openhands:ERROR: ...", "2026-11-30 11:59:58 | ERROR | ..." */
	if (end - q >= 2 && (*q == '-' || *q == '|') && q[1] == ' ')
		q = skip_blanks(q + 1, end);
	return q;
}

struct word_rule {
	const char *word;
	size_t len;               /* of word */
	enum strength strength;   /* ERROR: a label; NONE: a neutral lead */
	bool plain;               /* the line is plain whatever follows */
};
#define WORD(w) w, sizeof(w) - 1

/* Log levels, bare or bracketed. */
static const struct word_rule levels[] = {
	{ WORD("ERROR"), ERROR, false }, { WORD("FATAL"), ERROR, false },
	{ WORD("CRITICAL"), ERROR, false }, { WORD("ERR"), ERROR, false },
	{ WORD("WARN"), NONE, false }, { WORD("WARNING"), NONE, false },
	{ WORD("INFO"), NONE, true }, { WORD("DEBUG"), NONE, true }, { WORD("TRACE"), NONE, true },
	{ WORD("NOTICE"), NONE, true },
};

/* A level word of at most 8 letters, in capitals, as one number. */
static uint64_t
level_key(const char *w, size_t n)
{
	uint64_t key = 0;

	for (size_t i = 0; i < n; i++)
		key = key << 8 | (unsigned char)(IS_LOWER(w[i]) ? w[i] - 32 : w[i]);
	return key;
}

/* "ERROR ", "[error] ", "WARN: "; returns past it, or NULL. */
static const char *
skip_level(const char *p, const char *end, enum strength *label, bool *plain)
{
	static uint64_t keys[sizeof(levels) / sizeof(levels[0])];
	bool bracket = p < end && *p == '[';
	const char *w = p + bracket, *q = w;
	uint64_t key;
	size_t n;

	while (q < end && IS_ALPHA(*q) && q - w < 9)
		q++;
	n = (size_t)(q - w);
	if (n < 3 || n > 8 || (bracket ? q >= end || *q != ']' : q >= end || (*q != ' ' && *q != ':')))
		return NULL;
	/* A bare level is written in capitals; "Error:" is a label, not a level. */
	if (!bracket && !IS_UPPER(w[n - 1]))
		return NULL;
	if (keys[0] == 0)
		for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++)
			keys[i] = level_key(levels[i].word, levels[i].len);
	key = level_key(w, n);
	for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++)
		if (keys[i] == key) {   /* the length is in the key: no level starts with a NUL */
			*plain = levels[i].plain;
			if (levels[i].strength > *label)
				*label = levels[i].strength;
			q += bracket;
			if (q < end && *q == ':')
				q++;
			return skip_blanks(q, end);
		}
	return NULL;
}

/* "llm: ", "worker.retry: " -- one word of a logger or program name; or
 * "openhands:ERROR: ", a logger and its level (*label, *plain as skip_level
 * sets them). */
static const char *
skip_component(const char *p, const char *end, enum strength *label, bool *plain)
{
	const char *q = p, *r;

	while (q < end && (IS_IDENT(*q) || *q == '.' || *q == '-') && q - p <= 40)
		q++;
	if (q == p || q >= end || *q != ':')
		return NULL;
	if (q + 1 < end && IS_UPPER(q[1]) && (r = skip_level(q + 1, end, label, plain)) != NULL &&
	    r[-1] == ' ' && memchr(q + 1, ':', (size_t)(r - q - 1)) != NULL)
		return r;
	if (q + 1 < end && q[1] != ' ')
		return NULL;
	return skip_blanks(q + 1, end);
}

/* "llm call failed: ", "request to api.openai.com failed: ": a few words
 * ending in "failed" before the first colon; "Failed to get response from
 * model: ", a few words starting with "Failed to". */
static const char *
skip_failed(const char *p, const char *end)
{
	const char *colon = memchr(p, ':', (size_t)(end - p) < 80 ? (size_t)(end - p) : 80);
	int spaces = 0;

	if (colon == NULL || colon - p < 8 || (colon + 1 < end && colon[1] != ' '))
		return NULL;
	if (memcmp(colon - 7, " failed", 7) != 0 && !AT(p, end, "Failed to "))
		return NULL;
	/* Words only: "The log showed `x failed:" is a sentence quoting one. */
	for (const char *q = p; q < colon; q++)
		if ((*q == ' ' && ++spaces > 6) || (!IS_WORD(*q) && *q != ' '))
			return NULL;
	return skip_blanks(colon + 1, end);
}

/* ---- labels ---- */

/* Exception classes whose name says what failed. */
static const char *const class_ends[] = {
	"Error", "Exception", "Exhausted", "Unavailable", "TooManyRequests", "Forbidden",
	"Unauthorized", "Unauthenticated", "PermissionDenied", "DeadlineExceeded", "Timeout",
};

/* "openai.RateLimitError:", "google.api_core.exceptions.ResourceExhausted:",
 * "APIError:", "Error:", "error:", "fatal:", "Error 429:" */
static const char *
exception_label(const char *p, const char *end)
{
	const char *q = p, *last = p;

	while (q < end && (IS_IDENT(*q) || *q == '.') && q - p < 96) {
		if (*q == '.')
			last = q + 1;
		q++;
	}
	while (last < q && *last == '_')   /* "_GaxiosError:" */
		last++;
	if (q == last || q >= end)
		return NULL;
	if (*q == ' ' && q + 4 < end && IS_DIGIT(q[1]) && IS_DIGIT(q[2]) && IS_DIGIT(q[3]) &&
	    q[4] == ':' && (size_t)(q - p) == 5 && memcmp(p, "Error", 5) == 0)
		q += 4;   /* "Error 429: ..." */
	if (*q != ':' || (q + 1 < end && q[1] != ' '))
		return NULL;
	if ((q - last == 5 && (memcmp(last, "error", 5) == 0 || memcmp(last, "fatal", 5) == 0 ||
	    memcmp(last, "Fatal", 5) == 0)) || (q - last == 3 && memcmp(last, "err", 3) == 0))
		return last == p ? skip_blanks(q + 1, end) : NULL;
	if (!IS_UPPER(*last))
		return NULL;
	for (size_t i = 0; i < sizeof(class_ends) / sizeof(class_ends[0]); i++) {
		size_t n = strlen(class_ends[i]);

		if ((size_t)(q - last) >= n && memcmp(q - n, class_ends[i], n) == 0)
			return skip_blanks(q + 1, end);
	}
	return NULL;
}

/* "Mistral API error (429): ", "OpenAI API error: ", "Cloud Code Assist API error (429): ",
 * "Codex error: " -- the agents' own labels for a provider's answer. */
static const char *
provider_label(const char *p, const char *end)
{
	const char *q = p;

	for (int words = 0; words < 4 && q < end && IS_UPPER(*q); words++) {
		if (AT(q, end, "API error") || AT(q, end, "API Error")) {
			q += 9;
			if (AT(q, end, " (") && q + 6 < end && IS_DIGIT(q[2]) && q[5] == ')')
				q += 6;
			return q < end && *q == ':' ? skip_blanks(q + 1, end) : NULL;
		}
		if (AT(q, end, "Codex error:"))
			return skip_blanks(q + 12, end);
		while (q < end && IS_ALPHA(*q))
			q++;
		if (q >= end || *q != ' ')
			return NULL;
		q++;
	}
	return NULL;
}

/* Does the phrase [p, colon) end in the word "error" (any case)? */
static bool
ends_in_error_word(const char *p, const char *colon)
{
	static const char word[] = "error";

	if (colon - p < 6 || colon[-6] != ' ')
		return false;
	for (size_t i = 0; i < 5; i++)
		if ((colon[-5 + (long)i] | 0x20) != word[i])
			return false;
	return true;
}

/* "Error refreshing OAuth token: ", "Error when talking to Gemini API: " --
 * a few words after "Error" before the first colon; "Ran into this error: ",
 * "Codex stream error: ", "Unknown agent error: " -- a few words ending in
 * "error", the labels agents and wrappers put before a provider's answer. */
static const char *
error_phrase_label(const char *p, const char *end)
{
	const char *colon;
	int spaces = 0;
	bool leading = AT(p, end, "Error ") || AT(p, end, "error ") || AT(p, end, "ERROR ");

	colon = memchr(p, ':', (size_t)(end - p) < 64 ? (size_t)(end - p) : 64);
	if (colon == NULL || (colon + 1 < end && colon[1] != ' '))
		return NULL;
	if (!leading && !(IS_UPPER(*p) && ends_in_error_word(p, colon)))
		return NULL;
	/* Words only: "The log showed `API Error:" is a sentence quoting one. */
	for (const char *q = p; q < colon; q++)
		if ((*q == ' ' && ++spaces > 5) || (!IS_WORD(*q) && *q != ' '))
			return NULL;
	return skip_blanks(colon + 1, end);
}

/* "An error occurred (ThrottlingException) when calling the Converse
 * operation: ": the AWS SDKs' error line, the class in parentheses. */
static const char *
botocore_label(const char *p, const char *end)
{
	const char *q, *op;

	if (!AT(p, end, "An error occurred ("))
		return NULL;
	p += 19;   /* the body starts at the class, which names the failure */
	q = memchr(p, ')', (size_t)(end - p));
	if (q == NULL || !AT(q, end, ") when calling the "))
		return NULL;
	op = memchr(q, ':', (size_t)(end - q));
	if (op == NULL || op - q < 20 || memcmp(op - 9, "operation", 9) != 0)
		return NULL;
	return p;
}

/* One label at p; *strength says whose wording it is. */
static const char *
label_at(const char *p, const char *end, enum strength *strength)
{
	const char *q;

	if (*p == '[' && AT(p, end, "[API Error: ")) {
		*strength = BANNER;
		return p + 12;
	}
	if (*p == 'A' && (AT(p, end, "API Error: ") || AT(p, end, "API Error ("))) {
		*strength = BANNER;
		return p + 10;   /* the body starts at "(429 {...}) · Retrying" */
	}
	if (*p == 'A' && (q = botocore_label(p, end)) != NULL) {
		*strength = ERROR;
		return q;
	}
	if ((q = provider_label(p, end)) != NULL) {
		*strength = BANNER;
		return q;
	}
	if ((q = exception_label(p, end)) != NULL || (q = error_phrase_label(p, end)) != NULL) {
		*strength = ERROR;
		return q;
	}
	return NULL;
}

/* ---- cores ---- */

/* First words of the shapes that need no colon (banners, levels), by length,
 * space-separated. */
static const char *const head_words[] = {
	[1] = "5", [2] = "No", [3] = "You Not ERR", [4] = "Your Rate This WARN",
	[5] = "Quota We're Usage ERROR FATAL",
	[6] = "You've You're Claude claude Credit stream Failed 5-hour Sorry,",
	[7] = "Request Invalid WARNING",
	[8] = "exceeded Selected CRITICAL You\xe2\x80\x99ve You\xe2\x80\x99re", [10] = "unexpected",
};

/* The first bytes of head_words and of "HTTP/": any other first byte
 * settles is_head_word at once (keep in step with head_words). */
static const unsigned char head_first[256] = {
	['5'] = 1, ['C'] = 1, ['E'] = 1, ['F'] = 1, ['H'] = 1, ['I'] = 1, ['N'] = 1, ['Q'] = 1,
	['R'] = 1, ['S'] = 1, ['T'] = 1, ['U'] = 1, ['W'] = 1, ['Y'] = 1, ['e'] = 1, ['s'] = 1,
	['u'] = 1, ['c'] = 1,
};

#define K3(a, b, c) ((uint32_t)(unsigned char)(a) | (uint32_t)(unsigned char)(b) << 8 | \
	(uint32_t)(unsigned char)(c) << 16)

/* Can the line start with one of head_words or "HTTP/"?  By their first
 * three bytes (keep in step with head_words), "5" by what follows it. */
static bool
head_prefix(const char *s, size_t len)
{
	if (s[0] == '5')
		return len == 1 || s[1] == ' ' || s[1] == '-';
	if (len < 3 || !head_first[(unsigned char)s[0]])
		return false;
	switch (K3(s[0], s[1], s[2])) {
	case K3('Y', 'o', 'u'): case K3('N', 'o', 't'): case K3('E', 'R', 'R'): case K3('R', 'a', 't'):
	case K3('T', 'h', 'i'): case K3('W', 'A', 'R'): case K3('Q', 'u', 'o'): case K3('W', 'e', '\''):
	case K3('U', 's', 'a'): case K3('F', 'A', 'T'): case K3('C', 'l', 'a'): case K3('C', 'r', 'e'):
	case K3('s', 't', 'r'): case K3('F', 'a', 'i'): case K3('S', 'o', 'r'): case K3('R', 'e', 'q'):
	case K3('I', 'n', 'v'): case K3('e', 'x', 'c'): case K3('S', 'e', 'l'): case K3('C', 'R', 'I'):
	case K3('u', 'n', 'e'): case K3('H', 'T', 'T'): case K3('N', 'o', ' '): case K3('c', 'l', 'a'):
		return true;
	default:
		return false;
	}
}

static bool
is_head_word(const char *s, size_t len)
{
	size_t n = 0;
	const char *w;

	if (!head_prefix(s, len))
		return false;
	while (n < len && n < 12 && s[n] != ' ')
		n++;
	if (n >= 5 && memcmp(s, "HTTP/", 5) == 0)
		return true;
	if (n >= sizeof(head_words) / sizeof(head_words[0]) || (w = head_words[n]) == NULL)
		return false;
	for (; *w != '\0'; w += n + (w[n] == ' '))
		if (w[0] == s[0] && (n == 1 || w[1] == s[1]) && memcmp(w, s, n) == 0)
			return true;
	return false;
}


/* A banner: its words, then what may follow them.  Tails: 'E' end of line
 * (or a final '.'), 's' a separator (" · ", " ∙ ", " - ", " | "), 'S' a
 * sentence (". " and a capital), '(' a parenthesis, 'D' a status code, '*'
 * anything; and words later on the line: 'O' " in organization ", 'M' "on
 * this model", 'Q' "quota limit", 'A' "Access resets". */
struct banner {
	const char *words;
	const char *tails;
};

static const struct banner banners[] = {
	{ "You've hit your limit", "EsS" },
	{ "You've hit your session limit", "EsS" },
	{ "You've hit your weekly limit", "EsS" },
	{ "You've hit your Opus limit", "EsS" },
	{ "You've hit your Sonnet limit", "EsS" },
	{ "You've hit your usage limit", "EsS(" },
	{ "You have hit your limit", "EsS" },
	{ "You have hit your session limit", "EsS" },
	{ "You have hit your weekly limit", "EsS" },
	{ "You have hit your usage limit", "EsS(" },
	{ "You have hit your ChatGPT usage limit", "EsS(" },
	{ "You've hit your limit for Claude messages", "EsS" },
	{ "You're out of extra usage", "Es" },
	{ "Sorry, you've hit a rate limit", "*" },
	{ "Sorry, your request is rate-limited", "*" },
	{ "Claude AI usage limit reached", "E|" },
	{ "Claude usage limit reached.", "*" },
	{ "5-hour limit reached", "Es" },
	{ "5 hour limit reached", "Es" },
	{ "Credit balance is too low", "Es" },
	{ "Credit balance too low", "Es" },
	{ "You've reached your usage limit", "EsS" },
	{ "You've reached your usage limit for this period", "*" },
	{ "You've reached your usage limit for this billing cycle", "*" },
	{ "No capacity available for model", "*" },
	{ "Your credit balance is too low", "*" },
	{ "You have reached your specified API usage limits", "ES" },
	{ "Quota exceeded. Check your plan and billing details", "E" },
	{ "exceeded retry limit, last status: ", "*" },
	{ "Selected model is at capacity", "ES" },
	{ "We're currently experiencing high demand", "ES," },
	{ "You have exhausted your daily quota", "EM" },
	{ "You have exhausted your capacity", "EM" },
	{ "You have reached your daily ", "Q" },
	{ "Usage limit reached for ", "A" },
	{ "You exceeded your current quota, please check your plan", "*" },
	{ "This request would exceed your account's rate limit", "*" },
	{ "This request requires more credits", "*" },
	{ "Rate limit reached for ", "O" },
	{ "Request too large for ", "O" },
	{ "Quota exceeded for quota metric", "*" },
	{ "unexpected status ", "D" },
	{ "stream disconnected before completion", ":" },
	{ "Invalid API key \xc2\xb7", "*" },
	{ "Not logged in \xc2\xb7", "*" },
	{ "Failed to authenticate. API Error", "*" },
};

static bool
tail_ok(const char *p, const char *end, const char *tails)
{
	for (const char *t = tails; *t != '\0'; t++)
		switch (*t) {
		case '*':
			return true;
		case 'E':
			if (p == end || (p + 1 == end && *p == '.'))
				return true;
			break;
		case 's':
			if (AT(p, end, " \xc2\xb7") || AT(p, end, " \xe2\x88\x99") || AT(p, end, " - ") ||
			    AT(p, end, " | "))
				return true;
			break;
		case 'S':
			if (p + 2 < end && (*p == '.' || *p == ',') && p[1] == ' ' && IS_UPPER(p[2]))
				return true;
			break;
		case 'D':
			if (p < end && IS_DIGIT(*p))
				return true;
			break;
		case 'O': case 'M': case 'Q': case 'A': {
			const char *w = *t == 'O' ? " in organization " : *t == 'M' ? "on this model" :
			    *t == 'Q' ? "quota limit" : "Access resets";

			if (memmem(p, (size_t)(end - p), w, strlen(w)) != NULL)
				return true;
			break;
		}
		default:
			if (p < end && *p == *t)
				return true;
			if (*t == '(' && AT(p, end, " ("))
				return true;
			break;
		}
	return false;
}

/* Compares the apostrophe as either ' or U+2019. */
static const char *
banner_words(const char *p, const char *end, const char *w)
{
	for (; *w != '\0'; w++) {
		if (*w == '\'' && AT(p, end, "\xe2\x80\x99")) {
			p += 3;
			continue;
		}
		if (p >= end || *p != *w)
			return NULL;
		p++;
	}
	return p;
}

static bool
is_banner(const char *p, const char *end)
{
	/* Every banner starts with one of the head words. */
	if (p >= end || !is_head_word(p, (size_t)(end - p)))
		return false;
	for (size_t i = 0; i < sizeof(banners) / sizeof(banners[0]); i++) {
		const char *q;

		if (banners[i].words[0] == *p && (q = banner_words(p, end, banners[i].words)) != NULL &&
		    tail_ok(q, end, banners[i].tails))
			return true;
	}
	return false;
}

static bool
is_error_status(const char *p, const char *end)
{
	return end - p >= 3 && (p[0] == '4' || p[0] == '5') && IS_DIGIT(p[1]) && IS_DIGIT(p[2]) &&
	    (end - p == 3 || !IS_DIGIT(p[3]));
}

/*
 * A status where an error starts: "429 Too Many Requests", "429 {...}",
 * "429: quota exceeded", "529 overloaded_error: Overloaded", "429 status code
 * (no body)", "HTTP/1.1 429", "< HTTP/2 429", "Error code: 429".
 */
static bool
is_status_core(const char *p, const char *end)
{
	const char *q;

	if (p >= end || (!IS_DIGIT(*p) && *p != '<' && *p != 'H' && *p != 'E'))
		return false;
	if (AT(p, end, "< HTTP/"))
		p += 2;
	if (AT(p, end, "HTTP/")) {
		q = memchr(p, ' ', (size_t)(end - p) < 10 ? (size_t)(end - p) : 10);
		return q != NULL && is_error_status(q + 1, end);
	}
	if (AT(p, end, "HTTP "))   /* "HTTP 403 permission_error: ..." */
		return is_error_status(p + 5, end);
	if (AT(p, end, "Error code: "))
		return is_error_status(p + 12, end);
	if (!is_error_status(p, end))
		return false;
	q = p + 3;
	if (q == end || AT(q, end, " {") || AT(q, end, " [") || AT(q, end, " \"") || AT(q, end, ": ") || AT(q, end, " status code") ||
	    (q + 1 < end && *q == ' ' && IS_UPPER(q[1])))
		return true;
	/* "529 overloaded_error: ..." */
	for (q++; q < end && (IS_LOWER(*q) || *q == '_'); q++)
		;
	return q - p > 10 && q < end && *q == ':' && memcmp(q - 6, "_error", 6) == 0;
}

/* ---- the line ---- */

/* A header that carries a reset: "retry-after-ms: 8750", "< Retry-After: 30". */
static bool
is_rate_header(const char *s, const char *end)
{
	const char *p = s, *start;
	char low[48];
	size_t n;

	while (p < end && (*p == '<' || *p == ' '))
		p++;
	start = p;
	while (p < end && (IS_IDENT(*p) || *p == '-') && p - start < 47)
		p++;
	if (p == start || p >= end || *p != ':')
		return false;
	n = (size_t)(p - start);
	for (size_t i = 0; i < n; i++)
		low[i] = IS_UPPER(start[i]) ? (char)(start[i] + 32) : start[i];
	low[n] = '\0';
	/* Header names are hyphenated ("RateLimit" alone is the IETF draft's);
	 * "RateLimitError: ..." is an exception line. */
	if (memchr(low, '-', n) == NULL && strcmp(low, "ratelimit") != 0)
		return false;
	return strstr(low, "retry-after") != NULL || strstr(low, "ratelimit") != NULL ||
	    strstr(low, "x-codex") != NULL;
}

/* Claude's legacy "Claude AI usage limit reached|<reset>", in any case. */
static bool
is_legacy_claude_banner(const char *p, const char *end)
{
	static const char words[] = "claude ai usage limit reached";
	size_t n = sizeof(words) - 1;

	if ((size_t)(end - p) < n + 1 || p[n] != '|')
		return false;
	for (size_t i = 0; i < n; i++)
		if ((p[i] | (IS_ALPHA(p[i]) ? 0x20 : 0)) != words[i])
			return false;
	return true;
}

/* What comes before the labels: glyphs, a box's border, a timestamp, a log
 * level.  Returns where the labels may start, or NULL for a line its lead
 * makes plain (an INFO log line, a glyph that frames no message). */
struct lead {
	enum strength label;
	bool gutter, border, stamped, glyph;
};

static const char *
skip_leads(const char *p, const char *end, struct lead *ld)
{
	const char *q;
	bool plain = false;

	if ((unsigned char)*p >= 0xc2) {
		if ((q = skip_glyph_border(p, end, &ld->gutter, &ld->border)) == NULL)
			return NULL;
		ld->glyph = true;
		p = q;
	}
	if ((IS_DIGIT(*p) || *p == '[') && (q = skip_timestamp(p, end)) != NULL) {
		ld->stamped = true;
		p = q;
		if ((unsigned char)*p >= 0xc2 && (q = skip_glyph_border(p, end, &ld->gutter, &ld->border)) != NULL) {
			ld->glyph = true;   /* "[2026-11-30T11:59:42] ✗ Execution failed: ..." */
			p = q;
		}
	}
	if ((IS_UPPER(*p) || *p == '[') && (q = skip_level(p, end, &ld->label, &plain)) != NULL) {
		if (plain)
			return NULL;
		ld->stamped = true;
		p = q;
	}
	return p;
}

/* With no label at p: a component ("llm: ", "openhands:ERROR: ") or a
 * "failed:" phrase before one.  Returns the label after it (NULL: none),
 * moving *pp past the lead; *failed for a "failed:" phrase. */
static const char *
component_then_label(const char **pp, const char *end, struct lead *ld, enum strength *strength,
    bool *failed)
{
	const char *p = *pp, *r;
	bool plain = false;

	if ((r = skip_component(p, end, &ld->label, &plain)) != NULL && !plain &&
	    (ld->stamped || ld->label != NONE || label_at(r, end, strength) != NULL ||
	    is_status_core(r, end) || is_banner(r, end))) {
		*pp = r;   /* "llm: Error: ...", "2026-... WARN llm: ..." */
		return label_at(r, end, strength);
	}
	if ((r = skip_failed(p, end)) != NULL) {
		*pp = r;   /* "Model call failed: {...}", "Failed to get response: ..." */
		*failed = true;
		return label_at(r, end, strength);
	}
	return NULL;
}

static enum textline_kind
head_kind(const char *s, size_t len, size_t *body)
{
	const char *p, *end = s + (len < TEXTLINE_HEAD_SPAN ? len : TEXTLINE_HEAD_SPAN);
	const char *q, *line_end = s + len;
	enum strength strength = NONE;
	struct lead ld = { NONE, false, false, false, false };
	bool failed = false;

	if ((p = skip_leads(s, end, &ld)) == NULL)
		return TEXTLINE_PLAIN;
	if (ld.border)
		line_end = before_right_border(p, line_end);
	q = label_at(p, end, &strength);
	if (q == NULL && ld.label == NONE)
		q = component_then_label(&p, end, &ld, &strength, &failed);
	for (int n = 0; n < 3 && q != NULL; n++) {
		if (strength > ld.label)
			ld.label = strength;
		p = q;
		q = label_at(p, end, &strength);
	}
	*body = (size_t)(p - s);
	if (ld.label == BANNER || is_banner(p, line_end) || is_legacy_claude_banner(p, line_end))
		return TEXTLINE_BANNER;
	if (ld.gutter)
		return TEXTLINE_PLAIN;   /* in a tool's output only the agent's own words count */
	/* A body a "failed:" phrase or a screen's glyph frames is an error's. */
	if (ld.label == ERROR || failed || is_status_core(p, line_end) ||
	    (ld.glyph && p < line_end && (*p == '{' || AT(p, line_end, "[{"))))
		return TEXTLINE_ERROR;
	return TEXTLINE_PLAIN;
}

/* What may follow '[' at the start of a shape: "AEeWwFfC0123456789". */
static const unsigned char after_bracket[256] = {
	['A'] = 1, ['E'] = 1, ['e'] = 1, ['W'] = 1, ['w'] = 1, ['F'] = 1, ['f'] = 1, ['C'] = 1,
	['0' ... '9'] = 1,
};

/*
 * The prefilter: can the line be anything but plain?  Every shape starts
 * with a letter, a digit, '[', '<' or a screen glyph, and either has a
 * colon near its start or begins with one of head_words.  Most lines are
 * settled here by their first bytes.
 */
/*
 * The first word of a line that starts with a letter or '_': a label or a
 * component ends it with a colon; a sentence, a banner or "x failed:" with
 * a blank; anything else ("make[2]:", "src/a.c:12:", "foo(") is no shape
 * at all.  1: worth reading; 0: plain; -1: worth reading only if a colon
 * follows within 96 bytes of *end (the caller looks: by memchr, or by the
 * slice's colon bits).
 */
static inline int
first_word_verdict(const char *s, size_t len, size_t *end)
{
	size_t n = 1;

	while (n < len && IS_WORD(s[n]))
		n++;
	*end = n;
	if (n == len || s[n] == ':' || s[n] == '\x1b')
		return 1;
	if (s[n] == '/' && n == 4 && memcmp(s, "HTTP", 4) == 0)
		return 1;
	if (s[n] != ' ' && s[n] != ',' && (unsigned char)s[n] != 0xe2)
		return 0;
	return is_head_word(s, len) ? 1 : -1;
}

static bool
worth_reading(const char *s, size_t len)
{
	unsigned char c = (unsigned char)s[0];
	size_t n;
	int v;

	if (c >= 0xc2 || c == '<')
		return true;
	if (c == '[')   /* "[API Error:", "[ERROR]", "[warn]", "[2026-11-30 ...]" */
		return len > 1 && after_bracket[(unsigned char)s[1]];
	if (IS_DIGIT(c))   /* a timestamp, "429 ...", "5-hour limit" */
		return len > 3 && ((IS_DIGIT(s[1]) && IS_DIGIT(s[2]) &&
		    (s[3] == ' ' || s[3] == ':' || s[3] == '{')) ||
		    (len > 7 && (s[4] == '-' || s[4] == '/') && s[7] == s[4]) ||
		    (len > 5 && s[2] == ':' && s[5] == ':') || s[1] == '-' || s[1] == ' ');
	if (!IS_ALPHA(c) && c != '_')
		return false;
	if ((v = first_word_verdict(s, len, &n)) >= 0)
		return v == 1;
	return memchr(s + n, ':', len - n < 96 ? len - n : 96) != NULL;
}

/* ---- the hot loop's first look ---- */

/* The first of the bits [from, to) that is set, or to. */
static size_t
first_bit(const uint64_t *bits, size_t from, size_t to)
{
	while (from < to) {
		uint64_t m = bits[from / 64] >> (from % 64);

		if (m != 0) {
			size_t at = from + (size_t)__builtin_ctzll(m);

			return at < to ? at : to;
		}
		from = (from / 64 + 1) * 64;
	}
	return to;
}

/*
 * worth_reading without reading the word: a line whose first word is no
 * head word's start, with a blank on it and no colon up to 96 bytes past
 * that blank.  (The word ends at that blank or before it, so no colon is
 * within 96 bytes past the word either.)  Or the line is plain to
 * head_kind at once.
 */
static bool
plain_word_line(const char *s, size_t len, const struct textline_bits *b, size_t off)
{
	size_t blank, reach;

	if (head_prefix(s, len))
		return false;
	/* Starting in lower case, only a label, component, header or "failed"
	 * phrase could make a line more than plain, and each has a colon. */
	if ((IS_LOWER(s[0]) || s[0] == '_') && first_bit(b->colon, off, off + len) == off + len)
		return true;
	if ((blank = first_bit(b->space, off, off + len) - off) == len)
		return false;
	reach = len < blank + 96 ? len : blank + 96;
	return first_bit(b->colon, off, off + reach) == off + reach;
}

/*
 * "I1130 11:59:58.204 server.go:12] ...": a first word of letters, digits
 * and '_' with a digit in it, then a blank.  No step of head_kind takes
 * such a word (no level, label, component, header, banner or status is
 * one) but "words failed:" at the first colon.
 */
static bool
plain_numbered_word(const char *s, size_t len, const struct textline_bits *b, size_t off)
{
	size_t n = 0, colon;
	bool digit = false;

	while (n < len && IS_IDENT(s[n])) {
		digit |= IS_DIGIT(s[n]);
		n++;
	}
	if (!digit || n == len || s[n] != ' ')
		return false;
	colon = first_bit(b->colon, off, off + (len < 80 ? len : 80)) - off;
	return colon == (len < 80 ? len : 80) || colon < 8 || memcmp(s + colon - 7, " failed", 7) != 0;
}

/* worth_reading for a line that starts with a letter or '_', with the
 * colon search answered by the caller's colon bits. */
static bool
word_worth_reading(const char *s, size_t len, const struct textline_bits *b, size_t off)
{
	size_t n, stop;
	int v;

	if ((v = first_word_verdict(s, len, &n)) >= 0)
		return v == 1;
	stop = off + (len - n < 96 ? len : n + 96);
	return first_bit(b->colon, off + n, stop) < stop;
}

/* A log line that its level makes plain ("2026-11-30T11:59:58Z INFO ...",
 * "[DEBUG] ..."): the first steps of head_kind, which stops there. */
static bool
quiet_log(const char *s, size_t len)
{
	const char *p = s, *end = s + (len < TEXTLINE_HEAD_SPAN ? len : TEXTLINE_HEAD_SPAN), *q;
	enum strength label = NONE;
	bool plain = false;

	if ((IS_DIGIT(*p) || *p == '[') && (q = skip_timestamp(p, end)) != NULL)
		p = q;
	/* The usual levels, as skip_level takes them, without its table. */
	if (end - p > 5 && (memcmp(p, "DEBUG", 5) == 0 || memcmp(p, "TRACE", 5) == 0) &&
	    (p[5] == ' ' || p[5] == ':'))
		return true;
	if (end - p > 4 && memcmp(p, "INFO", 4) == 0 && (p[4] == ' ' || p[4] == ':'))
		return true;
	return p < end && (IS_UPPER(*p) || *p == '[') && skip_level(p, end, &label, &plain) != NULL &&
	    plain;
}

/* What the last byte of a line may not be for textline_quick_plain to
 * settle it: a body opening ('{', '['), a blank, a carriage return. */
static const unsigned char unsure_last[256] = {
	['{'] = 1, ['['] = 1, [' '] = 1, ['\t'] = 1, ['\r'] = 1,
};

/* Does a number start at s[i] and end at a ',' or ']' (a JSON array's),
 * not at a '-' or a ':' (a timestamp's, "[2024-12-25T00:40:02Z] ...")? */
static bool
array_number(const char *s, size_t len, size_t i)
{
	size_t start;

	if (i < len && s[i] == '-')
		i++;
	start = i;
	while (i < len && (IS_DIGIT(s[i]) || s[i] == '.' || s[i] == 'e' || s[i] == 'E' || s[i] == '+'))
		i++;
	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	return i > start && i < len && (s[i] == ',' || s[i] == ']');
}

bool
textline_bracket_json(const char *s, size_t len)
{
	size_t i = 1;

	if (len < 2 || s[1] == '{' || s[1] == '[')
		return true;
	while (len > 1 && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	if (s[len - 1] != ']' || s[1] == '\0')
		return false;
	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (s[i] == '-' || IS_DIGIT(s[i]))
		return array_number(s, len, i);
	/* (strchr finds the terminator for a NUL: "[\0...]" is no JSON.) */
	return strchr(" \t\"]tfn", s[1]) != NULL;
}

static bool
bracket_json(const char *s, size_t len)
{
	return textline_bracket_json(s, len);
}

/* How textline_quick_plain goes on from a line's first byte (after its
 * blanks). */
enum first_class { FIRST_PLAIN, FIRST_UNSURE, FIRST_BLANK, FIRST_WORD, FIRST_DIGIT,
	FIRST_BRACKET, FIRST_HIGH };
static const unsigned char first_class[256] = {
	[' '] = FIRST_BLANK, ['\t'] = FIRST_BLANK,
	['`'] = FIRST_UNSURE, ['~'] = FIRST_UNSURE, ['{'] = FIRST_UNSURE, ['<'] = FIRST_UNSURE,
	['\x1b'] = FIRST_UNSURE,
	['A' ... 'Z'] = FIRST_WORD, ['a' ... 'z'] = FIRST_WORD, ['_'] = FIRST_WORD,
	['0' ... '9'] = FIRST_DIGIT, ['['] = FIRST_BRACKET, [0xc2 ... 0xff] = FIRST_HIGH,
};

/* textline_quick_plain past the blanks (i of them, at most 2). */
static bool
quick_first(const char *s, size_t len, size_t i, const struct textline_bits *b, size_t off)
{
	bool gutter;

	switch (first_class[(unsigned char)s[i]]) {
	case FIRST_PLAIN:
		return true;
	case FIRST_WORD:
		return plain_word_line(s + i, len - i, b, off + i) ||
		    !word_worth_reading(s + i, len - i, b, off + i) ||
		    plain_numbered_word(s + i, len - i, b, off + i);
	case FIRST_DIGIT:
		return !worth_reading(s + i, len - i) || quiet_log(s + i, len - i);
	case FIRST_BRACKET:   /* "[ 42%] Building ...", "[2026-11-30 11:59:58] INFO ..." */
		return !bracket_json(s + i, len - i) &&
		    (!worth_reading(s + i, len - i) || quiet_log(s + i, len - i));
	case FIRST_HIGH:
		return skip_glyph(s + i, s + len, &gutter) == NULL;
	default:
		return false;
	}
}

bool
textline_quick_plain(const char *s, size_t len, const struct textline_bits *b, size_t off)
{
	size_t i = 0;

	if (len == 0 || unsure_last[(unsigned char)s[len - 1]])
		return false;
	while (s[i] == ' ' || s[i] == '\t')   /* the last byte is no blank */
		i++;
	if (i > 2)
		return first_class[(unsigned char)s[i]] != FIRST_UNSURE && s[i] != '[';
	return quick_first(s, len, i, b, off);
}

/*
 * A fence line, read the CommonMark way: a run of three or more '`' or '~'
 * opens a code block (a '`' run with no '`' after it); only a run of the
 * same character, at least as long, with nothing but blanks after it,
 * closes it.  Returns whether the line opened or closed one.
 */
static bool
fence_mark(struct textline_state *st, const char *s, size_t len)
{
	size_t n = 0, i;

	while (n < len && s[n] == s[0])
		n++;
	if (st->in_fence) {
		if (s[0] != st->fence_char || n < st->fence_len)
			return false;
		for (i = n; i < len && (s[i] == ' ' || s[i] == '\t'); i++)
			;
		if (i < len)
			return false;
		st->in_fence = false;
		return true;
	}
	if (s[0] == '`' && memchr(s + n, '`', len - n) != NULL)
		return false;   /* inline code, not a fence */
	st->in_fence = true;
	st->fence_char = s[0];
	st->fence_len = n;
	return true;
}

enum textline_kind
textline_kind(struct textline_state *st, const char *s, size_t len, size_t indent, size_t *body)
{
	*body = 0;
	if (len >= 3 && (s[0] == '`' || s[0] == '~') && s[1] == s[0] && s[2] == s[0] && indent < 4 &&
	    fence_mark(st, s, len))
		return TEXTLINE_PLAIN;
	/* Code blocks, indented quotes and continuation lines never start a failure. */
	if (st->in_fence || indent > 2 || len == 0 || !worth_reading(s, len))
		return TEXTLINE_PLAIN;
	if (textline_may_be_header(s, len))
		return TEXTLINE_HEADER;
	return head_kind(s, len, body);
}

bool
textline_may_be_header(const char *s, size_t len)
{
	switch (len > 0 ? s[0] : '\0') {   /* retry-after, x-ratelimit-*, anthropic-ratelimit-*, "< " */
	case 'r': case 'R': case 'x': case 'X': case 'a': case 'A': case '<':
		return is_rate_header(s, s + (len < 64 ? len : 64));
	default:
		return false;
	}
}

/* Can a line starting with '[' be the rest of a body (not a link
 * definition "[1]: https://...", a checkbox "[x] done")? */
static bool
bracket_detail(const char *s, size_t len)
{
	const char *close = memchr(s, ']', len < 128 ? len : 128);
	size_t i = 1;

	if (close != NULL && close + 1 < s + len && close[1] == ':')
		return false;   /* "[1]: https://..." */
	if (len == 1 || strchr("{[\"]tfn", s[1]) != NULL)
		return true;
	/* "[42, 43]" is a body's; "[2024-12-25T00:40:02Z] INFO ..." a log's. */
	if (s[i] == '-')
		i++;
	while (i < len && IS_DIGIT(s[i]))
		i++;
	return i > 1 && (i == len || s[i] == ',' || s[i] == ']' || s[i] == '.');
}

/* "/upgrade to increase your usage limit.", "/login to switch ...": a
 * slash command the CLI suggests (not a path). */
static bool
slash_hint(const char *s, size_t len)
{
	size_t n = 1;

	while (n < len && (IS_LOWER(s[n]) || s[n] == '-'))
		n++;
	return n > 1 && (n == len || s[n] == ' ');
}

bool
textline_is_ordinary(const char *s, size_t len, size_t indent, enum textline_kind kind)
{
	static const char *const frame[] = {
		"\xe2\x94\x82", "\xe2\x95\xad", "\xe2\x95\xb0", "\xe2\x94\x80",   /* │ ╭ ╰ ─ */
	};

	if (kind != TEXTLINE_PLAIN || indent > 0 || len == 0)
		return false;
	/* The rest of a body (JSON, closing brackets, a response header) is
	 * detail; a table, a quote, a link definition or a list is content. */
	switch (s[0]) {
	case '{': case '}': case ']':
		return false;
	case '[':
		return !bracket_detail(s, len);
	case '<':
		return !textline_may_be_header(s, len) && !AT(s, s + len, "< HTTP");
	case '/':
		return !slash_hint(s, len);
	default:
		break;
	}
	for (size_t i = 0; i < sizeof(frame) / sizeof(frame[0]); i++)
		if (len >= 3 && memcmp(s, frame[i], 3) == 0)
			return false;
	return true;
}

/* Past a spinner frame Claude draws its turn summary with (✻ ✳ ✶ ✽ ✢ ·)
 * and its blank, or NULL. */
static const char *
skip_spinner(const char *p, const char *end)
{
	static const char *const frames[] = {
		"\xe2\x9c\xbb ", "\xe2\x9c\xb3 ", "\xe2\x9c\xb6 ", "\xe2\x9c\xbd ", "\xe2\x9c\xa2 ",
		"\xc2\xb7 ",
	};

	for (size_t i = 0; i < sizeof(frames) / sizeof(frames[0]); i++)
		if (at(p, end, frames[i], strlen(frames[i])))
			return p + strlen(frames[i]);
	return NULL;
}

/* "✻ Baked for 2m 4s", "✳ Cogitated for 0s · done 7:03 PM": Claude's turn
 * summary, a spinner frame, one word and "for" a duration. */
static bool
turn_summary(const char *s, size_t len)
{
	const char *p, *end = s + len;

	if ((p = skip_spinner(s, end)) == NULL || p >= end || !IS_UPPER(*p))
		return false;
	while (p < end && *p != ' ')
		p++;
	return AT(p, end, " for ") && p + 5 < end && IS_DIGIT(p[5]);
}

/* Footers, hints and status lines the agent CLIs print around an answer
 * (docs/design.md section 4, "chrome"), matched at the line's start. */
static const char *const chrome_starts[] = {
	"? for shortcuts", "esc to interrupt", "Esc to cancel", "(Request ID:",
	"Total usage est:", "Total duration", "Total code changes:", "Usage by model:",
	"tokens used",
	"Switch to extra usage", "What do you want to do?", "Press Ctrl-C again to exit",
	"Resume this session with:", "To continue this session, run",
	"\xe2\x8f\xb5\xe2\x8f\xb5",   /* "⏵⏵ accept edits on" */
	"Node.js v", "Opening your options", "What do you want to do?", "Enter to confirm",
	"Enter selection [", "Stop and wait for limit to reset", "Add funds to continue",
	"Please retry if you think this is a transient or recoverable error",
	"Please wait and try again later", "Possible quota limitations",
	"Type your message or @path/to/file", "Press Ctrl+C again to exit", "Agent powering down",
	"\xe2\x80\xbb recap:",   /* "※ recap:" */
	"Starting new login following /upgrade", "Login interrupted",
	"starting session | ", "logging to ", "working directory: ",
};

/* "❯ 1. ", "2. ": a menu's cursor and number, before the item. */
static const char *
skip_menu_marks(const char *p, const char *end)
{
	if (AT(p, end, "\xe2\x9d\xaf "))
		p = skip_blanks(p + 4, end);
	if (end - p >= 3 && IS_DIGIT(p[0]) && p[1] == '.' && p[2] == ' ')
		p = skip_blanks(p + 3, end);
	return p;
}

/* "12,345": the count codex prints under "tokens used". */
static bool
count_line(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!IS_DIGIT(s[i]) && s[i] != ',')
			return false;
	return len > 0 && IS_DIGIT(s[0]);
}

bool
textline_is_chrome(const char *s, size_t len, bool screen)
{
	const char *end = s + len;

	if (len == 0)
		return false;
	if (s[0] == '/' && slash_hint(s, len))
		return true;
	if (((unsigned char)s[0] >= 0xc2 && turn_summary(s, len)) || count_line(s, len))
		return true;
	if ((s = skip_menu_marks(s, end)) == end)
		return false;
	/* By the first byte first: most lines start with none of theirs. */
	for (size_t i = 0; i < sizeof(chrome_starts) / sizeof(chrome_starts[0]); i++)
		if (chrome_starts[i][0] == s[0] && at(s, end, chrome_starts[i], strlen(chrome_starts[i])))
			return true;
	if (AT(s, end, "Upgrade your plan"))
		return true;
	/* On a screen: the prompt and its box, a rule. */
	if (screen && (s[0] == '>' || AT(s, end, "\xe2\x9d\xaf") || AT(s, end, "\xe2\x80\xba") ||
	    AT(s, end, "\xe2\x95\xad") || AT(s, end, "\xe2\x95\xb0") || AT(s, end, "\xe2\x94\x80") ||
	    AT(s, end, "\xe2\x94\x82 >") || AT(s, end, "\xe2\x94\x82 \xe2\x9d\xaf")))
		return true;
	return false;
}

/* Past the escape sequence at s[i] (an ESC). */
static size_t
escape_end(const char *s, size_t len, size_t i)
{
	if (++i >= len)
		return i;
	if (s[i] == '[') {   /* CSI: parameters, then a final byte 0x40 to 0x7e */
		for (i++; i < len && ((unsigned char)s[i] < 0x40 || (unsigned char)s[i] > 0x7e); i++)
			;
		return i < len ? i + 1 : i;
	}
	if (s[i] == ']' || s[i] == 'P' || s[i] == '_' || s[i] == '^') {   /* OSC and strings */
		for (i++; i < len; i++) {
			if (s[i] == '\a')
				return i + 1;
			if (s[i] == '\x1b' && i + 1 < len && s[i + 1] == '\\')
				return i + 2;
		}
		return i;
	}
	if (s[i] == '(' || s[i] == ')')   /* a charset designation */
		return i + 2 < len ? i + 2 : len;
	return i + 1;
}

size_t
textline_strip_escapes(char *dst, const char *s, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len;) {
		if (s[i] == '\x1b') {
			i = escape_end(s, len, i);
			continue;
		}
		dst[n++] = s[i++];
	}
	return n;
}

size_t
textline_unquoted(char *dst, size_t size, const char *s, size_t len)
{
	size_t n = 0, i = 0;
	int depth = 0;

	while (i < len && n + 1 < size) {
		char c = s[i];

		if (c == '{')
			depth++;
		else if (c == '}' && depth > 0)
			depth--;
		if (depth == 0 && (c == '`' || c == '"' ||
		    (c == '\'' && (i == 0 || !IS_ALPHA(s[i - 1]))))) {
			const char *close = memchr(s + i + 1, c, len - i - 1);

			if (close != NULL) {
				i = (size_t)(close - s) + 1;
				continue;
			}
		}
		if (depth == 0 && c != ' ' && (i == 0 || s[i - 1] == ' ')) {
			size_t w = i;

			while (w < len && s[w] != ' ' && s[w] != '/')
				w++;
			if (w < len && s[w] == '/') {   /* a path or a URL */
				while (w < len && s[w] != ' ')
					w++;
				i = w;
				continue;
			}
		}
		dst[n++] = c;
		i++;
	}
	dst[n] = '\0';
	return n;
}
