/*
 * Family and model detection from a command line and the
 * environment.  Launchers are skipped with their own options, so
 * "env -u X FOO=1 nice -n 5 npx -y @anthropic-ai/claude-code -p hi" is claude.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detect.h"
#include "dialect.h"

/* A launcher: options that take a value, and positional operands it eats
 * before the command (timeout's duration). */
struct launcher {
	const char *name;
	const char *short_with_value;          /* letters */
	const char *const *long_with_value;    /* NULL-terminated */
	int operands;
	bool packages;                         /* -p/--package name npm packages */
};

static const char *const env_long[] = { "--unset", "--chdir", "--split-string", NULL };
static const char *const npx_long[] = { "--package", "--call", NULL };
static const char *const node_long[] = { "--require", "--import", "--loader",
	"--experimental-loader", "--env-file", "--conditions", NULL };
static const char *const nice_long[] = { "--adjustment", NULL };
static const char *const timeout_long[] = { "--signal", "--kill-after", NULL };
static const char *const stdbuf_long[] = { "--input", "--output", "--error", NULL };

static const struct launcher launchers[] = {
	{ "env", "uCS", env_long, 0, false },
	{ "npx", "pc", npx_long, 0, true },
	{ "bunx", "p", npx_long, 0, true },
	{ "node", "rC", node_long, 0, false },
	{ "nice", "n", nice_long, 0, false },
	{ "timeout", "sk", timeout_long, 1, false },
	{ "stdbuf", "ioe", stdbuf_long, 0, false },
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const char *
base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash != NULL ? slash + 1 : path;
}

static const struct launcher *
launcher_find(const char *arg)
{
	const char *name = base_name(arg);

	for (size_t i = 0; i < COUNT(launchers); i++)
		if (strcmp(launchers[i].name, name) == 0)
			return &launchers[i];
	return NULL;
}

/* How many argv slots the option at argv[i] uses (1 or 2). */
static size_t
option_width(const struct launcher *l, const char *arg)
{
	if (arg[1] == '-') {
		for (const char *const *o = l->long_with_value; *o != NULL; o++)
			if (strcmp(arg, *o) == 0)
				return 2;
		return 1;   /* a flag, or --name=value */
	}
	/* -x VALUE takes the next slot; -xVALUE and flags do not. */
	if (strchr(l->short_with_value, arg[1]) != NULL && arg[2] == '\0')
		return 2;
	return 1;
}

/* The index after launcher l's own options and operands, starting at i. */
static size_t
skip_launcher(const struct launcher *l, char *const argv[], size_t i)
{
	int operands = l->operands;

	for (i++; argv[i] != NULL; ) {
		const char *a = argv[i];

		if (strcmp(a, "--") == 0)
			return i + 1;
		if (a[0] == '-' && a[1] != '\0') {
			size_t w = option_width(l, a);

			for (size_t k = 0; k < w && argv[i] != NULL; k++)
				i++;
			continue;
		}
		if (strcmp(l->name, "env") == 0 && strchr(a, '=') != NULL) {
			i++;
			continue;
		}
		if (operands-- > 0) {
			i++;
			continue;
		}
		break;
	}
	return i;
}

size_t
detect_command_index(char *const argv[])
{
	size_t i = 0;
	const struct launcher *l;

	while (argv[i] != NULL && (l = launcher_find(argv[i])) != NULL)
		i = skip_launcher(l, argv, i);
	return i;
}

const char *
detect_command_name(char *const argv[])
{
	size_t i = detect_command_index(argv);

	if (argv[i] == NULL)
		return argv[0] != NULL ? base_name(argv[0]) : "";
	return base_name(argv[i]);
}

static bool
copy_family(const char *family, char *out, size_t size)
{
	strlcpy(out, family, size);
	return true;
}

static bool
from_map(const char *arg, const struct command_family *map, size_t map_len, char *out, size_t size)
{
	for (size_t i = 0; map != NULL && i < map_len; i++)
		if (strcmp(map[i].command, arg) == 0 || strcmp(map[i].command, base_name(arg)) == 0)
			return copy_family(map[i].family, out, size);
	return false;
}

