/*
 * detect.h: which agent a command line runs (docs/design.md section 5): the
 * family from the command's name, looking through launchers (env, npx, bunx,
 * node, nice, timeout, stdbuf) and npm package names; the model from the
 * child's own --model/-m.  The account is conf.c's (config_resolve_account()),
 * the one place that knows the config-directory variables.
 *
 * Ownership: nothing here allocates.  Results are copied into caller buffers;
 * the argv and the command map are only borrowed for the call.
 */
#ifndef RLWRAP_DETECT_H
#define RLWRAP_DETECT_H

#include <stddef.h>

#include "conf.h"   /* struct command_family: the config's command map */

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

/* The basename of the command after the launchers ("claude"), for titles
 * and messages; points into argv. */
const char *detect_command_name(char *const argv[]);

#endif
