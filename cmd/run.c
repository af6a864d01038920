/*
 * rlwrap [run] [options] [--] command [arg ...]: the wrapper.
 *
 * Invisible when nothing goes wrong: the child's bytes pass through as they
 * arrive, its exit status (or fatal signal) becomes ours, signals reach it.
 * On the side, the same bytes feed the streaming classifier, whose verdict
 * goes to --signal-file, the run history and the breakers (cmd/run_gate.c,
 * which also refuses or waits before the spawn), and, when it trips a
 * breaker, one line on stderr.  --retry runs it again after a limit that
 * struck before any real output, holding stdout back until then.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ansi.h"
#include "classify.h"
#include "cmd.h"
#include "detect.h"
#include "relay.h"
#include "run.h"
#include "run_tap.h"
#include "textutil.h"
#include "timeparse.h"
#include "tty.h"

enum {
	OPT_RAW_STREAM = OPT_LONG_BASE, OPT_SIGNAL_FILE, OPT_FORCE, OPT_PTY, OPT_NO_PTY, OPT_NO_RECORD,
	OPT_COLOR, OPT_PRIORITY
};

static const struct option run_longopts[] = {
	{ "family", required_argument, NULL, 'f' },
	{ "model", required_argument, NULL, 'm' },
	{ "account", required_argument, NULL, 'a' },
	{ "wait", optional_argument, NULL, 'w' },
	{ "retry", optional_argument, NULL, 'r' },
	{ "raw-stream", required_argument, NULL, OPT_RAW_STREAM },
	{ "signal-file", required_argument, NULL, OPT_SIGNAL_FILE },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "pty", no_argument, NULL, OPT_PTY },
	{ "no-pty", no_argument, NULL, OPT_NO_PTY },
	{ "no-record", no_argument, NULL, OPT_NO_RECORD },
	{ "color", optional_argument, NULL, OPT_COLOR },
	{ "priority", required_argument, NULL, OPT_PRIORITY },
	{ NULL, 0, NULL, 0 },
};

#define WAIT_MAX_DEFAULT (6 * 3600.0)
#define RETRY_DEFAULT 3

enum pty_choice { PTY_AUTO, PTY_ON, PTY_OFF };

static struct term_mode run_term;
/* Every way the wrapper ends rewrites --signal-file (a stale one would tell
 * of another run): what the usual paths did not write, on_exit() writes
 * with the status the process ends with, rlwrap's own 125 among them.  It
 * keeps copies of its own: run_exec's frame is gone by then. */
static struct {
	struct run_opts o;        /* argv and signal_file only */
	struct run_identity id;
	bool armed, written;
} at_exit;

static void
restore_terminal(void)
{
	term_restore(&run_term);
}

static void
copy_command(struct run_opts *o, char **operands, int count)
{
	o->argc = count;
	o->argv = reallocarray(NULL, (size_t)count + 1, sizeof(*o->argv));
	if (o->argv == NULL)
		err(EXIT_INTERNAL, "reallocarray");
	for (int i = 0; i < count; i++)
		o->argv[i] = cmd_strdup(operands[i]);
	o->argv[count] = NULL;
}

static void
run_opts_free(struct run_opts *o)
{
	for (int i = 0; i < o->argc; i++)
		free(o->argv[i]);
	free(o->argv);
	free(o->family);
	free(o->model);
	free(o->account);
	free(o->raw_stream);
	free(o->signal_file);
}

static bool
parse_wait_retry(const struct args *args, struct run_opts *o)
{
	const struct cmd_entry *self = &cmd_run_entry;
	const char *v;

	o->wait_max = WAIT_MAX_DEFAULT;
	o->retry_max = RETRY_DEFAULT;
	if ((o->wait = args_has(args, 'w')) && *(v = args_get(args, 'w')) != '\0' &&
	    !opt_duration(self, "--wait", v, &o->wait_max))
		return false;
	if ((o->retry = args_has(args, 'r')) && *(v = args_get(args, 'r')) != '\0' &&
	    !opt_int(self, "--retry", v, 0, 100, &o->retry_max))
		return false;
	return true;
}

