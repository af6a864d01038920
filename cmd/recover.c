/*
 * rlwrap recover [--filter K=V]... [--since D] [--limit N] [--json] [--yes]
 *     [--wait[=MAX]]
 * Lists failed runs that were not recovered yet and says what --yes would
 * do; --yes re-runs them, one after another, through the wrapper.
 */
#include <err.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "breaker.h"
#include "cmd.h"
#include "history.h"
#include "redact.h"
#include "timeparse.h"

enum { OPT_FILTER = OPT_LONG_BASE, OPT_SINCE, OPT_LIMIT, OPT_JSON, OPT_YES, OPT_WAIT, OPT_FOLLOW };

static const struct option recover_longopts[] = {
	{ "filter", required_argument, NULL, OPT_FILTER },
	{ "since", required_argument, NULL, OPT_SINCE },
	{ "limit", required_argument, NULL, OPT_LIMIT },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "yes", no_argument, NULL, OPT_YES },
	{ "wait", optional_argument, NULL, OPT_WAIT },
	{ "follow-symlinks", no_argument, NULL, OPT_FOLLOW },
	{ NULL, 0, NULL, 0 },
};

enum action { ACT_RUN, ACT_WAIT_RUN, ACT_SKIP_TRIPPED, ACT_SKIP_CWD, ACT_SKIP_REDACTED, ACT_SKIP_NO_ARGV,
	ACT_SKIP_OTHER_HOST, ACT_SKIP_ALTERED, ACT_SKIP_CWD_LINK };

struct plan_item {
	long long id;
	enum action action;
	double until;              /* the blocking breaker's reset */
	char *argv_json, *cwd;
	char host[256];            /* the host that recorded it ("" = unknown) */
	char *argv_exact;          /* the exact argv (redact.h); NULL: use argv_json */
	char *family, *model, *account;   /* what decided its key: the re-run's too */
	char cwd_target[PATH_MAX]; /* where cwd leads now through a symlink; "" when to itself */
	char line[1024];
	json_t *json;              /* the run's stored fields, for --json */
};

struct plan {
	struct plan_item *items;
	size_t count;
	struct store *store;
	char host[256];            /* this host (RLWRAP_HOST or the hostname) */
	time_t now;
	double wait_max;           /* < 0: no --wait */
	double started;            /* real time: claims made after it are a concurrent recover's */
	bool follow_symlinks;      /* run in a cwd that now leads through a symlink */
	struct probe_lease holder; /* this process, for the claims */
};

static double
real_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *
action_words(const struct plan_item *it, char *buf, size_t size)
{
	char when[40];

	format_utc_iso(it->until, when, sizeof(when));
	switch (it->action) {
	case ACT_RUN:
		if (it->cwd_target[0] == '\0')
			return "run now";
		snprintf(buf, size, "run now, in %s (its working directory leads there through a symlink)",
		    it->cwd_target);
		return buf;
	case ACT_SKIP_CWD_LINK:
		snprintf(buf, size, "skip: its working directory now leads through a symlink to %s "
		    "(--follow-symlinks runs it there)", it->cwd_target);
		return buf;
	case ACT_WAIT_RUN:
		snprintf(buf, size, "wait until %s (the family is tripped), then run", when);
		return buf;
	case ACT_SKIP_TRIPPED:
		snprintf(buf, size, "skip: the family is still tripped until %s", when);
		return buf;
	case ACT_SKIP_CWD:
		return "skip: its working directory no longer exists";
	case ACT_SKIP_REDACTED:
		return "skip: its command held secrets that were redacted, so it cannot be replayed";
	case ACT_SKIP_NO_ARGV:
		return "skip: no command was recorded for it (a stream given to `rlwrap record`)";
	case ACT_SKIP_OTHER_HOST:
		snprintf(buf, size, "skip: recorded on host %.64s; recover it there", it->host);
		return buf;
	case ACT_SKIP_ALTERED:
		return "skip: stored before rlwrap kept exact commands, and a '?' in it may stand for a "
		    "byte that was not UTF-8, so it cannot be replayed as it ran";
	}
	return "?";
}

