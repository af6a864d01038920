/*
 * [family.NAME] accounts (docs/design.md section 10, "Account pools"): the
 * account a spawn runs on when nothing pinned one, chosen before each
 * attempt's gate from what the store says of every account of the pool
 * (lib/account_pool.c decides), and the chosen account's environment
 * ([account.NAME] env) set for the child.  A pinned account of the pool
 * (--account, $RLWRAP_ACCOUNT, its config directory already set, a
 * recover's re-run) gets its environment set the same way.
 *
 * Like the rest of the wrapper's store side it fails open: a store that
 * cannot say leaves every account free, and the pool's order decides.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "account_pool.h"
#include "cmd.h"
#include "run.h"

/* The caller's own values of the variables a pool's environment set, so
 * that a retry on another account does not inherit the first one's. */
#define POOL_SAVED_MAX (POOL_ACCOUNTS_MAX * ACCOUNT_ENV_MAX)

static struct {
	bool decided, chooses;
	size_t saved_len;
	char *saved_name[POOL_SAVED_MAX], *saved_value[POOL_SAVED_MAX];   /* value NULL: was unset */
} pool;

bool
run_pool_chooses(const struct run_breaker *b, const struct run_opts *o, const struct run_identity *id)
{
	const struct family_config *fc = config_family(&b->cfg, id->family);
	const char *env = getenv("RLWRAP_ACCOUNT"), *dir_var = config_dir_env(&b->cfg, id->family), *dir;

	if (pool.decided)
		return pool.chooses;
	pool.decided = true;
	dir = dir_var != NULL ? getenv(dir_var) : NULL;
	/* The user's own choice, however it was made, always pins. */
	pool.chooses = fc != NULL && fc->pool_len > 0 && o->account == NULL && (env == NULL || *env == '\0') &&
	    (dir == NULL || *dir == '\0');
	return pool.chooses;
}

static void
save_once(const char *name)
{
	const char *value;

	for (size_t i = 0; i < pool.saved_len; i++)
		if (strcmp(pool.saved_name[i], name) == 0)
			return;
	if (pool.saved_len >= POOL_SAVED_MAX)
		return;
	value = getenv(name);
	pool.saved_name[pool.saved_len] = cmd_strdup(name);
	pool.saved_value[pool.saved_len++] = value != NULL ? cmd_strdup(value) : NULL;
}

/* The caller's environment back, then the account's on top. */
static void
apply_env(const struct account_config *ac)
{
	for (size_t i = 0; i < pool.saved_len; i++) {
		if (pool.saved_value[i] != NULL)
			setenv(pool.saved_name[i], pool.saved_value[i], 1);
		else
			unsetenv(pool.saved_name[i]);
	}
	for (size_t i = 0; ac != NULL && i < ac->env_len; i++) {
		save_once(ac->env[i].name);
		if (setenv(ac->env[i].name, ac->env[i].value, 1) != 0)
			warn("account %s: setting %s", ac->name, ac->env[i].name);
	}
}