/* cmd_entry.takes_value: `--wait 2h`, `-r 2`. */
static bool
run_takes_value(int opt, const char *word)
{
	const char *errstr;
	double secs;

	if (opt == 'w')
		return duration_parse(word, &secs);
	if (opt == 'r') {
		(void)strtonum(word, 0, 100, &errstr);
		return errstr == NULL;
	}
	return false;
}

/* Whether name, without a slash, is an executable in $PATH. */
static bool
on_path(const char *name)
{
	const char *path = getenv("PATH");
	char file[PATH_MAX];
	size_t n;

	for (const char *p = path != NULL ? path : "/usr/bin:/bin"; ; p += n + 1) {
		n = strcspn(p, ":");
		if (snprintf(file, sizeof(file), "%.*s/%s", (int)n, n > 0 ? p : ".", name) <
		    (int)sizeof(file) && access(file, X_OK) == 0)
			return true;
		if (p[n] == '\0')
			return false;
	}
}

/* The subcommand within two edits of word, or NULL. */
static const char *
subcommand_near(const char *word)
{
	const char *best = NULL;
	int best_d = 3, d;

	for (const struct cmd_entry *const *e = cmd_table; *e != NULL; e++)
		if ((d = edit_distance(word, (*e)->name, 2)) < best_d)
			best = (*e)->name, best_d = d;
	return best;
}

/* A first operand that is a mistake, not a command: a duration or number
 * (`rlwrap --wait 2h` read as running "2h"), or a mistyped subcommand that
 * is no command either.  After "--" the word is always the command. */
static bool
check_first_operand(const struct args *args)
{
	const struct cmd_entry *self = &cmd_run_entry;
	const char *word = args->operands[0], *near;
	double secs;

	if (args->after_dashdash || strchr(word, '/') != NULL)
		return true;
	if (duration_parse(word, &secs)) {
		if (word[strspn(word, "0123456789")] == '\0')
			usage_error(self, "%s: a number, not a command; a value goes attached (--retry=%s, "
			    "--wait=%s), a command of that name after --", word, word, word);
		else
			usage_error(self, "%s: a duration, not a command; a value goes attached (--wait=%s), "
			    "a command of that name after --", word, word);
		return false;
	}
	if ((near = subcommand_near(word)) != NULL && !on_path(word)) {
		usage_error(self, "%s: neither a command nor a subcommand; did you mean `rlwrap %s`?",
		    word, near);
		return false;
	}
	return true;
}

/* Fills o from the parsed options; false after a usage error. */
static bool
parse_run_opts(const struct args *args, struct run_opts *o)
{
	const struct cmd_entry *self = &cmd_run_entry;
	const char *family = args_get(args, 'f');

	memset(o, 0, sizeof(*o));
	if (!check_first_operand(args))
		return false;
	if (family != NULL && !family_known(family)) {
		usage_error(self, "--family %s: not a family (%s)", family, family_list());
		return false;
	}
	if (args_has(args, OPT_PTY) && args_has(args, OPT_NO_PTY)) {
		usage_error(self, "--pty and --no-pty exclude each other");
		return false;
	}
	if (args_has(args, OPT_COLOR) && !cmd_color_set(args_get(args, OPT_COLOR))) {
		usage_error(self, "--color=%s: not always, never or auto", args_get(args, OPT_COLOR));
		return false;
	}
	if (args_has(args, OPT_PRIORITY) && strcmp(args_get(args, OPT_PRIORITY), "high") != 0 &&
	    strcmp(args_get(args, OPT_PRIORITY), "normal") != 0) {
		usage_error(self, "--priority %s: not high or normal", args_get(args, OPT_PRIORITY));
		return false;
	}
	if (!parse_wait_retry(args, o))
		return false;
	/* A person waits on it: the reserve is kept for exactly this. */
	o->interactive = args_has(args, OPT_PTY) ||
	    (args_has(args, OPT_PRIORITY) && strcmp(args_get(args, OPT_PRIORITY), "high") == 0);
	o->family = cmd_strdup(family);
	o->model = cmd_strdup(args_get(args, 'm'));
	o->account = cmd_strdup(args_get(args, 'a'));
	o->raw_stream = cmd_strdup(args_get(args, OPT_RAW_STREAM));
	o->signal_file = cmd_strdup(args_get(args, OPT_SIGNAL_FILE));
	o->force = args_has(args, OPT_FORCE);
	o->quiet = args_has(args, 'q');
	o->verbose = args_has(args, 'v');
	o->no_record = args_has(args, OPT_NO_RECORD);
	o->pty = args_has(args, OPT_PTY) ? PTY_ON : args_has(args, OPT_NO_PTY) ? PTY_OFF : PTY_AUTO;
	copy_command(o, args->operands, args->count);
	return true;
}

