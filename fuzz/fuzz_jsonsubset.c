/*
 * libFuzzer harness for json_subset_load(): a line it reads is one jansson
 * reads, as the same value (invariants.h).
 */
#include <stdio.h>
#include <stdlib.h>

#include "invariants.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *why = check_jsonsubset_input(data, size);

	if (why != NULL) {
		fprintf(stderr, "fuzz_jsonsubset: %s\n", why);
		abort();
	}
	return 0;
}
