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
	expect_redacted(false, "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9", "Authorization: [redacted]", true);
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

/* One vector per shape of the rules table (lib/redact.c): a command line
 * argument after an argument (ctx), and what is stored. */
static const struct shape_vector {
	const char *rule;
	enum redact_context ctx;
	const char *arg, *want;
} shape_vectors[] = {
	{ "url-credentials", AFTER_PLAIN, "https://alice:s3cret@git.example.com/repo.git",
	  "https://alice:[redacted]@git.example.com/repo.git" },
	{ "url-credentials", AFTER_PLAIN, "clone https://x-access-token:abc123@github.com/o/r now",
	  "clone https://x-access-token:[redacted]@github.com/o/r now" },
	{ "url-credentials (token as user)", AFTER_PLAIN, "https://abcdef0123456789@host/x",
	  "https://[redacted]@host/x" },
	{ "url-credentials (postgresql)", AFTER_PLAIN, "postgresql://rlwrap:pw@db.example.com/state",
	  "postgresql://rlwrap:[redacted]@db.example.com/state" },
	{ "query-secret", AFTER_PLAIN, "https://api.example.com/v1?access_token=abc123&page=2",
	  "https://api.example.com/v1?access_token=[redacted]&page=2" },
	{ "query-secret", AFTER_PLAIN, "https://maps.example.com/?q=rome&key=XYZ987",
	  "https://maps.example.com/?q=rome&key=[redacted]" },
	{ "-u user:pw", AFTER_USER_OPTION, "alice:hunter2", "alice:[redacted]" },
	{ "--user=user:pw", AFTER_PLAIN, "--user=alice:hunter2", "--user=alice:[redacted]" },
	{ "Authorization: Basic", AFTER_PLAIN, "Authorization: Basic YWxpY2U6aHVudGVyMg==",
	  "Authorization: [redacted]" },
	{ "Authorization: Bearer", AFTER_PLAIN, "authorization: Bearer abcdefgh12",
	  "authorization: [redacted]" },
	{ "Basic in a message", AFTER_PLAIN, "sent Basic YWxpY2U6aHVudGVyMg== to it",
	  "sent Basic [redacted] to it" },
	{ "Cookie header", AFTER_PLAIN, "Cookie: session=abc; theme=dark", "Cookie: [redacted]" },
	{ "X-Api-Key header", AFTER_PLAIN, "x-api-key: 12345678", "x-api-key: [redacted]" },
	{ "PRIVATE-TOKEN header", AFTER_PLAIN, "PRIVATE-TOKEN: glxyz", "PRIVATE-TOKEN: [redacted]" },
	{ "--auth", AFTER_SECRET_OPTION, "alice:pw", "[redacted]" },
	{ "--auth=", AFTER_PLAIN, "--auth=alice:pw", "--auth=[redacted]" },
	{ "--pat=", AFTER_PLAIN, "--pat=abc", "--pat=[redacted]" },
	{ "--passphrase=", AFTER_PLAIN, "--passphrase=open sesame", "--passphrase=[redacted]" },
	{ "--cookie=", AFTER_PLAIN, "--cookie=sid=1", "--cookie=[redacted]" },
	{ "GITLAB_PAT=", AFTER_PLAIN, "GITLAB_PAT=abc", "GITLAB_PAT=[redacted]" },
	{ "GPG_PASSPHRASE=", AFTER_PLAIN, "GPG_PASSPHRASE=x", "GPG_PASSPHRASE=[redacted]" },
	{ "glpat-", AFTER_PLAIN, "glpat-AbCdEfGhIjKlMnOpQrSt", "[redacted]" },
	{ "xai-", AFTER_PLAIN, "key xai-AbCdEfGhIjKlMnOpQrStUv1234", "key [redacted]" },
	{ "AKIA", AFTER_PLAIN, "AKIAIOSFODNN7EXAMPLE", "[redacted]" },
	{ "ASIA", AFTER_PLAIN, "ASIAIOSFODNN7EXAMPLE", "[redacted]" },
	{ "ghp_", AFTER_PLAIN, "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "[redacted]" },
	{ "github_pat_", AFTER_PLAIN, "github_pat_11ABCDEFG0abcdefghijkl_mnopqrstuv", "[redacted]" },
	{ "xoxb-", AFTER_PLAIN, "xoxb-1234567890-abcdefghij", "[redacted]" },
	{ "xoxe-", AFTER_PLAIN, "xoxe-1-abcdefghijklmnop", "[redacted]" },
	{ "AIza", AFTER_PLAIN, "AIzaSyA-1234567890abcdefghijklmnopqrst", "[redacted]" },
	{ "sk-ant-", AFTER_PLAIN, "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx", "[redacted]" },
	{ "hf_", AFTER_PLAIN, "hf_AbCdEfGhIjKlMnOpQrStUvWx", "[redacted]" },
	{ "sk_live_", AFTER_PLAIN, "sk_live_AbCdEfGhIjKlMnOpQrSt", "[redacted]" },
	{ "JWT", AFTER_PLAIN, "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abc",
	  "[redacted].[redacted].abc" },
	/* Not secrets. */
	{ "plain URL", AFTER_PLAIN, "https://example.com/a?page=2", "https://example.com/a?page=2" },
	{ "email", AFTER_PLAIN, "mail alice@example.com", "mail alice@example.com" },
	{ "a URL's user name", AFTER_PLAIN, "postgresql://rlwrap_user@db.example.com/state",
	  "postgresql://rlwrap_user@db.example.com/state" },
	{ "-u without colon", AFTER_USER_OPTION, "alice", "alice" },
	{ "a word after Basic", AFTER_PLAIN, "Basic idea", "Basic idea" },
	{ "--author", AFTER_PLAIN, "--author=Alice", "--author=Alice" },
	{ "--path", AFTER_PLAIN, "--path=/tmp", "--path=/tmp" },
	{ "AKIA short", AFTER_PLAIN, "AKIA is a prefix", "AKIA is a prefix" },
};

static void
test_redaction_shapes(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(shape_vectors) / sizeof(shape_vectors[0]); i++) {
		const struct shape_vector *v = &shape_vectors[i];
		bool flag = false;
		char *got = redact_arg_in(v->arg, v->ctx, &flag);

		assert_non_null(got);
		if (strcmp(got, v->want) != 0 || flag != (strcmp(v->arg, v->want) != 0))
			fail_msg("%s: redact(%s) = '%s' (flag %d), want '%s'", v->rule, v->arg, got, flag, v->want);
		free(got);
	}
}

