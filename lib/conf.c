/* conf.c: reading rlwrap.conf(5) with inih. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ini.h>

#include "conf.h"
#include "dialect.h"
#include "textutil.h"
#include "timeparse.h"

/* What the inih handler carries: the config, and where the reader is (the
 * reader counts lines, so that each problem names its own). */
struct parse_state {
	struct config *cfg;
	const char *path;
	FILE *fp;
	int line;
	bool after_key;   /* the last line read was a key's: an indented one continues it */
};

/* The known sections, for `config show` and suggestions. */
static const char *const config_sections[] = { "wrapper", "breaker", "store", "hooks", "family", "account", NULL };

static const char *const wrapper_keys[] = { "wait", "retry", "quiet", "pty", "orphan", NULL };
static const char *const breaker_keys[] = {
	"enabled", "trip_on", "min_confidence", "on_store_error", "on_config_error",
	"cooldown_rate_limit", "cooldown_usage_limit", "cooldown_credit_exhausted", "max_cooldown",
	"max_provider_reset", "probe_timeout", NULL
};
static const char *const store_keys[] = {
	"path", "url", "schema", "keep_runs", "keep_days", "connect_timeout", "statement_timeout",
	"memo_ttl", "pool", NULL
};
static const char *const hooks_keys[] = { "on_trip", "on_close", "on_wait", "on_reserve", "timeout", NULL };
static const char *const family_keys[] = {
	"commands", "account", "accounts", "config_dir_env", "max_concurrent", "budget", "estimate", "reserve",
	NULL
};
static const char *const account_keys[] = { "env", NULL };

static const char *
nearest(const char *const *words, const char *name)
{
	const char *best = NULL;
	int best_d = 3, d;

	for (; *words != NULL; words++)
		if ((d = edit_distance(name, *words, 2)) < best_d)
			best = *words, best_d = d;
	return best;
}

/* The key of section ("family" for [family.NAME]) nearest name (two edits
 * at most), or NULL. */
static const char *
config_key_near(const char *section, const char *name)
{
	static const char *const *const keys[] = { wrapper_keys, breaker_keys, store_keys, hooks_keys,
		family_keys, account_keys };

	for (size_t i = 0; config_sections[i] != NULL; i++)
		if (strcmp(section, config_sections[i]) == 0)
			return nearest(keys[i], name);
	return NULL;
}

