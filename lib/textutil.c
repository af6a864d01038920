#include <string.h>

#include "textutil.h"

char
ascii_lower(char c)
{
	return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

size_t
prefix_nocase(const char *s, size_t len, const char *word)
{
	size_t n = strlen(word);

	if (n > len)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (ascii_lower(s[i]) != ascii_lower(word[i]))
			return 0;
	return n;
}

size_t
lower_copy(char *dst, size_t size, const char *src, size_t len)
{
	size_t n = len < size - 1 ? len : size - 1;

	for (size_t i = 0; i < n; i++)
		dst[i] = ascii_lower(src[i]);
	dst[n] = '\0';
	return n;
}

const char *
find_bytes(const char *hay, size_t len, const char *needle)
{
	return memmem(hay, len, needle, strlen(needle));
}

const char *
find_nocase(const char *hay, size_t len, const char *needle)
{
	size_t n = strlen(needle);

	if (n == 0)
		return hay;
	for (size_t i = 0; i + n <= len; i++) {
		size_t j = 0;

		while (j < n && ascii_lower(hay[i + j]) == ascii_lower(needle[j]))
			j++;
		if (j == n)
			return hay + i;
	}
	return NULL;
}

void
append_text(char *dst, size_t size, const char *src, size_t len)
{
	size_t used = strlen(dst);

	if (len == 0 || used + 2 >= size)
		return;
	if (used > 0)
		dst[used++] = ' ';
	if (len > size - 1 - used)
		len = size - 1 - used;
	memcpy(dst + used, src, len);
	dst[used + len] = '\0';
}

/* Length of the UTF-8 sequence led by c, 1 for stray or invalid bytes. */
static size_t
utf8_len(unsigned char c)
{
	if (c >= 0xf0 && c <= 0xf4)
		return 4;
	if (c >= 0xe0)
		return c <= 0xef ? 3 : 1;
	if (c >= 0xc2)
		return 2;
	return 1;
}

size_t
clean_copy(char *dst, size_t size, const char *src, size_t len)
{
	size_t out = 0, i = 0;

	while (i < len) {
		unsigned char c = (unsigned char)src[i];
		size_t n = utf8_len(c);

		if (c < 0x20 || c == 0x7f) {
			/* Line breaks become spaces so words stay apart. */
			if ((c == '\n' || c == '\t' || c == '\r') && out > 0 && dst[out - 1] != ' ' &&
			    out + 1 < size)
				dst[out++] = ' ';
			i++;
			continue;
		}
		if (i + n > len)
			break;
		if (out + n > size - 1)
			break;
		memcpy(dst + out, src + i, n);
		out += n;
		i += n;
	}
	while (out > 0 && dst[out - 1] == ' ')
		out--;
	dst[out] = '\0';
	return out;
}