/* The config's [family.NAME] commands, for detection. */
static const struct command_family *
config_command_map(const struct config *cfg, size_t *len)
{
	*len = cfg->command_map_len;
	return cfg->command_map;
}

static void
identify(const struct run_opts *o, const struct config *cfg, struct run_identity *id)
{
	const struct command_family *map;
	size_t map_len;

	memset(id, 0, sizeof(*id));
	id->command = detect_command_name(o->argv);
	if (o->family != NULL) {
		strlcpy(id->family, o->family, sizeof(id->family));
	} else {
		map = config_command_map(cfg, &map_len);
		detect_family(o->argv, map, map_len, id->family, sizeof(id->family));
	}
	id->family_given = strcmp(id->family, "generic") != 0 || o->family != NULL;
	if (o->model != NULL)
		strlcpy(id->model, o->model, sizeof(id->model));
	else
		detect_model(o->argv, id->family, id->model, sizeof(id->model));
	config_resolve_account(cfg, id->family, o->account, id->account, sizeof(id->account));
}

/* ---- the verdict ---- */

static void
signal_file_on_exit(int status, void *unused)
{
	struct fail_signal sig;
	struct signal_report rep = {
		.refused = true, .refused_by = status > 128 ? "interrupted" : "error", .sig = &sig,
		.now = cmd_now(),
	};
	json_t *obj;

	(void)unused;
	if (!at_exit.armed || signal_file_written)
		return;
	signal_init(&sig);
	sig.terminal = true;
	sig.exit_code = status;
	strlcpy(sig.family, at_exit.id.family, sizeof(sig.family));
	clock_gettime(CLOCK_REALTIME, &rep.started);
	rep.ended = rep.started;
	obj = signal_file_json(&at_exit.o, &at_exit.id, &rep);
	write_json_file("--signal-file", at_exit.o.signal_file, obj);
	json_decref(obj);
}

static void
signal_file_arm(const char *path, char **operands, int count)
{
	if (path == NULL || at_exit.armed)
		return;
	copy_command(&at_exit.o, operands, count);
	at_exit.o.signal_file = cmd_strdup(path);
	at_exit.armed = true;
	if (on_exit(signal_file_on_exit, NULL) != 0)
		at_exit.armed = false;
}

static void
write_signal_file(const struct run_opts *o, const struct run_identity *id, const struct run_result *r)
{
	struct fail_signal sig = r->sig;
	struct signal_report rep = {
		.sig = &sig, .started = r->started, .ended = r->ended, .term_signal = r->term_signal,
		.run_id = r->run_id, .attempts = r->attempts, .now = r->now,
	};
	json_t *obj;

	if (o->signal_file == NULL)
		return;
	sig.exit_code = r->exit_code;
	obj = signal_file_json(o, id, &rep);
	write_json_file("--signal-file", o->signal_file, obj);
	json_decref(obj);
}