static void config_problem(struct config *cfg, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
config_problem(struct config *cfg, const char *fmt, ...)
{
	va_list ap;

	if (cfg->problems_len < CONFIG_PROBLEMS_MAX) {
		va_start(ap, fmt);
		vsnprintf(cfg->problems[cfg->problems_len], CONFIG_PROBLEM_MAX, fmt, ap);
		va_end(ap);
	}
	cfg->problems_len++;
}

void
config_defaults(struct config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->wrapper_wait = -1;
	cfg->wrapper_record_refused = true;
	cfg->breaker_enabled = true;
	cfg->trip_on[REASON_RATE_LIMIT] = true;
	cfg->trip_on[REASON_USAGE_LIMIT] = true;
	cfg->trip_on[REASON_CREDIT_EXHAUSTED] = true;
	cfg->min_confidence = 0.5;
	cfg->cooldown_rate_limit = 15 * 60;
	cfg->cooldown_usage_limit = 60 * 60;
	cfg->cooldown_credit_exhausted = 60 * 60;
	cfg->max_cooldown = 24 * 3600;
	cfg->max_provider_reset = 8 * 86400;
	cfg->probe_timeout = 10 * 60;
	cfg->on_store_error = STORE_ERROR_OPEN;
	cfg->keep_runs = 10000;
	cfg->store_memo_ttl = CONFIG_MEMO_TTL_DEFAULT;
	cfg->keep_days = 30;
	cfg->hook_timeout = 10;
}

void
config_free(struct config *cfg)
{
	free(cfg->command_map);
	free(cfg->families);
	free(cfg->accounts);
	cfg->command_map = NULL;
	cfg->families = NULL;
	cfg->accounts = NULL;
	cfg->command_map_len = cfg->families_len = cfg->accounts_len = 0;
}

bool
config_default_path(char *buf, size_t size)
{
	const char *env = getenv("RLWRAP_CONFIG"), *xdg = getenv("XDG_CONFIG_HOME");
	const char *home = getenv("HOME");
	int n;

	if (env != NULL && *env != '\0')
		n = snprintf(buf, size, "%s", env);
	else if (xdg != NULL && *xdg == '/')
		n = snprintf(buf, size, "%s/rlwrap/config", xdg);
	else if (home != NULL && *home != '\0')
		n = snprintf(buf, size, "%s/.config/rlwrap/config", home);
	else
		return false;
	return n > 0 && (size_t)n < size;
}

static bool fail(struct parse_state *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A bad value: the problem at the reader's line; the key keeps its default. */
static bool
fail(struct parse_state *ps, const char *fmt, ...)
{
	char what[CONFIG_PROBLEM_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	config_problem(ps->cfg, "%s:%d: %s; the default is used", ps->path, ps->line, what);
	return false;
}

static bool
unknown_key(struct parse_state *ps, const char *section, const char *shown, const char *name)
{
	const char *near = config_key_near(section, name);

	if (near != NULL)
		config_problem(ps->cfg, "%s:%d: unknown key '%s' in [%s] (did you mean %s?); ignored, "
		    "%s keeps its default", ps->path, ps->line, name, shown, near, near);
	else
		config_problem(ps->cfg, "%s:%d: unknown key '%s' in [%s]; ignored", ps->path, ps->line,
		    name, shown);
	return false;
}

static bool
parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = { "true", "yes", "on", "1" }, *const no[] = { "false", "no", "off", "0" };

	for (size_t i = 0; i < 4; i++) {
		if (strcasecmp(s, yes[i]) == 0)
			return *out = true, true;
		if (strcasecmp(s, no[i]) == 0)
			return *out = false, true;
	}
	return false;
}

static bool
parse_positive_duration(const char *s, double *out)
{
	double secs;

	if (!duration_parse(s, &secs) || secs <= 0 || secs > 366.0 * 86400)
		return false;
	*out = secs;
	return true;
}

static bool
parse_count(const char *s, long *out)
{
	const char *errstr;
	long long v = strtonum(s, 0, 1000000000, &errstr);

	if (errstr != NULL)
		return false;
	*out = (long)v;
	return true;
}

/* Splits a comma list in place; calls each(item) for every non-empty, trimmed item. */
static bool
for_each_item(char *list, bool (*each)(struct parse_state *, const char *, void *),
    struct parse_state *ps, void *arg)
{
	char *item, *end;

	while ((item = strsep(&list, ",")) != NULL) {

		while (isspace((unsigned char)*item))
			item++;
		end = item + strlen(item);
		while (end > item && isspace((unsigned char)end[-1]))
			*--end = '\0';
		if (*item != '\0' && !each(ps, item, arg))
			return false;
	}
	return true;
}

static bool
add_trip_reason(struct parse_state *ps, const char *name, void *arg)
{
	enum reason r;

	if (!reason_from_name(name, &r) || r == REASON_NONE)
		return fail(ps, "trip_on: '%s' is not a failure reason", name);
	ps->cfg->trip_on[r] = true;
	return true;
}

static bool
set_trip_on(struct parse_state *ps, const char *value)
{
	struct config defaults;
	char list[1024];

	if (strlcpy(list, value, sizeof(list)) >= sizeof(list))
		return fail(ps, "trip_on: value too long");
	memset(ps->cfg->trip_on, 0, sizeof(ps->cfg->trip_on));
	if (for_each_item(list, add_trip_reason, ps, NULL))
		return true;
	config_defaults(&defaults);
	memcpy(ps->cfg->trip_on, defaults.trip_on, sizeof(defaults.trip_on));
	return false;
}

static bool
set_min_confidence(struct parse_state *ps, const char *value)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(value, &end);
	if (errno != 0 || end == value || *end != '\0' || !(v >= 0 && v <= 1))
		return fail(ps, "min_confidence: '%s' is not a number from 0 to 1", value);
	ps->cfg->min_confidence = v;
	return true;
}

static bool
breaker_option(struct parse_state *ps, const char *name, const char *value)
{
	static const struct { const char *name; size_t offset; } durations[] = {
		{ "cooldown_rate_limit", offsetof(struct config, cooldown_rate_limit) },
		{ "cooldown_usage_limit", offsetof(struct config, cooldown_usage_limit) },
		{ "cooldown_credit_exhausted", offsetof(struct config, cooldown_credit_exhausted) },
		{ "max_cooldown", offsetof(struct config, max_cooldown) },
		{ "max_provider_reset", offsetof(struct config, max_provider_reset) },
		{ "probe_timeout", offsetof(struct config, probe_timeout) },
	};
	struct config *cfg = ps->cfg;

	for (size_t i = 0; i < sizeof(durations) / sizeof(durations[0]); i++)
		if (strcmp(name, durations[i].name) == 0) {
			if (!parse_positive_duration(value, (double *)((char *)cfg + durations[i].offset)))
				return fail(ps, "%s: '%s' is not a positive duration (like 15m, 1h30m, 2d)",
				    name, value);
			return true;
		}
	if (strcmp(name, "enabled") == 0) {
		if (!parse_bool(value, &cfg->breaker_enabled))
			return fail(ps, "enabled: '%s' is not true or false", value);
		return true;
	}
	if (strcmp(name, "trip_on") == 0)
		return set_trip_on(ps, value);
	if (strcmp(name, "min_confidence") == 0)
		return set_min_confidence(ps, value);
	if (strcmp(name, "on_store_error") == 0) {
		if (strcmp(value, "open") != 0 && strcmp(value, "closed") != 0)
			return fail(ps, "on_store_error: '%s' is not open or closed", value);
		cfg->on_store_error = strcmp(value, "open") == 0 ? STORE_ERROR_OPEN : STORE_ERROR_CLOSED;
		return true;
	}
	if (strcmp(name, "on_config_error") == 0) {
		if (strcmp(value, "open") != 0 && strcmp(value, "closed") != 0)
			return fail(ps, "on_config_error: '%s' is not open or closed", value);
		cfg->on_config_error = strcmp(value, "open") == 0 ? CONFIG_ERROR_OPEN : CONFIG_ERROR_CLOSED;
		return true;
	}
	return unknown_key(ps, "breaker", "breaker", name);
}

static bool
set_pty(struct parse_state *ps, const char *value)
{
	static const char *const names[] = { "auto", "on", "off" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(value, names[i]) == 0) {
			ps->cfg->wrapper_pty = (enum pty_setting)i;
			return true;
		}
	return fail(ps, "pty: '%s' is not auto, on or off", value);
}

static bool
wrapper_key(struct parse_state *ps, const char *name, const char *value)
{
	struct config *cfg = ps->cfg;

	if (strcmp(name, "wait") == 0) {
		if (strcmp(value, "off") == 0)
			cfg->wrapper_wait = -1;
		else if (!parse_positive_duration(value, &cfg->wrapper_wait))
			return fail(ps, "wait: '%s' is not off or a positive duration (like 6h)", value);
		return true;
	}
	if (strcmp(name, "retry") == 0) {
		if (!parse_count(value, &cfg->wrapper_retry) || cfg->wrapper_retry > 100) {
			cfg->wrapper_retry = 0;
			return fail(ps, "retry: '%s' is not a whole number from 0 to 100", value);
		}
		return true;
	}
	if (strcmp(name, "quiet") == 0) {
		if (!parse_bool(value, &cfg->wrapper_quiet))
			return fail(ps, "quiet: '%s' is not true or false", value);
		return true;
	}
	if (strcmp(name, "record_refused") == 0) {
		if (!parse_bool(value, &cfg->wrapper_record_refused))
			return fail(ps, "record_refused: '%s' is not yes or no", value);
		return true;
	}
	if (strcmp(name, "pty") == 0)
		return set_pty(ps, value);
	if (strcmp(name, "orphan") == 0) {
		if (strcmp(value, "keep") != 0 && strcmp(value, "kill") != 0)
			return fail(ps, "orphan: '%s' is not kill or keep", value);
		cfg->wrapper_orphan_keep = strcmp(value, "keep") == 0;
		return true;
	}
	return unknown_key(ps, "wrapper", "wrapper", name);
}

static bool
store_key(struct parse_state *ps, const char *name, const char *value)
{
	struct config *cfg = ps->cfg;
	const char *home = getenv("HOME");
	int n;

	if (strcmp(name, "keep_runs") == 0 || strcmp(name, "keep_days") == 0) {
		if (!parse_count(value, name[5] == 'r' ? &cfg->keep_runs : &cfg->keep_days))
			return fail(ps, "%s: '%s' is not a whole number (0 = no limit)", name, value);
		return true;
	}
	if (strcmp(name, "connect_timeout") == 0 || strcmp(name, "statement_timeout") == 0) {
		if (!parse_positive_duration(value, name[0] == 'c' ? &cfg->store_connect_timeout :
		    &cfg->store_statement_timeout))
			return fail(ps, "%s: '%s' is not a positive duration (like 2s)", name, value);
		return true;
	}
	if (strcmp(name, "memo_ttl") == 0) {
		if (strcmp(value, "0") != 0 && !parse_positive_duration(value, &cfg->store_memo_ttl))
			return fail(ps, "memo_ttl: '%s' is not a duration (like 30s; 0 = no memo)", value);
		if (strcmp(value, "0") == 0)
			cfg->store_memo_ttl = 0;
		return true;
	}
	if (strcmp(name, "pool") == 0) {
		if (!store_pool_from_name(value, &cfg->store_pool))
			return fail(ps, "pool: '%s' is not auto, transaction or none", value);
		return true;
	}
	if (strcmp(name, "schema") == 0) {
		if (*value == '\0' || strlen(value) > 63 || strspn(value, "abcdefghijklmnopqrstuvwxyz0123456789_") !=
		    strlen(value) || (*value >= '0' && *value <= '9'))
			return fail(ps, "schema: '%s' is not a lower-case SQL name (letters, digits, _)", value);
		strlcpy(cfg->store_schema, value, sizeof(cfg->store_schema));
		return true;
	}
	/* Not echoed: a mistyped URL may still hold a password. */
	if (strcmp(name, "url") == 0 && strncmp(value, "postgresql://", 13) != 0 && strncmp(value, "postgres://", 11) != 0)
		return fail(ps, "url: not a postgresql:// or postgres:// URL");
	if (strcmp(name, "path") != 0 && strcmp(name, "url") != 0)
		return unknown_key(ps, "store", "store", name);
	if (strncmp(value, "~/", 2) == 0 && home != NULL)
		n = snprintf(cfg->store_path, sizeof(cfg->store_path), "%s/%s", home, value + 2);
	else
		n = snprintf(cfg->store_path, sizeof(cfg->store_path), "%s", value);
	if (*value == '\0' || n < 0 || (size_t)n >= sizeof(cfg->store_path)) {
		cfg->store_path[0] = '\0';
		return fail(ps, "path: '%s' is empty or too long", value);
	}
	return true;
}

static bool
valid_name(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (n == 0 || n >= max)
		return false;
	for (; *s != '\0'; s++)
		if (!isalnum((unsigned char)*s) && strchr("._-", *s) == NULL)
			return false;
	return true;
}

static struct family_config *
family_section(struct parse_state *ps, const char *name)
{
	struct config *cfg = ps->cfg;
	struct family_config *grown;

	for (size_t i = 0; i < cfg->families_len; i++)
		if (strcmp(cfg->families[i].name, name) == 0)
			return &cfg->families[i];
	grown = reallocarray(cfg->families, cfg->families_len + 1, sizeof(*grown));
	if (grown == NULL)
		return NULL;
	cfg->families = grown;
	grown = &cfg->families[cfg->families_len++];
	memset(grown, 0, sizeof(*grown));
	strlcpy(grown->name, name, sizeof(grown->name));
	return grown;
}

static bool
add_command(struct parse_state *ps, const char *command, void *family)
{
	struct config *cfg = ps->cfg;
	struct command_family *grown;
	const char *mapped = config_family_for_command(cfg, command);

	if (!valid_name(command, CONFIG_COMMAND_MAX))
		return fail(ps, "commands: '%s' is not a command basename", command);
	if (mapped != NULL && strcmp(mapped, family) != 0)
		return fail(ps, "commands: '%s' is already mapped to family %s", command, mapped);
	if (mapped != NULL)
		return true;
	grown = reallocarray(cfg->command_map, cfg->command_map_len + 1, sizeof(*grown));
	if (grown == NULL)
		return fail(ps, "out of memory");
	cfg->command_map = grown;
	strlcpy(grown[cfg->command_map_len].command, command, CONFIG_COMMAND_MAX);
	strlcpy(grown[cfg->command_map_len].family, family, CONFIG_FAMILY_MAX);
	cfg->command_map_len++;
	return true;
}

static const char *const budget_units[] = {
	[BUDGET_TOKENS] = "tokens", [BUDGET_USD] = "usd", [BUDGET_RUNS] = "runs",
};

const char *
budget_unit_name(enum budget_unit unit)
{
	return unit <= BUDGET_RUNS ? budget_units[unit] : "?";
}

/* "AMOUNT UNIT" at the start of s; *rest after the unit. */
static bool
budget_parse_head(const char *s, struct budget *out, const char **rest)
{
	char *end;
	size_t len;

	errno = 0;
	out->amount = strtod(s, &end);
	if (end == s || errno != 0 || !isfinite(out->amount) || out->amount <= 0 || out->amount > 1e15)
		return false;
	s = end + strspn(end, " \t");
	len = strcspn(s, " \t");
	for (int u = BUDGET_TOKENS; u <= BUDGET_RUNS; u++) {
		if (len == strlen(budget_units[u]) && strncmp(s, budget_units[u], len) == 0) {
			out->unit = (enum budget_unit)u;
			*rest = s + len + strspn(s + len, " \t");
			return true;
		}
	}
	return false;
}

static bool
budget_parse_amount(const char *value, struct budget *out)
{
	const char *rest;

	return budget_parse_head(value, out, &rest) && *rest == '\0';
}

/* "DURATION" or "DURATION model=NAME". */
static bool
budget_parse_window(const char *s, struct budget *out)
{
	char duration[32];
	size_t len = strcspn(s, " \t");
	const char *model = s + len + strspn(s + len, " \t");

	out->model[0] = '\0';
	if (len >= sizeof(duration))
		return false;
	memcpy(duration, s, len);
	duration[len] = '\0';
	if (!parse_positive_duration(duration, &out->window))
		return false;
	if (*model == '\0')
		return true;
	if (strncmp(model, "model=", 6) != 0)
		return false;
	model += 6;
	len = strcspn(model, " \t");
	if (len == 0 || len >= sizeof(out->model) || model[len + strspn(model + len, " \t")] != '\0')
		return false;
	memcpy(out->model, model, len);
	out->model[len] = '\0';
	return true;
}

bool
budget_parse(const char *value, struct budget *out)
{
	const char *rest;

	if (!budget_parse_head(value, out, &rest) || strncmp(rest, "per", 3) != 0 ||
	    (rest[3] != ' ' && rest[3] != '\t'))
		return false;
	rest += 3 + strspn(rest + 3, " \t");
	return budget_parse_window(rest, out);
}


/* "auto" then optional " LO..HI": the adaptive limit's bounds (default
 * ADAPTIVE_DEFAULT_MIN..ADAPTIVE_DEFAULT_MAX). */
static bool
parse_auto(struct parse_state *ps, const char *value, struct family_config *fc)
{
	char lo[16], hi[16];
	const char *dots, *rest = value + 4;

	fc->auto_min = ADAPTIVE_DEFAULT_MIN;
	fc->auto_max = ADAPTIVE_DEFAULT_MAX;
	fc->max_concurrent = 0;
	while (*rest == ' ' || *rest == '\t')
		rest++;
	if (*rest == '\0')
		return true;
	if ((dots = strstr(rest, "..")) == NULL || (size_t)(dots - rest) >= sizeof(lo) ||
	    strlcpy(hi, dots + 2, sizeof(hi)) >= sizeof(hi))
		goto bad;
	memcpy(lo, rest, (size_t)(dots - rest));
	lo[dots - rest] = '\0';
	if (!parse_count(lo, &fc->auto_min) || !parse_count(hi, &fc->auto_max) || fc->auto_min < 1 ||
	    fc->auto_max < fc->auto_min || fc->auto_max > 100000)
		goto bad;
	return true;
bad:
	fc->auto_min = fc->auto_max = 0;
	return fail(ps, "max_concurrent: '%s' is not auto or auto LO..HI (1 <= LO <= HI <= 100000)", value);
}

/* "all", or "ramp 2x 10s" with an optional "up to 4". */
static bool
parse_release(struct parse_state *ps, struct family_config *fc, const char *value)
{
	char growth[32], interval[32], cap[32] = "";
	double g, d;
	const char *errstr;
	int n;

	if (strcmp(value, "all") == 0) {
		fc->release_growth = 0;
		return true;
	}
	n = sscanf(value, "ramp %31[0-9.]x %31s up to %31s", growth, interval, cap);
	g = n >= 2 ? strtod(growth, NULL) : 0;
	if (n < 2 || g < 1 || g > 16 || !parse_positive_duration(interval, &d) ||
	    (n == 3 && (fc->release_cap = (long)strtonum(cap, 1, 100000, &errstr), errstr != NULL)))
		return fail(ps, "release: '%s' is not all or ramp GROWTHx INTERVAL [up to N] (like ramp 2x 10s)",
		    value);
	fc->release_growth = g;
	fc->release_interval = d;
	if (n < 3)
		fc->release_cap = 0;
	return true;
}
/* accounts = work personal (spaces or commas): the pool, in the order of
 * preference when nothing else tells the accounts apart. */
static bool
set_pool(struct parse_state *ps, struct family_config *fc, const char *value)
{
	char copy[256], *item, *save = NULL;

	fc->pool_len = 0;
	fc->pool_line = ps->line;
	strlcpy(copy, value, sizeof(copy));
	for (item = strtok_r(copy, " \t,", &save); item != NULL; item = strtok_r(NULL, " \t,", &save)) {
		bool twice = false;

		for (size_t i = 0; i < fc->pool_len; i++)
			twice = twice || strcmp(fc->pool[i], item) == 0;
		if (!valid_name(item, CONFIG_POOL_NAME_MAX) || twice || fc->pool_len >= POOL_ACCOUNTS_MAX) {
			fc->pool_len = 0;
			return fail(ps, "accounts: '%s' is not a list of up to %d distinct account names (letters,"
			    " digits, '.', '_', '-'; like work personal)", value, POOL_ACCOUNTS_MAX);
		}
		strlcpy(fc->pool[fc->pool_len++], item, CONFIG_POOL_NAME_MAX);
	}
	if (fc->pool_len == 0)
		return fail(ps, "accounts: empty (like accounts = work personal)");
	return true;
}

static bool
family_key(struct parse_state *ps, const char *family, const char *name, const char *value)
{
	struct family_config *fc;
	char list[1024];

	if (!valid_name(family, CONFIG_FAMILY_MAX))
		return fail(ps, "[family.%s]: not a family name (letters, digits, '.', '_', '-')",
		    family);
	if ((fc = family_section(ps, family)) == NULL)
		return fail(ps, "out of memory");
	if (strcmp(name, "commands") == 0) {
		if (strlcpy(list, value, sizeof(list)) >= sizeof(list))
			return fail(ps, "commands: value too long");
		return for_each_item(list, add_command, ps, fc->name);
	}
	if (strcmp(name, "account") == 0) {
		if (*value == '\0' || strlcpy(fc->account, value, sizeof(fc->account)) >= sizeof(fc->account)) {
			fc->account[0] = '\0';
			return fail(ps, "account: '%s' is empty or too long", value);
		}
		return true;
	}
	if (strcmp(name, "accounts") == 0)
		return set_pool(ps, fc, value);
	if (strcmp(name, "config_dir_env") == 0) {
		if (!valid_name(value, sizeof(fc->config_dir_env)) || strchr(value, '-') != NULL)
			return fail(ps, "config_dir_env: '%s' is not an environment variable name", value);
		strlcpy(fc->config_dir_env, value, sizeof(fc->config_dir_env));
		return true;
	}
	if (strcmp(name, "max_concurrent") == 0) {
		fc->auto_min = fc->auto_max = 0;
		if (strncmp(value, "auto", 4) == 0)
			return parse_auto(ps, value, fc);
		if (!parse_count(value, &fc->max_concurrent) || fc->max_concurrent > 100000) {
			fc->max_concurrent = 0;
			return fail(ps, "max_concurrent: '%s' is not a whole number from 0 (no limit) to 100000",
			    value);
		}
		return true;
	}
	if (strcmp(name, "budget") == 0) {
		if (fc->budgets_len >= CONFIG_BUDGETS_MAX)
			return fail(ps, "budget: at most %d per family", CONFIG_BUDGETS_MAX);
		if (!budget_parse(value, &fc->budgets[fc->budgets_len]))
			return fail(ps, "budget: '%s' is not AMOUNT tokens|usd|runs per DURATION [model=NAME]"
			    " (like 30000 tokens per 1m)", value);
		fc->budgets_len++;
		return true;
	}
	if (strcmp(name, "release") == 0)
		return parse_release(ps, fc, value);
	if (strcmp(name, "reserve") == 0) {
		if (!reserve_parse(value, fc->reserves, RESERVES_MAX, &fc->reserves_len)) {
			fc->reserves_len = 0;
			return fail(ps, "reserve: '%s' is not SHARE%% or up to %d of WINDOW:SHARE%% (like 10%% or"
			    " 5h:10%% 7d:5%%)", value, RESERVES_MAX);
		}
		return true;
	}
	if (strcmp(name, "estimate") == 0) {
		struct budget e;

		if (!budget_parse_amount(value, &e) || e.unit != BUDGET_TOKENS)
			return fail(ps, "estimate: '%s' is not N tokens (like 4500 tokens)", value);
		fc->estimate_tokens = e.amount;
		return true;
	}
	{
		char shown[CONFIG_FAMILY_MAX + 8];

		snprintf(shown, sizeof(shown), "family.%s", family);
		return unknown_key(ps, "family", shown, name);
	}
}

static struct account_config *
account_section(struct parse_state *ps, const char *name)
{
	struct config *cfg = ps->cfg;
	struct account_config *grown;

	for (size_t i = 0; i < cfg->accounts_len; i++)
		if (strcmp(cfg->accounts[i].name, name) == 0)
			return &cfg->accounts[i];
	grown = reallocarray(cfg->accounts, cfg->accounts_len + 1, sizeof(*grown));
	if (grown == NULL)
		return NULL;
	cfg->accounts = grown;
	grown = &cfg->accounts[cfg->accounts_len++];
	memset(grown, 0, sizeof(*grown));
	strlcpy(grown->name, name, sizeof(grown->name));
	return grown;
}

/* One VAR=value of an env line, "~" and "~/" expanded from $HOME. */
static bool
parse_env_item(const char *item, struct account_env *e)
{
	const char *eq = strchr(item, '='), *home = getenv("HOME"), *v;
	size_t len = eq != NULL ? (size_t)(eq - item) : 0;
	int n;

	if (len == 0 || len >= sizeof(e->name) || isdigit((unsigned char)*item))
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)item[i]) && item[i] != '_')
			return false;
	memcpy(e->name, item, len);
	e->name[len] = '\0';
	v = eq + 1;
	if ((strcmp(v, "~") == 0 || strncmp(v, "~/", 2) == 0) && home != NULL && *home != '\0')
		n = snprintf(e->value, sizeof(e->value), "%s%s", home, v + 1);
	else
		n = snprintf(e->value, sizeof(e->value), "%s", v);
	return n >= 0 && (size_t)n < sizeof(e->value);
}