static void
test_redact_user_option_in_argv(void **state)
{
	char a0[] = "curl", a1[] = "-u", a2[] = "alice:hunter2", a3[] = "--user", a4[] = "bob:pw",
	    a5[] = "https://example.com";
	char *argv[] = { a0, a1, a2, a3, a4, a5, NULL };
	bool flag = false;
	json_t *j = redact_argv_json(6, argv, &flag);
	char *text = json_dumps(j, JSON_COMPACT);

	(void)state;
	assert_string_equal(text, "[\"curl\",\"-u\",\"alice:[redacted]\",\"--user\",\"bob:[redacted]\","
	    "\"https://example.com\"]");
	assert_true(flag);
	free(text);
	json_decref(j);
}

static void
test_redact_text_messages(void **state)
{
	char out[256];

	(void)state;
	assert_true(redact_text("Invalid API key sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx-yz: check it", out,
	    sizeof(out)));
	assert_string_equal(out, "Invalid API key [redacted]: check it");
	assert_true(redact_text("Incorrect API key provided: sk-proj-abcdefghijklmnopqrst.", out, sizeof(out)));
	assert_string_equal(out, "Incorrect API key provided: [redacted].");
	assert_false(redact_text("You have hit your limit \xc2\xb7 resets 5pm", out, sizeof(out)));
	assert_string_equal(out, "You have hit your limit \xc2\xb7 resets 5pm");
	/* cut on a character boundary */
	assert_false(redact_text("ab\xc3\xa9", out, 4));
	assert_string_equal(out, "ab");
}

static void
test_argv_exact_round_trip(void **state)
{
	char a0[] = "sh", a1[] = "keep-\xe9", a2[] = "back\\slash \\x41", a3[] = "caf\xc3\xa9";
	char *argv[] = { a0, a1, a2, a3, NULL };
	char *text = argv_exact_json(4, argv, NULL), decoded[64];
	json_t *j = json_loads(text, 0, NULL);

	(void)state;
	assert_non_null(j);
	assert_string_equal(json_string_value(json_array_get(j, 1)), "keep-\\xE9");
	for (size_t i = 0; i < 4; i++) {
		argv_exact_decode(json_string_value(json_array_get(j, i)), decoded);
		assert_string_equal(decoded, argv[i]);
	}
	json_decref(j);
	free(text);
	/* the same as the argv JSON: kept once, as "=" */
	text = argv_exact_json(1, argv, "[\"sh\"]");
	assert_string_equal(text, "=");
	assert_string_equal(argv_exact_text(text, "[\"sh\"]"), "[\"sh\"]");
	free(text);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_redaction_vectors),
		cmocka_unit_test(test_redact_argv_json),
		cmocka_unit_test(test_redaction_shapes),
		cmocka_unit_test(test_redact_user_option_in_argv),
		cmocka_unit_test(test_redact_text_messages),
		cmocka_unit_test(test_argv_exact_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
