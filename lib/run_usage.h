/*
 * run_usage.h: token usage and cost of one run, as the classifier reads them
 * from the stream and the store keeps them.  A header of its own so that the
 * store does not depend on the classifier.
 *
 * Ownership: a plain value, copied by assignment.
 */
#ifndef RLWRAP_RUN_USAGE_H
#define RLWRAP_RUN_USAGE_H

#include <limits.h>
#include <math.h>
#include <stdbool.h>

/* Where a cost sum stops: more than any run costs, and a number every
 * printer shows as digits (two results of 1e308 would add up to Inf). */
#define USAGE_COST_MAX 1e15

/* -1 = unknown, in every number. */
struct run_usage {
	long long input_tokens;
	long long output_tokens;
	double cost_usd;
	bool held;   /* a sum stopped at its maximum, or a cost that is not a finite number was left out */
};

/* *sum + v (v >= 0), held at LLONG_MAX; false when it was held. */
static inline bool
usage_add_tokens(long long *sum, long long v)
{
	if (*sum > LLONG_MAX - v) {
		*sum = LLONG_MAX;
		return false;
	}
	*sum += v;
	return true;
}

/* *sum + v, held at USAGE_COST_MAX; false when it was held, or v is not a
 * finite number (left out). */
static inline bool
usage_add_cost(double *sum, double v)
{
	if (!isfinite(v))
		return false;
	if (*sum + v > USAGE_COST_MAX) {
		*sum = USAGE_COST_MAX;
		return false;
	}
	*sum += v;
	return true;
}

#endif
