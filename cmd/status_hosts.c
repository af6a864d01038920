/*
 * Journals that may wait on other hosts, for `status` on a server store.
 * A host records into its journal only when it cannot reach the server,
 * so the server cannot be told that a journal exists; what it does know is
 * the runs a host started and never ended, marked lost once the host's
 * lease lapsed.  A replay completes them (by their uid), so a host with
 * lost runs of the last day may hold their ends, and its trips, in its
 * journal, or may simply have died: status says which hosts, and no more.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "failsignal.h"
#include "history.h"
#include "run_filter.h"
#include "store.h"

#define AWAY_HOSTS_MAX 32
/* Lost runs older than this are an old crash, not a journal still waiting. */
#define AWAY_LOOKBACK_SECS 86400.0

struct away_host {
	char host[256];
	long lost;
	double last_started;
};

struct away_hosts {
	const char *self;
	struct away_host rows[AWAY_HOSTS_MAX];
	size_t n;
};

static bool
note_lost(const struct run_row *row, void *arg)
{
	struct away_hosts *a = arg;
	struct away_host *h = NULL;

	if (row->host == NULL || row->host[0] == '\0' || strcmp(row->host, a->self) == 0)
		return true;
	for (size_t i = 0; i < a->n && h == NULL; i++)
		if (strcmp(a->rows[i].host, row->host) == 0)
			h = &a->rows[i];
	if (h == NULL && a->n < AWAY_HOSTS_MAX) {
		h = &a->rows[a->n++];
		memset(h, 0, sizeof(*h));
		strlcpy(h->host, row->host, sizeof(h->host));
	}
	if (h != NULL) {
		h->lost++;
		if (row->started_at > h->last_started)
			h->last_started = row->started_at;
	}
	return true;
}

/* A host whose lease is alive again has reached the server since, and an
 * open that reaches it replays the journal first: what is still lost
 * there was a wrapper that died. */
static bool
still_away(struct store *store, const struct away_host *h, time_t now)
{
	struct store_error error;
	double alive_until = 0;

	if (!store_host_lease(store, h->host, &alive_until, &error))
		return true;
	return alive_until < (double)now;
}

static void
show(const struct away_host *h, json_t *out, time_t now)
{
	char at[160];

	if (out != NULL) {
		format_utc_iso(h->last_started, at, sizeof(at));
		json_array_append_new(json_object_get(out, "hosts_away"), json_pack("{s:s, s:I, s:s}", "host",
		    h->host, "lost_runs", (json_int_t)h->lost, "last_started_at", at));
		return;
	}
	cmd_format_reset(h->last_started, now, at, sizeof(at));
	print_visible("host %s: %ld run%s lost since %s, its lease lapsed: their ends and any trip may wait in "
	    "its journal until it replays (or the host is gone)", h->host, h->lost, h->lost == 1 ? "" : "s", at);
}

void
status_print_hosts_away(struct store *store, json_t *out, time_t now, const char *self)
{
	struct away_hosts a = { .self = self };
	struct store_error error;
	struct run_filter f;
	char bad[256];
	bool ok;

	if (out != NULL)
		json_object_set_new(out, "hosts_away", json_array());
	if (strcmp(store_backend_name(store), "postgresql") != 0 || store_on_journal(store))
		return;
	run_filter_init(&f);
	f.since = (double)now - AWAY_LOOKBACK_SECS;
	ok = run_filter_add(&f, "state=lost", bad, sizeof(bad)) && store_runs_each(store, &f, note_lost, &a, &error);
	run_filter_free(&f);
	for (size_t i = 0; ok && i < a.n; i++)
		if (still_away(store, &a.rows[i], now))
			show(&a.rows[i], out, now);
}
