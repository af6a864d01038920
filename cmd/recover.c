/*
 * rlwrap recover [--filter K=V]... [--since D] [--limit N] [--json] [--yes]
 *     [--wait[=MAX]] [--max-attempts N] [--include-lost]
 * Lists failed and refused runs that were not recovered yet and says what
 * --yes would do; --yes re-runs them, one after another, through the
 * wrapper.  Each is an origin: its re-runs name it, the live re-run holds
 * its claim, and it is re-run at most --max-attempts times
 * (docs/design.md section 7).
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
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
#include "outcome.h"
#include "redact.h"
#include "run_sign.h"
#include "timeparse.h"

enum { OPT_FILTER = OPT_LONG_BASE, OPT_SINCE, OPT_LIMIT, OPT_JSON, OPT_YES, OPT_WAIT, OPT_FOLLOW,
	OPT_MAX_ATTEMPTS, OPT_INCLUDE_LOST };

#define MAX_ATTEMPTS_DEFAULT 3

static const struct option recover_longopts[] = {
	{ "filter", required_argument, NULL, OPT_FILTER },
	{ "since", required_argument, NULL, OPT_SINCE },
	{ "limit", required_argument, NULL, OPT_LIMIT },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "yes", no_argument, NULL, OPT_YES },
	{ "wait", optional_argument, NULL, OPT_WAIT },
	{ "follow-symlinks", no_argument, NULL, OPT_FOLLOW },
	{ "max-attempts", required_argument, NULL, OPT_MAX_ATTEMPTS },
	{ "include-lost", no_argument, NULL, OPT_INCLUDE_LOST },
	{ NULL, 0, NULL, 0 },
};

enum action { ACT_RUN, ACT_WAIT_RUN, ACT_SKIP_TRIPPED, ACT_SKIP_CWD, ACT_SKIP_REDACTED, ACT_SKIP_NO_ARGV,
	ACT_SKIP_OTHER_HOST, ACT_SKIP_ALTERED, ACT_SKIP_CWD_LINK, ACT_SKIP_UNSIGNED, ACT_SKIP_EXHAUSTED };

struct plan_item {
	long long id;
	enum action action;
	double until;              /* the blocking breaker's reset */
	char *argv_json, *cwd;
	char host[256];            /* the host that recorded it ("" = unknown) */
	char *argv_exact;          /* the exact argv (redact.h); NULL: use argv_json */
	char *family, *model, *account;   /* what decided its key: the re-run's too */
	char *env_json;            /* the account's environment, restored for the re-run; NULL = none */
	char **command;            /* the stored command, decoded; NULL when there is none */
	size_t command_len;
	long attempts;             /* re-runs of it spawned so far */
	long max_attempts;
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
	long max_attempts;         /* re-runs of one origin, at most */
	unsigned char key[RUN_SIGN_KEY];   /* this user's signing key, when have_key */
	bool have_key;
	char key_why[512];         /* why there is none */
	const struct config *cfg;
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
	case ACT_SKIP_UNSIGNED:
		return "refused: its signature does not verify, so this user on this host did not write it "
		    "as it stands (planted or altered in the store, or from before signatures); not run";
	case ACT_SKIP_EXHAUSTED:
		snprintf(buf, size, "skip: re-run %ld times already (--max-attempts %ld)", it->attempts,
		    it->max_attempts);
		return buf;
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

/* The stored command: its exact bytes, or (rows without them) the JSON
 * array's strings, NULL-terminated; NULL when none was stored. */
static char **
stored_command(const char *argv_exact, const char *argv_json, size_t *len)
{
	json_t *a = json_loads(argv_exact != NULL ? argv_exact : argv_json != NULL ? argv_json : "[]", 0, NULL), *v;
	char **argv;
	size_t i;

	*len = json_array_size(a);
	if (*len == 0 || (argv = calloc(*len + 1, sizeof(*argv))) == NULL) {
		json_decref(a);
		*len = 0;
		return NULL;
	}
	json_array_foreach(a, i, v) {
		const char *str = json_string_value(v) != NULL ? json_string_value(v) : "";

		if ((argv[i] = malloc(strlen(str) + 1)) == NULL)
			err(1, "malloc");
		if (argv_exact != NULL)
			argv_exact_decode(str, argv[i]);
		else
			memcpy(argv[i], str, strlen(str) + 1);
	}
	json_decref(a);
	return argv;
}

