/* outcome.c: the outcomes journaled when a run's final store write failed. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "outcome.h"
#include "run_sign.h"

/* <state dir>/outcomes: beside the signing key (run_sign_key_path()). */
static bool
outcome_dir(char *dir, size_t size)
{
	char *slash;

	if (!run_sign_key_path(dir, size) || (slash = strrchr(dir, '/')) == NULL)
		return false;
	*slash = '\0';
	return strlcat(dir, "/outcomes", size) < size;
}

bool
outcome_write(const struct run_outcome *o, char *path, size_t size, char *err, size_t errlen)
{
	char dir[PATH_MAX];
	json_t *j;
	int rc;

	if (!outcome_dir(dir, sizeof(dir)) || (size_t)snprintf(path, size, "%s/%s", dir, o->uid) >= size) {
		snprintf(err, errlen, "no state directory for the run's outcome");
		return false;
	}
	/* The state directory is there: the signing key was made in it. */
	if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return false;
	}
	j = json_pack("{s:s, s:I, s:s, s:i, s:i, s:s, s:f}", "store", o->store, "run_id", (json_int_t)o->run_id,
	    "uid", o->uid, "exit_code", o->exit_code, "term_signal", o->term_signal, "reason",
	    reason_name(o->reason), "ended_at", o->ended_at);
	rc = j != NULL ? json_dump_file(j, path, JSON_COMPACT) : -1;
	json_decref(j);
	if (rc != 0) {
		snprintf(err, errlen, "%s: cannot journal the run's outcome", path);
		unlink(path);
		return false;
	}
	return true;
}

static bool
outcome_read(const char *path, struct run_outcome *o)
{
	json_t *j = json_load_file(path, 0, NULL);
	const char *store = json_string_value(json_object_get(j, "store"));
	const char *uid = json_string_value(json_object_get(j, "uid"));
	const char *reason = json_string_value(json_object_get(j, "reason"));
	bool ok = store != NULL && uid != NULL && reason != NULL;

	memset(o, 0, sizeof(*o));
	if (ok) {
		strlcpy(o->store, store, sizeof(o->store));
		strlcpy(o->uid, uid, sizeof(o->uid));
		o->run_id = json_integer_value(json_object_get(j, "run_id"));
		o->exit_code = (int)json_integer_value(json_object_get(j, "exit_code"));
		o->term_signal = (int)json_integer_value(json_object_get(j, "term_signal"));
		o->ended_at = json_number_value(json_object_get(j, "ended_at"));
		if (!reason_from_name(reason, &o->reason))
			o->reason = REASON_EXIT_NONZERO;
	}
	json_decref(j);
	return ok;
}

bool
outcome_settle_all(struct store *store, int *settled, struct store_error *err)
{
	char dir[PATH_MAX], path[PATH_MAX + 320];
	struct run_outcome o;
	struct dirent *e;
	DIR *d;
	bool ok = true;

	*settled = 0;
	if (!outcome_dir(dir, sizeof(dir)) || (d = opendir(dir)) == NULL)
		return true;
	while (ok && (e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.' || strchr(e->d_name, '.') != NULL)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (!outcome_read(path, &o) || strcmp(o.store, store_path(store)) != 0)
			continue;
		ok = store_run_settle(store, &o, err);
		if (ok) {
			unlink(path);
			++*settled;
		}
	}
	closedir(d);
	return ok;
}
