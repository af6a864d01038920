/* budget.c: sliding windows over the store's counter buckets. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "budget.h"
#include "history.h"

double
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

/* One budget: *room, else *until, when enough of its buckets will have
 * left the window (a bucket leaves it window seconds after its end). */
static bool
look_one(struct store *store, const struct budget_key *key, const struct budget *bg, double now,
    double tokens, bool *room, double *until, double *used, struct store_error *err)
{
	double width = budget_width(bg->window);
	struct budget_bucket *rows;
	size_t count;
	double rest;
	bool enough = false;

	if (!store_budget_buckets(store, key->account, key->family, width, now - bg->window - width, &rows,
	    &count, err))
		return false;
	*used = 0;
	for (size_t i = 0; i < count; i++)
		*used += amount_of(&rows[i], bg->unit);
	*room = fits(bg, *used, tokens);
	rest = *used;
	*until = now;
	for (size_t i = 0; !*room && !enough && i < count; i++) {
		rest -= amount_of(&rows[i], bg->unit);
		*until = rows[i].bucket + width + bg->window;
		enough = fits(bg, rest, tokens);
	}
	free(rows);
	return true;
}

bool
budget_look(struct store *store, const struct budget_key *key, double now, double tokens,
    struct budget_look *out, struct store_error *err)
{
	out->room = true;
	out->until = 0;
	for (size_t i = 0; i < key->count; i++) {
		bool room;
		double until, used;

		if (!look_one(store, key, &key->budgets[i], now, tokens, &room, &until, &used, err))
			return false;
		if (room || (!out->room && until <= out->until))
			continue;
		*out = (struct budget_look){ .room = false, .until = until, .which = i, .used = used };
	}
	return true;
}

/* Adds to the bucket at `at` of every distinct width among the budgets;
 * now 0: prunes nothing (the reservation pruned already). */
static bool
add_everywhere(struct store *store, const struct budget_key *key, double at, double now, double tokens,
    double usd, double runs, struct store_error *err)
{
	for (size_t i = 0; i < key->count; i++) {
		double window = key->budgets[i].window, width = budget_width(window);
		struct budget_bucket add = {
			.bucket = floor(at / width) * width, .width = width,
			.tokens = tokens, .usd = usd, .runs = runs,
		};
		bool seen = false;

		for (size_t j = 0; j < i; j++)
			seen = seen || budget_width(key->budgets[j].window) == width;
		if (!seen && !store_budget_add(store, key->account, key->family, &add,
		    now > 0 ? now - window - width : 0, err))
			return false;
	}
	return true;
}

bool
budget_reserve(struct store *store, const struct budget_key *key, double now, double tokens,
    struct store_error *err)
{
	return add_everywhere(store, key, now, now, tokens, 0, 1, err);
}

static bool
settle_rows(struct store *store, const struct budget_key *key, double reserved_at, double reserved,
    double now, double actual_tokens, double actual_usd, struct store_error *err)
{
	double usd = actual_usd > 0 ? actual_usd : 0;

	if (actual_tokens < 0)
		return usd == 0 || add_everywhere(store, key, now, 0, 0, usd, 0, err);
	return (reserved == 0 || add_everywhere(store, key, reserved_at, 0, -reserved, 0, 0, err)) &&
	    add_everywhere(store, key, now, 0, actual_tokens, usd, 0, err);
}

/* One transaction: one commit (and one fsync) for every row it touches. */
bool
budget_settle(struct store *store, const struct budget_key *key, double reserved_at, double reserved,
    double now, double actual_tokens, double actual_usd, struct store_error *err)
{
	if (!store_begin(store, err))
		return false;
	if (!settle_rows(store, key, reserved_at, reserved, now, actual_tokens, actual_usd, err)) {
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
		r->tokens[r->count++] = (double)(row->usage.input_tokens + row->usage.output_tokens);
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
