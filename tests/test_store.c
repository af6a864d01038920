/* Unit tests: config, redaction, keys, breaker arithmetic, the gate and probe
 * leases, run recording, and store migrations. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "breaker.h"
#include "conf.h"
#include "key.h"
#include "redact.h"
#include "store.h"

#define NOW 1796040000.0   /* 2026-11-30T12:00:00Z */

static char tmpdir[64];

static int
make_tmpdir(void **state)
{
	strlcpy(tmpdir, "/tmp/rlwrap-test-XXXXXX", sizeof(tmpdir));
	assert_non_null(mkdtemp(tmpdir));
	return 0;
}

static int
remove_tmpdir(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static void
write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

/* ---- config ------------------------------------------------------------ */

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
	expect_config_error("[stroe]\npath = /x\n", ":2: unknown section [stroe]");
	expect_config_error("enabled = 1\n", ":1: key 'enabled' outside any section");
	expect_config_error("[family.a]\ncommands = x\n[family.b]\ncommands = x\n", ":4: commands: 'x' is already mapped");
	expect_config_error("[breaker]\nthis line has no equals sign\n", ":2: syntax error");
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

/* ---- redaction --------------------------------------------------------- */

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

/* ---- keys -------------------------------------------------------------- */

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

/* ---- breaker arithmetic ------------------------------------------------ */

static void
test_escalation_and_cap(void **state)
{
	struct config cfg;
	struct breaker b = { 0 };
	struct trip unknown = { .reason = REASON_RATE_LIMIT };
	double now = NOW;
	double want[] = { 900, 1800, 3600, 7200, 14400, 28800, 57600, 86400, 86400 };

	config_defaults(&cfg);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		/* Each trip comes after the previous reset: a new episode, still consecutive. */
		assert_int_equal(breaker_apply_trip(&b, &cfg, &unknown, now), CHANGE_TRIPPED);
		assert_true(b.resets_at - now == want[i]);
		assert_string_equal(b.reset_source, "default");
		now = b.resets_at + 1;
	}
	assert_int_equal(b.trips, 9);
	/* A known reset ends the streak; usage-limit starts at 1h. */
	struct trip known = { .reason = REASON_USAGE_LIMIT, .resets_at = now + 100, .source = "provider" };
	breaker_apply_trip(&b, &cfg, &known, now);
	assert_int_equal(b.consecutive_unknown, 0);
	now = b.resets_at + 1;
	unknown.reason = REASON_USAGE_LIMIT;
	breaker_apply_trip(&b, &cfg, &unknown, now);
	assert_true(b.resets_at - now == 3600);
}

static void
test_never_shorten_and_provider_replaces_guess(void **state)
{
	struct config cfg;
	struct breaker b = { 0 };
	struct trip provider = { .reason = REASON_USAGE_LIMIT, .resets_at = NOW + 4 * 3600, .source = "provider" };
	struct trip bare = { .reason = REASON_RATE_LIMIT };
	struct trip earlier = { .reason = REASON_USAGE_LIMIT, .resets_at = NOW + 600, .source = "text" };

	config_defaults(&cfg);
	assert_int_equal(breaker_apply_trip(&b, &cfg, &provider, NOW), CHANGE_TRIPPED);
	/* A bare 429 (15m guess) never shortens the provider's 4h. */
	assert_int_equal(breaker_apply_trip(&b, &cfg, &bare, NOW + 60), CHANGE_KEPT);
	assert_true(b.resets_at == NOW + 4 * 3600);
	assert_string_equal(b.reset_source, "provider");
	assert_int_equal(b.reason, REASON_USAGE_LIMIT);
	/* Nor does an earlier stated reset. */
	assert_int_equal(breaker_apply_trip(&b, &cfg, &earlier, NOW + 60), CHANGE_KEPT);
	assert_true(b.resets_at == NOW + 4 * 3600);
	/* A later one extends. */
	provider.resets_at = NOW + 5 * 3600;
	assert_int_equal(breaker_apply_trip(&b, &cfg, &provider, NOW + 60), CHANGE_EXTENDED);
	assert_true(b.resets_at == NOW + 5 * 3600);

	/* A guess, then a stated reset shorter than the guess: replaced. */
	struct breaker g = { 0 };
	breaker_apply_trip(&g, &cfg, &bare, NOW);
	breaker_apply_trip(&g, &cfg, &bare, NOW + 1);     /* escalated: 30m */
	assert_true(g.resets_at == NOW + 1 + 1800);
	provider.resets_at = NOW + 300;
	assert_int_equal(breaker_apply_trip(&g, &cfg, &provider, NOW + 2), CHANGE_REPLACED);
	assert_true(g.resets_at == NOW + 300);
	assert_string_equal(g.reset_source, "provider");
}

