/*
 * detect.h: which agent a command line runs (DESIGN.md section 5): the
 * family from the command's name, looking through launchers (env, npx, bunx,
 * node, nice, timeout, stdbuf) and npm package names; the model from the
 * child's own --model/-m; the account from the environment.
 *
 * Ownership: nothing here allocates.  Results are copied into caller buffers;
 * the argv and the command map are only borrowed for the call.
 */
#ifndef RLWRAP_DETECT_H
#define RLWRAP_DETECT_H

#include <stddef.h>

/* One entry of the config's command map: a command name (or path) and the
 * family it runs. */
struct command_family {
	const char *command;
	const char *family;
};

/*
 * The index in argv (NULL-terminated) of the command the launchers in front
 * of it run, e.g. 2 for "npx -y @openai/codex exec": the package name.
 * Returns the index of the terminating NULL when launchers eat everything.
 */
size_t detect_command_index(char *const argv[]);

/*
 * The family argv runs: the first command map entry matching a command on
 * the way through the launchers (by path or basename), else an npm package
 * name or a node_modules path, else the basename of the command.  Writes
 * "generic" when nothing names a known agent.  map may be NULL.
 */
void detect_family(char *const argv[], const struct command_family *map, size_t map_len,
    char *out, size_t size);

/*
 * The model the child's arguments ask for: --model M, --model=M, and for a
 * known family (not "generic") also -m M and -mM.  Stops at "--".
 * Writes "" when there is none.
 */
void detect_model(char *const argv[], const char *family, char *out, size_t size);

/* The environment variable holding family's config directory, or NULL. */
const char *family_config_dir_var(const char *family);

/*
 * The account: RLWRAP_ACCOUNT when set and not empty, else the family's
 * config directory variable (its value, with $HOME shortened to "~"), else
 * "default".  Never anything secret.
 */
void detect_account(const char *family, char *out, size_t size);

/* The basename of the command after the launchers ("claude"), for titles
 * and messages; points into argv. */
const char *detect_command_name(char *const argv[]);

#endif
