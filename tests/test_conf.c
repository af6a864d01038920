/* Unit tests for lib/conf.c: defaults, values, errors that name the file
 * and line, and how the account is resolved. */
#include "unit.h"

#include "conf.h"

static bool
load_config_text(const char *text, struct config *cfg, char *err, size_t size)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/config", tmpdir);
	write_file(path, text);
	return config_load_file(cfg, path, err, size);
}

static void
test_config_defaults_and_missing_file(void **state)
{
	struct config cfg;
	char err[512] = "";

	assert_true(config_load_file(&cfg, "/nonexistent/rlwrap/config", err, sizeof(err)));
	assert_true(cfg.breaker_enabled);
	assert_true(cfg.trip_on[REASON_RATE_LIMIT] && cfg.trip_on[REASON_USAGE_LIMIT] &&
	    cfg.trip_on[REASON_CREDIT_EXHAUSTED]);
	assert_false(cfg.trip_on[REASON_OVERLOADED]);
	assert_true(cfg.min_confidence == 0.5);
	assert_true(cfg.cooldown_rate_limit == 900 && cfg.cooldown_usage_limit == 3600);
	assert_true(cfg.max_cooldown == 86400 && cfg.max_provider_reset == 8 * 86400);
	assert_int_equal(cfg.keep_runs, 10000);
	assert_int_equal(cfg.keep_days, 30);
	assert_int_equal(cfg.on_store_error, STORE_ERROR_OPEN);
	assert_string_equal(cfg.loaded_from, "");
	config_free(&cfg);
}

static void
test_config_values(void **state)
{
	struct config cfg;
	char err[512] = "";

	assert_true(load_config_text("# comment\n[breaker]\nenabled = no\ntrip_on = rate-limit, overloaded\n"
	    "min_confidence = 0.8\ncooldown_rate_limit = 1m\nmax_cooldown = 2h\nprobe_timeout = 90s\n"
	    "on_store_error = closed\n[store]\npath = ~/x/state.db\nkeep_runs = 5\nkeep_days = 0\n"
	    "[family.claude]\ncommands = claude-work, cw\naccount = work\nconfig_dir_env = CW_HOME\n",
	    &cfg, err, sizeof(err)));
	assert_false(cfg.breaker_enabled);
	assert_true(cfg.trip_on[REASON_RATE_LIMIT] && cfg.trip_on[REASON_OVERLOADED]);
	assert_false(cfg.trip_on[REASON_USAGE_LIMIT]);
	assert_true(cfg.min_confidence == 0.8 && cfg.cooldown_rate_limit == 60 && cfg.max_cooldown == 7200);
	assert_true(cfg.probe_timeout == 90);
	assert_int_equal(cfg.on_store_error, STORE_ERROR_CLOSED);
	assert_non_null(strstr(cfg.store_path, "/x/state.db"));
	assert_true(cfg.store_path[0] == '/');
	assert_int_equal(cfg.keep_runs, 5);
	assert_int_equal(cfg.keep_days, 0);
	assert_int_equal(cfg.command_map_len, 2);
	assert_string_equal(config_family_for_command(&cfg, "cw"), "claude");
	assert_string_equal(cfg.command_map[0].command, "claude-work");
	assert_null(config_family_for_command(&cfg, "claude"));
	assert_string_equal(config_family(&cfg, "claude")->account, "work");
	assert_string_equal(config_family(&cfg, "claude")->config_dir_env, "CW_HOME");
	config_free(&cfg);
}

static void
expect_config_error(const char *text, const char *want)
{
	struct config cfg;
	char err[512] = "";

	assert_false(load_config_text(text, &cfg, err, sizeof(err)));
	if (strstr(err, want) == NULL)
		fail_msg("error '%s' lacks '%s'", err, want);
	config_free(&cfg);
}

