/*
 * A small ECMA-48 state machine: enough of it to read the text a terminal
 * application draws and the few modes it leaves behind, not to emulate the
 * screen.
 */
#include <string.h>

#include "ansi.h"

enum {
	ST_TEXT,
	ST_ESC,        /* after ESC */
	ST_ESC_INTER,  /* ESC followed by intermediates (charset designation, ...) */
	ST_CSI,        /* ESC [ ... final */
	ST_STRING,     /* OSC, DCS, SOS, PM, APC: until BEL or ESC \ */
	ST_STRING_ESC  /* ESC inside a string */
};

/* What one byte completed. */
enum event { EV_NONE, EV_TEXT, EV_CSI, EV_RESET };

static void
csi_begin(struct ansi_csi *csi)
{
	memset(csi, 0, sizeof(*csi));
	csi->first = csi->second = -1;
}

/* Ends the parameter being read (at ';' or the final byte). */
static void
csi_param_end(struct ansi_csi *csi)
{
	int p = csi->param;

	if (csi->count == 0)
		csi->first = p;
	else if (csi->count == 1)
		csi->second = p;
	csi->count++;
	if (csi->private_mode && (p == 47 || p == 1047 || p == 1049))
		csi->alt_screen = true;
	if (csi->private_mode && p == 25)
		csi->cursor = true;
	csi->param = 0;
}

static void
csi_param_byte(struct ansi_csi *csi, unsigned char c)
{
	if (c >= '0' && c <= '9') {
		if (csi->param < 100000)
			csi->param = csi->param * 10 + (c - '0');
	} else if (c == ';') {
		csi_param_end(csi);
	} else if (c == '?') {
		csi->private_mode = true;
	}
}

static void
esc_byte(int *state, struct ansi_csi *csi, unsigned char c)
{
	if (c == '[') {
		*state = ST_CSI;
		csi_begin(csi);
	} else if (c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_') {
		*state = ST_STRING;
	} else if (c >= 0x20 && c <= 0x2f) {
		*state = ST_ESC_INTER;
	} else {
		*state = ST_TEXT;   /* a two-byte sequence (ESC 7, ESC M, ...) */
	}
}

/* Advances the parser by one byte; says what the byte completed. */
static enum event
step(int *state, struct ansi_csi *csi, unsigned char c)
{
	switch (*state) {
	case ST_TEXT:
		if (c != 0x1b)
			return EV_TEXT;
		*state = ST_ESC;
		return EV_NONE;
	case ST_ESC:
		esc_byte(state, csi, c);
		return c == 'c' ? EV_RESET : EV_NONE;
	case ST_ESC_INTER:
		if (c < 0x20 || c > 0x2f)
			*state = ST_TEXT;
		return EV_NONE;
	case ST_CSI:
		if (c >= 0x40 && c <= 0x7e) {
			csi_param_end(csi);
			*state = ST_TEXT;
			return EV_CSI;
		}
		if (c == 0x1b)
			*state = ST_ESC;
		else
			csi_param_byte(csi, c);
		return EV_NONE;
	case ST_STRING:
		if (c == 0x07)
			*state = ST_TEXT;
		else if (c == 0x1b)
			*state = ST_STRING_ESC;
		return EV_NONE;
	default:   /* ST_STRING_ESC */
		*state = c == '\\' ? ST_TEXT : ST_STRING;
		return EV_NONE;
	}
}

/* ---- screen text ---- */

void
ansi_strip_init(struct ansi_strip *st)
{
	st->state = ST_TEXT;
	st->prev = '\n';
	csi_begin(&st->csi);
	st->line_feeds = 0;
	st->indent = 0;
}

/*
 * Rows of a screen become lines.  Two things a program wrote survive,
 * because the classifier reads them (fixtures/README.md, "Plain text and
 * screens"): the indentation at the start of a line (up to 8 columns) and
 * one empty line where the program wrote consecutive line feeds.
 */
static size_t
put(struct ansi_strip *st, char *out, size_t n, int c)
{
	if (c == '\n' && st->prev == '\n')
		return n;
	if (c == ' ' && (st->prev == '\n' || (st->prev == ' ' && st->indent > 0))) {
		if (st->indent >= 8)
			return n;
		st->indent++;
	} else if (c == ' ' && st->prev == ' ')
		return n;
	else
		st->indent = 0;
	if (c != '\n' && c != ' ')
		st->line_feeds = 0;
	out[n++] = (char)c;
	st->prev = c;
	return n;
}

/* A line feed: a second one with nothing between them, or one that ends a
 * row of blanks, leaves an empty line. */
static size_t
put_line_feed(struct ansi_strip *st, char *out, size_t n)
{
	bool blank_row = st->prev == ' ' && st->indent > 0;

	if (blank_row || (++st->line_feeds == 2 && st->prev == '\n')) {
		out[n++] = '\n';
		st->prev = '\n';
		st->indent = 0;
		return n;
	}
	return put(st, out, n, '\n');
}

