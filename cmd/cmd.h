/*
 * cmd.h: the subcommand table and the small helpers every cmd/<verb>.c uses.
 *
 * Ownership: struct args points into argv and into static option tables; it
 * owns only the arrays args_parse() allocates, released by args_free().
 * cmd/ is the only place that prints diagnostics and exits.
 */
#ifndef RLWRAP_CMD_H
#define RLWRAP_CMD_H

#include <getopt.h>
#include <stdbool.h>
#include <time.h>

#include "conf.h"

/* Exit codes of docs/design.md section 3.  The wrapper's own usage errors
 * are EXIT_INTERNAL, like env(1)'s and timeout(1)'s: the child's exit 2
 * must not look like rlwrap's. */
#define EXIT_REFUSED 75
#define EXIT_USAGE 2
#define EXIT_INTERNAL 125
#define EXIT_NOEXEC 126
#define EXIT_NOTFOUND 127

/* Long options with no short form are stored under codes from here up. */
#define OPT_LONG_BASE 0x100
#define OPT_MAX 0x140
/* --help, which args_parse() adds to every command's options. */
#define OPT_HELP (OPT_MAX - 1)

struct args {
	const char *value[OPT_MAX];   /* last value given, or "" for a flag */
	const char **list[OPT_MAX];   /* every value of a repeatable option */
	int list_len[OPT_MAX];
	char **operands;
	int count;
	bool after_dashdash;          /* the operands came after "--" */
	bool help;                    /* --help was given: print the entry's help */
};

/* One item of `rlwrap help COMMAND`: an option or operand as the user
 * types it, what it does in one line, and a command line that uses it. */
struct cmd_help {
	const char *item;             /* "-w, --wait[=MAX]", "KEY" */
	const char *does;
	const char *example;          /* without the "$ " */
};

struct cmd_entry {
	const char *name;
	const char *optstring;        /* getopt(3) string, without the leading "+:" */
	const struct option *longopts;
	int lower, upper;             /* operand count bounds; upper -1 = unbounded */
	const char *usage;            /* synopsis after "rlwrap " */
	const char *summary;          /* one line for `rlwrap help` */
	const struct cmd_help *help;  /* every option and operand; ends with { NULL } */
	int (*exec)(struct args *args);
	/* An option of optional value given without one: whether the next word
	 * is its value (`--wait 2h -- cmd`).  NULL: never. */
	bool (*takes_value)(int opt, const char *word);
};

extern const struct cmd_entry *const cmd_table[];
extern const struct cmd_entry cmd_run_entry, cmd_classify_failure_entry, cmd_help_entry;
const struct cmd_entry *cmd_find(const char *name);

/* Parses argv[0..] (argv[0] is the subcommand name).  On a usage error it
 * prints one line and returns false.  --help among the options sets
 * args->help and skips the operand count check. */
bool args_parse(const struct cmd_entry *entry, int argc, char **argv, struct args *args);
void args_free(struct args *args);
bool args_has(const struct args *args, int opt);
const char *args_get(const struct args *args, int opt);

/* warnx(3), and a line on stdout, for text that holds anything from outside
 * rlwrap (the child's stream, argv, a cwd, an account, a row of the state
 * file): formatted, then every control, escape and bidirectional override
 * shown visibly (visible_text(), docs/design.md section 13). */