/* [account.NAME] env = VAR=value ...: every line adds to the account's
 * environment; a bad line adds nothing. */
static bool
account_key(struct parse_state *ps, const char *account, const char *name, const char *value)
{
	struct account_config *ac;
	struct account_env items[ACCOUNT_ENV_MAX];
	char copy[256], *item, *save = NULL, shown[CONFIG_POOL_NAME_MAX + 16];
	size_t n = 0;

	if (!valid_name(account, CONFIG_POOL_NAME_MAX))
		return fail(ps, "[account.%s]: not an account name (letters, digits, '.', '_', '-')", account);
	if (strcmp(name, "env") != 0) {
		snprintf(shown, sizeof(shown), "account.%s", account);
		return unknown_key(ps, "account", shown, name);
	}
	if ((ac = account_section(ps, account)) == NULL)
		return fail(ps, "out of memory");
	strlcpy(copy, value, sizeof(copy));
	for (item = strtok_r(copy, " \t", &save); item != NULL; item = strtok_r(NULL, " \t", &save))
		if (ac->env_len + n >= ACCOUNT_ENV_MAX || !parse_env_item(item, &items[n++]))
			return fail(ps, "env: '%s' is not up to %d of VAR=value (like CLAUDE_CONFIG_DIR=~/.claude-work)"
			    "; nothing of this line is set", item, ACCOUNT_ENV_MAX);
	if (n == 0)
		return fail(ps, "env: empty (like env = CLAUDE_CONFIG_DIR=~/.claude-work)");
	memcpy(&ac->env[ac->env_len], items, n * sizeof(items[0]));
	ac->env_len += n;
	return true;
}