/* What a CSI sequence ending in final byte f looks like as text. */
static int
csi_as_text(const struct ansi_csi *csi, unsigned char f)
{
	switch (f) {
	case 'A': case 'B': case 'E': case 'F': case 'H': case 'f': case 'd':
		return '\n';   /* cursor to another row */
	case 'G': case '`':   /* to a column: the first is a carriage return (Ink's redraw) */
		return csi->first <= 1 ? '\n' : ' ';
	case 'C': case 'X':
		return ' ';    /* cursor right, erase characters */
	case 'J':
		return '\n';   /* erase display */
	case 'h': case 'l':
		return csi->alt_screen ? '\n' : 0;   /* to or from the other screen */
	default:
		return 0;
	}
}

static size_t
text_byte(struct ansi_strip *st, unsigned char c, char *out, size_t n)
{
	if (c == '\n')
		return put_line_feed(st, out, n);
	if (c == '\r' || c == '\v' || c == '\f')
		return put(st, out, n, '\n');
	if (c == '\t')
		return put(st, out, n, ' ');
	if (c < 0x20 || c == 0x7f)
		return n;
	return put(st, out, n, c);
}

size_t
ansi_strip(struct ansi_strip *st, const char *in, size_t len, char *out)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)in[i];
		int t;

		switch (step(&st->state, &st->csi, c)) {
		case EV_TEXT:
			n = text_byte(st, c, out, n);
			break;
		case EV_CSI:
			if ((t = csi_as_text(&st->csi, c)) != 0)
				n = put(st, out, n, t);
			/* Moving the cursor over what is shown (not colours): a
			 * program that draws its screen. */
			if (t != 0 || c == 'K' || c == 'D')
				st->drawn = true;
			break;
		case EV_RESET:
			n = put(st, out, n, '\n');
			break;
		case EV_NONE:
			break;
		}
	}
	return n;
}

/* ---- screen state ---- */

void
ansi_screen_init(struct ansi_screen *s)
{
	memset(s, 0, sizeof(*s));
	s->state = ST_TEXT;
	csi_begin(&s->csi);
}

static void
screen_mode(struct ansi_screen *s, bool set)
{
	const struct ansi_csi *csi = &s->csi;

	if (csi->alt_screen && set != s->alt_screen) {
		if (set)
			s->main_mid_line = s->mid_line;
		else
			s->mid_line = s->main_mid_line;
		s->alt_screen = set;
	}
	if (csi->cursor)
		s->cursor_hidden = !set;
}

static void
screen_csi(struct ansi_screen *s, unsigned char f)
{
	const struct ansi_csi *csi = &s->csi;

	/* Moving the cursor over what is shown or erasing it (not colours): a
	 * program that draws its screen rather than printing lines. */
	if (strchr("ABCDEFGHJKfd", f) != NULL || (f == 'h' && csi->alt_screen))
		s->drawn = true;
	switch (f) {
	case 'h': case 'l':
		if (csi->private_mode)
			screen_mode(s, f == 'h');
		break;
	case 'H': case 'f':
		s->mid_line = csi->second > 1;
		break;
	case 'G': case '`':
		s->mid_line = csi->first > 1;
		break;
	case 'E': case 'F':
		s->mid_line = false;
		break;
	default:
		break;
	}
}

void
ansi_screen_feed(struct ansi_screen *s, const char *in, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)in[i];

		switch (step(&s->state, &s->csi, c)) {
		case EV_TEXT:
			if (c == '\n' || c == '\r')
				s->mid_line = false;
			else if (c >= 0x20 && c != 0x7f)
				s->mid_line = true;
			break;
		case EV_CSI:
			screen_csi(s, c);
			break;
		case EV_RESET:
			ansi_screen_init(s);
			s->drawn = true;
			break;
		case EV_NONE:
			break;
		}
	}
}

static size_t
append(char *out, size_t n, const char *s)
{
	size_t len = strlen(s);

	memcpy(out + n, s, len);
	return n + len;
}

bool
ansi_screen_mid_line(const struct ansi_screen *s)
{
	return s->alt_screen ? s->main_mid_line : s->mid_line;
}

size_t
ansi_screen_restore(const struct ansi_screen *s, bool newline, char *out)
{
	size_t n = 0;
	bool mid_line = ansi_screen_mid_line(s);

	if (s->alt_screen)
		n = append(out, n, "\x1b[?1049l");
	if (s->cursor_hidden)
		n = append(out, n, "\x1b[?25h");
	if (newline && mid_line)
		n = append(out, n, "\r\n");
	return n;
}

size_t
ansi_screen_reenter(const struct ansi_screen *s, char *out)
{
	size_t n = 0;

	if (s->alt_screen)
		n = append(out, n, "\x1b[?1049h");
	if (s->cursor_hidden)
		n = append(out, n, "\x1b[?25l");
	return n;
}
