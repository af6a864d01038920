/*
 * Replays every saved fuzz finding (fixtures/fuzz/<harness>/<name>) through
 * the checks the harness ran when it found it (fuzz/invariants.h).  Built
 * with the normal compiler; memory errors show up in the sanitizer build.
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
	count = scandir(dir, &names, not_hidden, alphasort);
	if (count < 0) {
		print_message("# no %s: nothing to replay\n", dir);
		return;
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classify_findings),
		cmocka_unit_test(test_timeparse_findings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
