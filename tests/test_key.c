/* Unit tests for lib/key.c: breaker keys family[:scope][@account], and
 * which models a scope covers. */
#include "unit.h"

#include "key.h"

static void
test_key_parse(void **state)
{
	struct breaker_key k;
	char err[256], text[512];

	assert_true(key_parse("claude", &k, err, sizeof(err)));
	assert_string_equal(k.family, "claude");
	assert_string_equal(k.scope, "*");
	assert_string_equal(k.account, "");
	assert_true(key_parse("claude:opus@work", &k, err, sizeof(err)));
	assert_string_equal(k.scope, "opus");
	assert_string_equal(k.account, "work");
	key_format(&k, text, sizeof(text));
	assert_string_equal(text, "claude:opus@work");
	assert_true(key_parse("codex@me@corp", &k, err, sizeof(err)));
	assert_string_equal(k.account, "me@corp");
	assert_true(key_parse("gemini:gemini-2.5-pro", &k, err, sizeof(err)));
	assert_string_equal(k.scope, "gemini-2.5-pro");
	assert_false(key_parse("", &k, err, sizeof(err)));
	assert_false(key_parse(":opus", &k, err, sizeof(err)));
	assert_false(key_parse("claude:", &k, err, sizeof(err)));
	assert_false(key_parse("claude@", &k, err, sizeof(err)));
	assert_false(key_parse("cla ude", &k, err, sizeof(err)));
	assert_non_null(strstr(err, "not a key"));
}

static void
test_scope_applies(void **state)
{
	assert_true(scope_applies("*", ""));
	assert_true(scope_applies("*", "claude-opus-4-6"));
	assert_true(scope_applies("opus", "claude-opus-4-6"));
	assert_true(scope_applies("opus", "Claude-OPUS"));
	assert_false(scope_applies("opus", "claude-sonnet-4-5"));
	assert_false(scope_applies("opus", ""));
	assert_false(scope_applies("opus", NULL));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key_parse),
		cmocka_unit_test(test_scope_applies),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
