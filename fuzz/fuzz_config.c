/*
 * fuzz_config: rlwrap.conf(5) files of arbitrary bytes through
 * config_load_file().  Checks: no crash or leak; a loaded config has every
 * value in range; an error names the file and a line inside the input.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"

static char path[] = "/tmp/rlwrap-fuzz-config.XXXXXX";
static int fd = -1;

static void
check_loaded(const struct config *cfg)
{
	if (!(cfg->min_confidence >= 0 && cfg->min_confidence <= 1) ||
	    !isfinite(cfg->cooldown_rate_limit) || cfg->cooldown_rate_limit <= 0 ||
	    !isfinite(cfg->max_cooldown) || cfg->max_cooldown <= 0 ||
	    cfg->keep_runs < 0 || cfg->keep_days < 0 || cfg->wrapper_retry < 0 || cfg->wrapper_retry > 100)
		abort();
	for (size_t i = 0; i < cfg->command_map_len; i++)
		if (cfg->command_map[i].command[0] == '\0' || cfg->command_map[i].family[0] == '\0')
			abort();
}

/* "PATH:LINE: ..." with LINE within the input's lines. */
static void
check_error(const char *err, const uint8_t *data, size_t size)
{
	size_t n = strlen(path), lines = 1;
	long line;

	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	if (strncmp(err, path, n) != 0 || err[n] != ':')
		abort();
	line = strtol(err + n + 1, NULL, 10);
	if (line < 0 || (size_t)line > lines)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config cfg;
	char err[1024];

	if (fd < 0 && (fd = mkstemp(path)) < 0)
		abort();
	if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	if (config_load_file(&cfg, path, err, sizeof(err)))
		check_loaded(&cfg);
	else
		check_error(err, data, size);
	config_free(&cfg);
	return 0;
}
