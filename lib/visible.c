/* visible.c: escapes for what a terminal would act on rather than show. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "visible.h"

/* Length of the well-formed UTF-8 character at s (len bytes left), its code
 * point in *cp; 0 when s does not start one. */
static size_t
utf8_char(const unsigned char *s, size_t len, uint32_t *cp)
{
	size_t n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc0 ? 2 : 0;
	static const uint32_t min[5] = { 0, 0, 0x80, 0x800, 0x10000 };

	if (n == 0 || s[0] > 0xf4 || n > len)
		return 0;
	*cp = s[0] & (0x7f >> n);
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		*cp = *cp << 6 | (s[i] & 0x3f);
	}
	if (*cp < min[n] || *cp > 0x10ffff || (*cp >= 0xd800 && *cp <= 0xdfff))
		return 0;
	return n;
}

/* Code points that reorder, hide or break the text around them. */
static bool
hidden_code_point(uint32_t cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || (cp >= 0x200b && cp <= 0x200f) ||
	    (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2060 && cp <= 0x2069) ||
	    cp == 0x061c || cp == 0xfeff;
}

/* The escape of one C0 control or DEL. */
static void
control_escape(unsigned char c, char *esc, size_t size)
{
	static const char names[] = { ['\n'] = 'n', ['\t'] = 't', ['\r'] = 'r', [0x1b] = 'e' };

	if (c < sizeof(names) && names[c] != '\0')
		snprintf(esc, size, "\\%c", names[c]);
	else
		snprintf(esc, size, "\\x%02X", c);
}

/* What stands for the character at s[0..len): a pointer to the bytes to
 * print (s itself or esc) and their length in *plen; *n = bytes consumed. */
static const char *
piece_at(const unsigned char *s, size_t len, char *esc, size_t esc_size, size_t *plen, size_t *n)
{
	uint32_t cp;

	*n = 1;
	if (s[0] >= 0x20 && s[0] < 0x7f) {
		*plen = 1;
		return (const char *)s;
	}
	if (s[0] < 0x80)
		control_escape(s[0], esc, esc_size);
	else if ((*n = utf8_char(s, len, &cp)) == 0) {
		*n = 1;
		snprintf(esc, esc_size, "\\x%02X", s[0]);
	} else if (hidden_code_point(cp))
		snprintf(esc, esc_size, "<U+%04X>", (unsigned)cp);
	else {
		*plen = *n;
		return (const char *)s;
	}
	*plen = strlen(esc);
	return esc;
}

char *
visible_bytes(const char *src, size_t len, char *out, size_t size)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t used = 0, n, plen;
	char esc[16];

	for (size_t i = 0; i < len; i += n) {
		const char *piece = piece_at(s + i, len - i, esc, sizeof(esc), &plen, &n);

		if (used + plen + 1 > size)
			break;
		memcpy(out + used, piece, plen);
		used += plen;
	}
	if (size > 0)
		out[used] = '\0';
	return out;
}

bool
visible_hidden(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	uint32_t cp;

	if (n == 1)
		return u[0] < 0x20 || u[0] == 0x7f;
	return utf8_char(u, n, &cp) == n && hidden_code_point(cp);
}

size_t
utf8_sequence(const char *s, size_t len)
{
	uint32_t cp;

	return len > 0 ? utf8_char((const unsigned char *)s, len, &cp) : 0;
}

char *
visible_text(const char *src, char *out, size_t size)
{
	return visible_bytes(src, strlen(src), out, size);
}