/* Did this user on this host write the row as it stands (run_sign.h)? */
static bool
signed_here(const struct plan *p, const struct run_row *r, const struct plan_item *it)
{
	struct run_signed s = {
		.uid = r->uid, .host = r->host, .account = r->account, .cwd = r->cwd, .env_json = r->env_json,
		.user = (unsigned long)getuid(), .argc = it->command_len, .argv = it->command,
	};

	return p->have_key && it->command != NULL && run_sign_verify(p->key, &s, r->hmac);
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
	if (!signed_here(p, r, it))
		return ACT_SKIP_UNSIGNED;
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
	it->max_attempts = p->max_attempts;
	strlcpy(it->host, r->host, sizeof(it->host));
	exact = argv_exact_text(r->argv_exact, r->argv_json);
	it->command = stored_command(exact, r->argv_json, &it->command_len);
	it->action = decide(p, r, it);
	it->argv_json = cmd_strdup(r->argv_json);
	it->cwd = cmd_strdup(r->cwd);
	it->argv_exact = cmd_strdup(exact);
	it->env_json = cmd_strdup(r->env_json);
	it->family = cmd_strdup(r->family);
	it->model = cmd_strdup(r->model);
	it->account = cmd_strdup(r->account);
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
		free(p->items[i].env_json);
		for (size_t k = 0; k < p->items[i].command_len; k++)
			free(p->items[i].command[k]);
		free(p->items[i].command);
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

/* <self> run [--wait[=MAX]] --family F --model M --account A --signal-file FILE
 * -- argv...: the original's identity, so that its outcome lands on its key. */
static char **
rerun_argv(const char *self, const struct plan_item *it, const char *signal_file, const char *wait)
{
	size_t n = it->command_len, k = 0;
	char **argv = n > 0 ? calloc(n + 16, sizeof(*argv)) : NULL;

	if (argv == NULL)
		return NULL;
	argv[k++] = cmd_strdup(self);
	argv[k++] = cmd_strdup("run");
	if (wait != NULL)
		argv[k++] = cmd_strdup(wait);
	if (family_known(it->family)) {
		argv[k++] = cmd_strdup("--family");
		argv[k++] = cmd_strdup(it->family);
	}
	if (*it->model != '\0') {
		argv[k++] = cmd_strdup("--model");
		argv[k++] = cmd_strdup(it->model);
	}
	argv[k++] = cmd_strdup("--account");
	argv[k++] = cmd_strdup(*it->account != '\0' ? it->account : "default");
	argv[k++] = cmd_strdup("--signal-file");
	argv[k++] = cmd_strdup(signal_file);
	argv[k++] = cmd_strdup("--");
	for (size_t i = 0; i < n; i++)
		argv[k++] = cmd_strdup(it->command[i]);
	return argv;
}

static void
argv_free(char **argv)
{
	for (size_t i = 0; argv != NULL && argv[i] != NULL; i++)
		free(argv[i]);
	free(argv);
}

/* Keeps why recover stops re-running it with the run, and says it. */
static void
gave_up(struct plan *p, const struct plan_item *it, long attempts)
{
	struct store_error error;
	char note[160];

	snprintf(note, sizeof(note), "gave up after %ld re-runs (--max-attempts %ld)", attempts, p->max_attempts);
	if (!store_run_note(p->store, it->id, note, &error))
		warnx_visible("%s", error.message);
	warnx("recover: #%lld skipped: %s", it->id, note);
}

/* Claims the origin for the re-run pid, so that neither a recover running
 * alongside nor a later one runs it while that process lives; false (said
 * why) when someone else has it, or its attempts are used up. */
static bool
claim(struct plan *p, const struct plan_item *it, pid_t pid)
{
	struct probe_lease rerun = p->holder, by;
	struct store_error error;
	enum run_claim result;
	long attempts;

	rerun.pid = (long)pid;
	rerun.start_time = holder_start_time((long)pid);
	if (!store_run_claim_origin(p->store, it->id, &rerun, real_now(), p->started, p->max_attempts, &result,
	    &by, &attempts, &error)) {
		warnx_visible("%s", error.message);
		return false;
	}
	if (result == CLAIM_RECOVERED)
		warnx("recover: #%lld skipped: recovered meanwhile", it->id);
	else if (result == CLAIM_HELD)
		warnx_visible("recover: #%lld skipped: a re-run of it (pid %ld on %s) runs now", it->id,
		    by.pid, by.host);
	else if (result == CLAIM_EXHAUSTED)
		gave_up(p, it, attempts);
	return result == CLAIM_TAKEN;
}

/* The re-run's environment: the family's config-directory variable as the
 * original had it (set, or unset when it had none), and the origin the
 * wrapper marks recovered when the re-run succeeds. */
static void
rerun_env(const struct plan *p, const struct plan_item *it)
{
	const char *name = config_dir_env(p->cfg, it->family), *key;
	json_t *env = it->env_json != NULL ? json_loads(it->env_json, 0, NULL) : NULL, *v;
	char origin[32];

	if (name != NULL)
		unsetenv(name);
	json_object_foreach(env, key, v)
		if (json_string_value(v) != NULL && name != NULL && strcmp(key, name) == 0)
			setenv(key, json_string_value(v), 1);
	json_decref(env);
	snprintf(origin, sizeof(origin), "%lld", it->id);
	setenv("RLWRAP_RECOVERS", origin, 1);
}

/*
 * Forks the re-run, which waits on a pipe until the origin is claimed in
 * its own name (its pid and start time, which exec keeps): the claim lives
 * as long as the re-run does, whatever becomes of this process.  *claimed
 * false: not claimed (said why), nothing ran.  Returns the re-run's status
 * the way a shell shows it.
 */
static int
spawn_claimed(struct plan *p, const struct plan_item *it, char **argv, bool *claimed)
{
	int go[2], status;
	pid_t pid;
	char yes = 'y';

	*claimed = false;
	if (pipe2(go, O_CLOEXEC) != 0 || (pid = fork()) < 0) {
		warn("recover: #%lld not re-run: starting it", it->id);
		return EXIT_INTERNAL;
	}
	if (pid == 0) {
		close(go[1]);
		if (read(go[0], &yes, 1) != 1)
			_exit(0);   /* not claimed, or recover died first: nothing runs */
		if (chdir(it->cwd) != 0)
			_exit(EXIT_INTERNAL);
		rerun_env(p, it);
		execv(argv[0], argv);
		_exit(EXIT_NOTFOUND);
	}
	close(go[0]);
	*claimed = claim(p, it, pid);
	if (*claimed && write(go[1], &yes, 1) != 1)
		*claimed = false;
	close(go[1]);
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

static bool
rerun(struct plan *p, const struct plan_item *it, const char *self, const char *wait)
{
	char path[] = "/tmp/rlwrap-recover.XXXXXX", reason[32];
	struct store_error error;
	long long run_id = 0;
	bool claimed = false;
	char **argv;
	int fd, status = EXIT_INTERNAL;

	if ((fd = mkstemp(path)) < 0) {
		warn("mkstemp");
		return false;
	}
	close(fd);
	if ((argv = rerun_argv(self, it, path, wait)) != NULL) {
		status = spawn_claimed(p, it, argv, &claimed);
		argv_free(argv);
		if (!claimed) {   /* said why; nothing ran */
			unlink(path);
			return true;
		}
	}
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
	/* The re-run marked it already; this is for a re-run that could not. */
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
	bool ran = false, failed = false;

	if (!exe_path(self, sizeof(self)))
		errx(1, "cannot find rlwrap's own executable to run again");
	for (size_t i = 0; i < p->count; i++) {
		const struct plan_item *it = &p->items[i];
		char why[PATH_MAX + 200];

		if (it->action == ACT_SKIP_EXHAUSTED) {
			gave_up(p, it, it->attempts);
			continue;
		}
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
count_attempt(const struct run_row *row, void *arg)
{
	if (strcmp(row->state, "refused") != 0)
		++*(long *)arg;
	return true;
}

/* Each runnable origin's re-runs so far; those at --max-attempts are
 * skipped (and, with --yes, noted so in the store by run_plan). */
static bool
count_attempts(struct plan *p, struct store_error *error)
{
	for (size_t i = 0; i < p->count; i++) {
		struct plan_item *it = &p->items[i];
		struct run_filter reruns = { .origin = it->id };

		if (!store_runs_each(p->store, &reruns, count_attempt, &it->attempts, error))
			return false;
		json_object_set_new(it->json, "attempts", json_integer(it->attempts));
		if ((it->action == ACT_RUN || it->action == ACT_WAIT_RUN) && it->attempts >= p->max_attempts)
			it->action = ACT_SKIP_EXHAUSTED;
	}
	return true;
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
	long long limit = 0, attempts = MAX_ATTEMPTS_DEFAULT;
	const char *w = args_get(args, OPT_WAIT);

	p->wait_max = -1;
	p->follow_symlinks = args_has(args, OPT_FOLLOW);
	f->include_lost = args_has(args, OPT_INCLUDE_LOST);
	if (!parse_filters(self, args, f) ||
	    (args_has(args, OPT_SINCE) && !cmd_parse_since(self, args_get(args, OPT_SINCE), p->now, &f->since)) ||
	    (args_has(args, OPT_LIMIT) && !opt_int(self, "--limit", args_get(args, OPT_LIMIT), 1, 1000000, &limit)) ||
	    (args_has(args, OPT_MAX_ATTEMPTS) && !opt_int(self, "--max-attempts", args_get(args, OPT_MAX_ATTEMPTS), 0,
	    1000, &attempts)))
		return false;
	f->limit = (long)limit;
	p->max_attempts = (long)attempts;
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
	int rc = 0, settled;

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
	p.cfg = &cfg;
	p.have_key = run_sign_key_load(false, p.key, p.key_why, sizeof(p.key_why));
	holder_self(&me);
	strlcpy(p.host, me.host, sizeof(p.host));
	p.holder = me;
	if (args_has(args, OPT_YES) && store_writable_by_others(p.store, why, sizeof(why))) {
		warnx_visible("recover --yes: refused: %s, so a command in it may not be yours", why);
		plan_free(&p);
		cmd_state_close(&st);
		run_filter_free(&filter);
		return 1;
	}
	/* Runs whose final write failed: their journaled outcomes first. */
	if (args_has(args, OPT_YES) && !outcome_settle_all(p.store, &settled, &error))
		warnx_visible("%s; a journaled outcome is left for next time", error.message);
	if (!store_runs_each(p.store, &filter, plan_row, &p, &error) || !count_attempts(&p, &error)) {
		warnx_visible("%s", error.message);
		rc = 1;
	} else if (!args_has(args, OPT_YES))
		print_plan(&p, args_has(args, OPT_JSON));
	else
		rc = run_plan(&p, *wait != '\0' ? wait : NULL);
	plan_free(&p);
	memset(p.key, 0, sizeof(p.key));
	cmd_state_close(&st);
	run_filter_free(&filter);
	return rc;
}

static const struct cmd_help recover_help[] = {
	{ "--filter K=V", "only runs whose K (reason, family, model, account, exit, cwd, state) is V;"
	  " a comma is any of; state=refused: the spawns a breaker, a budget or a full queue refused",
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
	{ "--max-attempts N", "re-run one failed run at most N times in all (default 3); then it is noted and left",
	  "rlwrap recover --yes --max-attempts 1" },
	{ "--include-lost", "also offer runs whose wrapper died (their outcome is unknown: the work may be done)",
	  "rlwrap recover --include-lost" },
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
	    "       [--max-attempts N] [--include-lost] [--follow-symlinks]",
	.summary = "list failed runs (dry run) or re-run them through the wrapper with --yes",
	.help = recover_help,
	.exec = recover_exec,
};
