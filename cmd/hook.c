/*
 * The [hooks] of rlwrap.conf(5): on_trip, on_close and on_wait name commands
 * run when a breaker trips, closes, or a spawn starts waiting, with the event
 * in RLWRAP_* variables.
 *
 * A hook never delays the wrapped command's output or exit status: it is
 * started after them (or, for on_wait, before the wait), detached by a
 * double fork, with no descriptor of ours but its report channel, and
 * without waiting for it.  A supervisor (the grandchild) runs it in a
 * process group of its own, kills the group after [hooks] timeout, reaps it,
 * and reports a failure in one line: on our stderr when that is a terminal
 * (which never holds up a reader), else appended to hooks.log beside the
 * state file.  Everything the children need is prepared before the first
 * fork, so that after it only async-signal-safe calls are made.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "breaker.h"
#include "cmd.h"
#include "store.h"
#include "textutil.h"

extern char **environ;

#define HOOK_ARGS_MAX 32
#define HOOK_ENV_VARS 8
/* Characters that make a hook a shell command line (/bin/sh -c). */
#define HOOK_SHELL_CHARS "|&;<>()$`\\\"'*?[]#~{}!\n"
/* After the time limit: SIGTERM, then this long before SIGKILL. */
#define HOOK_KILL_GRACE_MS 1000

/* Everything the children use, made before the first fork. */
struct hook_job {
	char *argv[HOOK_ARGS_MAX + 1];
	char words[CONFIG_HOOK_MAX];
	char path[PATH_MAX];
	char **envp;
	char report_prefix[CONFIG_HOOK_MAX + 64];
	int report_fd;                  /* -1: failures go unreported */
	long timeout_ms;
};

/* name as execvp(3) would find it: a path as given, else the first
 * executable file of that name in $PATH. */
static bool
find_program(const char *name, char *path, size_t size)
{
	const char *dirs = getenv("PATH");
	char *copy, *save = NULL;
	bool found = false;

	if (strchr(name, '/') != NULL)
		return strlcpy(path, name, size) < size && access(path, X_OK) == 0;
	if ((copy = strdup(dirs != NULL ? dirs : "/usr/bin:/bin")) == NULL)
		return false;
	for (char *d = strtok_r(copy, ":", &save); d != NULL && !found; d = strtok_r(NULL, ":", &save)) {
		struct stat st;

		found = (size_t)snprintf(path, size, "%s/%s", d, name) < size && access(path, X_OK) == 0 &&
		    stat(path, &st) == 0 && S_ISREG(st.st_mode);
	}
	free(copy);
	return found;
}

/* argv from the hook's value: /bin/sh -c VALUE when it asks for a shell,
 * else its words; path is the program, found on PATH.  False when there is
 * nothing to run (an empty value, or a program not found). */
static bool
hook_argv(struct hook_job *job, const char *value)
{
	static char sh[] = "/bin/sh", dash_c[] = "-c";
	int n = 0;

	strlcpy(job->words, value, sizeof(job->words));
	if (strpbrk(value, HOOK_SHELL_CHARS) != NULL) {
		job->argv[0] = sh;
		job->argv[1] = dash_c;
		job->argv[2] = job->words;
		job->argv[3] = NULL;
		return strlcpy(job->path, sh, sizeof(job->path)) < sizeof(job->path);
	}
	for (char *w = strtok(job->words, " \t"); w != NULL && n < HOOK_ARGS_MAX; w = strtok(NULL, " \t"))
		job->argv[n++] = w;
	job->argv[n] = NULL;
	return n > 0 && find_program(job->argv[0], job->path, sizeof(job->path));
}

/* The environment plus the event's RLWRAP_* variables (ours replace any
 * inherited ones), from *ours on; hook_env_free() releases them once the
 * children have their copies. */
static char **
hook_env(const char *const vars[HOOK_ENV_VARS][2], size_t *ours)
{
	size_t n = 0, k = 0;
	char **envp;

	while (environ[n] != NULL)
		n++;
	if ((envp = calloc(n + HOOK_ENV_VARS + 1, sizeof(*envp))) == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "RLWRAP_", 7) != 0 || strchr(environ[i], '=') == NULL ||
		    strncmp(environ[i], "RLWRAP_DB=", 10) == 0 || strncmp(environ[i], "RLWRAP_CONFIG=", 14) == 0)
			envp[k++] = environ[i];
	*ours = k;
	for (int v = 0; v < HOOK_ENV_VARS; v++) {
		/* a value from a stream, or a row another host wrote, as the
		 * sanitiser leaves it: no newline, escape or bidi control */
		const char *raw = vars[v][1] != NULL ? vars[v][1] : "";
		size_t size = strlen(raw) + 1;
		char *value = malloc(size);

		if (value != NULL) {
			clean_copy_str(value, size, raw);
			if (asprintf(&envp[k], "%s=%s", vars[v][0], value) >= 0)
				k++;
		}
		free(value);
	}
	envp[k] = NULL;
	return envp;
}

