/*
 * run_sign.h: the signature on a stored run, so that `recover --yes` runs
 * only what this user on this host wrote (docs/design.md section 7).  An
 * HMAC-SHA256 over the run's uid, host, user id, account, cwd, the
 * account-selecting environment and every argv string, with a key of 32
 * random bytes kept in the user's state directory (mode 0600, made on first
 * use).  Anyone who can write the store but not read the key cannot make a
 * row that verifies.
 *
 * Ownership: the key is a caller's array; struct run_signed borrows every
 * string it names.
 */
#ifndef RLWRAP_RUN_SIGN_H
#define RLWRAP_RUN_SIGN_H

#include <stdbool.h>
#include <stddef.h>

#include "sha256.h"

#define RUN_SIGN_KEY 32
#define RUN_SIGN_HEX (2 * SHA256_DIGEST + 1)

/* $XDG_STATE_HOME/rlwrap/key, else ~/.local/state/rlwrap/key: beside the
 * default state file.  False when neither variable is usable. */
bool run_sign_key_path(char *path, size_t size);

/*
 * Reads the key; when there is none and create, makes it (its directory
 * 0700, the file 0600, linked into place whole so that two first uses agree
 * on one key).  False with a message in err: no key and !create, a key file
 * another user owns or others may read, or an I/O error.
 */
bool run_sign_key_load(bool create, unsigned char key[RUN_SIGN_KEY], char *err, size_t errlen);

/* What is signed.  NULL strings sign as "". */
struct run_signed {
	const char *uid, *host, *account, *cwd, *env_json;
	unsigned long user;          /* getuid() of the writer */
	size_t argc;
	char *const *argv;
};

/* The signature as lowercase hex. */
void run_sign(const unsigned char key[RUN_SIGN_KEY], const struct run_signed *s, char hex[RUN_SIGN_HEX]);
/* Whether hex is s's signature under key (compared in constant time). */
bool run_sign_verify(const unsigned char key[RUN_SIGN_KEY], const struct run_signed *s, const char *hex);

#endif
