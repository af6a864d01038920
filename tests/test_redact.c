/* Unit tests for lib/redact.c: what is taken for a secret in a command
 * line, and what is not. */
#include "unit.h"

#include "redact.h"

static void
expect_redacted(bool after_option, const char *arg, const char *want, bool want_flag)
{
	bool flag = false;
	char *got = redact_arg(arg, after_option, &flag);

	assert_non_null(got);
	if (strcmp(got, want) != 0)
		fail_msg("redact(%s) = '%s', want '%s'", arg, got, want);
	assert_int_equal(flag, want_flag);
	free(got);
}

static void
test_redaction_vectors(void **state)
{
	expect_redacted(false, "--api-key=abc123", "--api-key=[redacted]", true);
	expect_redacted(false, "--token=t", "--token=[redacted]", true);
	expect_redacted(false, "--auth-token=xyz", "--auth-token=[redacted]", true);
	expect_redacted(true, "hunter2", "[redacted]", true);
	expect_redacted(false, "ANTHROPIC_API_KEY=whatever", "ANTHROPIC_API_KEY=[redacted]", true);
	expect_redacted(false, "GH_TOKEN=x", "GH_TOKEN=[redacted]", true);
	expect_redacted(false, "DB_PASSWORD=pw", "DB_PASSWORD=[redacted]", true);
	expect_redacted(false, "MY_SECRET=s", "MY_SECRET=[redacted]", true);
	expect_redacted(false, "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx", "[redacted]", true);
	expect_redacted(false, "use sk-proj-abcdefghijklmnopqrstuv now", "use [redacted] now", true);
	expect_redacted(false, "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9", "Authorization: Bearer [redacted]", true);
	expect_redacted(false, "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "[redacted]", true);
	expect_redacted(false, "AIzaSyA-1234567890abcdefghijklmnopqrst", "[redacted]", true);
	expect_redacted(false, "0123456789abcdef0123456789abcdef", "[redacted]", true);
	expect_redacted(false, "key: Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZg==", "key: [redacted]", true);
	/* Things that are not secrets stay. */
	expect_redacted(false, "-p", "-p", false);
	expect_redacted(false, "fix the tests in /home/user/Projects/Service2/src/Main", "fix the tests in /home/user/Projects/Service2/src/Main", false);
	expect_redacted(false, "--max-tokens=4096", "--max-tokens=4096", false);
	expect_redacted(false, "MAX_TOKENS=5", "MAX_TOKENS=5", false);
	expect_redacted(false, "--output-format", "--output-format", false);
	expect_redacted(false, "a task-list of short words", "a task-list of short words", false);
	assert_true(redact_is_secret_option("--api-key"));
	assert_true(redact_is_secret_option("--password"));
	assert_true(redact_is_secret_option("--secret"));
	assert_false(redact_is_secret_option("--model"));
	assert_false(redact_is_secret_option("--api-key=x"));
}

static void
test_redact_argv_json(void **state)
{
	char a0[] = "claude", a1[] = "--api-key", a2[] = "sk-zzz", a3[] = "-p", a4[] = "hello",
	    a5[] = "--model", a6[] = "opus";
	char *argv[] = { a0, a1, a2, a3, a4, a5, a6, NULL };
	bool flag = false;
	json_t *j = redact_argv_json(7, argv, &flag);
	char *text = json_dumps(j, JSON_COMPACT);

	assert_string_equal(text, "[\"claude\",\"--api-key\",\"[redacted]\",\"-p\",\"hello\",\"--model\",\"opus\"]");
	assert_true(flag);
	free(text);
	json_decref(j);
	flag = false;
	j = redact_argv_json(2, argv + 3, &flag);
	assert_false(flag);
	json_decref(j);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_redaction_vectors),
		cmocka_unit_test(test_redact_argv_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