/* getcwd() stored a path without symlinks: when it resolves elsewhere now,
 * a directory on it was replaced by a link, perhaps by someone else. */
static bool
cwd_moved(const char *cwd, char *target, size_t size)
{
	char resolved[PATH_MAX];

	if (realpath(cwd, resolved) == NULL || strcmp(resolved, cwd) == 0)
		return false;
	strlcpy(target, resolved, size);
	return true;
}

static enum action
decide(struct plan *p, const struct run_row *r, struct plan_item *it)
{
	struct store_error error;
	struct breaker blocking;
	struct stat st;
	bool blocked = false;

	/* A shared store holds other hosts' runs: their cwd and tools are there. */
	if (*r->host != '\0' && strcmp(r->host, p->host) != 0)
		return ACT_SKIP_OTHER_HOST;
	if (r->argv_redacted)
		return ACT_SKIP_REDACTED;
	if (r->argv_json == NULL || strcmp(r->argv_json, "[]") == 0)
		return ACT_SKIP_NO_ARGV;
	if (r->argv_exact == NULL && strchr(r->argv_json, '?') != NULL)
		return ACT_SKIP_ALTERED;
	if (*r->cwd == '\0' || stat(r->cwd, &st) != 0 || !S_ISDIR(st.st_mode))
		return ACT_SKIP_CWD;
	if (cwd_moved(r->cwd, it->cwd_target, sizeof(it->cwd_target)) && !p->follow_symlinks)
		return ACT_SKIP_CWD_LINK;
	if (!breaker_blocked(p->store, r->account, r->family, r->model, (double)p->now, &blocked,
	    &blocking, &error))
		warnx_visible("%s", error.message);
	if (!blocked)
		return ACT_RUN;
	it->until = blocking.resets_at;
	return p->wait_max >= 0 && blocking.resets_at - (double)p->now <= p->wait_max ?
	    ACT_WAIT_RUN : ACT_SKIP_TRIPPED;
}

static bool
plan_row(const struct run_row *r, void *arg)
{
	struct plan *p = arg;
	const char *exact;
	struct plan_item *grown = reallocarray(p->items, p->count + 1, sizeof(*grown)), *it;

	if (grown == NULL)
		err(1, "reallocarray");
	p->items = grown;
	it = &p->items[p->count++];
	memset(it, 0, sizeof(*it));
	it->id = r->id;
	strlcpy(it->host, r->host, sizeof(it->host));
	it->action = decide(p, r, it);
	it->argv_json = r->argv_json != NULL ? strdup(r->argv_json) : NULL;
	it->cwd = strdup(r->cwd);
	exact = argv_exact_text(r->argv_exact, r->argv_json);
	it->argv_exact = exact != NULL ? strdup(exact) : NULL;
	it->family = strdup(r->family);
	it->model = strdup(r->model);
	it->account = strdup(r->account);
	cmd_format_run_line(r, it->line, sizeof(it->line));
	it->json = run_row_to_json(r, p->now);
	return true;
}

static void
plan_free(struct plan *p)
{
	for (size_t i = 0; i < p->count; i++) {
		free(p->items[i].argv_json);
		free(p->items[i].cwd);
		free(p->items[i].argv_exact);
		free(p->items[i].family);
		free(p->items[i].model);
		free(p->items[i].account);
		json_decref(p->items[i].json);
	}
	free(p->items);
}

