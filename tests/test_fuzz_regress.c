/*
 * Replays every saved fuzz finding (fixtures/fuzz/<harness>/<name>, for the
 * classify, timeparse and config harnesses) through the checks the harness
 * ran when it found it (fuzz/invariants.h).  A harness directory that is
 * missing or empty fails.  Built with the normal compiler; memory errors
 * show up in the sanitizer build.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../fuzz/invariants.h"

typedef const char *(*fuzz_check)(const uint8_t *data, size_t size);

static uint8_t *
slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t cap = 0, n;

	*size = 0;
	if (f == NULL)
		return NULL;
	do {
		uint8_t *p = realloc(buf, cap + 65536);

		if (p == NULL) {
			free(buf);
			fclose(f);
			return NULL;
		}
		buf = p;
		cap += 65536;
		n = fread(buf + *size, 1, cap - *size, f);
		*size += n;
	} while (n > 0 && *size == cap);
	fclose(f);
	return buf;
}

static int
not_hidden(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

/* Every file of fixtures/fuzz/<harness> must pass check; all are tried. */
static void
replay_dir(const char *harness, fuzz_check check)
{
	const char *fixtures = getenv("FIXTURES");
	struct dirent **names;
	char dir[4096], path[4096 + 256];
	int count, failed = 0;

	snprintf(dir, sizeof(dir), "%s/fuzz/%s", fixtures != NULL ? fixtures : "fixtures", harness);
	/* A missing or empty directory is a broken checkout or a wrong
	 * FIXTURES, never "nothing to replay": the findings are part of the
	 * source tree. */
	count = scandir(dir, &names, not_hidden, alphasort);
	if (count < 0)
		fail_msg("%s: cannot read the saved findings", dir);
	if (count == 0) {
		free(names);
		fail_msg("%s: no saved findings", dir);
	}
	for (int i = 0; i < count; i++) {
		size_t size;
		uint8_t *data;
		const char *why;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		data = slurp(path, &size);
		why = data != NULL ? check(data, size) : "cannot read";
		free(data);
		free(names[i]);
		if (why != NULL) {
			print_error("%s: %s\n", path, why);
			failed++;
		}
	}
	free(names);
	if (failed > 0)
		fail_msg("%d of %d %s findings fail again", failed, count, harness);
}

static void
test_classify_findings(void **state)
{
	replay_dir("classify", check_classify_input);
}

static void
test_timeparse_findings(void **state)
{
	replay_dir("timeparse", check_timeparse_input);
}

static void
test_config_findings(void **state)
{
	replay_dir("config", check_config_input);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classify_findings),
		cmocka_unit_test(test_timeparse_findings),
		cmocka_unit_test(test_config_findings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