/* After the whole file: a pool's account needs its environment, or a
 * spawn given it would run on whatever account the caller's has. */
static void
check_pools(struct config *cfg, const char *path)
{
	for (size_t f = 0; f < cfg->families_len; f++) {
		struct family_config *fc = &cfg->families[f];

		for (size_t i = 0; i < fc->pool_len; i++) {
			const struct account_config *ac = config_account(cfg, fc->pool[i]);

			if (ac != NULL && ac->env_len > 0)
				continue;
			config_problem(cfg, "%s:%d: accounts: '%s' has no [account.%s] with an env; the default is "
			    "used (no pool)", path, fc->pool_line, fc->pool[i], fc->pool[i]);
			fc->pool_len = 0;
			break;
		}
	}
}

static const char *const hook_event_names[HOOK_EVENTS] = {
	[HOOK_TRIP] = "trip", [HOOK_CLOSE] = "close", [HOOK_WAIT] = "wait", [HOOK_RESERVE] = "reserve",
};

const char *
hook_event_name(enum hook_event event)
{
	return event < HOOK_EVENTS ? hook_event_names[event] : "?";
}

/* [hooks]: on_EVENT = command (run by cmd/hook.c), timeout = duration. */
static bool
hooks_key(struct parse_state *ps, const char *name, const char *value)
{
	struct config *cfg = ps->cfg;

	if (strcmp(name, "timeout") == 0) {
		if (!parse_positive_duration(value, &cfg->hook_timeout))
			return fail(ps, "timeout: '%s' is not a positive duration (like 10s)", value);
		return true;
	}
	for (int e = 0; e < HOOK_EVENTS; e++) {
		if (strncmp(name, "on_", 3) != 0 || strcmp(name + 3, hook_event_names[e]) != 0)
			continue;
		/* a config line is at most 198 bytes (CONFIG_LINE_MAX): it always fits */
		strlcpy(cfg->hooks[e], value, sizeof(cfg->hooks[e]));
		return true;
	}
	return unknown_key(ps, "hooks", "hooks", name);
}

