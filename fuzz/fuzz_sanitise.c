/*
 * fuzz_sanitise: arbitrary bytes through clean_copy(), the one sanitiser of
 * values from a stream (lib/textutil.h).  Input: the first byte picks the
 * output's capacity (1 to 256 bytes), the rest is the value.  Checks: what
 * comes out fits, is well-formed UTF-8 that jansson takes, holds nothing
 * visible_hidden() names and no line break, ends without a space, is shown
 * by visible_text() as itself (nothing a terminal acts on), and comes out
 * of the sanitiser again unchanged.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "textutil.h"
#include "visible.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
violated(const char *why, const char *out)
{
	fprintf(stderr, "fuzz_sanitise: %s: \"%s\"\n", why, out);
	abort();
}

static void
check_clean(const char *out, size_t n, size_t cap)
{
	char again[257], shown[257 * 8];
	json_t *j;

	if (n >= cap || strlen(out) != n)
		violated("longer than its room, or a NUL inside", out);
	for (size_t i = 0, k; i < n; i += k) {
		k = (unsigned char)out[i] < 0x80 ? 1 : utf8_sequence(out + i, n - i);   /* it gives 0 for ASCII */
		if (k == 0)
			violated("not well-formed UTF-8", out);
		if (visible_hidden(out + i, k))
			violated("a control, bidi, zero-width or line-separator character kept", out);
	}
	if (n > 0 && out[n - 1] == ' ')
		violated("a trailing space", out);
	if (strcmp(visible_text(out, shown, sizeof(shown)), out) != 0)
		violated("visible_text() would escape something", out);
	if (clean_copy(again, cap, out, n) != n || memcmp(again, out, n) != 0)
		violated("not a fixed point", out);
	if ((j = json_string(out)) == NULL)
		violated("jansson refuses it", out);
	json_decref(j);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char out[257];
	size_t cap, n;

	if (size == 0)
		return 0;
	cap = (size_t)data[0] + 1;
	n = clean_copy(out, cap, (const char *)data + 1, size - 1);
	check_clean(out, n, cap);
	return 0;
}
