/* Unit tests for lib/budget.c: sliding windows over counter buckets, the
 * wait computed from the window's own data, reservations settled. */
#include "unit.h"

#include "budget.h"
#include "store.h"
#include "unit_store.h"

static struct budget_look
look(struct store *store, const struct budget_key *key, double now, double tokens)
{
	struct budget_look l;
	struct store_error err;

	if (!budget_look(store, key, now, tokens, &l, &err))
		fail_msg("budget_look: %s", err.message);
	return l;
}

static void
test_budget_lines_parse(void **state)
{
	struct budget b;

	(void)state;
	assert_true(budget_parse("30000 tokens per 1m", &b));
	assert_int_equal(b.unit, BUDGET_TOKENS);
	assert_true(b.amount == 30000 && b.window == 60);
	assert_true(budget_parse("50 usd per 1d", &b));
	assert_true(b.unit == BUDGET_USD && b.amount == 50 && b.window == 86400);
	assert_true(budget_parse("10 runs per 5h", &b));
	assert_true(b.unit == BUDGET_RUNS && b.window == 5 * 3600);
	assert_false(budget_parse("10 runs", &b));
	assert_false(budget_parse("-5 tokens per 1m", &b));
	assert_false(budget_parse("5 apples per 1m", &b));
	assert_false(budget_parse("5 tokens per never", &b));
	assert_false(budget_parse("5 tokens perhaps 1m", &b));
	assert_string_equal(b.model, "");
	assert_true(budget_parse("30000 tokens per 1m model=gpt-4o", &b));
	assert_true(b.amount == 30000 && b.window == 60);
	assert_string_equal(b.model, "gpt-4o");
	assert_true(budget_parse("30000 tokens per 1m", &b));
	assert_string_equal(b.model, "");
	assert_false(budget_parse("5 tokens per 1m model=", &b));
	assert_false(budget_parse("5 tokens per 1m gpt-4o", &b));
	assert_false(budget_parse("5 tokens per 1m model=a b", &b));
}

/* A model-scoped budget counts and holds only the runs of its model; the
 * family-wide one counts them all. */
static void
test_model_scoped_budgets(void **state)
{
	struct store *store = open_store("model.db");
	struct budget all[] = {
		{ BUDGET_TOKENS, 10000, 60, "gpt-4o" }, { BUDGET_TOKENS, 30000, 60, "" },
	};
	struct budget mine[2];
	struct budget_key k4o = { "default", "codex", mine, 0 }, kmini = k4o;
	struct budget other[2];
	struct store_error err;
	struct budget_look l;

	(void)state;
	k4o.count = budget_select(all, 2, "gpt-4o-2024-08-06", mine);
	assert_int_equal(k4o.count, 2);
	kmini.budgets = other;
	kmini.count = budget_select(all, 2, "o3-mini", other);
	assert_int_equal(kmini.count, 1);
	assert_string_equal(other[0].model, "");
	assert_int_equal(budget_select(all, 2, "", other), 1);
	/* 10000 of gpt-4o: its budget is full, the family's is not. */
	assert_true(budget_reserve(store, &k4o, NOW, 10000, &err));
	l = look(store, &k4o, NOW + 1, 1000);
	assert_false(l.room);
	assert_int_equal(l.which, 0);
	assert_true(l.used == 10000);
	assert_true(look(store, &kmini, NOW + 1, 20000).room);
	assert_false(look(store, &kmini, NOW + 1, 20001).room);
	/* Settled at 4000 in the same bucket: one row per (model, width). */
	assert_true(budget_settle(store, &k4o, NOW, 10000, NOW + 0.5, 4000, 0, &err));
	l = look(store, &k4o, NOW + 1, 6000);
	assert_true(l.room);
	assert_false(look(store, &k4o, NOW + 1, 6001).room);
	store_close(store);
}

/* Rows past their window are dropped by budget_prune(), and counted by a
 * look until then (BUDGET_PRUNE_AT of them make a reservation prune). */