/* inih reads lines into 200 bytes (198, the newline and a NUL): a longer
 * line would be read in pieces and later
 * lines misnumbered, and it stops at a NUL byte; so such files are refused. */
#define CONFIG_LINE_MAX 198

/* Every line is read: a problem is kept in cfg and the next line read on,
 * so inih is always told the line was fine.  An unknown section was
 * reported at its header (scan_lines()); its keys are skipped. */
static int
config_entry(void *user, const char *section, const char *name, const char *value)
{
	struct parse_state *ps = user;

	if (strcmp(section, "wrapper") == 0)
		(void)wrapper_key(ps, name, value);
	else if (strcmp(section, "breaker") == 0)
		(void)breaker_option(ps, name, value);
	else if (strcmp(section, "store") == 0)
		(void)store_key(ps, name, value);
	else if (strcmp(section, "hooks") == 0)
		(void)hooks_key(ps, name, value);
	else if (strncmp(section, "family.", 7) == 0)
		(void)family_key(ps, section + 7, name, value);
	else if (strncmp(section, "account.", 8) == 0)
		(void)account_key(ps, section + 8, name, value);
	else if (*section == '\0')
		config_problem(ps->cfg, "%s:%d: key '%s' outside any section; ignored", ps->path, ps->line,
		    name);
	return 1;
}


