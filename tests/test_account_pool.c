/* Unit tests for lib/account_pool.c: the order in which a pool's accounts
 * are chosen (free before held, headroom, the sooner reset, the pool's
 * order), the one freed first when all are held, and an account's
 * headroom from its readings. */
#include "unit.h"

#include <math.h>

#include "account_pool.h"

#define T0 1796040000.0

static void
test_free_before_held(void **state)
{
	struct pool_account a[] = {
		{ .name = "work", .held_until = T0 + 600, .headroom = 1 },
		{ .name = "personal", .headroom = 0.2 },
	};
	bool all;

	(void)state;
	assert_int_equal(pool_choose(a, 2, &all), 1);
	assert_false(all);
}

static void
test_most_headroom(void **state)
{
	struct pool_account a[] = {
		{ .name = "work", .headroom = 0.3, .resets_at = T0 + 60 },
		{ .name = "personal", .headroom = 0.7, .resets_at = T0 + 7200 },
		{ .name = "spare", .headroom = 0.5 },
	};
	bool all;

	(void)state;
	assert_int_equal(pool_choose(a, 3, &all), 1);
	assert_false(all);
}

static void
test_tie_soonest_reset_then_order(void **state)
{
	struct pool_account a[] = {
		{ .name = "work", .headroom = 0.604, .resets_at = T0 + 7200 },
		{ .name = "personal", .headroom = 0.601, .resets_at = T0 + 3600 },
		{ .name = "spare", .headroom = 0.6 },
	};
	struct pool_account fresh[] = {
		{ .name = "work", .headroom = 1 },
		{ .name = "personal", .headroom = 1 },
	};
	struct pool_account unknown_last[] = {
		{ .name = "work", .headroom = 1 },
		{ .name = "personal", .headroom = 1, .resets_at = T0 + 9000 },
	};
	bool all;

	(void)state;
	/* the same whole percent: the sooner reset, and an unknown one last */
	assert_int_equal(pool_choose(a, 3, &all), 1);
	/* nothing to tell them apart: the pool's order */
	assert_int_equal(pool_choose(fresh, 2, &all), 0);
	assert_int_equal(pool_choose(unknown_last, 2, &all), 1);
}

static void
test_all_held_first_freed(void **state)
{
	struct pool_account a[] = {
		{ .name = "work", .held_until = T0 + 3600, .headroom = 1 },
		{ .name = "personal", .held_until = T0 + 600, .headroom = 0 },
		{ .name = "spare", .held_until = T0 + 900, .headroom = 1 },
	};
	bool all;

	(void)state;
	assert_int_equal(pool_choose(a, 3, &all), 1);
	assert_true(all);
	assert_int_equal(pool_choose(a, 0, &all), -1);
	assert_false(all);
}

static struct usage_reading
reading(const char *window, const char *model, double used, double resets_at)
{
	struct usage_reading r;

	memset(&r, 0, sizeof(r));
	strlcpy(r.window, window, sizeof(r.window));
	strlcpy(r.model, model, sizeof(r.model));
	r.used = used;
	r.resets_at = resets_at;
	r.window_secs = 18000;
	r.at = T0;
	return r;
}

static void
test_headroom_of_readings(void **state)
{
	struct usage_reading rows[] = {
		reading("five_hour", "", 0.4, T0 + 3600),
		reading("seven_day", "", 0.7, T0 + 86400),
		reading("seven_day_opus", "opus", 0.95, T0 + 86400),
		reading("old", "", 0.99, T0 - 60),
		reading("unsaid", "", -1, T0 + 60),
	};
	double h, reset;

	(void)state;
	pool_headroom(rows, 5, "claude-sonnet-4-5", T0, &h, &reset);
	assert_true(fabs(h - 0.3) < 1e-9 && reset == T0 + 86400);
	pool_headroom(rows, 5, "claude-opus-4-6", T0, &h, &reset);
	assert_true(fabs(h - 0.05) < 1e-9);
	pool_headroom(rows, 0, "", T0, &h, &reset);
	assert_true(h == 1 && reset == 0);
	strlcpy(rows[0].status, "rejected", sizeof(rows[0].status));
	pool_headroom(rows, 2, "", T0, &h, &reset);
	assert_true(h == 0 && reset == T0 + 3600);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_free_before_held),
		cmocka_unit_test(test_most_headroom),
		cmocka_unit_test(test_tie_soonest_reset_then_order),
		cmocka_unit_test(test_all_held_first_freed),
		cmocka_unit_test(test_headroom_of_readings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
