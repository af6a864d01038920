/*
 * run_filter.h: which runs a read of the history selects: by reason,
 * family, model, account, exit, cwd, state, id, time, origin.
 *
 * Ownership: a run_filter owns copies of the values added to it, released
 * by run_filter_free().
 */
#ifndef RLWRAP_RUN_FILTER_H
#define RLWRAP_RUN_FILTER_H

#include <stdbool.h>
#include <stddef.h>

enum filter_key { FILTER_REASON, FILTER_FAMILY, FILTER_MODEL, FILTER_ACCOUNT, FILTER_EXIT,
	FILTER_CWD, FILTER_STATE, FILTER_KEYS };

#define FILTER_VALUES_MAX 32

struct run_filter {
	char *values[FILTER_KEYS][FILTER_VALUES_MAX];
	int count[FILTER_KEYS];
	long long id;          /* this run only; 0 = any */
	double since;          /* runs that started at or after; 0 = any */
	long limit;            /* 0 = no limit */
	bool failed_only;      /* an origin not recovered yet: refused, or finished with a reason
	                        * not "none" (lost too with include_lost) */
	bool include_lost;     /* failed_only: runs whose wrapper died count too */
	long long origin;      /* the re-runs of this run only; 0 = any */
};

void run_filter_init(struct run_filter *f);
void run_filter_free(struct run_filter *f);
/* Adds "key=v1,v2".  False with a message that lists the valid keys or
 * reasons when the key or a reason is not one of them. */
bool run_filter_add(struct run_filter *f, const char *spec, char *err, size_t errlen);

#endif
