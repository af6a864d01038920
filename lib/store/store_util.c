/* store_util.c: what the store interface and its backends share, below
 * them all: errors, state names, the file's directories, which path names
 * a server. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "store.h"
#include "store_backend.h"

static const char *const state_names[] = { "closed", "open", "half-open" };

bool
set_error(struct store_error *err, enum store_status status, const char *fmt, ...)
{
	va_list ap;

	err->status = status;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
	return false;
}

const char *
breaker_state_name(enum breaker_state s)
{
	return state_names[s];
}

enum breaker_state
breaker_state_from_name(const char *name)
{
	for (size_t i = 0; i < sizeof(state_names) / sizeof(state_names[0]); i++)
		if (name != NULL && strcmp(name, state_names[i]) == 0)
			return (enum breaker_state)i;
	return BREAKER_CLOSED;
}

bool
store_make_parent_dirs(const char *path, struct store_error *err)
{
	char dir[PATH_MAX];
	char *slash;

	strlcpy(dir, path, sizeof(dir));
	if ((slash = strrchr(dir, '/')) == NULL || slash == dir)
		return true;
	*slash = '\0';
	for (char *p = dir + 1; ; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char saved = *p;

		*p = '\0';
		if (mkdir(dir, 0700) != 0 && errno != EEXIST)
			return set_error(err, errno == EACCES || errno == EROFS ? STORE_ERR_READONLY : STORE_ERR_OPEN,
			    "%s: cannot create directory %s: %s", path, dir, strerror(errno));
		*p = saved;
		if (saved == '\0')
			return true;
	}
}

/* "host=db dbname=x": libpq's keyword/value form starts with a keyword
 * (letters and '_') and '=' (spaces allowed around it). */
static bool
is_conninfo_keywords(const char *s)
{
	size_t n;

	s += strspn(s, " \t");
	n = strspn(s, "abcdefghijklmnopqrstuvwxyz_");
	return n > 0 && s[n + strspn(s + n, " \t")] == '=';
}

bool
store_is_server_url(const char *path)
{
	return strncmp(path, "postgresql:", 11) == 0 || strncmp(path, "postgres:", 9) == 0 ||
	    is_conninfo_keywords(path);
}
