/*
 * What recover needs of a wrapped run (docs/design.md section 7): the run
 * it re-runs ($RLWRAP_RECOVERS, set by `rlwrap recover --yes`), the
 * environment that selects the account, the signature that says this user
 * on this host wrote it; a refused spawn kept as a run in state
 * "refused"; and a re-run's success marking its origin recovered.
 *
 * Like the rest of the wrapper's store side it fails open: a problem here
 * is one warning at most and never touches the child.
 */
#include <err.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "history.h"
#include "outcome.h"
#include "redact.h"
#include "run.h"
#include "run_sign.h"

/* The family's config-directory variable ({"CLAUDE_CONFIG_DIR": "..."}),
 * the one the account came from: a path, never a secret; a value the
 * redactor would touch is left out all the same. */
static char *
account_env_json(const struct run_breaker *b, const struct run_identity *id)
{
	const char *name = config_dir_env(&b->cfg, id->family), *value = name != NULL ? getenv(name) : NULL;
	bool redacted = false;
	char *checked, *text;
	json_t *o;

	if (value == NULL || *value == '\0')
		return NULL;
	checked = redact_arg(value, false, &redacted);
	free(checked);
	if (redacted)
		return NULL;
	o = json_object();
	json_object_set_new(o, name, json_string(value));
	text = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(o);
	return text;
}

static void
new_uid(char uid[40])
{
	unsigned char bytes[16];

	arc4random_buf(bytes, sizeof(bytes));
	for (size_t i = 0; i < sizeof(bytes); i++)
		snprintf(uid + 2 * i, 3, "%02x", bytes[i]);
}

/* The run a recover re-runs: read once and taken out of the environment,
 * so that the agent and anything it starts do not inherit it. */
static long long
take_origin(void)
{
	const char *env = getenv("RLWRAP_RECOVERS");
	long long id = env != NULL ? strtonum(env, 1, LLONG_MAX, NULL) : 0;

	unsetenv("RLWRAP_RECOVERS");
	return id;
}

void
run_record_setup(struct run_breaker *b, const struct run_opts *o, const struct run_identity *id)
{
	(void)o;
	b->origin = take_origin();
	b->env_json = account_env_json(b, id);
}

void
run_record_env(struct run_breaker *b, const struct run_identity *id)
{
	free(b->env_json);
	b->env_json = account_env_json(b, id);
}

/* The signing key, the first time a row is to be written: a store we
 * cannot write needs none.  Its trouble is the process's one warning. */
static bool
have_key(struct run_breaker *b)
{
	char why[512];

	if (b->key_tried)
		return b->have_key;
	b->key_tried = true;
	b->have_key = run_sign_key_load(true, b->sign_key, why, sizeof(why));
	if (!b->have_key && !b->store_warned) {
		warnx_visible("%s; this run is kept unsigned, so recover will not re-run it", why);
		b->store_warned = true;
	}
	return b->have_key;
}

void
run_record_sign(struct run_breaker *b, const struct run_opts *o, const struct run_identity *id)
{
	char cwd[PATH_MAX];
	struct run_signed s;

	new_uid(b->uid);
	b->hmac[0] = '\0';
	/* Only a replayable argv is worth signing: a redacted one is never re-run. */
	if (b->store == NULL || b->read_only || b->argv_exact == NULL || !have_key(b) ||
	    getcwd(cwd, sizeof(cwd)) == NULL)
		return;
	s = (struct run_signed){ .uid = b->uid, .host = b->holder.host, .account = id->account, .cwd = cwd,
		.env_json = b->env_json, .user = (unsigned long)getuid(), .argc = (size_t)o->argc,
		.argv = o->argv };
	run_sign(b->sign_key, &s, b->hmac);
}

