/*
 * conf.h: rlwrap.conf(5), the INI file read with inih (docs/design.md section 8).
 *
 * Ownership: a struct config owns its command map and family table (heap
 * arrays); config_free() releases them.  config_defaults() allocates nothing,
 * so a config that was never loaded may be freed or simply dropped.
 * Nothing here prints; errors come back in the caller's buffer as
 * "FILE:LINE: what is wrong".
 */
#ifndef RLWRAP_CONF_H
#define RLWRAP_CONF_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "failsignal.h"
#include "reserve.h"
#include "store.h"   /* enum store_pool */

#define CONFIG_FAMILY_MAX 32
#define CONFIG_ACCOUNT_MAX 256
#define CONFIG_COMMAND_MAX 64
#define CONFIG_ENV_NAME_MAX 64
#define CONFIG_MODEL_MAX 64
/* [family.NAME] accounts: at most this many, each an [account.NAME]
 * section with at most ACCOUNT_ENV_MAX variables in its env. */
#define POOL_ACCOUNTS_MAX 8
#define ACCOUNT_ENV_MAX 8
#define CONFIG_POOL_NAME_MAX 64
#define CONFIG_ENV_VALUE_MAX 512
/* How long a host trusts an open breaker it read from a server store. */
#define CONFIG_MEMO_TTL_DEFAULT 30.0

/* on_config_error: what a config with problems does (docs/design.md section 8). */
enum config_error_policy {
	CONFIG_ERROR_OPEN,   /* say which line is wrong, use that key's default, go on (default) */
	CONFIG_ERROR_CLOSED  /* refuse: the wrapper exits 125, state commands 1 */
};
/* Problems kept, each "FILE:LINE: what is wrong; what was done instead". */
#define CONFIG_PROBLEMS_MAX 16
#define CONFIG_PROBLEM_MAX 400

enum store_error_policy {
	STORE_ERROR_OPEN,    /* warn once and run the child anyway (default) */
	STORE_ERROR_CLOSED   /* refuse, exit 75 */
};

/* One `commands` entry of a [family.NAME] section: a command basename and the
 * family it belongs to.  The wrapper's family detection takes this array. */
struct command_family {
	char command[CONFIG_COMMAND_MAX];
	char family[CONFIG_FAMILY_MAX];
};

/* A budget: amount of unit per window seconds, for each (account, family),
 * or only for its runs whose model contains model (scope_applies()). */
enum budget_unit { BUDGET_TOKENS, BUDGET_USD, BUDGET_RUNS };
struct budget {
	enum budget_unit unit;
	double amount, window;
	char model[CONFIG_MODEL_MAX];   /* "" = every model */
};
#define CONFIG_BUDGETS_MAX 8
/* max_concurrent = auto without bounds. */
#define ADAPTIVE_DEFAULT_MIN 1
#define ADAPTIVE_DEFAULT_MAX 16

/* A [family.NAME] section. */
struct family_config {
	char name[CONFIG_FAMILY_MAX];
	char account[CONFIG_ACCOUNT_MAX];        /* "" = not set */
	char config_dir_env[CONFIG_ENV_NAME_MAX];  /* "" = not set */
	long max_concurrent;                     /* runs at once per account; 0 = no limit */
	long auto_min, auto_max;                 /* max_concurrent = auto LO..HI; auto_max 0 = not auto */
	struct budget budgets[CONFIG_BUDGETS_MAX];  /* budget = AMOUNT UNIT per DURATION, each line */
	size_t budgets_len;
	double estimate_tokens;                  /* estimate = N tokens; 0 = not set */
	/* release = ramp Gx D [up to N]: after a reset, the probe, then 1, G, G^2
	 * ... spawns per D (at most N); release = all (growth 0): every waiter. */
	double release_growth, release_interval;
	long release_cap;                        /* 0 = no cap */
	struct reserve reserves[RESERVES_MAX];   /* reserve = [WINDOW:]SHARE% ... */
	size_t reserves_len;
	char pool[POOL_ACCOUNTS_MAX][CONFIG_POOL_NAME_MAX];  /* accounts = NAME ...: the pool */
	size_t pool_len;                         /* 0 = no pool */
	int pool_line;                           /* the accounts line, for a later problem */
};

/* An [account.NAME] section: the environment that selects the account for
 * a spawn that runs on it (env = VAR=value ..., "~/" expanded). */
struct account_env {
	char name[CONFIG_ENV_NAME_MAX];
	char value[CONFIG_ENV_VALUE_MAX];
};
struct account_config {
	char name[CONFIG_POOL_NAME_MAX];
	struct account_env env[ACCOUNT_ENV_MAX];
	size_t env_len;
};

enum pty_setting { PTY_SETTING_AUTO, PTY_SETTING_ON, PTY_SETTING_OFF };

/* The [hooks] events: a breaker trips or closes, a spawn starts waiting, a
 * reserve starts holding. */
enum hook_event { HOOK_TRIP, HOOK_CLOSE, HOOK_WAIT, HOOK_RESERVE, HOOK_EVENTS };
/* A config line holds at most 198 bytes, so a command fits in this. */
#define CONFIG_HOOK_MAX 200

