/*
 * breaker_memo.h: the open breakers a server store last showed this host
 * (docs/design.md section 6, "The memo").  A spawn such a breaker refuses
 * is refused from a small file beside the journal, without loading libpq
 * or reaching the server: resets only ever grow, so an open breaker read
 * from the server stays open until its reset, unless someone resets it by
 * hand; the memo trusts what it read for ttl seconds, which bounds how
 * late this host sees such a reset.
 *
 * Ownership: every buffer is the caller's; nothing is kept between calls.
 * The file is rewritten whole (a new file renamed over the old one), so a
 * reader sees one writer's version; a memo that cannot be read or written
 * is no memo (the server decides), never an error.
 */
#ifndef RLWRAP_BREAKER_MEMO_H
#define RLWRAP_BREAKER_MEMO_H

#include <stdbool.h>
#include <stddef.h>

#include "store.h"

/* The memo of the server store opts names (its URL and schema), beside
 * its journal; false when the store is a file or has no journal path. */
bool memo_path(const struct store_options *opts, char *buf, size_t size);
/*
 * The open breaker of (account, family) that applies to model with the
 * latest reset after now, read from the server at most ttl seconds before
 * now; false when the memo has none (ask the server).
 */
bool memo_blocker(const char *path, const char *account, const char *family, const char *model,
    double now, double ttl, struct breaker *out);
/*
 * What the server just showed of (account, family) for model: open, the
 * breaker that blocks it (kept as read at now), or NULL, nothing open.
 * The rows of the key that apply to model go first; with model NULL (a
 * trip just recorded) only the row of open's own scope does.
 */
void memo_note(const char *path, const char *account, const char *family, const char *model,
    const struct breaker *open, double now);
/* Every open breaker the memo holds that still refuses spawns of this host
 * at now (read at most ttl seconds before, not reset yet), updated_at the
 * time it was read; *rows NULL when none, else the caller's to free. */
bool memo_open_rows(const char *path, double now, double ttl, struct breaker **rows, size_t *count);
/* Everything the memo holds goes (a reset made here). */
void memo_forget(const char *path);

/*
 * Refusals decided from the memo reach no server, so they are counted in
 * a file beside it ("PATH.refusals", under its flock), per key, model and
 * blocking breaker, and written to the server's waits at the next contact
 * (taken out first, so two contacts never write one count twice; what a
 * contact could not write it gives back).
 */
struct memo_refusals {
	struct breaker blocking;      /* key, scope, reason, reset as refused on */
	char model[SIGNAL_FIELD_MAX];
	long n;
	double first_at, last_at;
};
/* One more refusal of model on blocking at now; false when it could not
 * be counted (the file cannot be written). */
bool memo_refusal_count(const char *path, const struct breaker *blocking, const char *model, double now);
/* Gives back what a contact took and did not write (counts added). */
bool memo_refusals_add(const char *path, const struct memo_refusals *rows, size_t count);
/* Every counted refusal, taken (the file emptied); *rows NULL when none,
 * else the caller's to free. */
bool memo_refusals_take(const char *path, struct memo_refusals **rows, size_t *count);

#endif