/* Fills in what the stream did not say from what the command line did. */
static void
finish_verdict(struct run_tap *t, const struct run_opts *o, const struct run_identity *id,
    struct run_result *r)
{
	tap_queue_free(t->queue);
	t->queue = NULL;
	line_merge_finish(&t->merge);
	tap_screen_judged(t);
	classifier_finish(t->cls, r->exit_code, &r->sig);
	classifier_usage(t->cls, &r->usage);
	classifier_readings(t->cls, &r->readings);
	if (r->usage.held)
		warnx("the stream's usage went past what a run reports: "
		    "held at the maximum, a cost that is not a number left out");
	r->saw_output = classifier_saw_output(t->cls);
	if (o->model != NULL || (r->sig.model[0] == '\0' && id->model[0] != '\0'))
		strlcpy(r->sig.model, id->model, sizeof(r->sig.model));
	if (id->family_given)
		strlcpy(r->sig.family, id->family, sizeof(r->sig.family));
}

/* "rlwrap: claude: usage-limit, resets 2026-11-30T18:30:00Z (in 4h30m, provider)" */
static void
note_trip(const struct run_opts *o, const struct run_result *r)
{
	const struct fail_signal *s = &r->sig;
	char when[40], left[32];

	if (o->quiet || !reason_trips_by_default(s->reason))
		return;
	own_line();
	if (s->resets_at <= 0) {
		warnx_visible("%s: %s (no reset time stated)", s->family, reason_name(s->reason));
		return;
	}
	format_utc_iso(s->resets_at, when, sizeof(when));
	format_duration_short(s->resets_at - (double)r->now, left, sizeof(left));
	warnx_visible("%s: %s, resets %s (in %s, %s)", s->family, reason_name(s->reason), when, left,
	    reset_source_name(s->reset_source));
}

/* The way the child ended becomes ours: returns its exit code, or raises
 * its fatal signal on rlwrap (core dumps off), falling back to 128+n. */
static int
end_like_child(const struct run_result *r)
{
	struct rlimit no_core = { 0, 0 };
	sigset_t sig;

	restore_terminal();
	if (r->term_signal == 0)
		return r->exit_code;
	fflush(NULL);
	signal(r->term_signal, SIG_DFL);
	setrlimit(RLIMIT_CORE, &no_core);
	sigemptyset(&sig);
	sigaddset(&sig, r->term_signal);
	sigprocmask(SIG_UNBLOCK, &sig, NULL);
	raise(r->term_signal);
	return 128 + r->term_signal;
}

/* ---- running ---- */

static bool
want_pty(const struct run_opts *o)
{
	if (o->pty != PTY_AUTO)
		return o->pty == PTY_ON;
	return isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
}

/* A closed 0, 1 or 2 would be taken by our pipes or the state file: park
 * /dev/null there. */
static void
ensure_std_fds(void)
{
	for (int fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF &&
		    open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY) < 0)
			err(EXIT_INTERNAL, "/dev/null");
}

static void
exec_failed(const struct run_opts *o, const struct child *c, struct run_result *r)
{
	if (c->error == ENOENT)
		warnx_visible("%s: command not found", o->argv[0]);
	else
		warnx_visible("%s: %s", o->argv[0], strerror(c->error));
	r->exit_code = exec_error_exit_code(c->error);
}

/* The child is gone: the alternate screen and a hidden cursor it left on
 * our terminal go with it. */
static void
leave_screen(const struct child *c, const struct child_spec *spec)
{
	char seq[ANSI_RESTORE_MAX];
	size_t n;

	if (!spec->track_screen)
		return;
	n = ansi_screen_restore(&c->screen, false, seq);
	if (n > 0)
		(void)!write(STDOUT_FILENO, seq, n);
	own_line_after(ansi_screen_mid_line(&c->screen));
}

static void
renewer_soon(void *arg)
{
	run_lease_renewer_start(arg);
}

/* Spawns, relays and reaps; fills r with how the child ended. */
static void
run_child(const struct run_opts *o, const struct run_identity *id, struct child_spec *spec,
    struct run_breaker *b, struct run_result *r)
{
	struct child c;
	bool batch;