struct config {
	/* [wrapper]: defaults for the wrapper's options (the command line beats them) */
	double wrapper_wait;                 /* --wait budget in seconds; < 0 = do not wait */
	long wrapper_retry;                  /* --retry attempts; 0 = do not retry */
	bool wrapper_quiet;
	enum pty_setting wrapper_pty;
	bool wrapper_orphan_keep;            /* orphan = keep: no parent-death signal for the child */
	bool wrapper_record_refused;         /* a refused spawn is recorded for recover (default) */
	/* [breaker] */
	bool breaker_enabled;
	bool trip_on[REASON_COUNT];
	double min_confidence;
	double cooldown_rate_limit;          /* seconds; also used for any other tripping reason */
	double cooldown_usage_limit;
	double cooldown_credit_exhausted;
	double max_cooldown;
	double max_provider_reset;
	double probe_timeout;
	enum store_error_policy on_store_error;
	enum config_error_policy on_config_error;
	/* [store] */
	char store_path[PATH_MAX];           /* path or url; "" = not set; "~/" expanded */
	char store_schema[64];               /* PostgreSQL schema; "" = the default */
	double store_connect_timeout;        /* seconds; 0 = the default */
	double store_statement_timeout;      /* seconds; 0 = the default */
	double store_memo_ttl;               /* seconds a server's open breaker is trusted; 0 = never */
	enum store_pool store_pool;          /* what stands between rlwrap and the server */
	long keep_runs;                      /* 0 = no limit by count */
	long keep_days;                      /* 0 = no limit by age */
	/* [hooks]: on_trip, on_close, on_wait ("" = none) and their time limit */
	char hooks[HOOK_EVENTS][CONFIG_HOOK_MAX];
	double hook_timeout;                 /* seconds; a hook still running then is killed */
	/* [family.NAME] */
	struct command_family *command_map;
	size_t command_map_len;
	struct family_config *families;
	size_t families_len;
	/* [account.NAME] */
	struct account_config *accounts;
	size_t accounts_len;
	/* The file that was read, "" when none existed. */
	char loaded_from[PATH_MAX];
	/* Every problem found, in file order; problems_len may exceed what is kept. */
	char problems[CONFIG_PROBLEMS_MAX][CONFIG_PROBLEM_MAX];
	size_t problems_len;
};

/* The built-in defaults of docs/design.md and rlwrap.conf(5). */
void config_defaults(struct config *cfg);
void config_free(struct config *cfg);

/*
 * Where the config file is: $RLWRAP_CONFIG, else $XDG_CONFIG_HOME/rlwrap/config,
 * else ~/.config/rlwrap/config.  False when none can be formed (no HOME).
 */
bool config_default_path(char *buf, size_t size);

/*
 * Defaults, then the file at path on top.  A missing file is not an error
 * (cfg keeps the defaults, loaded_from stays "").  Every bad section, key,
 * value or line is a problem in cfg->problems ("path:line: message; what
 * was done"): the key keeps its default, an unknown section's keys are
 * ignored, and a file that cannot be read as text (unreadable, not a regular
 * file, a NUL byte, a line inih would misread) is ignored whole.  Returns
 * false when there was a problem, the first one in err; cfg is usable
 * either way (the caller decides by on_config_error).
 */
bool config_load_file(struct config *cfg, const char *path, char *err, size_t errsize);
/* config_load_file() on config_default_path(). */
bool config_load(struct config *cfg, char *err, size_t errsize);

/* "trip", "close", "wait": the event's name, also RLWRAP_EVENT. */
const char *hook_event_name(enum hook_event event);

/* The cooldown for a tripping reason (rate-limit's for reasons without one). */
double config_cooldown(const struct config *cfg, enum reason reason);
/* The family a command basename maps to, or NULL. */
const char *config_family_for_command(const struct config *cfg, const char *command);
/* The [family.NAME] section, or NULL. */
const struct family_config *config_family(const struct config *cfg, const char *name);

/* The [account.NAME] section, or NULL. */
const struct account_config *config_account(const struct config *cfg, const char *name);
/* The account name of family's pool (accounts = ...), or NULL when it is
 * not one of them. */
const struct account_config *config_pool_account(const struct config *cfg, const char *family,
    const char *name);

/* [family.NAME] max_concurrent: how many runs of family may run at once
 * under one account; 0 = no limit. */
long config_max_concurrent(const struct config *cfg, const char *family);

/* "tokens", "usd", "runs". */
const char *budget_unit_name(enum budget_unit unit);
/* "AMOUNT UNIT per DURATION" (30000 tokens per 1m, 50 usd per 1d, 10 runs
 * per 1m) into *out; false when it is not that. */
bool budget_parse(const char *value, struct budget *out);

/* The environment variable naming family's config directory: the file's
 * config_dir_env, else the built-in one (CLAUDE_CONFIG_DIR, CODEX_HOME,
 * GEMINI_CLI_HOME, PI_CODING_AGENT_DIR, OPENCODE_CONFIG_DIR), else NULL. */
const char *config_dir_env(const struct config *cfg, const char *family);

/*
 * The account label for a run of family (docs/design.md section 5), the only
 * place it is decided: option (may be NULL), else $RLWRAP_ACCOUNT, else the
 * value of the family's config-dir variable (config_dir_env()) when set:
 * the pool's account whose env sets that variable to it, else the value
 * with $HOME shortened to "~"; else the file's [family.NAME] account, else
 * "default".  Never anything secret.
 */
void config_resolve_account(const struct config *cfg, const char *family, const char *option,
    char *buf, size_t size);

#endif