static void
iso_utc(double t, char *buf, size_t size)
{
	time_t secs = (time_t)t;
	struct tm tm;

	if (gmtime_r(&secs, &tm) == NULL || strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(buf, size, "%.0f", t);
}

/* The readings of (account, family) among every key's: one run of rows,
 * since store_readings() orders them by key. */
static const struct usage_reading *
readings_of(const struct usage_reading *all, size_t nall, const char *account, const char *family, size_t *n)
{
	size_t i = 0, j;

	while (i < nall && (strcmp(all[i].account, account) != 0 || strcmp(all[i].family, family) != 0))
		i++;
	for (j = i; j < nall && strcmp(all[j].account, account) == 0 && strcmp(all[j].family, family) == 0; j++)
		;
	*n = j - i;
	return all + i;
}

/* What holds one account now, and its headroom (from all, every key's
 * readings); why says it for -v. */
static void
pool_look(struct run_breaker *b, const struct run_opts *o, const struct run_identity *id, const char *account,
    const struct usage_reading *all, size_t nall, double now, struct pool_account *a, char *why, size_t size)
{
	const struct family_config *fc = config_family(&b->cfg, id->family);
	const struct usage_reading *u, *rows;
	struct store_error error;
	struct breaker blk;
	bool blocked = false;
	char when[32];
	size_t n = 0;

	*a = (struct pool_account){ .name = account, .headroom = 1 };
	snprintf(why, size, "%s: free", account);
	if (b->store == NULL)
		return;
	if (b->cfg.breaker_enabled && !breaker_blocked(b->store, account, id->family, id->model, now, &blocked,
	    &blk, &error)) {
		run_store_trouble(b, &error);
		return;
	}
	if (blocked) {
		/* a half-open breaker's probe runs: held until its lease ends */
		a->held_until = blk.resets_at > now ? blk.resets_at : blk.lease.expires_at > now ?
		    blk.lease.expires_at : now + 1;
		iso_utc(a->held_until, when, sizeof(when));
		snprintf(why, size, "%s: breaker open on %s until %s", account, reason_name(blk.reason), when);
	}
	rows = readings_of(all, nall, account, id->family, &n);
	pool_headroom(rows, n, id->model, now, &a->headroom, &a->resets_at);
	if (fc != NULL && fc->reserves_len > 0 && !o->interactive && !o->force &&
	    (u = reserve_holding(fc->reserves, fc->reserves_len, rows, n, id->model, now)) != NULL &&
	    u->resets_at > a->held_until) {
		a->held_until = u->resets_at;
		iso_utc(a->held_until, when, sizeof(when));
		snprintf(why, size, "%s: in its reserve (%s) until %s", account, u->window, when);
	} else if (a->held_until == 0)
		snprintf(why, size, "%s: free, %.0f%% left", account, 100 * a->headroom);
}

/* The pool's choice for an unpinned spawn: id->account; said with -v,
 * and when every account is held (the gate then waits for, or refuses
 * with, the one freed first). */
static const struct account_config *
pool_choose_account(struct run_breaker *b, const struct run_opts *o, struct run_identity *id)
{
	const struct family_config *fc = config_family(&b->cfg, id->family);
	struct pool_account a[POOL_ACCOUNTS_MAX];
	char why[POOL_ACCOUNTS_MAX][160], said[POOL_ACCOUNTS_MAX * 162] = "", when[32];
	double now = run_clock(b);
	struct usage_reading *all = NULL;
	struct store_error error;
	size_t nall = 0;
	bool all_held;
	int i;

	/* one read of the readings for the whole pool (the table is small:
	 * a row per account and window) */
	if (b->store != NULL && !store_readings(b->store, NULL, NULL, &all, &nall, &error))
		run_store_trouble(b, &error);
	for (size_t k = 0; k < fc->pool_len; k++) {
		pool_look(b, o, id, fc->pool[k], all, nall, now, &a[k], why[k], sizeof(why[k]));
		snprintf(said + strlen(said), sizeof(said) - strlen(said), "%s%s", k > 0 ? "; " : "", why[k]);
	}
	free(all);
	i = pool_choose(a, fc->pool_len, &all_held);
	strlcpy(id->account, fc->pool[i], sizeof(id->account));
	if (o->verbose)
		warnx_visible("%s: account %s, of the pool (%s)", id->family, id->account, said);
	if (all_held && !o->quiet && !o->verbose) {
		iso_utc(a[i].held_until, when, sizeof(when));
		warnx_visible("%s: every account of the pool is held; %s is free first, at %s", id->family,
		    id->account, when);
	}
	return config_account(&b->cfg, id->account);
}

void
run_pool_select(struct run_breaker *b, const struct run_opts *o, struct run_identity *id)
{
	const struct account_config *ac;

	if (run_pool_chooses(b, o, id))
		ac = pool_choose_account(b, o, id);
	else if ((ac = config_pool_account(&b->cfg, id->family, id->account)) == NULL)
		return;
	else if (o->verbose)
		warnx_visible("%s: account %s, pinned", id->family, id->account);
	apply_env(ac);
	run_record_env(b, id);
}