static bool
section_known(const char *name)
{
	if (strncmp(name, "family.", 7) == 0 || strncmp(name, "account.", 8) == 0)
		return true;
	/* "family" and "account" alone are heads of [family.NAME] and
	 * [account.NAME], not sections */
	for (size_t i = 0; config_sections[i] != NULL; i++)
		if (strcmp(name, config_sections[i]) == 0 && strcmp(name, "family") != 0 &&
		    strcmp(name, "account") != 0)
			return true;
	return false;
}

/* [familiy.claude] -> family.claude, [stroe] -> store. */
static void
section_suggestion(const char *name, char *buf, size_t size)
{
	const char *dot = strchr(name, '.');
	char head[32];
	const char *near;

	buf[0] = '\0';
	snprintf(head, sizeof(head), "%.*s", dot != NULL ? (int)(dot - name) : (int)strlen(name), name);
	if ((near = nearest(config_sections, head)) == NULL)
		return;
	if (strcmp(near, "family") == 0 || strcmp(near, "account") == 0)
		snprintf(buf, size, " (did you mean [%s.%s]?)", near, dot != NULL ? dot + 1 : "NAME");
	else if (dot == NULL)
		snprintf(buf, size, " (did you mean [%s]?)", near);
}

/* One line as inih reads it (INI_ALLOW_MULTILINE, ';' and '#' comments):
 * a section header is checked here, at its own line (inih tells the
 * handler of a section only at its first key, and never of an empty one),
 * and a line inih cannot read is reported. */