	switch (child_spawn(&c, spec)) {
	case SPAWN_FAILED:
		errno = c.error;
		err(EXIT_INTERNAL, "cannot run %s", o->argv[0]);
	case SPAWN_EXEC_FAILED:
		exec_failed(o, &c, r);
		return;
	case SPAWN_OK:
		break;
	}
	/* The lease renewer's thread is made once the command has run a while,
	 * not at once: making a second thread cost a run of `true` a tenth of
	 * its start-up (the running row was written before the spawn with a
	 * whole TTL ahead of it, and the first beat is an interval away). */
	spec->soon = renewer_soon;
	spec->soon_arg = b;
	spec->soon_ms = run_lease_renew_delay_ms();
	setproctitle("%s (pid %d)", id->command, (int)c.pid);
	if (spec->use_pty && isatty(STDIN_FILENO) && term_enter_raw(&run_term, STDIN_FILENO) == 0)
		spec->term = &run_term;
	/* Pipes only: a terminal's echo is not made to wait for a slice. */
	batch = !spec->use_pty && relay_batch(true);
	if (relay_pump(&c, spec) < 0) {
		kill(c.pid, SIGKILL);
		err(EXIT_INTERNAL, "relaying %s", o->argv[0]);
	}
	if (batch)
		relay_batch(false);   /* a --retry spawns again from here */
	leave_screen(&c, spec);
	r->status = c.status;
	r->exit_code = wait_status_exit_code(c.status);
	r->term_signal = wait_status_signal(c.status);
}

static void
spec_init(struct child_spec *spec, const struct run_opts *o, const struct config *cfg, struct run_tap *tap)
{
	memset(spec, 0, sizeof(*spec));
	spec->die_with_parent = !cfg->wrapper_orphan_keep;
	spec->argv = o->argv;
	spec->use_pty = want_pty(o);
	spec->stderr_on_pty = isatty(STDERR_FILENO);
	spec->track_screen = isatty(STDOUT_FILENO);
	spec->drain_ms = CHILD_DRAIN_MS;
	spec->tap = tap_output;
	spec->tap_arg = tap;
	tap->strip_screen = spec->use_pty;
	classifier_set_screen(tap->cls, spec->use_pty ? SCREEN_LINES : SCREEN_NONE);
	if (spec->use_pty)
		tap_screen_open(tap);
	tap->stderr_piped = spec->use_pty && !spec->stderr_on_pty;
}

/* ---- attempts and --retry ---- */

/* Holds stdout back while a retry is still possible; watches for the
 * first real output when holding or probing. */
static void
attempt_watch(struct run_ctx *x, const struct run_result *r, struct run_tap *tap,
    struct child_spec *spec)
{
	memset(&x->hold, 0, sizeof(x->hold));
	if (x->retry_ok && !spec->use_pty && r->attempts <= x->o.retry_max) {
		x->hold.holding = true;
		x->hold.max = RETRY_HOLD_MAX;
		spec->hold = tap->hold = &x->hold;
		tap->watch_output = true;
	}
	if (x->b.probing) {
		tap->breaker = &x->b;
		tap->watch_output = true;
	}
	/* Watching acts in the chunk the output arrives in: classify right here. */
	tap->async = !tap->watch_output && tap_async_pays();
}

static void
run_attempt(struct run_ctx *x, struct run_result *r)
{
	struct run_tap tap;
	struct child_spec spec;
	int attempts = r->attempts;

	memset(r, 0, sizeof(*r));
	r->attempts = attempts + 1;
	r->now = cmd_now();
	tap_init(&tap, &x->o, &x->id, x->raw_fd, r->now);
	spec_init(&spec, &x->o, &x->b.cfg, &tap);
	attempt_watch(x, r, &tap, &spec);
	tap_tee_open(&tap, &spec);
	if (child_signals_catch() < 0)
		err(EXIT_INTERNAL, "signals");
	clock_gettime(CLOCK_REALTIME, &r->started);
	r->clock_started = run_clock(&x->b);
	x->b.spawns++;
	run_child(&x->o, &x->id, &spec, &x->b, r);
	clock_gettime(CLOCK_REALTIME, &r->ended);
	r->clock_ended = run_clock(&x->b);
	child_signals_release();
	restore_terminal();
	r->now = cmd_now();
	finish_verdict(&tap, &x->o, &x->id, r);
	tap_free(&tap);
	record_after_run(&x->b, &x->o, &x->id, r);
}