static void
test_expired_rows_counted_and_pruned(void **state)
{
	struct store *store = open_store("prune.db");
	struct budget bg[] = { { BUDGET_RUNS, 5, 60, "" } };
	struct budget_key key = { "default", "claude", bg, 1 };
	struct store_error err;
	struct budget_look l;

	(void)state;
	for (int i = 0; i < 10; i++)   /* reserved without looking: 10 in 5 */
		assert_true(budget_reserve(store, &key, NOW + i, 0, &err));
	l = look(store, &key, NOW + 65, 0);
	assert_int_equal(l.expired, 5);        /* NOW .. NOW + 4 ended by NOW + 65 */
	assert_false(l.room);
	assert_true(l.used == 5);
	assert_true(budget_prune(store, &key, NOW + 65, &err));
	l = look(store, &key, NOW + 65, 0);
	assert_int_equal(l.expired, 0);
	assert_true(!l.room && l.used == 5);
	assert_true(look(store, &key, NOW + 66, 0).room);
	store_close(store);
}

static void
test_window_slides_and_says_when(void **state)
{
	struct store *store = open_store("slide.db");
	struct budget bg[] = { { BUDGET_TOKENS, 30000, 60, "" }, { BUDGET_RUNS, 10, 60, "" } };
	struct budget_key key = { "default", "claude", bg, 2 };
	struct store_error err;
	struct budget_look l;

	(void)state;
	assert_true(look(store, &key, NOW, 5000).room);
	for (int i = 0; i < 6; i++)
		assert_true(budget_reserve(store, &key, NOW + i, 5000, &err));
	/* 30000 reserved: no room for 5000 more until the first reservation
	 * (at NOW, its bucket 1 s wide) leaves the window. */
	l = look(store, &key, NOW + 10, 5000);
	assert_false(l.room);
	assert_int_equal(l.which, 0);
	assert_true(l.used == 30000);
	assert_true(l.until == NOW + 1 + 60);
	assert_true(look(store, &key, NOW + 61, 5000).room);
	/* A settled run gives back what it did not spend. */
	assert_true(budget_settle(store, &key, NOW + 5, 5000, NOW + 12, 1000, 0.01, &err));
	assert_true(look(store, &key, NOW + 12, 4000).room);
	assert_false(look(store, &key, NOW + 12, 4001).room);
	/* Unknown actuals: the reservation stands. */
	assert_true(budget_settle(store, &key, NOW + 4, 5000, NOW + 12, -1, -1, &err));
	assert_false(look(store, &key, NOW + 12, 4001).room);
	store_close(store);
}

static void
test_runs_and_dollars(void **state)
{
	struct store *store = open_store("units.db");
	struct budget bg[] = { { BUDGET_RUNS, 2, 10, "" }, { BUDGET_USD, 1, 3600, "" } };
	struct budget_key key = { "default", "codex", bg, 2 };
	struct store_error err;
	struct budget_look l;

	(void)state;
	assert_true(budget_reserve(store, &key, NOW, 0, &err));
	assert_true(budget_reserve(store, &key, NOW, 0, &err));
	l = look(store, &key, NOW, 0);
	assert_false(l.room);
	assert_int_equal(l.which, 0);
	assert_true(look(store, &key, NOW + 11, 0).room);
	/* A dollar budget has room until it is spent. */
	assert_true(budget_settle(store, &key, NOW, 0, NOW + 20, 100, 0.99, &err));
	assert_true(look(store, &key, NOW + 21, 0).room);
	assert_true(budget_settle(store, &key, NOW, 0, NOW + 22, 100, 0.02, &err));
	l = look(store, &key, NOW + 23, 0);
	assert_false(l.room);
	assert_int_equal(l.which, 1);
	assert_true(l.until == NOW + 60 + 3600);
	/* Another key is not touched. */
	key.family = "claude";
	assert_true(look(store, &key, NOW + 23, 0).room);
	store_close(store);
}

static void
test_bigger_than_the_budget_runs_alone(void **state)
{
	struct store *store = open_store("big.db");
	struct budget bg[] = { { BUDGET_TOKENS, 1000, 60, "" } };
	struct budget_key key = { "default", "claude", bg, 1 };
	struct store_error err;

	(void)state;
	assert_true(look(store, &key, NOW, 5000).room);
	assert_true(budget_reserve(store, &key, NOW, 5000, &err));
	assert_false(look(store, &key, NOW + 1, 5000).room);
	assert_true(look(store, &key, NOW + 62, 5000).room);
	store_close(store);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_budget_lines_parse),
		cmocka_unit_test(test_window_slides_and_says_when),
		cmocka_unit_test(test_runs_and_dollars),
		cmocka_unit_test(test_bigger_than_the_budget_runs_alone),
		cmocka_unit_test(test_model_scoped_budgets),
		cmocka_unit_test(test_expired_rows_counted_and_pruned),
	};

	return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