static void
print_plan(const struct plan *p, bool json)
{
	char why[PATH_MAX + 200];
	json_t *array = json_array();

	for (size_t i = 0; i < p->count; i++) {
		const struct plan_item *it = &p->items[i];

		if (!json) {
			printf("%s\n", it->line);   /* already visible */
			print_visible("    -> %s", action_words(it, why, sizeof(why)));
			continue;
		}
		json_object_set_new(it->json, "action", json_string(it->action == ACT_RUN ||
		    it->action == ACT_WAIT_RUN ? "run" : "skip"));
		json_object_set_new(it->json, "action_reason", json_string(action_words(it, why, sizeof(why))));
		json_array_append(array, it->json);
	}
	if (json) {
		json_dumpf(array, stdout,
		    JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII | SIGNAL_JSON_REALS);
		putchar('\n');
	} else if (p->count == 0)
		printf("no failed runs to recover\n");
	json_decref(array);
}

/* The stored command: its exact bytes, or (rows without them) the JSON
 * array's strings; appended to argv from k, which has room for them. */
static void
stored_command(const struct plan_item *it, char **argv, size_t k)
{
	json_t *a = json_loads(it->argv_exact != NULL ? it->argv_exact : it->argv_json, 0, NULL), *v;
	size_t i;

	json_array_foreach(a, i, v) {
		const char *s = json_string_value(v) != NULL ? json_string_value(v) : "";

		if ((argv[k] = malloc(strlen(s) + 1)) == NULL)
			err(1, "malloc");
		if (it->argv_exact != NULL)
			argv_exact_decode(s, argv[k++]);
		else
			strlcpy(argv[k++], s, strlen(s) + 1);
	}
	json_decref(a);
}

/* How many arguments the stored command has. */
static size_t
stored_count(const struct plan_item *it)
{
	json_t *a = json_loads(it->argv_exact != NULL ? it->argv_exact : it->argv_json, 0, NULL);
	size_t n = json_array_size(a);

	json_decref(a);
	return n;
}

/* <self> run [--wait[=MAX]] --family F --model M --account A --signal-file FILE
 * -- argv...: the original's identity, so that its outcome lands on its key. */
static char **
rerun_argv(const char *self, const struct plan_item *it, const char *signal_file, const char *wait)
{
	size_t n = stored_count(it), k = 0;
	char **argv = n > 0 ? calloc(n + 16, sizeof(*argv)) : NULL;

	if (argv == NULL)
		return NULL;
	argv[k++] = strdup(self);
	argv[k++] = strdup("run");
	if (wait != NULL)
		argv[k++] = strdup(wait);
	if (family_known(it->family)) {
		argv[k++] = strdup("--family");
		argv[k++] = strdup(it->family);
	}
	if (*it->model != '\0') {
		argv[k++] = strdup("--model");
		argv[k++] = strdup(it->model);
	}
	argv[k++] = strdup("--account");
	argv[k++] = strdup(*it->account != '\0' ? it->account : "default");
	argv[k++] = strdup("--signal-file");
	argv[k++] = strdup(signal_file);
	argv[k++] = strdup("--");
	stored_command(it, argv, k);
	return argv;
}

static void
argv_free(char **argv)
{
	for (size_t i = 0; argv != NULL && argv[i] != NULL; i++)
		free(argv[i]);
	free(argv);
}

