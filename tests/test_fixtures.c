/*
 * The golden fixtures (fixtures/streams/FAMILY/CASE.jsonl), in process:
 * each case is read as `rlwrap classify-failure --json --now NOW [ARGS]`
 * reads it (lib/capture.c), and every key of CASE.expected.json must equal
 * the verdict's.  CASE.args holds the case's options, one per line:
 * `--family F`, `--exit-code N`, `TZ=ZONE`.  One test per case.
 *
 * Ownership: the list of cases is built once and freed at the end; each
 * test owns what it reads.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <jansson.h>

#include "capture.h"
#include "classify.h"
#include "failsignal.h"
#include "timeparse.h"

/* The clock every golden verdict was written against (tests/helpers.bash). */
#define FIXTURE_NOW "2026-11-30T12:00:00Z"
#define SCREEN_ROWS 24
#define SCREEN_COLS 80

struct fixture_args {
	char family[32];
	char tz[64];
	int exit_code;
};

static char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0, got;

	*len = 0;

	if (f == NULL)
		return NULL;
	do {
		if (n == cap && (buf = realloc(buf, cap = cap * 2 + 65536)) == NULL)
			break;
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got > 0);
	fclose(f);
	*len = n;
	return buf;
}

/* CASE.args, when there is one. */
static void
read_args(const char *base, struct fixture_args *a)
{
	char path[4096], line[256];
	FILE *f;

	a->family[0] = '\0';
	strcpy(a->tz, "UTC");
	a->exit_code = -1;
	snprintf(path, sizeof(path), "%s.args", base);
	if ((f = fopen(path, "r")) == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		char *word = strtok(line, " \t\n"), *value;

		while (word != NULL) {
			value = strtok(NULL, " \t\n");
			if (strncmp(word, "TZ=", 3) == 0) {
				snprintf(a->tz, sizeof(a->tz), "%s", word + 3);
				word = value;
				continue;
			}
			assert_non_null(value);
			if (strcmp(word, "--family") == 0)
				snprintf(a->family, sizeof(a->family), "%s", value);
			else if (strcmp(word, "--exit-code") == 0) {
				const char *bad = NULL;

				a->exit_code = (int)strtonum(value, 0, 255, &bad);
				if (bad != NULL)
					fail_msg("%s: --exit-code %s: %s", path, value, bad);
			}
			else
				fail_msg("%s: unknown option %s", path, word);
			word = strtok(NULL, " \t\n");
		}
	}
	fclose(f);
}

/* The verdict as `classify-failure --json` prints it, read back. */
static json_t *
verdict_of(const char *base, const struct fixture_args *a, time_t now)
{
	char path[4096], *bytes, *text;
	size_t len = 0;
	struct capture *k;
	struct fail_signal sig;
	json_t *o, *back;

	snprintf(path, sizeof(path), "%s.jsonl", base);
	assert_non_null(bytes = slurp(path, &len));
	k = capture_new(a->family[0] ? a->family : NULL, now,
	    capture_is_terminal(bytes, len < CAPTURE_HEAD_MAX ? len : CAPTURE_HEAD_MAX),
	    SCREEN_ROWS, SCREEN_COLS);
	assert_non_null(k);
	capture_feed(k, bytes, len);
	assert_true(capture_finish(k, a->exit_code, &sig));
	o = signal_to_json(&sig, now);
	text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | SIGNAL_JSON_REALS);
	back = json_loads(text, 0, NULL);
	assert_non_null(back);
	free(text);
	json_decref(o);
	capture_free(k);
	free(bytes);
	return back;
}

