/* rlwrap config (check | show): what the config says, and what is wrong
 * with it and with the store, without running anything. */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd.h"
#include "conf.h"
#include "redact.h"
#include "store.h"

/* url with its password as "***": the userinfo's (scheme://user:PASS@),
 * and a password= keyword or query parameter's. */
static void
mask_password(const char *url, char *out, size_t size)
{
	const char *scheme = strstr(url, "://"), *at, *colon, *kw;
	size_t n;

	strlcpy(out, url, size);
	if (scheme != NULL && (at = strchr(scheme + 3, '@')) != NULL &&
	    (colon = memchr(scheme + 3, ':', (size_t)(at - scheme - 3))) != NULL) {
		n = (size_t)(colon + 1 - url);
		snprintf(out, size, "%.*s***%s", (int)n, url, at);
	}
	if ((kw = strstr(out, "password=")) != NULL) {
		char rest[PATH_MAX];

		n = strcspn(kw + 9, " &");
		strlcpy(rest, kw + 9 + n, sizeof(rest));
		snprintf(out + (kw + 9 - out), size - (size_t)(kw + 9 - out), "***%s", rest);
	}
}

static void
print_duration(const char *key, double secs)
{
	char d[32];

	format_duration_short(secs, d, sizeof(d));
	printf("%s = %s\n", key, d);
}

static void
show_wrapper(const struct config *cfg)
{
	static const char *const pty[] = { "auto", "on", "off" };

	printf("[wrapper]\n");
	if (cfg->wrapper_wait < 0)
		printf("wait = off\n");
	else
		print_duration("wait", cfg->wrapper_wait);
	printf("retry = %ld\nquiet = %s\npty = %s\norphan = %s\n", cfg->wrapper_retry,
	    cfg->wrapper_quiet ? "true" : "false", pty[cfg->wrapper_pty],
	    cfg->wrapper_orphan_keep ? "keep" : "kill");
}

static void
show_breaker(const struct config *cfg)
{
	const char *sep = "";

	printf("\n[breaker]\nenabled = %s\ntrip_on = ", cfg->breaker_enabled ? "true" : "false");
	for (int r = 0; r < REASON_COUNT; r++)
		if (cfg->trip_on[r]) {
			printf("%s%s", sep, reason_name((enum reason)r));
			sep = ", ";
		}
	printf("\nmin_confidence = %g\n", cfg->min_confidence);
	print_duration("cooldown_rate_limit", cfg->cooldown_rate_limit);
	print_duration("cooldown_usage_limit", cfg->cooldown_usage_limit);
	print_duration("cooldown_credit_exhausted", cfg->cooldown_credit_exhausted);
	print_duration("max_cooldown", cfg->max_cooldown);
	print_duration("max_provider_reset", cfg->max_provider_reset);
	print_duration("probe_timeout", cfg->probe_timeout);
	printf("on_store_error = %s\non_config_error = %s\n",
	    cfg->on_store_error == STORE_ERROR_OPEN ? "open" : "closed",
	    cfg->on_config_error == CONFIG_ERROR_OPEN ? "open" : "closed");
}

static void
show_store(const struct config *cfg)
{
	struct store_options opts;
	struct store_error error;
	char shown[PATH_MAX + 8];

	printf("\n[store]\n");
	if (store_options_resolve(&opts, cfg->store_path, cfg->keep_runs, cfg->keep_days, &error)) {
		store_options_server(&opts, cfg->store_schema, cfg->store_connect_timeout,
		    cfg->store_statement_timeout, cfg->store_pool);
		mask_password(opts.path, shown, sizeof(shown));
		print_visible("path = %s", shown);
		if (store_is_server_url(opts.path)) {
			printf("schema = %s\n", opts.schema);
			print_duration("connect_timeout", opts.connect_timeout);
			print_duration("statement_timeout", opts.statement_timeout);
			printf("pool = %s\n", store_pool_name(opts.pool));
		}
	} else {
		print_visible("# path: %s", error.message);
	}
	printf("keep_runs = %ld\nkeep_days = %ld\n", cfg->keep_runs, cfg->keep_days);
	if (cfg->store_memo_ttl > 0)
		print_duration("memo_ttl", cfg->store_memo_ttl);
	else
		printf("memo_ttl = 0\n");
}

static void
show_hooks(const struct config *cfg)
{
	char shown[CONFIG_HOOK_MAX + 8];

	printf("\n[hooks]\n");
	for (int e = 0; e < HOOK_EVENTS; e++)
		if (cfg->hooks[e][0] != '\0') {
			mask_password(cfg->hooks[e], shown, sizeof(shown));
			print_visible("on_%s = %s", hook_event_name((enum hook_event)e), shown);
		}
	print_duration("timeout", cfg->hook_timeout);
}

