/*
 * redact.h: keeping secrets out of the store and off the screen
 * (docs/design.md sections 6 and 13), by one table of rules in redact.c.
 *
 * Ownership: redact_arg() and argv_exact_json() return new strings the
 * caller frees with free(); redact_argv_json() returns a new jansson
 * reference the caller releases with json_decref().  They return NULL only
 * when out of memory.
 */
#ifndef RLWRAP_REDACT_H
#define RLWRAP_REDACT_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#define REDACTED "[redacted]"

/* What the argument before this one says about it. */
enum redact_context {
	AFTER_PLAIN,
	AFTER_SECRET_OPTION,   /* "--api-key": this whole argument is the secret */
	AFTER_USER_OPTION      /* "-u", "--user": "user:password", the password is */
};

/*
 * One argument of a command line, with secrets replaced by "[redacted]":
 *   - the whole argument after a secret option (redact_is_secret_option());
 *   - the password of "user:password" after -u, --user, --proxy-user, -U, or
 *     of "--user=user:password";
 *   - the value of "--NAME=V" when NAME is a secret option's name;
 *   - the value of "NAME=V" when NAME ends in KEY, TOKEN, SECRET, PASSWORD,
 *     PASSWD, PASSPHRASE, _PAT, _AUTH, COOKIE or CREDENTIALS (any case);
 *   - anywhere else in it, what redact_text() finds.
 * *redacted is set to true when anything was replaced (never reset to false).
 */
char *redact_arg_in(const char *arg, enum redact_context ctx, bool *redacted);
/* redact_arg_in() with AFTER_SECRET_OPTION or AFTER_PLAIN. */
char *redact_arg(const char *arg, bool after_secret_option, bool *redacted);

/* Does arg name an option whose next argument is a secret: "--api-key",
 * "--token", "--password", "--auth", "--pat", "--passphrase", "--cookie",
 * and names ending like them ("--gitlab-token")? */
bool redact_is_secret_option(const char *arg);

/*
 * Text (a message from a stream, an argument) into out (capacity size,
 * cut on a character boundary) with each secret the text rules find
 * replaced: a URL's password ("https://user:[redacted]@host") or bare token
 * user; a secret query parameter ("?access_token=[redacted]"); the value of
 * an Authorization, Proxy-Authorization, Cookie, Set-Cookie, X-Api-Key,
 * Private-Token (and like) header; the word after "Bearer" or "Basic"; and
 * a word shaped like a key: a known prefix (sk-, sk-ant-, ghp_, gho_, ghu_,
 * ghs_, ghr_, github_pat_, glpat-, xai-, AKIA, ASIA, AIza, xox?-, hf_, gsk_,
 * pplx-, r8_, npm_, pypi-, sk_live_, eyJ, ...), a run of 32+ hex digits, or
 * of 32+ base64 characters mixing upper case, lower case and digits that is
 * not a path.  True when anything was replaced.
 */
bool redact_text(const char *src, char *out, size_t size);

/* argv as a JSON array of redacted strings; *redacted as for redact_arg(). */
json_t *redact_argv_json(int argc, char *const argv[], bool *redacted);

/*
 * The exact argv, for `recover` to replay (only ever stored when nothing
 * was redacted): a JSON array of strings, each the argument with '\' as
 * "\\" and every byte that is not part of valid UTF-8 as "\xHH", so every
 * byte survives a store that keeps text; or "=" when that is argv_json
 * itself, as for most commands (the store keeps it once).
 * argv_exact_json() returns a new string to free(), NULL when out of
 * memory; argv_exact_text() the array an argv_exact stands for;
 * argv_exact_decode() writes one of its strings back into out (room for
 * strlen(s) + 1 bytes).
 */
char *argv_exact_json(int argc, char *const argv[], const char *argv_json);
const char *argv_exact_text(const char *argv_exact, const char *argv_json);
void argv_exact_decode(const char *s, char *out);

#endif