/* Runs argv in cwd and waits for it; returns its status the way a shell shows it. */
static int
spawn_in(char **argv, const char *cwd)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return EXIT_INTERNAL;
	if (pid == 0) {
		if (chdir(cwd) != 0)
			_exit(EXIT_INTERNAL);
		execv(argv[0], argv);
		_exit(EXIT_NOTFOUND);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return EXIT_INTERNAL;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* What the re-run's --signal-file says: its run id and reason. */
static void
read_outcome(const char *path, long long *run_id, char *reason, size_t size)
{
	json_t *o = json_load_file(path, 0, NULL);
	const char *r = json_string_value(json_object_get(o, "reason"));

	*run_id = json_integer_value(json_object_get(o, "run_id"));
	strlcpy(reason, r != NULL ? r : "unknown", size);
	json_decref(o);
}

/* Claims the run in the store, so that a recover running alongside does
 * not run it too; false (said why) when someone else has it. */
static bool
claim(struct plan *p, const struct plan_item *it)
{
	struct store_error error;
	struct probe_lease by;
	enum run_claim result;

	if (!store_run_claim(p->store, it->id, &p->holder, real_now(), p->started, &result, &by, &error)) {
		warnx_visible("%s", error.message);
		return false;
	}
	if (result == CLAIM_RECOVERED)
		warnx("recover: #%lld skipped: recovered meanwhile", it->id);
	else if (result == CLAIM_HELD)
		warnx_visible("recover: #%lld skipped: another recover (pid %ld on %s) re-runs it", it->id,
		    by.pid, by.host);
	return result == CLAIM_TAKEN;
}

static bool
rerun(struct plan *p, const struct plan_item *it, const char *self, const char *wait)
{
	char path[] = "/tmp/rlwrap-recover.XXXXXX", reason[32];
	struct store_error error;
	long long run_id = 0;
	char **argv;
	int fd, status;

	if (!claim(p, it))
		return true;
	if ((fd = mkstemp(path)) < 0) {
		warn("mkstemp");
		return false;
	}
	close(fd);
	argv = rerun_argv(self, it, path, wait);
	status = argv != NULL ? spawn_in(argv, it->cwd) : EXIT_INTERNAL;
	argv_free(argv);
	read_outcome(path, &run_id, reason, sizeof(reason));
	unlink(path);
	if (status == EXIT_REFUSED) {
		warnx("recover: #%lld skipped: refused, the family is tripped", it->id);
		return true;
	}
	warnx_visible("recover: #%lld re-ran%s%.0lld in %s: exit %d (%s)", it->id, run_id > 0 ? " as #" : "",
	    run_id, it->cwd, status, reason);
	if (status != 0 || strcmp(reason, "none") != 0)
		return false;
	if (run_id > 0 && !store_run_mark_recovered(p->store, it->id, run_id, &error))
		warnx_visible("%s", error.message);
	return true;
}

/* A short jittered gap so that a recovered batch does not stampede the provider. */
static void
gap(void)
{
	const char *env = getenv("RLWRAP_RECOVER_GAP_MS");
	long long ms = 2000;
	struct timespec ts;

	if (env != NULL)
		ms = strtonum(env, 0, 600000, NULL);
	if (ms > 0)
		ms += arc4random_uniform(1000);
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (long)(ms % 1000) * 1000000L;
	nanosleep(&ts, NULL);
}

static int
run_plan(struct plan *p, const char *wait)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	bool ran = false, failed = false;

	if (n <= 0)
		err(1, "readlink /proc/self/exe");
	self[n] = '\0';
	for (size_t i = 0; i < p->count; i++) {
		const struct plan_item *it = &p->items[i];
		char why[PATH_MAX + 200];

		if (it->action != ACT_RUN && it->action != ACT_WAIT_RUN) {
			warnx_visible("recover: #%lld %s", it->id, action_words(it, why, sizeof(why)));
			continue;
		}
		if (ran)
			gap();
		ran = true;
		if (!rerun(p, it, self, wait))
			failed = true;
	}
	return failed ? 1 : 0;
}

static bool
parse_filters(const struct cmd_entry *self, const struct args *args, struct run_filter *f)
{
	char error[512];

	for (int i = 0; i < args->list_len[OPT_FILTER]; i++)
		if (!run_filter_add(f, args->list[OPT_FILTER][i], error, sizeof(error))) {
			usage_error(self, "--filter %s", error);
			return false;
		}
	return true;
}

static bool
parse_recover(const struct cmd_entry *self, const struct args *args, struct plan *p,
    struct run_filter *f, char *wait, size_t wait_size)
{
	long long limit = 0;
	const char *w = args_get(args, OPT_WAIT);

