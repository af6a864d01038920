/* Helpers shared by the state-file subcommands: config, store, keys, times. */
#include <err.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "admission.h"
#include "breaker.h"
#include "breaker_memo.h"
#include "cmd.h"
#include "holder.h"

void
cmd_warn_config_problems(const struct config *cfg)
{
	size_t kept = cfg->problems_len < CONFIG_PROBLEMS_MAX ? cfg->problems_len : CONFIG_PROBLEMS_MAX;

	for (size_t i = 0; i < kept; i++)
		warnx_visible("%s", cfg->problems[i]);
	if (cfg->problems_len > kept)
		warnx("config: %zu more problems (rlwrap config check)", cfg->problems_len - kept);
}

/* A typo in the config must not lock anyone out: each problem is said and
 * its key keeps the default, unless on_config_error = closed. */
bool
cmd_load_config(struct config *cfg)
{
	char error[CONFIG_PROBLEM_MAX];

	if (config_load(cfg, error, sizeof(error)))
		return true;
	cmd_warn_config_problems(cfg);
	if (cfg->on_config_error == CONFIG_ERROR_OPEN)
		return true;
	warnx("config: on_config_error = closed: not going on with a config that has problems");
	config_free(cfg);
	return false;
}

void
cmd_warn_exposed_store(const struct store *store)
{
	char why[PATH_MAX + 64];

	if (store_writable_by_others(store, why, sizeof(why)))
		warnx_visible("state file: %s: others can write it, and so plant a command for "
		    "`recover --yes` (which refuses it); chmod go-w", why);
}

void
cmd_forget_memo(const struct config *cfg)
{
	struct store_options opts;
	struct store_error error;
	char path[PATH_MAX + 64];

	if (!store_options_resolve(&opts, cfg->store_path, 0, 0, &error))
		return;
	store_options_server(&opts, cfg->store_schema, 0, 0, cfg->store_pool);
	if (memo_path(&opts, path, sizeof(path)))
		memo_forget(path);
}

/* At most this many counted refusals go to the server per contact (one
 * pipeline); the rest wait for the next. */
#define MEMO_REFUSALS_BATCH 1000

/* r's refusals as waits rows, spread evenly between its first and last,
 * as many as *budget allows; *written says how many. */
static bool
write_memo_refusals(struct store *store, const struct memo_refusals *r, const char *host, long *budget,
    long *written, struct store_error *err)
{
	struct wait_record w = { .kind = "refuse", .blocking = &r->blocking, .model = r->model, .host = host,
		.until = r->blocking.resets_at };

	for (*written = 0; *written < r->n && *budget > 0; (*written)++, (*budget)--) {
		w.at = r->n > 1 ? r->first_at + (r->last_at - r->first_at) * (double)*written / (double)(r->n - 1) :
		    r->last_at;
		if (!store_wait_add(store, &w, NULL, err))
			return false;
	}
	return true;
}

void
cmd_flush_memo_refusals(const struct store_options *opts, struct store *store)
{
	struct memo_refusals *rows;
	struct store_error error;
	char path[PATH_MAX + 64], host[256];
	long budget = MEMO_REFUSALS_BATCH, *written;
	size_t count;
	bool ok;

	if (store == NULL || store_on_journal(store) || !memo_path(opts, path, sizeof(path)) ||
	    !memo_refusals_take(path, &rows, &count) || count == 0)
		return;
	if ((written = calloc(count, sizeof(*written))) == NULL) {
		(void)memo_refusals_add(path, rows, count);
		free(rows);
		return;
	}
	holder_local_host(host, sizeof(host));
	ok = store_begin(store, &error);
	for (size_t i = 0; ok && i < count; i++)
		ok = write_memo_refusals(store, &rows[i], host, &budget, &written[i], &error);
	ok = ok && store_commit(store, &error);
	if (!ok)
		store_rollback(store);
	/* What was not written goes back: all of it after a failure, else what
	 * the batch left. */
	for (size_t i = 0; ok && i < count; i++)
		rows[i].n -= written[i];
	(void)memo_refusals_add(path, rows, count);
	free(written);
	free(rows);
}

