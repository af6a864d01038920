/*
 * unit_store.h: what the unit tests of the store's users share (after
 * unit.h): a store file in the test's tmpdir, a failure signal to record,
 * and a run recorded through the breaker.
 *
 * Ownership: open_store() returns a store the caller closes; the other
 * helpers fill caller-owned structs and keep nothing.
 */
#ifndef RLWRAP_TESTS_UNIT_STORE_H
#define RLWRAP_TESTS_UNIT_STORE_H
#include "breaker.h"
#include "store.h"

/* tmpdir/file, as a real run opens it (history kept, pruned on write). */
static inline struct store *
open_store(const char *file)
{
	struct store_options opts = { .busy_timeout_ms = 2000, .keep_runs = 10000, .keep_days = 30 };
	struct store_error err;
	struct store *store;

	snprintf(opts.path, sizeof(opts.path), "%s/%s", tmpdir, file);
	if (!store_open(&opts, &store, &err))
		fail_msg("store_open %s: %s", file, err.message);
	return store;
}

/* A certain, terminal signal from claude; scope only when it failed. */
static inline void
signal_of(struct fail_signal *sig, enum reason reason, const char *scope, double resets_at)
{
	signal_init(sig);
	sig->reason = reason;
	sig->confidence = 1.0;
	sig->terminal = true;
	strlcpy(sig->family, "claude", sizeof(sig->family));
	strlcpy(sig->scope, reason == REASON_NONE ? "" : scope, sizeof(sig->scope));
	sig->resets_at = resets_at;
	sig->reset_source = resets_at > 0 ? RESET_SRC_PROVIDER : RESET_SRC_NONE;
}

/* A wrapped claude run of account/model that exited 1, recorded with sig. */
static inline struct record_outcome
record(struct store *store, const struct config *cfg, const char *account, const char *model,
    const struct fail_signal *sig, double started, double ended, const struct probe_lease *holder)
{
	struct run_report run = { .account = account, .family = "claude", .model = model, .source = "wrap",
		.started_at = started, .ended_at = ended, .exit_code = 1, .usage = { -1, -1, -1 },
		.holder = holder };
	struct record_outcome out;
	struct store_error err;

	if (!breaker_record_run(store, cfg, &run, sig, &out, &err))
		fail_msg("record: %s", err.message);
	return out;
}

#endif