/* The config's [wrapper] defaults, for what the command line left unsaid. */
static void
apply_config(struct run_opts *o, const struct config *cfg, const struct args *args)
{
	if (!args_has(args, 'w') && cfg->wrapper_wait >= 0) {
		o->wait = true;
		o->wait_max = cfg->wrapper_wait;
	}
	if (!args_has(args, 'r') && cfg->wrapper_retry > 0) {
		o->retry = true;
		o->retry_max = cfg->wrapper_retry;
	}
	o->quiet = o->quiet || cfg->wrapper_quiet;
	if (o->pty == PTY_AUTO && cfg->wrapper_pty != PTY_SETTING_AUTO)
		o->pty = cfg->wrapper_pty == PTY_SETTING_ON ? PTY_ON : PTY_OFF;
}

static bool
run_setup(struct args *args, struct run_ctx *x)
{
	memset(x, 0, sizeof(*x));
	x->raw_fd = -1;
	signal_file_arm(args_get(args, OPT_SIGNAL_FILE), args->operands, args->count);
	if (!parse_run_opts(args, &x->o))
		return false;
	ensure_std_fds();
	if (!run_breaker_init(&x->b)) {
		run_opts_free(&x->o);
		exit(EXIT_INTERNAL);
	}
	apply_config(&x->o, &x->b.cfg, args);
	identify(&x->o, &x->b.cfg, &x->id);
	at_exit.id = x->id;
	x->retry_ok = x->o.retry && x->o.retry_max > 0;
	if (x->retry_ok && !retry_stdin_replayable()) {
		x->retry_ok = false;
		if (!x->o.quiet)
			warnx("--retry: stdin is not a terminal, /dev/null or a file, so it cannot be "
			    "given again: not retrying");
	}
	return true;
}

static void
run_cleanup(struct run_ctx *x)
{
	if (x->raw_fd >= 0)
		close(x->raw_fd);
	run_breaker_close(&x->b);
	run_opts_free(&x->o);
}

static int
run_exec(struct args *args)
{
	struct run_ctx x;
	struct run_result r;
	struct sigaction pipe_was;
	int rc = -1;
	double wake;

	if (!run_setup(args, &x))
		return EXIT_INTERNAL;
	/* Both files are checked before the gate records a running row, and
	 * before any spawn: one that cannot be opened is ours (125), one the
	 * guard refuses is left out with one line. */
	if (x.o.raw_stream != NULL || x.o.signal_file != NULL)   /* 64 KiB touched */
		own_files_list(&run_own_files, &x.b.cfg);
	x.raw_fd = raw_stream_open(x.o.raw_stream);
	signal_file_check(&x.o);
	/* A refusal said to a closed stderr still exits 75; the child gets
	 * SIGPIPE's disposition back before it is spawned. */
	sigaction(SIGPIPE, &(struct sigaction){ .sa_handler = SIG_IGN }, &pipe_was);
	if ((rc = run_breaker_open(&x.b, &x.o, &x.id)) < 0)
		rc = gate_before_spawn(&x.b, &x.o, &x.id, x.o.wait ? x.o.wait_max : -1, x.o.force);
	if (rc >= 0) {
		run_cleanup(&x);
		return rc;
	}
	at_exit.id = x.id;   /* the account a pool chose */
	sigaction(SIGPIPE, &pipe_was, NULL);
	raw_stream_truncate(x.raw_fd, x.o.raw_stream);
	term_mode_init(&run_term);
	atexit(restore_terminal);
	memset(&r, 0, sizeof(r));
	do
		run_attempt(&x, &r);
	while (retry_wanted(&x, &r, &wake) && retry_prepare(&x, wake, &rc));
	signal(SIGPIPE, SIG_IGN);
	retry_hold_end(&x.hold, true);
	write_signal_file(&x.o, &x.id, &r);
	note_trip(&x.o, &r);
	run_cleanup(&x);
	return rc >= 0 ? rc : end_like_child(&r);
}

