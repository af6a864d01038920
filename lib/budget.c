/* budget.c: sliding windows over the store's counter buckets. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "budget.h"
#include "history.h"
#include "key.h"

/* A window's buckets: window / 60 wide, so that a budget reads at most 61
 * counter rows. */
static double
budget_width(double window)
{
	return window / 60;
}

static double
amount_of(const struct budget_bucket *b, enum budget_unit unit)
{
	return unit == BUDGET_TOKENS ? b->tokens : unit == BUDGET_USD ? b->usd : b->runs;
}

/* What a spawn needs of a budget: its estimate of tokens, one run, and of
 * dollars nothing (a dollar budget has room while it is not spent). */
static bool
fits(const struct budget *bg, double used, double tokens)
{
	double need = bg->unit == BUDGET_TOKENS ? tokens : bg->unit == BUDGET_RUNS ? 1 : 0;

	if (need > bg->amount)   /* bigger than the whole budget: alone in an empty window */
		return used <= 0;
	return bg->unit == BUDGET_USD ? used < bg->amount : used + need <= bg->amount;
}

size_t
budget_select(const struct budget *all, size_t n, const char *model, struct budget *out)
{
	size_t kept = 0;

	for (size_t i = 0; i < n; i++)
		if (scope_applies(all[i].model, model))
			out[kept++] = all[i];
	return kept;
}

static bool
in_window(const struct budget_bucket *row, const struct budget *bg, double now)
{
	double width = budget_width(bg->window);

	return row->width == width && strcmp(row->model, bg->model) == 0 && row->bucket > now - bg->window - width;
}

/* One budget over the key's rows (by model, width and bucket): *room, else
 * *until, when enough of its buckets will have left the window (a bucket
 * leaves it window seconds after its end). */
static void
look_one(const struct budget *bg, const struct budget_bucket *rows, size_t count, double now, double tokens,
    bool *room, double *until, double *used)
{
	double rest;
	bool enough = false;

	*used = 0;
	for (size_t i = 0; i < count; i++)
		if (in_window(&rows[i], bg, now))
			*used += amount_of(&rows[i], bg->unit);
	*room = fits(bg, *used, tokens);
	rest = *used;
	*until = now;
	for (size_t i = 0; !*room && !enough && i < count; i++) {
		if (!in_window(&rows[i], bg, now))
			continue;
		rest -= amount_of(&rows[i], bg->unit);
		*until = rows[i].bucket + budget_width(bg->window) + bg->window;
		enough = fits(bg, rest, tokens);
	}
}

bool
budget_look(struct store *store, const struct budget_key *key, double now, double tokens,
    struct budget_look *out, struct store_error *err)
{
	struct budget_bucket *rows;
	size_t count;

	*out = (struct budget_look){ .room = true };
	if (key->count == 0)
		return true;
	if (!store_budget_buckets(store, key->account, key->family, &rows, &count, err))
		return false;
	for (size_t i = 0; i < count; i++)
		out->expired += rows[i].bucket + 61 * rows[i].width <= now;
	for (size_t i = 0; i < key->count; i++) {
		bool room;
		double until, used;

		look_one(&key->budgets[i], rows, count, now, tokens, &room, &until, &used);
		if (i < CONFIG_BUDGETS_MAX)
			out->used_each[i] = used;
		if (room || (!out->room && until <= out->until))
			continue;
		out->room = false;
		out->until = until;
		out->which = i;
		out->used = used;
	}
	free(rows);
	return true;
}

/* The adds at `at` of every distinct (width, model) among the budgets,
 * appended to adds[*n] (room for CONFIG_BUDGETS_MAX more). */
static void
adds_at(const struct budget_key *key, double at, double tokens, double usd, double runs,
    struct budget_bucket *adds, size_t *n)
{
	size_t first = *n;

	for (size_t i = 0; i < key->count; i++) {
		double width = budget_width(key->budgets[i].window);
		bool seen = false;

		for (size_t j = first; j < *n; j++)
			seen = seen || (adds[j].width == width && strcmp(adds[j].model, key->budgets[i].model) == 0);
		if (seen)
			continue;
		adds[*n] = (struct budget_bucket){
			.bucket = floor(at / width) * width, .width = width,
			.tokens = tokens, .usd = usd, .runs = runs,
		};
		strlcpy(adds[*n].model, key->budgets[i].model, sizeof(adds[*n].model));
		(*n)++;
	}
}