static void
test_config_errors_name_file_and_line(void **state)
{
	expect_config_error("[breaker]\nenabled = yes\nbogus = 1\n", "/config:3: unknown key 'bogus' in [breaker]");
	expect_config_error("[breaker]\n\n\nmin_confidence = 2\n", "/config:4: min_confidence: '2'");
	expect_config_error("[breaker]\ntrip_on = rate-limit, nope\n", "/config:2: trip_on: 'nope'");
	expect_config_error("[breaker]\ncooldown_usage_limit = soon\n", "/config:2: cooldown_usage_limit: 'soon'");
	expect_config_error("[breaker]\non_store_error = maybe\n", ":2: on_store_error");
	expect_config_error("[store]\nkeep_runs = -1\n", ":2: keep_runs");
	expect_config_error("[stroe]\npath = /x\n", ":1: unknown section [stroe] (did you mean [store]?)");
	expect_config_error("[wrapper]\n[bogus]\n", ":2: unknown section [bogus]");
	expect_config_error("[familiy.claude]\n", "(did you mean [family.claude]?)");
	expect_config_error("[family.claude]\nmax_concurent = 3\n",
	    ":2: unknown key 'max_concurent' in [family.claude] (did you mean max_concurrent?)");
	expect_config_error("enabled = 1\n", ":1: key 'enabled' outside any section");
	expect_config_error("[family.a]\ncommands = x\n[family.b]\ncommands = x\n", ":4: commands: 'x' is already mapped");
	expect_config_error("[breaker]\nthis line has no equals sign\n", ":2: syntax error");
}

/* A bad line costs its key only: every problem is kept, in file order, and
 * every other key is read, before and after it. */
static void
test_config_problems_keep_defaults_and_the_rest(void **state)
{
	struct config cfg;
	char err[512] = "";

	(void)state;
	assert_false(load_config_text("[breaker]\nmin_confidence = 2\ntrip_on = rate-limit, nope\n"
	    "max_cooldown = 2h\n[wrapper]\nretry = 500\n[store]\npath =\n[junk]\nx = 1\n"
	    "[family.claude]\nmax_concurrent = 3\nbudjet = 1 runs per 1m\n", &cfg, err, sizeof(err)));
	assert_int_equal(cfg.problems_len, 6);
	assert_non_null(strstr(cfg.problems[0], ":2: min_confidence"));
	assert_non_null(strstr(cfg.problems[1], ":3: trip_on"));
	assert_non_null(strstr(cfg.problems[2], ":6: retry"));
	assert_non_null(strstr(cfg.problems[3], ":8: path"));
	assert_non_null(strstr(cfg.problems[4], ":9: unknown section [junk]"));
	assert_non_null(strstr(cfg.problems[5], ":13: unknown key 'budjet' in [family.claude] (did you mean budget?)"));
	assert_string_equal(err, cfg.problems[0]);
	assert_true(cfg.min_confidence == 0.5);
	assert_true(cfg.trip_on[REASON_RATE_LIMIT] && cfg.trip_on[REASON_USAGE_LIMIT]);
	assert_true(cfg.max_cooldown == 7200);
	assert_int_equal(cfg.wrapper_retry, 0);
	assert_string_equal(cfg.store_path, "");
	assert_int_equal(config_max_concurrent(&cfg, "claude"), 3);
	assert_int_equal(cfg.on_config_error, CONFIG_ERROR_OPEN);
	config_free(&cfg);
	assert_false(load_config_text("[breaker]\non_config_error = closed\nbogus = 1\n", &cfg, err,
	    sizeof(err)));
	assert_int_equal(cfg.on_config_error, CONFIG_ERROR_CLOSED);
	config_free(&cfg);
}

static void
test_config_account_resolution(void **state)
{
	struct config cfg;
	char err[512], account[256];

	assert_true(load_config_text("[family.claude]\naccount = team\n", &cfg, err, sizeof(err)));
	unsetenv("RLWRAP_ACCOUNT");
	unsetenv("CLAUDE_CONFIG_DIR");
	config_resolve_account(&cfg, "claude", NULL, account, sizeof(account));
	assert_string_equal(account, "team");
	config_resolve_account(&cfg, "codex", NULL, account, sizeof(account));
	assert_string_equal(account, "default");
	setenv("CLAUDE_CONFIG_DIR", "/home/u/.claude-work", 1);
	config_resolve_account(&cfg, "claude", NULL, account, sizeof(account));
	assert_string_equal(account, "/home/u/.claude-work");
	setenv("RLWRAP_ACCOUNT", "env", 1);
	config_resolve_account(&cfg, "claude", NULL, account, sizeof(account));
	assert_string_equal(account, "env");
	config_resolve_account(&cfg, "claude", "opt", account, sizeof(account));
	assert_string_equal(account, "opt");
	unsetenv("RLWRAP_ACCOUNT");
	unsetenv("CLAUDE_CONFIG_DIR");
	config_free(&cfg);
}