/* A daily quota with a 41s hint: the first trip honours the hint; a probe
 * that hits the same quota again opens for the escalated usage-limit
 * cooldown, capped at the period, instead of 41s more. */
static void
test_period_quota_does_not_flap(void **state)
{
	struct config cfg;
	struct breaker b = { 0 };
	struct trip daily = { .reason = REASON_USAGE_LIMIT, .source = "provider", .limit_type = "daily" };
	struct trip minute = { .reason = REASON_RATE_LIMIT, .source = "provider" };
	double now = NOW, want[] = { 41, 3600, 7200, 14400, 28800, 57600, 86400, 86400 };

	(void)state;
	config_defaults(&cfg);
	cfg.max_cooldown = 7 * 86400;   /* the period, not max_cooldown, caps a daily quota */
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		daily.resets_at = now + 41;
		assert_int_equal(breaker_apply_trip(&b, &cfg, &daily, now), CHANGE_TRIPPED);
		assert_true(b.resets_at - now == want[i]);
		assert_string_equal(b.reset_source, i == 0 ? "provider" : "default");
		now = b.resets_at + 1;   /* the probe runs and fails again */
	}
	/* A stated reset beyond the guess is kept as stated. */
	daily.resets_at = now + 20 * 3600;
	breaker_apply_trip(&b, &cfg, &daily, now);
	assert_true(b.resets_at == now + 20 * 3600);
	assert_string_equal(b.reset_source, "provider");
	/* A per-minute limit with the same hint keeps following the hint. */
	struct breaker m = { 0 };
	for (int i = 0; i < 3; i++) {
		minute.resets_at = now + 41;
		breaker_apply_trip(&m, &cfg, &minute, now);
		assert_true(m.resets_at == now + 41);
		now = m.resets_at + 1;
	}
}

/* ---- the store: helpers ------------------------------------------------- */

static struct store *
open_store(const char *name)
{
	struct store_options opts = { .busy_timeout_ms = 2000, .keep_runs = 10000, .keep_days = 30 };
	struct store_error err;
	struct store *store;

	snprintf(opts.path, sizeof(opts.path), "%s/%s", tmpdir, name);
	if (!store_open(&opts, &store, &err))
		fail_msg("store_open: %s", err.message);
	return store;
}

static void
signal_of(struct fail_signal *sig, enum reason reason, const char *scope, double resets_at)
{
	signal_init(sig);
	sig->reason = reason;
	sig->confidence = 1.0;
	sig->terminal = true;
	strlcpy(sig->family, "claude", sizeof(sig->family));
	strlcpy(sig->scope, reason == REASON_NONE ? "" : scope, sizeof(sig->scope));
	sig->resets_at = resets_at;
	sig->reset_source = resets_at > 0 ? RESET_SRC_PROVIDER : RESET_SRC_NONE;
}

static struct record_outcome
record(struct store *store, const struct config *cfg, const char *account, const char *model,
    const struct fail_signal *sig, double started, double ended, const struct probe_lease *holder)
{
	struct run_report run = { .account = account, .family = "claude", .model = model, .source = "wrap",
		.started_at = started, .ended_at = ended, .exit_code = 1, .usage = { -1, -1, -1 },
		.holder = holder };
	struct record_outcome out;
	struct store_error err;

	if (!breaker_record_run(store, cfg, &run, sig, &out, &err))
		fail_msg("record: %s", err.message);
	return out;
}

