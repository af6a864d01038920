/* Unit tests for lib/detect.c: the family, command, model behind a command
 * line, through launchers (env, nice, timeout, npx, node...). */
#include "unit.h"

#include "detect.h"

/* A NULL-terminated argv of line's words, valid until the next call. */
static char **
words(const char *line)
{
	static char copy[512], *argv[32];
	int n = 0;

	strlcpy(copy, line, sizeof(copy));
	for (char *tok = strtok(copy, " "); tok != NULL && n < 31; tok = strtok(NULL, " "))
		argv[n++] = tok;
	argv[n] = NULL;
	return argv;
}

static const char *
family_of(const char *line)
{
	static char out[32];

	detect_family(words(line), NULL, 0, out, sizeof(out));
	return out;
}

static void
test_family_from_basename(void **state)
{
	assert_string_equal(family_of("claude -p hi"), "claude");
	assert_string_equal(family_of("/usr/local/bin/codex exec --json"), "codex");
	assert_string_equal(family_of("gemini -p x"), "gemini");
	assert_string_equal(family_of("cursor-agent -p x"), "cursor");
	assert_string_equal(family_of("qwen -p x"), "qwen");
	assert_string_equal(family_of("pi --mode json"), "pi");
	assert_string_equal(family_of("opencode run"), "opencode");
	assert_string_equal(family_of("goose run --output-format stream-json -t x"), "goose");
	assert_string_equal(family_of("/opt/homebrew/bin/amp -x --stream-json"), "amp");
	assert_string_equal(family_of("copilot -p x --allow-all-tools"), "copilot");
	assert_string_equal(family_of("gooseberry"), "generic");
	assert_string_equal(family_of("cat file"), "generic");
	assert_string_equal(family_of("claudette"), "generic");
}

static void
test_family_through_launchers(void **state)
{
	assert_string_equal(family_of("env -u FOO A=1 B=2 claude -p hi"), "claude");
	assert_string_equal(family_of("env -- codex exec"), "codex");
	assert_string_equal(family_of("nice -n 5 timeout -s INT 10m stdbuf -oL gemini -p x"), "gemini");
	assert_string_equal(family_of("timeout --kill-after 5 1h claude"), "claude");
	assert_string_equal(family_of("/usr/bin/nice -10 codex"), "codex");
	assert_string_equal(family_of("stdbuf -o L -e L pi"), "pi");
	assert_string_equal(family_of("npx -y @anthropic-ai/claude-code -p x"), "claude");
	assert_string_equal(family_of("npx @openai/codex@0.40.0 exec"), "codex");
	assert_string_equal(family_of("bunx @google/gemini-cli"), "gemini");
	assert_string_equal(family_of("npx -p @qwen-code/qwen-code qwen -p x"), "qwen");
	assert_string_equal(family_of("npx --package=opencode-ai opencode run"), "opencode");
	assert_string_equal(family_of("npx -y @github/copilot -p x"), "copilot");
	assert_string_equal(family_of("bunx @sourcegraph/amp -x hi"), "amp");
	assert_string_equal(family_of("node /usr/lib/node_modules/@github/copilot/index.js -p x"),
	    "copilot");
	assert_string_equal(family_of("node /usr/lib/node_modules/@anthropic-ai/claude-code/cli.js -p"),
	    "claude");
	assert_string_equal(family_of("node --require x.js /opt/bin/codex.js"), "codex");
	assert_string_equal(family_of("env"), "generic");
}

static void
test_family_from_map(void **state)
{
	static const struct command_family map[] = {
		{ "my-agent", "codex" }, { "/opt/x/run-claude", "claude" },
	};
	char out[32];

	detect_family(words("/usr/bin/my-agent --x"), map, 2, out, sizeof(out));
	assert_string_equal(out, "codex");
	detect_family(words("env A=1 /opt/x/run-claude"), map, 2, out, sizeof(out));
	assert_string_equal(out, "claude");
	detect_family(words("claude"), map, 2, out, sizeof(out));
	assert_string_equal(out, "claude");
}

static void
test_command_name_and_index(void **state)
{
	assert_int_equal(detect_command_index(words("env A=1 nice -n 3 /usr/bin/claude -p x")), 5);
	assert_string_equal(detect_command_name(words("env A=1 nice -n 3 /usr/bin/claude -p x")),
	    "claude");
	assert_int_equal(detect_command_index(words("env A=1")), 2);
	assert_string_equal(detect_command_name(words("env A=1")), "env");
}

static void
test_model_from_arguments(void **state)
{
	const struct { const char *line, *family, *want; } cases[] = {
		{ "claude -p hi --model opus", "claude", "opus" },
		{ "codex exec -m gpt-5-codex", "codex", "gpt-5-codex" },
		{ "gemini --model=gemini-2.5-pro", "gemini", "gemini-2.5-pro" },
		{ "mytool -m msg", "generic", "" },
		{ "claude -- --model x", "claude", "" },
		{ "codex -mo3", "codex", "o3" },
		{ "env A=1 claude --model sonnet", "claude", "sonnet" },
	};
	char out[64];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		detect_model(words(cases[i].line), cases[i].family, out, sizeof(out));
		assert_string_equal(out, cases[i].want);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_family_from_basename),
		cmocka_unit_test(test_family_through_launchers),
		cmocka_unit_test(test_family_from_map),
		cmocka_unit_test(test_command_name_and_index),
		cmocka_unit_test(test_model_from_arguments),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
