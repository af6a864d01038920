/*
 * redact.h: keeping secrets out of the store (docs/design.md section 6).
 *
 * Ownership: redact_arg() returns a new string the caller frees with free();
 * redact_argv_json() returns a new jansson reference the caller releases with
 * json_decref().  Both return NULL only when out of memory.
 */
#ifndef RLWRAP_REDACT_H
#define RLWRAP_REDACT_H

#include <stdbool.h>

#include <jansson.h>

#define REDACTED "[redacted]"

/*
 * One argument, given whether the argument before it was an option that
 * takes a secret as its next value.  Replaced by "[redacted]", in whole or
 * in part:
 *   - the whole argument when after_secret_option;
 *   - the value of "--api-key=V", "--token=V", "--password=V", "--secret=V",
 *     "--auth-token=V" (and the other names redact_is_secret_option() takes);
 *   - the value of "NAME=V" when NAME ends in KEY, TOKEN, SECRET, PASSWORD or
 *     PASSWD (any case): "ANTHROPIC_API_KEY=[redacted]";
 *   - anywhere inside the argument, a word shaped like a key: "sk-...",
 *     "sk-ant-...", "Bearer ...", "ghp_..." (and gho_, ghu_, ghs_, ghr_,
 *     github_pat_), "AIza...", "xox[abpr]-...", a run of 32+ hex digits, or a
 *     run of 32+ base64/base64url characters mixing upper case, lower case
 *     and digits that is not a path (does not start with '/', and at most one
 *     '/' per 10 characters).
 * *redacted is set to true when anything was replaced (never reset to false).
 */
char *redact_arg(const char *arg, bool after_secret_option, bool *redacted);

/* Does arg name an option whose next argument is a secret ("--api-key")? */
bool redact_is_secret_option(const char *arg);

/* argv as a JSON array of redacted strings; *redacted as for redact_arg(). */
json_t *redact_argv_json(int argc, char *const argv[], bool *redacted);

/*
 * The exact argv, for `recover` to replay (only ever stored when nothing
 * was redacted): a JSON array of strings, each the argument with '\' as
 * "\\" and every byte that is not part of valid UTF-8 as "\xHH", so every
 * byte survives a store that keeps text.  argv_exact_json() returns a new
 * string to free(), NULL when out of memory; argv_exact_decode() writes the
 * argument back into out (room for strlen(s) + 1 bytes).
 */
char *argv_exact_json(int argc, char *const argv[]);
void argv_exact_decode(const char *s, char *out);

#endif