static void
show_family(const struct config *cfg, const struct family_config *fc)
{
	const char *sep = "";
	char d[32];

	printf("\n[family.%s]\n", fc->name);
	if (cfg->command_map_len > 0) {
		printf("commands = ");
		for (size_t i = 0; i < cfg->command_map_len; i++)
			if (strcmp(cfg->command_map[i].family, fc->name) == 0) {
				printf("%s%s", sep, cfg->command_map[i].command);
				sep = ", ";
			}
		printf("\n");
	}
	if (fc->account[0] != '\0')
		print_visible("account = %s", fc->account);
	if (fc->config_dir_env[0] != '\0')
		printf("config_dir_env = %s\n", fc->config_dir_env);
	if (fc->auto_max > 0)
		printf("max_concurrent = auto %ld..%ld\n", fc->auto_min, fc->auto_max);
	else
		printf("max_concurrent = %ld\n", fc->max_concurrent);
	for (size_t i = 0; i < fc->budgets_len; i++) {
		const struct budget *b = &fc->budgets[i];

		format_duration_short(b->window, d, sizeof(d));
		printf("budget = %g %s per %s%s%s\n", b->amount, budget_unit_name(b->unit), d,
		    b->model[0] != '\0' ? " model=" : "", b->model);
	}
	if (fc->estimate_tokens > 0)
		printf("estimate = %g tokens\n", fc->estimate_tokens);
	for (size_t i = 0; i < fc->pool_len; i++)
		printf("%s%s%s", i == 0 ? "accounts = " : " ", fc->pool[i], i + 1 == fc->pool_len ? "\n" : "");
}

/* An account's environment, each VAR=value as the redactor leaves it (an
 * API key may select an account). */
static void
show_account(const struct account_config *ac)
{
	char item[CONFIG_ENV_NAME_MAX + CONFIG_ENV_VALUE_MAX + 2], *shown;
	bool redacted = false;

	printf("\n[account.%s]\n", ac->name);
	for (size_t i = 0; i < ac->env_len; i++) {
		snprintf(item, sizeof(item), "%s=%s", ac->env[i].name, ac->env[i].value);
		if ((shown = redact_arg(item, false, &redacted)) == NULL)
			err(1, "out of memory");
		print_visible("env = %s", shown);
		free(shown);
	}
}

/* The effective config as a file that would give it back. */
static int
config_show(const struct config *cfg)
{
	if (cfg->loaded_from[0] != '\0')
		print_visible("# config: %s", cfg->loaded_from);
	else
		printf("# config: none; the built-in defaults\n");
	show_wrapper(cfg);
	show_breaker(cfg);
	show_store(cfg);
	show_hooks(cfg);
	for (size_t i = 0; i < cfg->families_len; i++)
		show_family(cfg, &cfg->families[i]);
	for (size_t i = 0; i < cfg->accounts_len; i++)
		show_account(&cfg->accounts[i]);
	return 0;
}

/* The store, opened as a state command would open it; a file not created
 * yet is fine (the first run creates it). */
static bool
check_store(const struct config *cfg)
{
	struct store_options opts;
	struct store_error error;
	struct store *store;
	struct stat st;
	char shown[PATH_MAX + 8];

	if (!store_options_resolve(&opts, cfg->store_path, cfg->keep_runs, cfg->keep_days, &error)) {
		print_visible("store: %s", error.message);
		return false;
	}
	store_options_server(&opts, cfg->store_schema, cfg->store_connect_timeout, cfg->store_statement_timeout,
	    cfg->store_pool);
	mask_password(opts.path, shown, sizeof(shown));
	if (!store_is_server_url(opts.path) && stat(opts.path, &st) != 0 && errno == ENOENT) {
		print_visible("store %s: ok (not created yet; the first run creates it)", shown);
		return true;
	}
	if (!store_open(&opts, &store, &error) && (error.status != STORE_ERR_READONLY ||
	    !(opts.read_only = true, store_open(&opts, &store, &error)))) {
		print_visible("store: %s", error.message);
		return false;
	}
	print_visible("store %s: ok (%s, schema %d%s)", store_path(store), store_backend_name(store),
	    store_schema_version(store), opts.read_only ? ", read-only" : "");
	store_close(store);
	return true;
}

/* Every problem of the config, then the store's; 1 when there is one. */
static int
config_check(const struct config *cfg)
{
	size_t kept = cfg->problems_len < CONFIG_PROBLEMS_MAX ? cfg->problems_len : CONFIG_PROBLEMS_MAX;
	bool ok = cfg->problems_len == 0;

	for (size_t i = 0; i < kept; i++)
		print_visible("%s", cfg->problems[i]);
	if (cfg->problems_len > kept)
		printf("... and %zu more problems\n", cfg->problems_len - kept);
	if (ok)
		print_visible("config %s: ok", cfg->loaded_from[0] != '\0' ? cfg->loaded_from :
		    "(none: the built-in defaults)");
	return check_store(cfg) && ok ? 0 : 1;
}

static int
config_exec(struct args *args)
{
	const char *what = args->operands[0];
	char error[CONFIG_PROBLEM_MAX];
	struct config cfg;
	int rc;

	if (strcmp(what, "check") != 0 && strcmp(what, "show") != 0)
		return usage_error(&cmd_config_entry, "config %s: not check or show", what);
	/* The problems are this command's output, not warnings. */
	(void)config_load(&cfg, error, sizeof(error));
	if (strcmp(what, "show") == 0)
		cmd_warn_config_problems(&cfg);
	rc = strcmp(what, "check") == 0 ? config_check(&cfg) : config_show(&cfg);
	config_free(&cfg);
	return rc;
}

static const struct cmd_help config_help[] = {
	{ "--help", "this text", "rlwrap config --help" },
	{ "ACTION", "check: every problem of the config file and the store, one a line, exit 1 when "
	  "there is one; show: the config in effect (the file over the defaults), passwords masked",
	  "rlwrap config check" },
	{ NULL, NULL, NULL },
};

const struct cmd_entry cmd_config_entry = {
	.name = "config",
	.optstring = "",
	.longopts = NULL,
	.lower = 1,
	.upper = 1,
	.usage = "config (check | show)",
	.summary = "check the config and the store, or show the config in effect",
	.help = config_help,
	.exec = config_exec,
};