static void
hook_env_free(char **envp, size_t ours)
{
	for (size_t i = ours; envp[i] != NULL; i++)
		free(envp[i]);
	free(envp);
}

/* Where a failure is reported: our stderr on a terminal, else hooks.log in
 * the state file's directory (none for a database URL). */
static int
hook_report_fd(const struct config *cfg)
{
	struct store_options opts;
	struct store_error error;
	char log[PATH_MAX];

	if (isatty(STDERR_FILENO))
		return fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
	if (!store_options_resolve(&opts, cfg->store_path, 0, 0, &error) || strchr(opts.path, ':') != NULL)
		return -1;
	snprintf(log, sizeof(log), "%s/hooks.log", dirname(opts.path));
	return open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
}

/* ---- after the fork: async-signal-safe calls only ---- */

static size_t
append(char *buf, size_t len, size_t size, const char *s)
{
	while (*s != '\0' && len + 1 < size)
		buf[len++] = *s++;
	return len;
}

static size_t
append_long(char *buf, size_t len, size_t size, long v)
{
	char digits[24];
	int n = 0;

	do
		digits[n++] = (char)('0' + v % 10);
	while ((v /= 10) > 0 && n < 23);
	while (n > 0 && len + 1 < size)
		buf[len++] = digits[--n];
	return len;
}

/* One line: the prefix, what went wrong, a number and its unit. */
static void
report(const struct hook_job *job, const char *what, long n, const char *unit)
{
	char line[sizeof(job->report_prefix) + 96];
	size_t len;

	if (job->report_fd < 0)
		return;
	len = append(line, 0, sizeof(line), job->report_prefix);
	len = append(line, len, sizeof(line), what);
	if (n >= 0)
		len = append_long(line, len, sizeof(line), n);
	len = append(line, len, sizeof(line), unit);
	line[len++] = '\n';
	(void)!write(job->report_fd, line, len);
}

/* The hook itself: its own process group (so that the supervisor can end
 * all of it), default signals, nothing on stdin or stdout, the report
 * channel as stderr. */
static void
exec_hook(const struct hook_job *job, int devnull)
{
	static const int defaults[] = { SIGPIPE, SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGTSTP, SIGTTIN,
		SIGTTOU, SIGCHLD, SIGUSR1, SIGUSR2 };
	sigset_t none;

	setpgid(0, 0);
	for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++)
		signal(defaults[i], SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	dup2(devnull, STDIN_FILENO);
	dup2(devnull, STDOUT_FILENO);
	dup2(job->report_fd >= 0 ? job->report_fd : devnull, STDERR_FILENO);
	execve(job->path, job->argv, job->envp);
	_exit(127);
}

/* Waits up to ms for pid (SIGCHLD blocked); true with its status when it
 * ended in time. */
static bool
wait_for(pid_t pid, long ms, int *status)
{
	struct timespec left = { ms / 1000, ms % 1000 * 1000000L }, t0, t1;
	sigset_t chld;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	for (;;) {
		if (waitpid(pid, status, WNOHANG) == pid)
			return true;
		if (left.tv_sec < 0 || (left.tv_sec == 0 && left.tv_nsec <= 0))
			return false;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		sigtimedwait(&chld, NULL, &left);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		left.tv_sec -= t1.tv_sec - t0.tv_sec;
		left.tv_nsec -= t1.tv_nsec - t0.tv_nsec;
		if (left.tv_nsec < 0) {
			left.tv_nsec += 1000000000L;
			left.tv_sec--;
		}
	}
}

