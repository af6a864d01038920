/*
 * fuzz_config: rlwrap.conf(5) files of arbitrary bytes through
 * config_load_file().  Checks (fuzz/invariants.h, check_config_input): no
 * crash or leak; a loaded config has every value in range; an error names
 * the file and a line inside the input.
 */
#include <stdio.h>
#include <stdlib.h>

#include "invariants.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *why = check_config_input(data, size);

	if (why != NULL) {
		fprintf(stderr, "fuzz_config: %s\n", why);
		abort();
	}
	return 0;
}