	p->wait_max = -1;
	p->follow_symlinks = args_has(args, OPT_FOLLOW);
	if (!parse_filters(self, args, f) ||
	    (args_has(args, OPT_SINCE) && !cmd_parse_since(self, args_get(args, OPT_SINCE), p->now, &f->since)) ||
	    (args_has(args, OPT_LIMIT) && !opt_int(self, "--limit", args_get(args, OPT_LIMIT), 1, 1000000, &limit)))
		return false;
	f->limit = (long)limit;
	if (w != NULL) {
		p->wait_max = 6 * 3600;
		if (*w != '\0' && !opt_duration(self, "--wait", w, &p->wait_max))
			return false;
		snprintf(wait, wait_size, *w != '\0' ? "--wait=%s" : "--wait", w);
	}
	return true;
}

static int
recover_exec(struct args *args)
{
	const struct cmd_entry *self = &cmd_recover_entry;
	struct plan p = { .now = cmd_now(), .started = real_now() };
	struct probe_lease me;
	struct run_filter filter;
	struct store_error error;
	struct config cfg;
	struct cmd_state st;
	char wait[64] = "", why[PATH_MAX + 64];
	int rc = 0;

	run_filter_init(&filter);
	filter.failed_only = true;
	if (!parse_recover(self, args, &p, &filter, wait, sizeof(wait))) {
		run_filter_free(&filter);
		return EXIT_USAGE;
	}
	if (!cmd_state_open(&st, &cfg, !args_has(args, OPT_YES))) {
		run_filter_free(&filter);
		return 1;
	}
	p.store = st.store;
	probe_holder_self(&me);
	strlcpy(p.host, me.host, sizeof(p.host));
	p.holder = me;
	if (args_has(args, OPT_YES) && store_writable_by_others(p.store, why, sizeof(why))) {
		warnx_visible("recover --yes: refused: %s, so a command in it may not be yours", why);
		plan_free(&p);
		cmd_state_close(&st);
		run_filter_free(&filter);
		return 1;
	}
	if (!store_runs_each(p.store, &filter, plan_row, &p, &error)) {
		warnx_visible("%s", error.message);
		rc = 1;
	} else if (!args_has(args, OPT_YES))
		print_plan(&p, args_has(args, OPT_JSON));
	else
		rc = run_plan(&p, *wait != '\0' ? wait : NULL);
	plan_free(&p);
	cmd_state_close(&st);
	run_filter_free(&filter);
	return rc;
}

static const struct cmd_help recover_help[] = {
	{ "--filter K=V", "only runs whose K (reason, family, model, account, exit, cwd, state) is V;"
	  " a comma is any of; lost runs (their wrapper died) are failed runs too",
	  "rlwrap recover --filter reason=rate-limit,usage-limit" },
	{ "--since D", "only runs that started within a duration back from now, or after a time",
	  "rlwrap recover --since 2d" },
	{ "--limit N", "at most N runs, newest first",
	  "rlwrap recover --limit 5" },
	{ "--json", "list the runs and what --yes would do as JSON",
	  "rlwrap recover --json" },
	{ "--yes", "run each runnable failed run again in its directory; without it nothing runs",
	  "rlwrap recover --filter family=claude --yes" },
	{ "--wait[=MAX]", "let each re-run wait out an open breaker within MAX (default 6h)",
	  "rlwrap recover --yes --wait=2h" },
	{ "--follow-symlinks", "also run where a working directory now leads through a symlink (skipped by default)",
	  "rlwrap recover --yes --follow-symlinks" },
	{ "--help", "this text", "rlwrap recover --help" },
	{ NULL, NULL, NULL },
};

const struct cmd_entry cmd_recover_entry = {
	.name = "recover",
	.optstring = "",
	.longopts = recover_longopts,
	.lower = 0,
	.upper = 0,
	.usage = "recover [--filter K=V]... [--since D] [--limit N] [--json] [--yes] [--wait[=MAX]]\n"
	    "       [--follow-symlinks]",
	.summary = "list failed runs (dry run) or re-run them through the wrapper with --yes",
	.help = recover_help,
	.exec = recover_exec,
};