static void
scan_line(struct parse_state *ps, char *line)
{
	bool *after_key = &ps->after_key;
	char *s = line + strspn(line, " \t"), *end, hint[64];

	s[strcspn(s, "\r\n")] = '\0';
	if (*s == '\0' || *s == ';' || *s == '#' || (s > line && *after_key))
		return;
	if (*s == '[') {
		*after_key = false;
		if ((end = strchr(s, ']')) == NULL) {
			config_problem(ps->cfg, "%s:%d: syntax error (no ']' after the section name); ignored",
			    ps->path, ps->line);
			return;
		}
		*end = '\0';
		if (!section_known(s + 1)) {
			section_suggestion(s + 1, hint, sizeof(hint));
			config_problem(ps->cfg, "%s:%d: unknown section [%s]%s; its keys are ignored",
			    ps->path, ps->line, s + 1, hint);
		}
		return;
	}
	if (strcspn(s, "=:") == strlen(s)) {
		config_problem(ps->cfg, "%s:%d: syntax error (expected [section] or key = value); ignored",
		    ps->path, ps->line);
		return;
	}
	*after_key = true;
}



/* The first line that is too long or holds a NUL byte, 0 when none. */
static int
bad_line(FILE *fp, const char **why)
{
	int c, line = 1;
	size_t len = 0;

	while ((c = getc(fp)) != EOF) {
		if (c == '\n') {
			line++;
			len = 0;
		} else if (c == '\0' || ++len > CONFIG_LINE_MAX) {
			*why = c == '\0' ? "a NUL byte (not a text file)" : "line longer than 198 bytes";
			return line;
		}
	}
	rewind(fp);
	return 0;
}

static bool
is_dev_null(const struct stat *st)
{
	struct stat null;

	return stat("/dev/null", &null) == 0 && S_ISCHR(null.st_mode) && null.st_rdev == st->st_rdev;
}

/* Opens the config for reading; a directory was silently read as empty
 * and a FIFO blocked rlwrap forever, so anything but a regular file is an
 * error, found without blocking (O_NONBLOCK, then fstat).  *fp NULL and
 * true: there is no config. */
static bool
open_config(const char *path, FILE **fp, char *err, size_t errsize)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	*fp = NULL;
	if (fd < 0 && errno == ENOENT)
		return true;
	if (fd < 0 || fstat(fd, &st) != 0) {
		snprintf(err, errsize, "%s: %s", path, strerror(errno));
		goto fail;
	}
	/* /dev/null is the usual way to say "no config": read it as empty. */
	if (S_ISCHR(st.st_mode) && is_dev_null(&st)) {
		close(fd);
		return true;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errsize, "%s: not a regular file (%s)", path, S_ISDIR(st.st_mode) ? "a directory" :
		    S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISSOCK(st.st_mode) ? "a socket" : "a device");
		goto fail;
	}
	if (fcntl(fd, F_SETFL, 0) == 0 && (*fp = fdopen(fd, "r")) != NULL)
		return true;
	snprintf(err, errsize, "%s: %s", path, strerror(errno));
fail:
	if (fd >= 0)
		close(fd);
	return false;
}

/* ini_reader: fgets, counting lines, and each line checked as it is read,
 * so that the problems come in file order. */