/* Equal as jq compares them: numbers by value, 1 and 1.0 alike. */
static bool
json_same(json_t *a, json_t *b)
{
	size_t i;
	const char *key;
	json_t *v;

	if (json_is_number(a) && json_is_number(b))
		return json_number_value(a) == json_number_value(b);
	if (json_is_array(a) && json_is_array(b)) {
		if (json_array_size(a) != json_array_size(b))
			return false;
		json_array_foreach(a, i, v)
			if (!json_same(v, json_array_get(b, i)))
				return false;
		return true;
	}
	if (json_is_object(a) && json_is_object(b)) {
		if (json_object_size(a) != json_object_size(b))
			return false;
		json_object_foreach(a, key, v)
			if (json_object_get(b, key) == NULL || !json_same(v, json_object_get(b, key)))
				return false;
		return true;
	}
	return json_equal(a, b);
}

static void
check_fixture(void **state)
{
	const char *base = *state;
	char path[4096];
	struct fixture_args a;
	double now;
	json_t *expected, *actual, *value;
	const char *key;
	int bad = 0;

	read_args(base, &a);
	setenv("TZ", a.tz, 1);
	tzset();
	assert_true(time_parse(FIXTURE_NOW, &now));
	snprintf(path, sizeof(path), "%s.expected.json", base);
	expected = json_load_file(path, 0, NULL);
	if (expected == NULL)
		fail_msg("no golden file %s", path);
	actual = verdict_of(base, &a, (time_t)now);
	json_object_foreach(expected, key, value) {
		json_t *got = json_object_get(actual, key);

		if (got == NULL)   /* as jq reads a missing key */
			got = json_null();
		if (!json_same(got, value)) {
			char *want = json_dumps(value, JSON_ENCODE_ANY | SIGNAL_JSON_REALS);
			char *have = json_dumps(got, JSON_ENCODE_ANY | SIGNAL_JSON_REALS);

			print_error("%s: expected %s, got %s\n", key, want, have);
			free(want);
			free(have);
			bad++;
		}
	}
	json_decref(expected);
	json_decref(actual);
	if (bad)
		fail_msg("%s: %d key(s) differ", base, bad);
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* FAMILY/CASE paths (without .jsonl) under dir, sorted. */
static size_t
list_cases(const char *dir, char ***out)
{
	char **cases = NULL, path[4096];
	size_t n = 0;
	DIR *top = opendir(dir), *fam;
	struct dirent *d, *e;

	if (top == NULL)
		return 0;
	while ((d = readdir(top)) != NULL) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		if ((fam = opendir(path)) == NULL)
			continue;
		while ((e = readdir(fam)) != NULL) {
			size_t len = strlen(e->d_name);

			if (len < 7 || strcmp(e->d_name + len - 6, ".jsonl") != 0)
				continue;
			cases = realloc(cases, (n + 1) * sizeof(*cases));
			if (cases == NULL || asprintf(&cases[n], "%s/%.*s", path, (int)(len - 6), e->d_name) < 0)
				abort();
			n++;
		}
		closedir(fam);
	}
	closedir(top);
	qsort(cases, n, sizeof(*cases), by_name);
	*out = cases;
	return n;
}

int
main(void)
{
	const char *fixtures = getenv("FIXTURES");
	char dir[4096], **cases;
	struct CMUnitTest *tests;
	size_t n, skip;
	int rc;

	snprintf(dir, sizeof(dir), "%s/streams", fixtures ? fixtures : "fixtures");
	if ((n = list_cases(dir, &cases)) == 0) {
		fprintf(stderr, "no fixtures under %s\n", dir);
		return 1;
	}
	if ((tests = calloc(n, sizeof(*tests))) == NULL)
		return 1;
	skip = strlen(dir) + 1;
	for (size_t i = 0; i < n; i++) {
		tests[i].name = cases[i] + skip;   /* FAMILY/CASE */
		tests[i].test_func = check_fixture;
		tests[i].initial_state = cases[i];
	}
	rc = _cmocka_run_group_tests("fixtures", tests, n, NULL, NULL);
	for (size_t i = 0; i < n; i++)
		free(cases[i]);
	free(cases);
	free(tests);
	return rc;
}
