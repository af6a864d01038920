/* run_filter.c: which runs a history read selects (run_filter.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "failsignal.h"
#include "run_filter.h"

static const char *const filter_names[FILTER_KEYS] = {
	[FILTER_REASON] = "reason", [FILTER_FAMILY] = "family", [FILTER_MODEL] = "model",
	[FILTER_ACCOUNT] = "account", [FILTER_EXIT] = "exit", [FILTER_CWD] = "cwd",
	[FILTER_STATE] = "state",
};

void
run_filter_init(struct run_filter *f)
{
	memset(f, 0, sizeof(*f));
}

void
run_filter_free(struct run_filter *f)
{
	for (int k = 0; k < FILTER_KEYS; k++)
		for (int i = 0; i < f->count[k]; i++)
			free(f->values[k][i]);
	run_filter_init(f);
}

static bool
check_value(enum filter_key key, const char *v, char *err, size_t errlen)
{
	enum reason r;
	const char *errstr;

	if (key == FILTER_REASON && !reason_from_name(v, &r)) {
		snprintf(err, errlen, "reason=%s: not a reason (none, rate-limit, usage-limit, "
		    "credit-exhausted, overloaded, unavailable, auth, timeout, invalid-request, "
		    "agent-error, no-result, exit-nonzero)", v);
		return false;
	}
	if (key == FILTER_STATE && strcmp(v, "running") != 0 && strcmp(v, "finished") != 0 &&
	    strcmp(v, "lost") != 0 && strcmp(v, "refused") != 0) {
		snprintf(err, errlen, "state=%s: not a state (running, finished, lost, refused)", v);
		return false;
	}
	if (key == FILTER_EXIT && (strtonum(v, 0, 255, &errstr), errstr != NULL)) {
		snprintf(err, errlen, "exit=%s: not an exit status (0..255)", v);
		return false;
	}
	return true;
}

static int
filter_key_of(const char *name, size_t len)
{
	for (int k = 0; k < FILTER_KEYS; k++)
		if (strlen(filter_names[k]) == len && strncmp(filter_names[k], name, len) == 0)
			return k;
	return -1;
}

bool
run_filter_add(struct run_filter *f, const char *spec, char *err, size_t errlen)
{
	const char *eq = strchr(spec, '='), *p, *comma;
	int key = eq != NULL ? filter_key_of(spec, (size_t)(eq - spec)) : -1;

	if (key < 0) {
		snprintf(err, errlen, "%s: not a filter (KEY=VALUE with KEY one of reason, family, "
		    "model, account, exit, cwd, state)", spec);
		return false;
	}
	for (p = eq + 1;; p = comma + 1) {
		size_t n;
		char *v;

		comma = strchr(p, ',');
		n = comma != NULL ? (size_t)(comma - p) : strlen(p);
		if (f->count[key] >= FILTER_VALUES_MAX) {
			snprintf(err, errlen, "%s: more than %d values", spec, FILTER_VALUES_MAX);
			return false;
		}
		if ((v = strndup(p, n)) == NULL || !check_value(key, v, err, errlen)) {
			if (v == NULL)
				snprintf(err, errlen, "out of memory");
			free(v);
			return false;
		}
		f->values[key][f->count[key]++] = v;
		if (comma == NULL)
			return true;
	}
}
