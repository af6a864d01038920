/*
 * libFuzzer harness for the streaming classifier: arbitrary bytes fed whole
 * and in chunks derived from the input; the properties are in invariants.h.
 */
#include <stdio.h>
#include <stdlib.h>

#include "invariants.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *why = check_classify_input(data, size);

	if (why != NULL) {
		fprintf(stderr, "fuzz_classify: %s\n", why);
		abort();
	}
	return 0;
}