static void
test_config_account_from_environment(void **state)
{
	char out[128];
	struct config cfg;

	config_defaults(&cfg);
	unsetenv("RLWRAP_ACCOUNT");
	unsetenv("CLAUDE_CONFIG_DIR");
	setenv("HOME", "/home/u", 1);
	config_resolve_account(&cfg, "claude", NULL, out, sizeof(out));
	assert_string_equal(out, "default");
	setenv("CLAUDE_CONFIG_DIR", "/home/u/.claude-work", 1);
	config_resolve_account(&cfg, "claude", NULL, out, sizeof(out));
	assert_string_equal(out, "~/.claude-work");
	config_resolve_account(&cfg, "codex", NULL, out, sizeof(out));
	assert_string_equal(out, "default");
	setenv("GEMINI_CLI_HOME", "/home/u/gem", 1);
	config_resolve_account(&cfg, "gemini", NULL, out, sizeof(out));
	assert_string_equal(out, "~/gem");
	unsetenv("GEMINI_CLI_HOME");
	setenv("CLAUDE_CONFIG_DIR", "/srv/claude", 1);
	config_resolve_account(&cfg, "claude", NULL, out, sizeof(out));
	assert_string_equal(out, "/srv/claude");
	setenv("RLWRAP_ACCOUNT", "work", 1);
	config_resolve_account(&cfg, "claude", NULL, out, sizeof(out));
	assert_string_equal(out, "work");
	unsetenv("RLWRAP_ACCOUNT");
	unsetenv("CLAUDE_CONFIG_DIR");
}

/* accounts = ... and [account.NAME] env: the pool, each account's
 * environment ("~/" expanded, every env line adding), and a config
 * directory that an account of the pool selects naming that account. */
static void
test_config_account_pool(void **state)
{
	char path[128], err[CONFIG_PROBLEM_MAX], out[128];
	const struct account_config *ac;
	struct config cfg;

	(void)state;
	setenv("HOME", "/home/u", 1);
	unsetenv("RLWRAP_ACCOUNT");
	snprintf(path, sizeof(path), "%s/pool.conf", tmpdir);
	write_file(path, "[family.claude]\naccounts = work, personal\n[account.work]\n"
	    "env = CLAUDE_CONFIG_DIR=~/.claude-work TEAM=w\nenv = HOME_DIR=~\n[account.personal]\n"
	    "env = CLAUDE_CONFIG_DIR=/srv/p\n");
	assert_true(config_load_file(&cfg, path, err, sizeof(err)));
	assert_int_equal(config_family(&cfg, "claude")->pool_len, 2);
	assert_string_equal(config_family(&cfg, "claude")->pool[1], "personal");
	assert_non_null(ac = config_pool_account(&cfg, "claude", "work"));
	assert_int_equal(ac->env_len, 3);
	assert_string_equal(ac->env[0].value, "/home/u/.claude-work");
	assert_string_equal(ac->env[1].name, "TEAM");
	assert_string_equal(ac->env[2].value, "/home/u");
	assert_null(config_pool_account(&cfg, "codex", "work"));
	assert_null(config_pool_account(&cfg, "claude", "other"));
	setenv("CLAUDE_CONFIG_DIR", "/srv/p/", 1);
	config_resolve_account(&cfg, "claude", NULL, out, sizeof(out));
	assert_string_equal(out, "personal");
	setenv("CLAUDE_CONFIG_DIR", "/srv/q", 1);
	config_resolve_account(&cfg, "claude", NULL, out, sizeof(out));
	assert_string_equal(out, "/srv/q");
	unsetenv("CLAUDE_CONFIG_DIR");
	config_free(&cfg);
	/* a bad line adds nothing; an account without env drops the pool */
	write_file(path, "[family.claude]\naccounts = work spare\n[account.work]\nenv = A=1 =2\n"
	    "env = B=2\n");
	assert_false(config_load_file(&cfg, path, err, sizeof(err)));
	assert_int_equal(cfg.problems_len, 2);
	assert_non_null(strstr(cfg.problems[1], ":2: accounts: 'spare' has no [account.spare]"));
	assert_int_equal(config_family(&cfg, "claude")->pool_len, 0);
	assert_int_equal(config_account(&cfg, "work")->env_len, 1);
	assert_string_equal(config_account(&cfg, "work")->env[0].name, "B");
	config_free(&cfg);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_defaults_and_missing_file),
		cmocka_unit_test(test_config_values),
		cmocka_unit_test(test_config_errors_name_file_and_line),
		cmocka_unit_test(test_config_problems_keep_defaults_and_the_rest),
		cmocka_unit_test(test_config_account_resolution),
		cmocka_unit_test(test_config_account_from_environment),
		cmocka_unit_test(test_config_account_pool),
	};

	return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