/* The grandchild: runs the hook, enforces the time limit, reaps, reports. */
static void
supervise(struct hook_job *job)
{
	int devnull, status = 0;
	sigset_t chld;
	pid_t pid;

	/* Hold nothing of ours open but the report channel (moved to 3): a
	 * reader of our stdout or stderr must see its end when we exit, not
	 * when the hook does. */
	if (job->report_fd >= 0 && job->report_fd != 3 && dup2(job->report_fd, 3) == 3)
		job->report_fd = 3;
	if (job->report_fd == 3)
		fcntl(3, F_SETFD, FD_CLOEXEC);
	close_range(job->report_fd == 3 ? 4 : 3, ~0U, 0);
	devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	dup2(devnull, STDIN_FILENO);
	dup2(devnull, STDOUT_FILENO);
	dup2(devnull, STDERR_FILENO);
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);
	signal(SIGCHLD, SIG_DFL);
	if ((pid = fork()) < 0)
		_exit(1);
	if (pid == 0)
		exec_hook(job, devnull);
	setpgid(pid, pid);
	if (!wait_for(pid, job->timeout_ms, &status)) {
		kill(-pid, SIGTERM);
		if (!wait_for(pid, HOOK_KILL_GRACE_MS, &status)) {
			kill(-pid, SIGKILL);
			waitpid(pid, &status, 0);
		}
		report(job, "still running after ", (job->timeout_ms + 999) / 1000, "s: killed");
		_exit(0);
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
		report(job, "exited with status ", WEXITSTATUS(status), "");
	else if (WIFSIGNALED(status))
		report(job, "killed by signal ", WTERMSIG(status), "");
	_exit(0);
}

/* Double fork: the intermediate child exits at once (reaped here), so the
 * supervisor belongs to init and nothing of ours waits for it. */
static void
start_detached(struct hook_job *job)
{
	pid_t pid = fork();

	if (pid < 0) {
		report(job, "cannot fork, errno ", errno, "");
		return;
	}
	if (pid == 0) {
		setsid();
		if (fork() == 0)
			supervise(job);
		_exit(0);
	}
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

/* ---- before the fork ---- */

/* Starts cfg's hook for event with the RLWRAP_* variables of b (reason:
 * RLWRAP_REASON, NULL for b's); silent when none is set. */
static void
hook_start(const struct config *cfg, enum hook_event event, const struct breaker *b, const char *reason)
{
	const char *value = cfg->hooks[event];
	struct hook_job job = { .report_fd = -1 };
	char resets_at[40] = "";
	size_t ours = 0;

	if (value[0] == '\0')
		return;
	if (b->resets_at > 0)
		format_utc_iso(b->resets_at, resets_at, sizeof(resets_at));
	const char *const vars[HOOK_ENV_VARS][2] = {
		{ "RLWRAP_EVENT", hook_event_name(event) }, { "RLWRAP_FAMILY", b->key.family },
		{ "RLWRAP_SCOPE", b->key.scope }, { "RLWRAP_ACCOUNT", b->key.account },
		{ "RLWRAP_REASON", reason != NULL ? reason : b->reason != REASON_NONE ? reason_name(b->reason) : "" },
		{ "RLWRAP_RESETS_AT", resets_at }, { "RLWRAP_RESET_SOURCE", b->reset_source },
		{ "RLWRAP_MESSAGE", b->last_message },
	};

	job.timeout_ms = (long)(cfg->hook_timeout * 1000);
	snprintf(job.report_prefix, sizeof(job.report_prefix), "rlwrap: hook on_%s (%s): ",
	    hook_event_name(event), value);
	job.report_fd = hook_report_fd(cfg);
	if (!hook_argv(&job, value))
		report(&job, "cannot run it: not found on PATH", -1, "");
	else if ((job.envp = hook_env(vars, &ours)) == NULL)
		report(&job, "out of memory", -1, "");
	else {
		start_detached(&job);
		hook_env_free(job.envp, ours);
	}
	if (job.report_fd >= 0)
		close(job.report_fd);
}

void
hooks_run_transitions(const struct config *cfg, const struct breaker_transitions *t)
{
	for (size_t i = 0; i < t->count; i++)
		hook_start(cfg, t->change[i] == CHANGE_CLOSED ? HOOK_CLOSE : HOOK_TRIP, &t->breaker[i], NULL);
}

void
hook_run_wait(const struct config *cfg, const struct breaker *blocking)
{
	hook_start(cfg, HOOK_WAIT, blocking, NULL);
}

/* The reading as a breaker's variables: scope its model class (or "*"),
 * reason "reserve", the window's reset, the message what is left. */
void
hook_run_reserve(const struct config *cfg, const struct usage_reading *r, double keep)
{
	struct breaker b;

	memset(&b, 0, sizeof(b));
	strlcpy(b.key.family, r->family, sizeof(b.key.family));
	strlcpy(b.key.account, r->account, sizeof(b.key.account));
	strlcpy(b.key.scope, r->model[0] != '\0' ? r->model : SCOPE_FAMILY, sizeof(b.key.scope));
	b.resets_at = r->resets_at;
	strlcpy(b.reset_source, "reading", sizeof(b.reset_source));
	snprintf(b.last_message, sizeof(b.last_message), "%s: %.0f%% left, the reserve keeps %.0f%%", r->window,
	    100 * reading_left(r), 100 * keep);
	hook_start(cfg, HOOK_RESERVE, &b, "reserve");
}