static char *
read_counting(char *str, int num, void *stream)
{
	struct parse_state *ps = stream;
	char *got = fgets(str, num, ps->fp), line[CONFIG_LINE_MAX + 2];

	if (got == NULL)
		return NULL;
	ps->line++;
	strlcpy(line, str + (ps->line == 1 && strncmp(str, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0),
	    sizeof(line));
	scan_line(ps, line);
	return got;
}

/* The file's lines into cfg; a problem of the whole file is the only one. */
static void
parse_file(struct config *cfg, const char *path)
{
	const char *why = NULL;
	struct parse_state ps = { .cfg = cfg, .path = path };
	char error[CONFIG_PROBLEM_MAX];
	int line;

	if (!open_config(path, &ps.fp, error, sizeof(error))) {
		config_problem(cfg, "%s; the file is ignored, every key has its default", error);
		return;
	}
	if (ps.fp == NULL)
		return;
	if ((line = bad_line(ps.fp, &why)) > 0) {
		fclose(ps.fp);
		config_problem(cfg, "%s:%d: %s; the file is ignored, every key has its default", path,
		    line, why);
		return;
	}
	line = ini_parse_stream(read_counting, &ps, config_entry, &ps);
	fclose(ps.fp);
	check_pools(cfg, path);
	if (line < 0)
		config_problem(cfg, "%s: %s", path, line == -2 ? "out of memory" : "cannot read");
	strlcpy(cfg->loaded_from, path, sizeof(cfg->loaded_from));
}

bool
config_load_file(struct config *cfg, const char *path, char *err, size_t errsize)
{
	config_defaults(cfg);
	parse_file(cfg, path);
	if (cfg->problems_len == 0)
		return true;
	strlcpy(err, cfg->problems[0], errsize);
	return false;
}

bool
config_load(struct config *cfg, char *err, size_t errsize)
{
	char path[PATH_MAX];

	if (!config_default_path(path, sizeof(path))) {
		config_defaults(cfg);
		return true;
	}
	return config_load_file(cfg, path, err, errsize);
}

double
config_cooldown(const struct config *cfg, enum reason reason)
{
	switch (reason) {
	case REASON_USAGE_LIMIT:
		return cfg->cooldown_usage_limit;
	case REASON_CREDIT_EXHAUSTED:
		return cfg->cooldown_credit_exhausted;
	default:
		return cfg->cooldown_rate_limit;
	}
}

const char *
config_family_for_command(const struct config *cfg, const char *command)
{
	for (size_t i = 0; i < cfg->command_map_len; i++)
		if (strcmp(cfg->command_map[i].command, command) == 0)
			return cfg->command_map[i].family;
	return NULL;
}

const struct family_config *
config_family(const struct config *cfg, const char *name)
{
	for (size_t i = 0; i < cfg->families_len; i++)
		if (strcmp(cfg->families[i].name, name) == 0)
			return &cfg->families[i];
	return NULL;
}

const struct account_config *
config_account(const struct config *cfg, const char *name)
{
	for (size_t i = 0; i < cfg->accounts_len; i++)
		if (strcmp(cfg->accounts[i].name, name) == 0)
			return &cfg->accounts[i];
	return NULL;
}

const struct account_config *
config_pool_account(const struct config *cfg, const char *family, const char *name)
{
	const struct family_config *fc = config_family(cfg, family);

	for (size_t i = 0; fc != NULL && i < fc->pool_len; i++)
		if (strcmp(fc->pool[i], name) == 0)
			return config_account(cfg, name);
	return NULL;
}

long
config_max_concurrent(const struct config *cfg, const char *family)
{
	const struct family_config *fc = config_family(cfg, family);

	return fc != NULL ? fc->max_concurrent : 0;
}

/* The agents' own config-directory variables (struct dialect): a second
 * directory is a second login, so its path names the account. */
const char *
config_dir_env(const struct config *cfg, const char *family)
{
	const struct family_config *fc = config_family(cfg, family);
	const struct dialect *d;

	if (fc != NULL && fc->config_dir_env[0] != '\0')
		return fc->config_dir_env;
	d = dialect_find(family);
	return d != NULL ? d->config_dir_env : NULL;
}

/* dir with $HOME shortened to "~", so that the label reads the same
 * whichever way the variable was spelled out. */
static void
account_from_dir(const char *dir, char *buf, size_t size)
{
	const char *home = getenv("HOME");
	size_t hl = home != NULL ? strlen(home) : 0;

	while (hl > 1 && home[hl - 1] == '/')
		hl--;
	if (hl > 1 && strncmp(dir, home, hl) == 0 && (dir[hl] == '/' || dir[hl] == '\0'))
		snprintf(buf, size, "~%s", dir + hl);
	else
		strlcpy(buf, dir, size);
}

/* The same directory, a trailing '/' or not. */
static bool
same_dir(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	while (la > 1 && a[la - 1] == '/')
		la--;
	while (lb > 1 && b[lb - 1] == '/')
		lb--;
	return la == lb && strncmp(a, b, la) == 0;
}

/* A config directory that one of the pool's accounts selects is that
 * account, so that its breakers are the pooled spawns' too. */
static bool
pool_account_of_dir(const struct config *cfg, const struct family_config *fc, const char *dir_var,
    const char *dir, char *buf, size_t size)
{
	for (size_t i = 0; fc != NULL && i < fc->pool_len; i++) {
		const struct account_config *ac = config_account(cfg, fc->pool[i]);

		for (size_t j = 0; ac != NULL && j < ac->env_len; j++)
			if (strcmp(ac->env[j].name, dir_var) == 0 && same_dir(ac->env[j].value, dir)) {
				strlcpy(buf, ac->name, size);
				return true;
			}
	}
	return false;
}

void
config_resolve_account(const struct config *cfg, const char *family, const char *option,
    char *buf, size_t size)
{
	const struct family_config *fc = config_family(cfg, family);
	const char *env = getenv("RLWRAP_ACCOUNT"), *dir_var = config_dir_env(cfg, family), *dir;

	if (option != NULL && *option != '\0')
		strlcpy(buf, option, size);
	else if (env != NULL && *env != '\0')
		strlcpy(buf, env, size);
	else if (dir_var != NULL && (dir = getenv(dir_var)) != NULL && *dir != '\0') {
		if (!pool_account_of_dir(cfg, fc, dir_var, dir, buf, size))
			account_from_dir(dir, buf, size);
	}
	else
		strlcpy(buf, fc != NULL && fc->account[0] != '\0' ? fc->account : "default", size);
}