static struct gate_decision
gate(struct store *store, const struct config *cfg, const char *account, const char *model,
    const struct probe_lease *holder, double wait_max, double now)
{
	struct gate_request req = { .account = account, .family = "claude", .model = model,
		.wait_max = wait_max, .record = true };
	struct gate_decision d;
	struct store_error err;

	if (holder != NULL)
		req.holder = *holder;
	else
		probe_holder_self(&req.holder);
	if (!breaker_gate(store, cfg, &req, now, &d, &err))
		fail_msg("gate: %s", err.message);
	return d;
}

/* ---- the store: breakers ------------------------------------------------ */

static void
test_success_closes_only_after_last_trip(void **state)
{
	struct store *store = open_store("success.db");
	struct config cfg;
	struct fail_signal limit, ok;
	struct record_outcome out;

	config_defaults(&cfg);
	signal_of(&limit, REASON_USAGE_LIMIT, "family", NOW + 3600);
	signal_of(&ok, REASON_NONE, "", 0);
	out = record(store, &cfg, "default", "", &limit, NOW - 10, NOW, NULL);
	assert_int_equal(out.change, CHANGE_TRIPPED);
	assert_true(out.run_id > 0);
	/* A run that started before the trip and succeeded later: stays open. */
	out = record(store, &cfg, "default", "", &ok, NOW - 100, NOW + 50, NULL);
	assert_int_equal(out.closed, 0);
	assert_int_equal(gate(store, &cfg, "default", "", NULL, -1, NOW + 60).verdict, GATE_REFUSE);
	/* One that started after it closes it. */
	out = record(store, &cfg, "default", "", &ok, NOW + 1, NOW + 70, NULL);
	assert_int_equal(out.closed, 1);
	assert_int_equal(out.change, CHANGE_CLOSED);
	assert_int_equal(gate(store, &cfg, "default", "", NULL, -1, NOW + 80).verdict, GATE_RUN);
	store_close(store);
}

static void
test_low_confidence_and_disabled_never_trip(void **state)
{
	struct store *store = open_store("lowconf.db");
	struct config cfg;
	struct fail_signal sig;

	config_defaults(&cfg);
	signal_of(&sig, REASON_RATE_LIMIT, "family", 0);
	sig.confidence = 0.2;
	assert_int_equal(record(store, &cfg, "default", "", &sig, NOW, NOW, NULL).change, CHANGE_NONE);
	signal_of(&sig, REASON_OVERLOADED, "family", 0);
	assert_int_equal(record(store, &cfg, "default", "", &sig, NOW, NOW, NULL).change, CHANGE_NONE);
	signal_of(&sig, REASON_USAGE_LIMIT, "family", 0);
	cfg.breaker_enabled = false;
	assert_int_equal(record(store, &cfg, "default", "", &sig, NOW, NOW, NULL).change, CHANGE_NONE);
	assert_int_equal(gate(store, &cfg, "default", "", NULL, -1, NOW).verdict, GATE_RUN);
	cfg.breaker_enabled = true;
	assert_int_equal(gate(store, &cfg, "default", "", NULL, -1, NOW).verdict, GATE_RUN);
	store_close(store);
}

static void
test_model_scope_and_accounts(void **state)
{
	struct store *store = open_store("scope.db");
	struct config cfg;
	struct fail_signal opus;
	struct gate_decision d;

	config_defaults(&cfg);
	signal_of(&opus, REASON_USAGE_LIMIT, "opus", NOW + 7200);
	assert_int_equal(record(store, &cfg, "work", "claude-opus-4-6", &opus, NOW, NOW, NULL).change, CHANGE_TRIPPED);
	d = gate(store, &cfg, "work", "claude-opus-4-6", NULL, -1, NOW + 1);
	assert_int_equal(d.verdict, GATE_REFUSE);
	assert_string_equal(d.blocking.key.scope, "opus");
	assert_true(d.blocked_until == NOW + 7200);
	assert_string_equal(d.blocking.reset_source, "provider");
	assert_int_equal(gate(store, &cfg, "work", "claude-sonnet-4-5", NULL, -1, NOW + 1).verdict, GATE_RUN);
	assert_int_equal(gate(store, &cfg, "work", "", NULL, -1, NOW + 1).verdict, GATE_RUN);
	/* Another account is not blocked. */
	assert_int_equal(gate(store, &cfg, "default", "claude-opus-4-6", NULL, -1, NOW + 1).verdict, GATE_RUN);
	/* --wait: within budget waits until the reset plus jitter, beyond it refuses. */
	d = gate(store, &cfg, "work", "claude-opus-4-6", NULL, 3 * 3600, NOW + 1);
	assert_int_equal(d.verdict, GATE_WAIT);
	assert_true(d.until >= NOW + 7200);
	assert_int_equal(gate(store, &cfg, "work", "claude-opus-4-6", NULL, 3600, NOW + 1).verdict, GATE_REFUSE);
	store_close(store);
}

