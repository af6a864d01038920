/*
 * What this host's memo of a server store still refuses (breaker_memo.h),
 * for `status`: an open breaker the server no longer shows open (a reset
 * made on another host) keeps refusing this host's spawns until its memo
 * entry ages out (memo_ttl after it was read) or its reset comes.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "breaker.h"
#include "breaker_memo.h"
#include "cmd.h"
#include "failsignal.h"
#include "key.h"
#include "visible.h"

/* Whether the server's rows show b's breaker open (status lists it then). */
static bool
open_on_server(const struct breaker *b, const struct breaker *server, size_t n, time_t now, const char *host)
{
	for (size_t i = 0; i < n; i++) {
		enum breaker_view view = breaker_view(&server[i], (double)now, host);

		if (strcmp(server[i].key.account, b->key.account) == 0 &&
		    strcmp(server[i].key.family, b->key.family) == 0 &&
		    strcmp(server[i].key.scope, b->key.scope) == 0)
			return view == VIEW_OPEN || view == VIEW_HALF_OPEN;
	}
	return false;
}

size_t
status_print_memo(const struct config *cfg, const struct breaker *server, size_t n, json_t *out, time_t now,
    const char *host)
{
	struct store_options opts;
	struct store_error error;
	struct breaker *rows;
	char path[PATH_MAX + 64], key[512], until_text[160], line[1024];
	size_t count, shown = 0;

	if (cfg->store_memo_ttl <= 0 || !store_options_resolve(&opts, cfg->store_path, 0, 0, &error))
		return 0;
	store_options_server(&opts, cfg->store_schema, 0, 0, cfg->store_pool);
	if (!memo_path(&opts, path, sizeof(path)) || !memo_open_rows(path, (double)now, cfg->store_memo_ttl, &rows,
	    &count))
		return 0;
	for (size_t i = 0; i < count; i++) {
		const struct breaker *b = &rows[i];
		double until = b->updated_at + cfg->store_memo_ttl < b->resets_at ? b->updated_at + cfg->store_memo_ttl :
		    b->resets_at;

		if (open_on_server(b, server, n, now, host))
			continue;
		shown++;
		key_format(&b->key, key, sizeof(key));
		if (out != NULL) {
			format_utc_iso(until, until_text, sizeof(until_text));
			json_array_append_new(json_object_get(out, "memo"), json_pack("{s:s, s:s, s:s, s:s, s:s}",
			    "family", b->key.family, "scope", b->key.scope, "account", b->key.account,
			    "reason", reason_name(b->reason), "until", until_text));
			continue;
		}
		cmd_format_reset(until, now, until_text, sizeof(until_text));
		snprintf(line, sizeof(line), "%-24s open (from this host's memo) until %s; the server no longer "
		    "shows it open", key, until_text);
		print_visible("%s", line);
	}
	free(rows);
	return shown;
}
