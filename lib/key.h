/*
 * key.h: breaker keys as users write them, "family[:model][@account]"
 * (docs/design.md section 2): "claude", "claude:opus", "codex@work".
 *
 * Ownership: struct breaker_key is plain fixed arrays, copied by assignment.
 */
#ifndef RLWRAP_KEY_H
#define RLWRAP_KEY_H

#include <stdbool.h>
#include <stddef.h>

#define KEY_ACCOUNT_MAX 256
#define KEY_FAMILY_MAX 32
#define KEY_SCOPE_MAX 128

/* The scope of a breaker that covers the whole family. */
#define SCOPE_FAMILY "*"

struct breaker_key {
	char account[KEY_ACCOUNT_MAX];   /* "" when the text named none */
	char family[KEY_FAMILY_MAX];
	char scope[KEY_SCOPE_MAX];       /* SCOPE_FAMILY, or a model or model class */
};

/*
 * Parses "family[:model][@account]".  family: letters, digits, '.', '_', '-';
 * model: any characters but '@' and control characters ("*" or no model:
 * the whole family); account: anything non-empty without control characters.
 * False with a message in err on anything else.
 */
bool key_parse(const char *text, struct breaker_key *key, char *err, size_t errsize);

/* "claude", "claude:opus@work": the account is left out when it is "default". */
void key_format(const struct breaker_key *key, char *buf, size_t size);

/* Does a breaker of this scope block a spawn of model ("" = unknown)?
 * Family-wide always; a model scope when the model contains it, any case. */
bool scope_applies(const char *scope, const char *model);

#endif