/* The refused row: everything a re-run needs, and what refused it. */
static void
refused_row(const struct run_breaker *b, const struct run_identity *id, const char *cwd, const char *refused_by,
    const struct breaker *blk, double until, struct run_row *row)
{
	memset(row, 0, sizeof(*row));
	row->argv_json = b->argv_json;
	row->argv_redacted = b->argv_redacted;
	row->argv_exact = b->argv_exact;
	row->cwd = cwd;
	row->family = id->family;
	row->model = id->model;
	row->account = id->account;
	row->source = "wrap";
	row->state = "refused";
	row->refused_by = refused_by;
	row->host = b->holder.host;
	row->pid = b->holder.pid;
	row->pid_start_time = b->holder.start_time;
	row->started_at = row->ended_at = run_clock(b);
	row->exit_code = EXIT_REFUSED;
	row->usage = (struct run_usage){ -1, -1, -1, false };
	row->env_json = b->env_json;
	strlcpy(row->uid, b->uid, sizeof(row->uid));
	strlcpy(row->hmac, b->hmac, sizeof(row->hmac));
	signal_init(&row->signal);
	row->signal.exit_code = EXIT_REFUSED;
	if (blk == NULL)
		return;
	row->signal.reason = blk->reason;
	row->signal.confidence = 1.0;
	row->signal.terminal = true;
	row->signal.resets_at = until;
	strlcpy(row->signal.scope, strcmp(blk->key.scope, SCOPE_FAMILY) == 0 ? "family" : blk->key.scope,
	    sizeof(row->signal.scope));
	strlcpy(row->signal.message, blk->last_message, sizeof(row->signal.message));
}

void
run_record_refusal(struct run_breaker *b, const struct run_opts *o, const struct run_identity *id,
    const char *refused_by, const struct breaker *blk, double until)
{
	struct store_error error;
	struct run_row row;
	long long run_id;
	char cwd[PATH_MAX];

	if (o->no_record || !b->cfg.wrapper_record_refused || b->origin != 0 || b->read_only)
		return;
	/* Refused from a server's memo: the store is opened only for this. */
	if (b->store == NULL && !b->store_warned) {
		if (!store_open(&b->store_opts, &b->store, &error)) {
			warnx_visible("state file: %s; the refusal is not kept for recover", error.message);
			b->store_warned = true;
			return;
		}
		cmd_flush_memo_refusals(&b->store_opts, b->store);   /* this refusal's count with them */
	}
	if (b->store == NULL || getcwd(cwd, sizeof(cwd)) == NULL)
		return;
	if (b->uid[0] == '\0')   /* refused before the gate (a server's memo) */
		run_record_sign(b, o, id);
	refused_row(b, id, cwd, refused_by, blk, until, &row);
	if (!store_run_add(b->store, &row, row.ended_at, &run_id, &error) && !b->store_warned) {
		warnx_visible("state file: %s; the refusal is not kept for recover", error.message);
		b->store_warned = true;
	}
}

void
run_record_settle_origin(struct run_breaker *b, const struct run_result *r)
{
	struct store_error error;

	if (b->origin == 0 || b->store == NULL || r->run_id == 0 || r->exit_code != 0 || r->term_signal != 0 ||
	    r->sig.reason != REASON_NONE)
		return;
	if (!store_run_mark_recovered(b->store, b->origin, r->run_id, &error) && !b->store_warned) {
		warnx_visible("state file: %s; run #%lld is not marked recovered", error.message, b->origin);
		b->store_warned = true;
	}
}

void
run_record_journal(struct run_breaker *b, long long run_id, const struct run_result *r)
{
	struct run_outcome o = {
		.run_id = run_id, .exit_code = r->exit_code, .term_signal = r->term_signal,
		.reason = r->sig.reason, .ended_at = r->clock_ended,
	};
	char why[PATH_MAX + 128], path[PATH_MAX + 64];

	if (b->store == NULL || b->read_only || run_id == 0)
		return;
	strlcpy(o.store, store_path(b->store), sizeof(o.store));
	strlcpy(o.uid, b->uid, sizeof(o.uid));
	(void)outcome_write(&o, path, sizeof(path), why, sizeof(why));
}

void
run_record_settle_journal(struct run_breaker *b)
{
	struct store_error error;
	int settled;

	if (b->store != NULL && !b->read_only && !outcome_settle_all(b->store, &settled, &error) &&
	    !b->store_warned) {
		warnx_visible("state file: %s; a journaled outcome is left for next time", error.message);
		b->store_warned = true;
	}
}
