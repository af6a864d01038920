/*
 * run_usage.h: token usage and cost of one run, as the classifier reads them
 * from the stream and the store keeps them.  A header of its own so that the
 * store does not depend on the classifier.
 *
 * Ownership: a plain value, copied by assignment.
 */
#ifndef RLWRAP_RUN_USAGE_H
#define RLWRAP_RUN_USAGE_H

/* -1 = unknown, in every field. */
struct run_usage {
	long long input_tokens;
	long long output_tokens;
	double cost_usd;
};

#endif
