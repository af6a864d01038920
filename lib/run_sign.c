/* run_sign.c: the key in the user's state directory, and the runs' signatures. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run_sign.h"

bool
run_sign_key_path(char *path, size_t size)
{
	const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	int n;

	if (xdg != NULL && *xdg == '/')
		n = snprintf(path, size, "%s/rlwrap/key", xdg);
	else if (home != NULL && *home != '\0')
		n = snprintf(path, size, "%s/.local/state/rlwrap/key", home);
	else
		return false;
	return n > 0 && (size_t)n < size;
}

/* mkdir -p of path's directory, each new component 0700. */
static bool
make_parents(const char *path, char *err, size_t errlen)
{
	char dir[PATH_MAX];

	strlcpy(dir, path, sizeof(dir));
	for (char *p = dir + 1; (p = strchr(p, '/')) != NULL; p++) {
		*p = '\0';
		if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
			snprintf(err, errlen, "%s: cannot create directory %s: %s", path, dir, strerror(errno));
			return false;
		}
		*p = '/';
	}
	return true;
}

/* A key only this user can read, of the right length. */
static bool
read_key(int fd, const char *path, unsigned char key[RUN_SIGN_KEY], char *err, size_t errlen)
{
	struct stat st;
	ssize_t n;

	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 077) != 0) {
		snprintf(err, errlen, "%s: the signing key must be a file of this user's, mode 0600", path);
		return false;
	}
	if ((n = read(fd, key, RUN_SIGN_KEY)) != RUN_SIGN_KEY) {
		snprintf(err, errlen, "%s: the signing key is %s", path, n < 0 ? strerror(errno) : "short");
		return false;
	}
	return true;
}

/* A new key: written whole to a private temporary file, then linked into
 * place; a link that finds a key there already loses to it. */
static bool
make_key(const char *path, char *err, size_t errlen)
{
	char tmp[PATH_MAX + 8];
	unsigned char key[RUN_SIGN_KEY];
	int fd;
	bool ok;

	if (!make_parents(path, err, errlen))
		return false;
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	if ((fd = mkstemp(tmp)) < 0) {
		snprintf(err, errlen, "%s: cannot create the signing key: %s", path, strerror(errno));
		return false;
	}
	arc4random_buf(key, sizeof(key));
	ok = fchmod(fd, 0600) == 0 && write(fd, key, sizeof(key)) == (ssize_t)sizeof(key) && fsync(fd) == 0;
	memset(key, 0, sizeof(key));
	if (close(fd) != 0)
		ok = false;
	if (ok && link(tmp, path) != 0 && errno != EEXIST)
		ok = false;
	if (!ok)
		snprintf(err, errlen, "%s: cannot write the signing key: %s", path, strerror(errno));
	unlink(tmp);
	return ok;
}

bool
run_sign_key_load(bool create, unsigned char key[RUN_SIGN_KEY], char *err, size_t errlen)
{
	char path[PATH_MAX];
	int fd;
	bool ok;

	if (!run_sign_key_path(path, sizeof(path))) {
		snprintf(err, errlen, "no HOME or XDG_STATE_HOME for the signing key");
		return false;
	}
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0 && errno == ENOENT && create) {
		if (!make_key(path, err, errlen))
			return false;
		fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, errno == ENOENT ? "no signing key (no run was recorded here)" :
		    strerror(errno));
		return false;
	}
	ok = read_key(fd, path, key, err, errlen);
	close(fd);
	return ok;
}

/* Each field with its length first, so that no two messages run together. */
static void
sign_field(struct hmac_sha256 *h, const char *s)
{
	unsigned char len[8];
	size_t n = s != NULL ? strlen(s) : 0;

	for (int i = 0; i < 8; i++)
		len[i] = (unsigned char)((unsigned long long)n >> (56 - 8 * i));
	hmac_sha256_update(h, len, sizeof(len));
	if (n > 0)
		hmac_sha256_update(h, s, n);
}

static void
sign_raw(const unsigned char key[RUN_SIGN_KEY], const struct run_signed *s, unsigned char mac[SHA256_DIGEST])
{
	struct hmac_sha256 h;
	char user[32];

	snprintf(user, sizeof(user), "%lu", s->user);
	hmac_sha256_init(&h, key, RUN_SIGN_KEY);
	sign_field(&h, "rlwrap run 1");
	sign_field(&h, s->uid);
	sign_field(&h, s->host);
	sign_field(&h, user);
	sign_field(&h, s->account);
	sign_field(&h, s->cwd);
	sign_field(&h, s->env_json);
	for (size_t i = 0; i < s->argc; i++)
		sign_field(&h, s->argv[i]);
	hmac_sha256_final(&h, mac);
}

void
run_sign(const unsigned char key[RUN_SIGN_KEY], const struct run_signed *s, char hex[RUN_SIGN_HEX])
{
	unsigned char mac[SHA256_DIGEST];

	sign_raw(key, s, mac);
	for (size_t i = 0; i < sizeof(mac); i++)
		snprintf(hex + 2 * i, 3, "%02x", mac[i]);
}

bool
run_sign_verify(const unsigned char key[RUN_SIGN_KEY], const struct run_signed *s, const char *hex)
{
	char want[RUN_SIGN_HEX];
	unsigned char diff = 0;

	if (hex == NULL || strlen(hex) != RUN_SIGN_HEX - 1)
		return false;
	run_sign(key, s, want);
	for (size_t i = 0; i < RUN_SIGN_HEX - 1; i++)
		diff |= (unsigned char)(want[i] ^ hex[i]);
	return diff == 0;
}