static void
test_wait_plan_and_jitter(void **state)
{
	double wake;

	assert_true(breaker_wait_plan(NOW + 100, NOW, 6 * 3600, 2.5, &wake));
	assert_true(wake == NOW + 102.5);
	assert_false(breaker_wait_plan(NOW + 7 * 3600, NOW, 6 * 3600, 0, &wake));
	assert_false(breaker_wait_plan(NOW + 10, NOW, -1, 0, &wake));
	for (int i = 0; i < 100; i++) {
		double j = breaker_jitter(3600);

		assert_true(j >= 0 && j <= 30);
		assert_true(breaker_jitter(5) <= 1);
	}
}

/* Trips claude family-wide until NOW + 60 and returns the store. */
static struct store *
tripped_store(const char *name, const struct config *cfg)
{
	struct store *store = open_store(name);
	struct fail_signal sig;

	signal_of(&sig, REASON_RATE_LIMIT, "family", NOW + 60);
	record(store, cfg, "default", "", &sig, NOW, NOW, NULL);
	return store;
}

static long
dead_pid(void)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	return (long)pid;
}

static void
test_probe_lease(void **state)
{
	struct config cfg;
	struct store *store;
	struct probe_lease me, other;
	struct gate_decision d;
	struct store_error err;
	int closed;

	config_defaults(&cfg);
	store = tripped_store("probe.db", &cfg);
	assert_true(probe_holder_self(&me));
	assert_int_equal(gate(store, &cfg, "default", "", &me, -1, NOW + 30).verdict, GATE_REFUSE);
	/* After the reset the first spawn probes... */
	d = gate(store, &cfg, "default", "", &me, -1, NOW + 61);
	assert_int_equal(d.verdict, GATE_PROBE);
	/* ...and a live holder keeps the others out (or waiting until the lease expiry). */
	other = me;
	other.pid = me.pid + 1;
	d = gate(store, &cfg, "default", "", &other, -1, NOW + 62);
	assert_int_equal(d.verdict, GATE_REFUSE);
	assert_true(d.probe_busy);
	d = gate(store, &cfg, "default", "", &other, 3600, NOW + 62);
	assert_int_equal(d.verdict, GATE_WAIT);
	assert_true(d.blocked_until == NOW + 61 + cfg.probe_timeout);
	/* First real output closes it. */
	assert_true(breaker_probe_output(store, "default", "claude", &me, NOW + 70, &closed, &err));
	assert_int_equal(closed, 1);
	assert_int_equal(gate(store, &cfg, "default", "", &other, -1, NOW + 71).verdict, GATE_RUN);
	store_close(store);
}

static void
test_probe_lease_takeover(void **state)
{
	struct config cfg;
	struct store *store;
	struct probe_lease me, dead, restarted, remote;
	struct gate_decision d;

	config_defaults(&cfg);
	store = tripped_store("takeover.db", &cfg);
	probe_holder_self(&me);
	/* A holder whose pid is gone. */
	dead = me;
	dead.pid = dead_pid();
	assert_int_equal(gate(store, &cfg, "default", "", &dead, -1, NOW + 61).verdict, GATE_PROBE);
	d = gate(store, &cfg, "default", "", &me, -1, NOW + 62);
	assert_int_equal(d.verdict, GATE_PROBE);
	assert_int_equal(d.blocking.lease.pid, me.pid);
	/* A holder whose pid was reused (start time changed). */
	restarted = me;
	restarted.start_time = me.start_time - 1;
	store_close(store);
	store = tripped_store("takeover2.db", &cfg);
	assert_int_equal(gate(store, &cfg, "default", "", &restarted, -1, NOW + 61).verdict, GATE_PROBE);
	assert_int_equal(gate(store, &cfg, "default", "", &me, -1, NOW + 62).verdict, GATE_PROBE);
	store_close(store);
	/* Another host's lease: trusted until it expires, then taken over. */
	store = tripped_store("takeover3.db", &cfg);
	remote = me;
	strlcpy(remote.host, "elsewhere.example", sizeof(remote.host));
	assert_int_equal(gate(store, &cfg, "default", "", &remote, -1, NOW + 61).verdict, GATE_PROBE);
	assert_int_equal(gate(store, &cfg, "default", "", &me, -1, NOW + 62).verdict, GATE_REFUSE);
	assert_int_equal(gate(store, &cfg, "default", "", &me, -1, NOW + 62 + cfg.probe_timeout).verdict,
	    GATE_PROBE);
	store_close(store);
}

