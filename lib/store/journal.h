/*
 * journal.h: a server store's local journal (docs/design.md section 6).
 * When the PostgreSQL server cannot be reached, the machine's own SQLite
 * file journal.db (next to state.db) takes the runs, trips and waits, so
 * that its trips still refuse this machine's spawns; the next rlwrap that
 * reaches the server replays it there (resets max-merged, runs by their
 * uid, never twice, budget counters max-merged under the journal's origin)
 * and clears it (its budget counters stay until their windows pass).
 *
 * Ownership: as store.h.  The journal a server store fails over to is
 * owned by it and closed by store_close().
 */
#ifndef RLWRAP_JOURNAL_H
#define RLWRAP_JOURNAL_H

#include <stdbool.h>

#include "store.h"

/* After the server did not answer, opens of this host with trust_away set
 * (the wrapper's) go to the journal without asking it for this long (the
 * store's own breaker). */
#define JOURNAL_AWAY_SECS 5.0

/* Opens the server of opts (replaying a waiting journal into it), or, when
 * it cannot be reached or did not answer within JOURNAL_AWAY_SECS, the
 * journal in its place (store_notice() says so). */
bool journal_open_server(const struct store_options *opts, struct store **out, struct store_error *err);
/* The server of store went away mid-way: its calls go to the journal from
 * now on.  False (err kept) when there is no journal to go to. */
bool journal_fail_over(struct store *store, struct store_error *err);
/* Something was written to store's journal: the next open that reaches the
 * server replays it. */
void journal_mark(const struct store *store);
/* Whether the journal at journal_path may hold something for the server
 * (its marker: a stat). */
bool journal_waiting(const char *journal_path);
/*
 * The replayer's lock ("PATH.replayer", beside the journal): the fd that
 * holds it (its flock, this pid written in it; the caller's to close), or
 * -1: *elsewhere true when another process holds it, else err says why.
 */
int journal_replayer_lock(const char *journal_path, bool *elsewhere, struct store_error *err);
/* Whether some process holds the replayer's lock of journal_path now. */
bool journal_replayer_running(const char *journal_path);

#endif
