/*
 * libFuzzer harness for the time and reset parsers: every entry point of
 * timeparse.h and reset_time.h on arbitrary bytes; the properties are in
 * invariants.h.
 */
#include <stdio.h>
#include <stdlib.h>

#include "invariants.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *why = check_timeparse_input(data, size);

	if (why != NULL) {
		fprintf(stderr, "fuzz_timeparse: %s\n", why);
		abort();
	}
	return 0;
}