static void
test_probe_retrip_and_release(void **state)
{
	struct config cfg;
	struct store *store;
	struct probe_lease me;
	struct fail_signal sig;
	struct record_outcome out;

	config_defaults(&cfg);
	store = tripped_store("retrip.db", &cfg);
	probe_holder_self(&me);
	assert_int_equal(gate(store, &cfg, "default", "", &me, -1, NOW + 61).verdict, GATE_PROBE);
	/* The probe hits the limit again: re-tripped, lease gone. */
	signal_of(&sig, REASON_RATE_LIMIT, "family", 0);
	out = record(store, &cfg, "default", "", &sig, NOW + 61, NOW + 65, &me);
	assert_int_equal(out.change, CHANGE_TRIPPED);
	assert_int_equal(out.breaker.lease.pid, 0);
	assert_true(out.breaker.resets_at == NOW + 65 + 900);
	/* A probe that fails for another reason releases its lease: the next spawn probes. */
	assert_int_equal(gate(store, &cfg, "default", "", &me, -1, NOW + 2000).verdict, GATE_PROBE);
	signal_of(&sig, REASON_AUTH, "family", 0);
	record(store, &cfg, "default", "", &sig, NOW + 2000, NOW + 2001, &me);
	me.pid++;
	assert_int_equal(gate(store, &cfg, "default", "", &me, -1, NOW + 2002).verdict, GATE_PROBE);
	store_close(store);
}

static void
test_manual_trip_and_reset(void **state)
{
	struct store *store = open_store("manual.db");
	struct config cfg;
	struct breaker_key key = { .account = "default", .family = "claude", .scope = "opus" };
	struct breaker after;
	struct store_error err;
	int matched, closed;

	config_defaults(&cfg);
	assert_true(breaker_trip_manual(store, &cfg, &key, REASON_USAGE_LIMIT, NOW + 600, NOW, &after, &err));
	assert_string_equal(after.reset_source, "manual");
	/* Never shortened by a later, earlier manual trip either. */
	assert_true(breaker_trip_manual(store, &cfg, &key, REASON_USAGE_LIMIT, NOW + 60, NOW, &after, &err));
	assert_true(after.resets_at == NOW + 600);
	strlcpy(key.scope, "*", sizeof(key.scope));
	assert_true(breaker_reset(store, &key, NOW, &matched, &closed, &err));
	assert_int_equal(matched, 1);
	assert_int_equal(closed, 1);
	assert_true(breaker_reset(store, NULL, NOW, &matched, &closed, &err));
	assert_int_equal(closed, 0);
	store_close(store);
}

/* ---- the store: files, migrations, errors ------------------------------ */

