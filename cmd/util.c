/* Argument parsing and option value helpers shared by the subcommands. */
#include <err.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "timeparse.h"
#include "visible.h"

/* Long enough for a run line with every byte escaped. */
#define VISIBLE_LINE_MAX 8192

const struct cmd_entry *
cmd_find(const char *name)
{
	for (const struct cmd_entry *const *e = cmd_table; *e != NULL; e++)
		if (strcmp((*e)->name, name) == 0)
			return *e;
	return NULL;
}

static enum { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER } color_mode;

bool
cmd_color_set(const char *when)
{
	if (when == NULL || *when == '\0' || strcmp(when, "always") == 0)
		color_mode = COLOR_ALWAYS;
	else if (strcmp(when, "never") == 0)
		color_mode = COLOR_NEVER;
	else if (strcmp(when, "auto") == 0)
		color_mode = COLOR_AUTO;
	else
		return false;
	return true;
}

bool
cmd_color(int fd)
{
	const char *no_color = getenv("NO_COLOR"), *term = getenv("TERM");

	if (color_mode != COLOR_AUTO)
		return color_mode == COLOR_ALWAYS;
	return (no_color == NULL || *no_color == '\0') && isatty(fd) && (term == NULL || strcmp(term, "dumb") != 0);
}

static bool child_left_mid_line;

void
own_line_after(bool child_mid_line)
{
	child_left_mid_line = child_mid_line;
}

void
own_line(void)
{
	if (child_left_mid_line && isatty(STDERR_FILENO))
		(void)!write(STDERR_FILENO, "\n", 1);
	child_left_mid_line = false;
}

/* A refusal ("refused: ...", cmd/run_gate.c) has its first word in red
 * when stderr takes colour: the one line a person must not miss. */
void
warnx_visible(const char *fmt, ...)
{
	char raw[VISIBLE_LINE_MAX / 4], shown[VISIBLE_LINE_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	visible_text(raw, shown, sizeof(shown));
	if (strncmp(shown, "refused:", 8) == 0 && cmd_color(STDERR_FILENO))
		warnx(COLOR_RED "refused" COLOR_OFF "%s", shown + 7);
	else
		warnx("%s", shown);
}

void
print_visible(const char *fmt, ...)
{
	char raw[VISIBLE_LINE_MAX / 4], shown[VISIBLE_LINE_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	puts(visible_text(raw, shown, sizeof(shown)));
}

int
usage_status(const struct cmd_entry *entry)
{
	return entry == &cmd_run_entry ? EXIT_INTERNAL : EXIT_USAGE;
}

int
usage_error(const struct cmd_entry *entry, const char *fmt, ...)
{
	char raw[VISIBLE_LINE_MAX / 4], shown[VISIBLE_LINE_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	warnx("%s", visible_text(raw, shown, sizeof(shown)));
	fprintf(stderr, "usage: rlwrap %s\n", entry->usage);
	return usage_status(entry);
}

static bool
args_store(struct args *args, int opt, const char *value)
{
	const char **grown;
	int n;

	if (opt < 0 || opt >= OPT_MAX)
		return false;
	args->value[opt] = value != NULL ? value : "";
	n = args->list_len[opt];
	grown = reallocarray(args->list[opt], (size_t)n + 1, sizeof(*grown));
	if (grown == NULL)
		err(EXIT_INTERNAL, "reallocarray");
	grown[n] = args->value[opt];
	args->list[opt] = grown;
	args->list_len[opt] = n + 1;
	return true;
}

static const char *
option_name(const struct cmd_entry *entry, int opt, char *buf, size_t size)
{
	for (const struct option *o = entry->longopts; o != NULL && o->name != NULL; o++)
		if (o->val == opt) {
			snprintf(buf, size, "--%s", o->name);
			return buf;
		}
	snprintf(buf, size, "-%c", opt);
	return buf;
}

/* The entry's long options plus --help (every command takes it), in opts
 * of room n; false when they do not fit. */
static bool
longopts_with_help(const struct cmd_entry *entry, struct option *opts, size_t n)
{
	size_t i = 0;

	for (const struct option *o = entry->longopts; o != NULL && o->name != NULL; o++) {
		if (i + 2 >= n)
			return false;
		opts[i++] = *o;
	}
	opts[i++] = (struct option){ "help", no_argument, NULL, OPT_HELP };
	opts[i] = (struct option){ NULL, 0, NULL, 0 };
	return true;
}

/* `--wait 2h -- cmd`: the next word taken as the value of an option of
 * optional value, when the entry says it is one and something follows it;
 * the last word is not taken, but named in the form that would have been. */
static bool
take_detached_value(const struct cmd_entry *entry, int opt, int argc, char **argv,
    const char **value)
{
	const char *spelled = argv[optind - 1], *word = argv[optind];

	if (*value != NULL || entry->takes_value == NULL || optind >= argc ||
	    !entry->takes_value(opt, word))
		return true;
	if (optind + 1 < argc) {
		*value = argv[optind++];
		return true;
	}
	usage_error(entry, "%s %s: no command; a value goes attached (%s%s%s), then the command",
	    spelled, word, spelled, strncmp(spelled, "--", 2) == 0 ? "=" : "", word);
	return false;
}

bool
args_parse(const struct cmd_entry *entry, int argc, char **argv, struct args *args)
{
	struct option opts[48];
	char optstring[128], name[64];
	const char *value;
	int opt;

	memset(args, 0, sizeof(*args));
	snprintf(optstring, sizeof(optstring), "+:%s", entry->optstring);
	if (!longopts_with_help(entry, opts, sizeof(opts) / sizeof(opts[0])))
		errx(EXIT_INTERNAL, "%s: too many options", entry->name);
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, optstring, opts, NULL)) != -1) {
		if (opt == OPT_HELP) {
			args->help = true;
			continue;
		}
		if (opt == '?') {
			if (optopt != 0)
				usage_error(entry, "unknown option -%c", optopt);
			else
				usage_error(entry, "unknown option %s", argv[optind - 1]);
			return false;
		}
		if (opt == ':') {
			usage_error(entry, "option %s needs a value",
			    optopt != 0 ? option_name(entry, optopt, name, sizeof(name)) : argv[optind - 1]);
			return false;
		}
		value = optarg;
		if (!take_detached_value(entry, opt, argc, argv, &value))
			return false;
		args_store(args, opt, value);
	}
	args->after_dashdash = optind > 1 && strcmp(argv[optind - 1], "--") == 0;
	args->operands = argv + optind;
	args->count = argc - optind;
	if (args->help)
		return true;
	if (args->count < entry->lower || (entry->upper >= 0 && args->count > entry->upper)) {
		usage_error(entry, "%s: wrong number of arguments", entry->name);
		return false;
	}
	return true;
}