void warnx_visible(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Before a line of rlwrap's own on stderr: a line feed first when the
 * child left the cursor mid-line on this terminal (own_line_after()). */
void own_line(void);
void own_line_after(bool child_mid_line);
void print_visible(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Colour (status states, refusals): --color=WHEN ("always", "never",
 * "auto"; false when it is none of them), and whether fd gets it: always;
 * never; auto: on a terminal (not TERM=dumb) unless NO_COLOR is set. */
bool cmd_color_set(const char *when);
bool cmd_color(int fd);
#define COLOR_RED "\033[31m"
#define COLOR_YELLOW "\033[33m"
#define COLOR_GREEN "\033[32m"
#define COLOR_OFF "\033[0m"

/* `rlwrap help COMMAND`, `rlwrap COMMAND --help`: the synopsis, the
 * summary, then each option with what it does and an example. */
void cmd_print_help(const struct cmd_entry *entry);

/* The exit status of entry's usage errors: 2, the wrapper's 125. */
int usage_status(const struct cmd_entry *entry);
/* One-line usage error for entry, then the exit code to use (usage_status()). */
int usage_error(const struct cmd_entry *entry, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Option value parsers that report a usage error themselves. */
bool opt_int(const struct cmd_entry *entry, const char *name, const char *s,
    long long lo, long long hi, long long *out);
bool opt_time(const struct cmd_entry *entry, const char *name, const char *s, double *out);
bool opt_duration(const struct cmd_entry *entry, const char *name, const char *s, double *out);

/* The clock: RLWRAP_TEST_NOW (tests only, epoch or ISO) or the real time. */
time_t cmd_now(void);
/* A copy of s (NULL for NULL); out of memory ends the process (125). */
char *cmd_strdup(const char *s);
/* The same clock with its fraction of a second. */
double cmd_now_precise(void);
/* Monotonic seconds, for intervals and deadlines. */
double cmd_monotonic(void);
/* $name, a number of milliseconds from 1 to max_ms (the tests' knobs), in
 * seconds; dflt_ms when it is unset or not such a number. */
double cmd_env_ms(const char *name, long long dflt_ms, long long max_ms);

/* The state-file subcommands (cmd/state.c helpers, one file per verb). */
extern const struct cmd_entry cmd_status_entry, cmd_reset_entry, cmd_trip_entry, cmd_wait_entry,
    cmd_record_entry, cmd_history_entry, cmd_recover_entry, cmd_usage_entry, cmd_config_entry,
    cmd_metrics_entry, cmd_replay_entry;
struct config;
struct store;
struct breaker_key;
/* Loads rlwrap.conf(5) and prints its problems, once; false (cfg freed)
 * only when it has some and on_config_error is closed. */
bool cmd_load_config(struct config *cfg);
/* Each of cfg's problems, one warning line each. */
void cmd_warn_config_problems(const struct config *cfg);

/* What a state-file subcommand works on: the config and the open store. */
struct cmd_state {
	struct config *cfg;
	struct store *store;
	bool read_only;        /* opened read-only: the file is not writable */
};
/*
 * Loads the config into cfg and opens the state file; on an error prints
 * one line and returns false (nothing left to close).  read_only_fallback:
 * open read-only when the file is not writable.  A writable store has its
 * dead runs marked lost first (admission.h), so that what the command reads
 * is true.
 */
bool cmd_state_open(struct cmd_state *st, struct config *cfg, bool read_only_fallback);
/* The same without marking dead runs lost: a look that writes nothing
 * (status --short runs on every shell prompt; a write transaction there
 * would double its cost and contend with the wrappers). */
bool cmd_state_look(struct cmd_state *st, struct config *cfg);
void cmd_state_close(struct cmd_state *st);
/* The warning for a state file others can write (store_writable_by_others()). */
void cmd_warn_exposed_store(const struct store *store);
/* A reset made here: this host's memo of the server's open breakers goes. */
void cmd_forget_memo(const struct config *cfg);
/* The refusals this host's memo decided (breaker_memo.h), counted since the
 * last contact, into store's waits when it is the server of opts; what
 * cannot be written now is kept for the next. */
struct store_options;
void cmd_flush_memo_refusals(const struct store_options *opts, struct store *store);
/* A detached `rlwrap replay` for the journal at journal_path, unless
 * nothing waits in it or one runs already (cmd/replay.c). */
void replay_leave_behind(const char *journal_path);
/* KEY, with the account resolved as the wrapper would when it names none;
 * a usage error (printed) on a bad key. */
bool cmd_parse_key(const struct cmd_entry *entry, const struct config *cfg, const char *text,
    struct breaker_key *key);
/* "2026-11-30T16:00:00Z (17:00 CET, in 4h)". */
void cmd_format_reset(double t, time_t now, char *buf, size_t size);
/* "2026-11-30T17:00:00+01:00": the local time of t. */
void cmd_format_local(double t, char *buf, size_t size);

/* The [hooks] (cmd/hook.c): on_trip / on_close for each transition, on_wait
 * for a spawn that starts waiting on blocking; started detached, never
 * waited for; a failure is reported in one line and otherwise ignored. */
struct breaker;
struct breaker_transitions;
void hooks_run_transitions(const struct config *cfg, const struct breaker_transitions *t);
void hook_run_wait(const struct config *cfg, const struct breaker *blocking);
/* on_reserve: a reading put its window inside the reserve (keep: its share). */
void hook_run_reserve(const struct config *cfg, const struct usage_reading *r, double keep);

/* status --short (cmd/status_short.c): "claude 1h23m · codex ok". */
struct breaker;
struct family_counts;
struct budget_state;
struct short_readings {
	const struct usage_reading *rows;
	size_t n;
	const struct config *cfg;
};
int status_print_short(const struct breaker *rows, size_t nrows, const struct family_counts *counts,
    size_t ncounts, const struct budget_state *budgets, size_t nbudgets, const struct short_readings *readings,
    time_t now);

/* The open breakers this host's memo still refuses spawns by that the
 * server's rows (server[n]) no longer show open (cmd/status_memo.c): lines,
 * or into out's "memo" array; how many. */
size_t status_print_memo(const struct config *cfg, const struct breaker *server, size_t n, json_t *out,
    time_t now, const char *host);
/* Other hosts with runs lost in the last day whose lease has lapsed: their
 * journals may hold the rest (cmd/status_hosts.c); lines, or out's
 * "hosts_away" array. */
void status_print_hosts_away(struct store *store, json_t *out, time_t now, const char *self);
/* The usage readings for status (cmd/status_usage.c). */
/* store: for the runway, the window's metered runs (NULL: the reading's pace alone). */
json_t *status_reading_json(const struct config *cfg, struct store *store, const struct usage_reading *r,
    double now);
void status_print_reading(const struct config *cfg, struct store *store, const struct usage_reading *r,
    double now);
/* The reading's runway with its window's metered runs (lib/usage_reading.h);
 * -1 when it cannot say. */
double status_reading_runway(struct store *store, const struct usage_reading *r, double now);
/* status --short's words for a reading that warns or holds; false: none. */
bool status_short_reading(const struct config *cfg, const struct usage_reading *r, double now, char *buf,
    size_t size, bool *holds);

/* The budgets for status (cmd/status_budget.c): one row per configured
 * budget and key that may spend it. */
struct budget_state {
	char family[CONFIG_FAMILY_MAX], account[CONFIG_ACCOUNT_MAX];
	struct budget budget;
	double used;          /* what its window holds now */
	bool room;            /* a spawn (the family's estimate, one run) fits now */
	double room_at;       /* no room: when it fits again */
};
/* The accounts a spawn of each family would get, and accounts[k] for
 * families[k] (running or waiting now).  *rows is one heap array. */
struct store_error;
bool status_budgets(struct store *store, const struct config *cfg, const char *const *accounts,
    const char *const *families, size_t nkeys, double now, struct budget_state **rows, size_t *n,
    struct store_error *err);
/* "30000 tokens per 1m0s model=opus" */
void status_budget_text(const struct budget_state *s, char *buf, size_t size);

/* history and recover */
struct run_row;
/* --since: a duration back from now, or a time. */
bool cmd_parse_since(const struct cmd_entry *entry, const char *s, time_t now, double *since);
/* "#12 2026-11-30T11:00:00Z claude/opus usage-limit resets ... exit=1 /cwd: argv". */
void cmd_format_run_line(const struct run_row *r, char *buf, size_t size);

#endif