static void
test_store_creates_private_files(void **state)
{
	struct store_options opts = { .busy_timeout_ms = 100 };
	struct store_error err;
	struct store *store;
	struct stat st;
	char dir[128];

	snprintf(dir, sizeof(dir), "%s/new/sub", tmpdir);
	snprintf(opts.path, sizeof(opts.path), "%s/state.db", dir);
	assert_true(store_open(&opts, &store, &err));
	assert_int_equal(store_schema_version(store), STORE_SCHEMA_VERSION);
	store_close(store);
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	assert_int_equal(stat(opts.path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	/* Opening again is idempotent. */
	assert_true(store_open(&opts, &store, &err));
	store_close(store);
}

static void
sql(const char *path, const char *text)
{
	sqlite3 *db;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	if (sqlite3_exec(db, text, NULL, NULL, NULL) != SQLITE_OK)
		fail_msg("sql: %s", sqlite3_errmsg(db));
	sqlite3_close(db);
}

static void
test_migration_from_version_1(void **state)
{
	struct store_options opts = { .busy_timeout_ms = 100 };
	struct store_error err;
	struct store *store;
	struct breaker *rows;
	size_t count;

	snprintf(opts.path, sizeof(opts.path), "%s/v1.db", tmpdir);
	/* What rlwrap schema version 1 wrote. */
	sql(opts.path, "CREATE TABLE breakers (account TEXT NOT NULL, family TEXT NOT NULL, scope TEXT NOT NULL,"
	    " state TEXT NOT NULL DEFAULT 'closed', reason TEXT, resets_at REAL, reset_source TEXT,"
	    " trips INTEGER NOT NULL DEFAULT 0, consecutive_unknown INTEGER NOT NULL DEFAULT 0,"
	    " last_trip_at REAL, last_message TEXT, updated_at REAL, PRIMARY KEY (account, family, scope));"
	    "CREATE TABLE breaker_history (id INTEGER PRIMARY KEY, at REAL NOT NULL, account TEXT NOT NULL,"
	    " family TEXT NOT NULL, scope TEXT NOT NULL, event TEXT NOT NULL, state TEXT NOT NULL,"
	    " reason TEXT, resets_at REAL, reset_source TEXT, trips INTEGER, run_id INTEGER, message TEXT);"
	    "CREATE TABLE runs (id INTEGER PRIMARY KEY, argv TEXT, cwd TEXT, family TEXT, model TEXT,"
	    " account TEXT, started_at REAL, ended_at REAL, exit_code INTEGER, term_signal INTEGER,"
	    " reason TEXT, confidence REAL, terminal INTEGER, scope TEXT, http_status INTEGER,"
	    " error_type TEXT, limit_type TEXT, resets_at REAL, reset_source TEXT, message TEXT,"
	    " line INTEGER, after_output INTEGER, input_tokens INTEGER, output_tokens INTEGER, cost_usd REAL);"
	    "INSERT INTO breakers (account, family, scope, state, reason, resets_at, reset_source, trips)"
	    " VALUES ('default', 'codex', '*', 'open', 'usage-limit', 1796050000, 'provider', 3);"
	    "PRAGMA user_version = 1;");
	assert_true(store_open(&opts, &store, &err));
	assert_int_equal(store_schema_version(store), 2);
	assert_true(store_breakers_of(store, "default", "codex", &rows, &count, &err));
	assert_int_equal(count, 1);
	assert_int_equal(rows[0].trips, 3);
	assert_int_equal(rows[0].state, BREAKER_OPEN);
	assert_true(rows[0].resets_at == 1796050000);
	free(rows);
	store_close(store);
	/* Twice is the same as once. */
	assert_true(store_open(&opts, &store, &err));
	assert_int_equal(store_schema_version(store), 2);
	store_close(store);
}

static char *
slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	char *buf = malloc(1 << 20);

	assert_non_null(fp);
	*len = fread(buf, 1, 1 << 20, fp);
	fclose(fp);
	return buf;
}

static void
test_newer_version_refused_untouched(void **state)
{
	struct store_options opts = { .busy_timeout_ms = 100 };
	struct store_error err;
	struct store *store;
	size_t before_len, after_len;
	char *before, *after, wal[PATH_MAX + 8];

	snprintf(opts.path, sizeof(opts.path), "%s/v99.db", tmpdir);
	sql(opts.path, "CREATE TABLE future (x); PRAGMA user_version = 99;");
	before = slurp(opts.path, &before_len);
	assert_false(store_open(&opts, &store, &err));
	assert_null(store);
	assert_int_equal(err.status, STORE_ERR_VERSION);
	assert_non_null(strstr(err.message, "schema version 99 is newer"));
	after = slurp(opts.path, &after_len);
	assert_int_equal(before_len, after_len);
	assert_memory_equal(before, after, before_len);
	snprintf(wal, sizeof(wal), "%s-wal", opts.path);
	assert_int_not_equal(access(wal, F_OK), 0);
	free(before);
	free(after);
}

static void
test_store_errors(void **state)
{
	struct store_options opts = { .busy_timeout_ms = 100 };
	struct store_error err;
	struct store *store;
	int fd;

	/* Random bytes: corrupt. */
	snprintf(opts.path, sizeof(opts.path), "%s/junk.db", tmpdir);
	fd = open(opts.path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	for (int i = 0; i < 64; i++)
		assert_int_equal(write(fd, "\x13\x37 not sqlite at all, just bytes\xff\xfe\x01\x02xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", 64), 64);
	close(fd);
	assert_false(store_open(&opts, &store, &err));
	assert_int_equal(err.status, STORE_ERR_CORRUPT);
	/* Someone else's database. */
	snprintf(opts.path, sizeof(opts.path), "%s/foreign.db", tmpdir);
	sql(opts.path, "CREATE TABLE t (x);");
	assert_false(store_open(&opts, &store, &err));
	assert_int_equal(err.status, STORE_ERR_CORRUPT);
	/* A directory that cannot be created. */
	strlcpy(opts.path, "/proc/rlwrap-no/state.db", sizeof(opts.path));
	assert_false(store_open(&opts, &store, &err));
	assert_true(err.status == STORE_ERR_OPEN || err.status == STORE_ERR_READONLY);
	strlcpy(opts.path, "postgresql://db/rlwrap", sizeof(opts.path));
	assert_false(store_open(&opts, &store, &err));
	assert_int_equal(err.status, STORE_ERR_UNSUPPORTED);
}

static void
test_pruning(void **state)
{
	struct store_options opts = { .busy_timeout_ms = 100, .keep_runs = 3, .keep_days = 1 };
	struct store_error err;
	struct store *store;
	struct config cfg;
	struct fail_signal ok;
	struct family_counts *counts;
	size_t n;

	config_defaults(&cfg);
	signal_of(&ok, REASON_NONE, "", 0);
	snprintf(opts.path, sizeof(opts.path), "%s/prune.db", tmpdir);
	assert_true(store_open(&opts, &store, &err));
	for (int i = 0; i < 10; i++)
		record(store, &cfg, "default", "", &ok, NOW + i, NOW + i, NULL);
	assert_true(store_family_counts(store, 0, &counts, &n, &err));
	assert_int_equal(n, 1);
	assert_int_equal(counts[0].runs, 3);
	free(counts);
	/* Two days later, the old ones go by age. */
	record(store, &cfg, "default", "", &ok, NOW + 2 * 86400, NOW + 2 * 86400, NULL);
	assert_true(store_family_counts(store, 0, &counts, &n, &err));
	assert_int_equal(counts[0].runs, 1);
	free(counts);
	store_close(store);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_defaults_and_missing_file),
		cmocka_unit_test(test_config_values),
		cmocka_unit_test(test_config_errors_name_file_and_line),
		cmocka_unit_test(test_config_account_resolution),
		cmocka_unit_test(test_redaction_vectors),
		cmocka_unit_test(test_redact_argv_json),
		cmocka_unit_test(test_key_parse),
		cmocka_unit_test(test_scope_applies),
		cmocka_unit_test(test_escalation_and_cap),
		cmocka_unit_test(test_never_shorten_and_provider_replaces_guess),
		cmocka_unit_test(test_period_quota_does_not_flap),
		cmocka_unit_test(test_success_closes_only_after_last_trip),
		cmocka_unit_test(test_low_confidence_and_disabled_never_trip),
		cmocka_unit_test(test_model_scope_and_accounts),
		cmocka_unit_test(test_wait_plan_and_jitter),
		cmocka_unit_test(test_probe_lease),
		cmocka_unit_test(test_probe_lease_takeover),
		cmocka_unit_test(test_probe_retrip_and_release),
		cmocka_unit_test(test_manual_trip_and_reset),
		cmocka_unit_test(test_store_creates_private_files),
		cmocka_unit_test(test_migration_from_version_1),
		cmocka_unit_test(test_newer_version_refused_untouched),
		cmocka_unit_test(test_store_errors),
		cmocka_unit_test(test_pruning),
	};

	return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