/* "@openai/codex@0.40" and "opencode-ai@latest" name their package. */
static bool
package_matches(const char *arg, const char *pkg)
{
	size_t n = strlen(pkg);

	return strncmp(arg, pkg, n) == 0 && (arg[n] == '\0' || arg[n] == '@');
}

static bool
from_package(const char *arg, char *out, size_t size)
{
	const struct dialect *d;

	for (int i = 0; (d = dialect_table[i]) != NULL; i++)
		for (size_t k = 0; d->packages != NULL && d->packages[k] != NULL; k++) {
			const char *pkg = d->packages[k];
			const char *in_path = strstr(arg, "node_modules/");

			if (package_matches(arg, pkg))
				return copy_family(d->name, out, size);
			if (in_path != NULL && (in_path = strstr(in_path, pkg)) != NULL &&
			    in_path[strlen(pkg)] == '/')
				return copy_family(d->name, out, size);
		}
	return false;
}

/* "claude", "claude.exe", "cli.mjs" -> compare without a script suffix. */
static bool
from_name(const char *arg, char *out, size_t size)
{
	static const char *const suffixes[] = { ".js", ".mjs", ".cjs", ".exe", ".cmd" };
	const char *name = base_name(arg);
	size_t len = strlen(name);
	const struct dialect *d;

	for (size_t s = 0; s < COUNT(suffixes); s++) {
		size_t sl = strlen(suffixes[s]);

		if (len > sl && strcmp(name + len - sl, suffixes[s]) == 0) {
			len -= sl;
			break;
		}
	}
	for (int i = 0; (d = dialect_table[i]) != NULL; i++)
		for (size_t k = 0; d->commands != NULL && d->commands[k] != NULL; k++)
			if (strlen(d->commands[k]) == len && strncmp(d->commands[k], name, len) == 0)
				return copy_family(d->name, out, size);
	return false;
}

/* npx -p PKG / --package=PKG name the family even when the bin differs. */
static bool
from_package_option(char *const argv[], size_t from, size_t to, char *out, size_t size)
{
	for (size_t i = from; i < to && argv[i] != NULL; i++) {
		if ((strcmp(argv[i], "-p") == 0 || strcmp(argv[i], "--package") == 0) &&
		    argv[i + 1] != NULL && from_package(argv[i + 1], out, size))
			return true;
		if (strncmp(argv[i], "--package=", 10) == 0 && from_package(argv[i] + 10, out, size))
			return true;
	}
	return false;
}

void
detect_family(char *const argv[], const struct command_family *map, size_t map_len,
    char *out, size_t size)
{
	size_t i = 0;
	const struct launcher *l;

	for (;;) {
		if (argv[i] == NULL)
			break;
		if (from_map(argv[i], map, map_len, out, size))
			return;
		if ((l = launcher_find(argv[i])) == NULL)
			break;
		size_t next = skip_launcher(l, argv, i);

		if (l->packages && from_package_option(argv, i, next, out, size))
			return;
		i = next;
	}
	if (argv[i] != NULL && (from_package(argv[i], out, size) || from_name(argv[i], out, size)))
		return;
	strlcpy(out, "generic", size);
}

void
detect_model(char *const argv[], const char *family, char *out, size_t size)
{
	bool short_ok = family != NULL && *family != '\0' && strcmp(family, "generic") != 0;
	size_t i = detect_command_index(argv);

	*out = '\0';
	if (argv[i] == NULL)
		return;
	for (i++; argv[i] != NULL; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--") == 0)
			return;
		if ((strcmp(a, "--model") == 0 || (short_ok && strcmp(a, "-m") == 0)) &&
		    argv[i + 1] != NULL) {
			strlcpy(out, argv[++i], size);
			return;
		}
		if (strncmp(a, "--model=", 8) == 0) {
			strlcpy(out, a + 8, size);
			return;
		}
		if (short_ok && strncmp(a, "-m", 2) == 0 && a[2] != '\0' && a[2] != '-') {
			strlcpy(out, a + 2, size);
			return;
		}
	}
}