void
args_free(struct args *args)
{
	for (int i = 0; i < OPT_MAX; i++)
		free(args->list[i]);
	memset(args, 0, sizeof(*args));
}

bool
args_has(const struct args *args, int opt)
{
	return opt >= 0 && opt < OPT_MAX && args->value[opt] != NULL;
}

const char *
args_get(const struct args *args, int opt)
{
	return args_has(args, opt) ? args->value[opt] : NULL;
}

bool
opt_int(const struct cmd_entry *entry, const char *name, const char *s,
    long long lo, long long hi, long long *out)
{
	const char *errstr;

	*out = strtonum(s, lo, hi, &errstr);
	if (errstr != NULL) {
		usage_error(entry, "%s %s: %s (expected %lld..%lld)", name, s, errstr, lo, hi);
		return false;
	}
	return true;
}

bool
opt_time(const struct cmd_entry *entry, const char *name, const char *s, double *out)
{
	if (time_parse(s, out))
		return true;
	usage_error(entry, "%s %s: not a time (epoch seconds or ISO 8601 like 2026-11-30T14:00:00Z)",
	    name, s);
	return false;
}

bool
opt_duration(const struct cmd_entry *entry, const char *name, const char *s, double *out)
{
	if (duration_parse(s, out))
		return true;
	usage_error(entry, "%s %s: not a duration (like 90, 90s, 15m, 1h30m, 2d)", name, s);
	return false;
}

double
cmd_now_precise(void)
{
	const char *s = getenv("RLWRAP_TEST_NOW");
	struct timespec ts;

	/* Sub-second, so runs started within one second keep their order. */
	if ((s != NULL && *s != '\0') || clock_gettime(CLOCK_REALTIME, &ts) != 0)
		return (double)cmd_now();
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double
cmd_monotonic(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double
cmd_env_ms(const char *name, long long dflt_ms, long long max_ms)
{
	const char *env = getenv(name);
	long long ms = 0;

	if (env != NULL && *env != '\0')
		ms = strtonum(env, 1, max_ms, NULL);
	return (double)(ms > 0 ? ms : dflt_ms) / 1000;
}

char *
cmd_strdup(const char *s)
{
	char *d;

	if (s == NULL)
		return NULL;
	if ((d = strdup(s)) == NULL)
		err(EXIT_INTERNAL, "strdup");
	return d;
}

time_t
cmd_now(void)
{
	const char *s = getenv("RLWRAP_TEST_NOW");
	double t;

	if (s != NULL && *s != '\0' && time_parse(s, &t))
		return (time_t)t;
	return time(NULL);
}