bool
budget_reserve(struct store *store, const struct budget_key *key, double now, double tokens,
    struct store_error *err)
{
	struct budget_bucket adds[CONFIG_BUDGETS_MAX];
	size_t n = 0;

	adds_at(key, now, tokens, 0, 1, adds, &n);
	return store_budget_add(store, key->account, key->family, adds, n, err);
}

bool
budget_prune(struct store *store, const struct budget_key *key, double now, struct store_error *err)
{
	return store_budget_prune(store, key->account, key->family, now, err);
}

/* The reservation's take-back and the actuals fall in one row where they
 * share a bucket (a run shorter than a bucket): one add, not two. */
static void
merge_same_buckets(struct budget_bucket *adds, size_t *n, size_t split)
{
	size_t kept = split;

	for (size_t i = split; i < *n; i++) {
		bool merged = false;

		for (size_t j = 0; j < split && !merged; j++) {
			if (adds[j].width != adds[i].width || adds[j].bucket != adds[i].bucket ||
			    strcmp(adds[j].model, adds[i].model) != 0)
				continue;
			adds[j].tokens += adds[i].tokens;
			adds[j].usd += adds[i].usd;
			merged = true;
		}
		if (!merged)
			adds[kept++] = adds[i];
	}
	*n = kept;
}

bool
budget_settle_rows(struct store *store, const struct budget_settlement *s, struct store_error *err)
{
	struct budget_bucket adds[2 * CONFIG_BUDGETS_MAX];
	double usd = s->actual_usd > 0 ? s->actual_usd : 0;
	size_t n = 0, split;

	if (s->key == NULL || s->key->count == 0)
		return true;
	if (s->actual_tokens < 0) {
		if (usd > 0)
			adds_at(s->key, s->now, 0, usd, 0, adds, &n);
	} else {
		if (s->reserved_at > 0 && s->reserved != 0)
			adds_at(s->key, s->reserved_at, -s->reserved, 0, 0, adds, &n);
		split = n;
		adds_at(s->key, s->now, s->actual_tokens, usd, 0, adds, &n);
		merge_same_buckets(adds, &n, split);
	}
	return n == 0 || store_budget_add(store, s->key->account, s->key->family, adds, n, err);
}

/* One transaction: one commit (and one fsync) for every row it touches. */
bool
budget_settle(struct store *store, const struct budget_key *key, double reserved_at, double reserved,
    double now, double actual_tokens, double actual_usd, struct store_error *err)
{
	struct budget_settlement s = {
		.key = key, .reserved_at = reserved_at, .reserved = reserved, .now = now,
		.actual_tokens = actual_tokens, .actual_usd = actual_usd,
	};

	if (!store_begin(store, err))
		return false;
	if (!budget_settle_rows(store, &s, err)) {
		store_rollback(store);
		return false;
	}
	return store_commit(store, err);
}

/* ---- the estimate when none is configured ---- */

#define MEDIAN_RUNS 20

struct recent_tokens {
	double tokens[MEDIAN_RUNS];
	size_t count;
};

static bool
take_tokens(const struct run_row *row, void *arg)
{
	struct recent_tokens *r = arg;

	if (row->usage.input_tokens >= 0 && row->usage.output_tokens >= 0 && r->count < MEDIAN_RUNS)
		r->tokens[r->count++] = (double)row->usage.input_tokens + (double)row->usage.output_tokens;
	return r->count < MEDIAN_RUNS;
}

static int
by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

bool
budget_median_tokens(struct store *store, const char *account, const char *family, double *out,
    struct store_error *err)
{
	struct recent_tokens r = { .count = 0 };
	struct run_filter f;
	char spec[KEY_ACCOUNT_MAX + 16], msg[256];
	bool ok;

	*out = 0;
	run_filter_init(&f);
	f.limit = 4 * MEDIAN_RUNS;
	snprintf(spec, sizeof(spec), "family=%s", family);
	ok = run_filter_add(&f, spec, msg, sizeof(msg));
	snprintf(spec, sizeof(spec), "account=%s", account);
	ok = ok && strchr(account, ',') == NULL && run_filter_add(&f, spec, msg, sizeof(msg));
	if (ok && !store_runs_each(store, &f, take_tokens, &r, err)) {
		run_filter_free(&f);
		return false;
	}
	run_filter_free(&f);
	if (r.count > 0) {
		qsort(r.tokens, r.count, sizeof(r.tokens[0]), by_value);
		*out = r.count % 2 ? r.tokens[r.count / 2] :
		    (r.tokens[r.count / 2 - 1] + r.tokens[r.count / 2]) / 2;
	}
	return true;
}
