/*
 * A small ECMA-48 state machine: enough of it to read the text a terminal
 * application draws, not to emulate the screen.
 */
#include <stdbool.h>

#include "ansi.h"

enum {
	ST_TEXT,
	ST_ESC,        /* after ESC */
	ST_ESC_INTER,  /* ESC followed by intermediates (charset designation, ...) */
	ST_CSI,        /* ESC [ ... final */
	ST_STRING,     /* OSC, DCS, SOS, PM, APC: until BEL or ESC \ */
	ST_STRING_ESC  /* ESC inside a string */
};

void
ansi_strip_init(struct ansi_strip *st)
{
	st->state = ST_TEXT;
	st->prev = '\n';
}

static size_t
put(struct ansi_strip *st, char *out, size_t n, int c)
{
	if (c == '\n' && st->prev == '\n')
		return n;
	if (c == ' ' && (st->prev == ' ' || st->prev == '\n'))
		return n;
	out[n++] = (char)c;
	st->prev = c;
	return n;
}

/* What a CSI sequence ending in final byte f looks like as text. */
static int
csi_as_text(unsigned char f)
{
	switch (f) {
	case 'A': case 'B': case 'E': case 'F': case 'H': case 'f': case 'd':
		return '\n';   /* cursor to another row */
	case 'C': case 'G': case '`': case 'X':
		return ' ';    /* cursor right, to a column, erase characters */
	case 'J':
		return '\n';   /* erase display */
	default:
		return 0;
	}
}

static size_t
text_byte(struct ansi_strip *st, unsigned char c, char *out, size_t n)
{
	if (c == 0x1b) {
		st->state = ST_ESC;
		return n;
	}
	if (c == '\n' || c == '\r' || c == '\v' || c == '\f')
		return put(st, out, n, '\n');
	if (c == '\t')
		return put(st, out, n, ' ');
	if (c < 0x20 || c == 0x7f)
		return n;
	return put(st, out, n, c);
}

static void
esc_byte(struct ansi_strip *st, unsigned char c)
{
	if (c == '[')
		st->state = ST_CSI;
	else if (c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_')
		st->state = ST_STRING;
	else if (c >= 0x20 && c <= 0x2f)
		st->state = ST_ESC_INTER;
	else
		st->state = ST_TEXT;   /* a two-byte sequence (ESC 7, ESC M, ...) */
}

size_t
ansi_strip(struct ansi_strip *st, const char *in, size_t len, char *out)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)in[i];

		switch (st->state) {
		case ST_TEXT:
			n = text_byte(st, c, out, n);
			break;
		case ST_ESC:
			esc_byte(st, c);
			break;
		case ST_ESC_INTER:
			if (c < 0x20 || c > 0x2f)
				st->state = ST_TEXT;
			break;
		case ST_CSI:
			if (c >= 0x40 && c <= 0x7e) {
				int t = csi_as_text(c);

				st->state = ST_TEXT;
				if (t != 0)
					n = put(st, out, n, t);
			} else if (c == 0x1b) {
				st->state = ST_ESC;
			}
			break;
		case ST_STRING:
			if (c == 0x07)
				st->state = ST_TEXT;
			else if (c == 0x1b)
				st->state = ST_STRING_ESC;
			break;
		case ST_STRING_ESC:
			st->state = c == '\\' ? ST_TEXT : ST_STRING;
			break;
		}
	}
	return n;
}