static const struct cmd_help run_help[] = {
	{ "-f, --family FAMILY", "the agent family (claude, codex, gemini, pi, opencode, cursor, qwen, goose, amp, copilot, generic) instead of detecting it",
	  "rlwrap -f claude -- ./my-claude-wrapper -p hi" },
	{ "-m, --model MODEL", "the model, for model-scoped breakers, instead of detecting it",
	  "rlwrap -m opus -- claude -p hi" },
	{ "-a, --account ACCOUNT", "the account label the breakers are kept under (an account of the "
	  "family's pool: run on it, with its environment)", "rlwrap -a work -- codex exec 'fix the build'" },
	{ "-v, --verbose", "say which account of the family's pool the spawn runs on, and why",
	  "rlwrap -v -- claude -p hi" },
	{ "-w, --wait[=MAX]", "wait out an open breaker that resets within MAX (default 6h) instead of refusing",
	  "rlwrap --wait=2h -- claude -p 'update the changelog'" },
	{ "-r, --retry[=N]", "run again, up to N times (default 3), after a limit hit before any real output",
	  "rlwrap --retry=1 --wait=1h -- codex exec 'add tests' </dev/null" },
	{ "--force", "run even when a breaker is open; the result still updates the breakers",
	  "rlwrap --force -- claude -p 'one more try'" },
	{ "-q, --quiet", "no messages of rlwrap's own on stderr except errors (a refusal still says why)",
	  "rlwrap -q -- gemini -p hi" },
	{ "--raw-stream FILE", "also write everything the command printed, in arrival order, to FILE",
	  "rlwrap --raw-stream run.jsonl -- claude -p hi --output-format stream-json --verbose" },
	{ "--signal-file FILE", "write how the run ended (the FailureSignal, argv, times, run id) to FILE as JSON",
	  "rlwrap --signal-file run.json -- codex exec --json 'fix it'" },
	{ "--pty", "run the command on a pseudo-terminal even when not on a terminal",
	  "rlwrap --pty -- claude" },
	{ "--no-pty", "never use a pseudo-terminal: the command gets pipes",
	  "rlwrap --no-pty -- claude -p hi" },
	{ "--priority high|normal", "high: the spawn is interactive, as --pty makes it, and may use a "
	  "family's reserve", "rlwrap --priority high -- claude -p 'look at this now'" },
	{ "--no-record", "a refused spawn is not kept for `rlwrap recover` (for callers that requeue it themselves)",
	  "rlwrap --no-record -- codex exec --json 'task b'" },
	{ "--color[=WHEN]", "colour a refusal on stderr: always (the default for --color), never, or auto "
	  "(on a terminal, unless NO_COLOR is set; the default)", "rlwrap --color=never -- claude -p hi" },
	{ "--help", "this text", "rlwrap run --help" },
	{ "COMMAND [ARG ...]", "the command to run, with its own arguments (after --, even a subcommand name)",
	  "rlwrap -- claude -p 'fix the tests'" },
	{ NULL, NULL, NULL },
};

const struct cmd_entry cmd_run_entry = {
	.name = "run",
	.optstring = "f:m:a:w::r::qv",
	.longopts = run_longopts,
	.lower = 1,
	.upper = -1,
	.usage = "[run] [-qv] [-f family] [-m model] [-a account] [-w[max]] [-r[n]] [--force]\n"
	    "       [--raw-stream file] [--signal-file file] [--pty | --no-pty] [--no-record]\n"
	    "       [--priority high|normal] [--color[=when]]\n"
	    "       [--] command [arg ...]",
	.summary = "run a command under the breakers and classify how it ended",
	.help = run_help,
	.exec = run_exec,
	.takes_value = run_takes_value,
};