static struct store *
open_store(const struct config *cfg, bool read_only_fallback, bool *read_only, struct store_options *optsp)
{
	struct store_options opts;
	struct store_error error;
	struct store *store;

	*read_only = false;
	if (!store_options_resolve(&opts, cfg->store_path, cfg->keep_runs, cfg->keep_days, &error)) {
		warnx_visible("%s", error.message);
		return NULL;
	}
	store_options_server(&opts, cfg->store_schema, cfg->store_connect_timeout, cfg->store_statement_timeout,
	    cfg->store_pool);
	*optsp = opts;
	if (store_open(&opts, &store, &error)) {
		if (*store_take_notice(store, error.message, sizeof(error.message)) != '\0')
			warnx_visible("%s", error.message);
		cmd_warn_exposed_store(store);
		return store;
	}
	if (read_only_fallback && error.status == STORE_ERR_READONLY) {
		opts.read_only = *read_only = true;
		if (store_open(&opts, &store, &error)) {
			cmd_warn_exposed_store(store);
			return store;
		}
	}
	warnx_visible("%s", error.message);
	return NULL;
}

static bool
state_open(struct cmd_state *st, struct config *cfg, bool read_only_fallback, bool reap)
{
	struct store_options opts;
	struct store_error error;
	struct probe_lease self;

	memset(st, 0, sizeof(*st));
	if (!cmd_load_config(cfg))
		return false;
	if ((st->store = open_store(cfg, read_only_fallback, &st->read_only, &opts)) == NULL) {
		config_free(cfg);
		return false;
	}
	st->cfg = cfg;
	/* Best effort: a store too busy to clear the dead now is cleared by the
	 * next look, and the command's own work says what is wrong with it. */
	holder_self(&self);
	if (reap && !st->read_only) {
		(void)admission_reap(st->store, cmd_now_precise(), self.host, NULL, &error);
		cmd_flush_memo_refusals(&opts, st->store);
	}
	return true;
}

bool
cmd_state_open(struct cmd_state *st, struct config *cfg, bool read_only_fallback)
{
	return state_open(st, cfg, read_only_fallback, true);
}

bool
cmd_state_look(struct cmd_state *st, struct config *cfg)
{
	return state_open(st, cfg, true, false);
}

void
cmd_state_close(struct cmd_state *st)
{
	store_close(st->store);
	if (st->cfg != NULL)
		config_free(st->cfg);
	memset(st, 0, sizeof(*st));
}

bool
cmd_parse_key(const struct cmd_entry *entry, const struct config *cfg, const char *text,
    struct breaker_key *key)
{
	char error[512];

	if (!key_parse(text, key, error, sizeof(error))) {
		usage_error(entry, "%s", error);
		return false;
	}
	if (key->account[0] == '\0')
		config_resolve_account(cfg, key->family, NULL, key->account, sizeof(key->account));
	return true;
}

void
cmd_format_local(double t, char *buf, size_t size)
{
	time_t secs = (time_t)ceil(t);
	struct tm tm;

	size_t n;

	if (localtime_r(&secs, &tm) == NULL || (n = strftime(buf, size, "%Y-%m-%dT%H:%M:%S%z", &tm)) < 5 ||
	    n + 2 > size) {
		strlcpy(buf, "?", size);
		return;
	}
	/* +0100 -> +01:00 */
	memmove(buf + n - 1, buf + n - 2, 3);
	buf[n - 2] = ':';
}

void
cmd_format_reset(double t, time_t now, char *buf, size_t size)
{
	char utc[32], local[64], rel[32];
	time_t secs = (time_t)ceil(t);
	struct tm tm;

	format_utc_iso(t, utc, sizeof(utc));
	if (localtime_r(&secs, &tm) == NULL || strftime(local, sizeof(local), "%Y-%m-%d %H:%M %Z", &tm) == 0)
		strlcpy(local, "?", sizeof(local));
	format_duration_short(fabs(t - (double)now), rel, sizeof(rel));
	snprintf(buf, size, "%s (%s, %s%s%s)", utc, local, t >= (double)now ? "in " : "",
	    rel, t >= (double)now ? "" : " ago");
}
