/* Unit tests for lib/reserve.c and lib/usage_reading.c: the reserve's
 * grammar, which share applies to a window, the readings of Claude's and
 * Codex's records, and which reading holds a spawn of which model. */
#include "unit.h"

#include <math.h>

#include "reserve.h"
#include "usage_reading.h"

#define T0 1796040000.0

static void
test_reserve_grammar(void **state)
{
	struct reserve r[RESERVES_MAX];
	size_t n;

	(void)state;
	assert_true(reserve_parse("10%", r, RESERVES_MAX, &n));
	assert_true(n == 1 && r[0].window_secs == 0 && r[0].fraction == 0.1);
	assert_true(reserve_parse("5h:10% 7d:5%", r, RESERVES_MAX, &n));
	assert_true(n == 2 && r[0].window_secs == 18000 && r[1].window_secs == 604800 && r[1].fraction == 0.05);
	assert_true(reserve_parse("12.5", r, RESERVES_MAX, &n) && r[0].fraction == 0.125);
	assert_false(reserve_parse("", r, RESERVES_MAX, &n));
	assert_false(reserve_parse("0%", r, RESERVES_MAX, &n));
	assert_false(reserve_parse("100%", r, RESERVES_MAX, &n));
	assert_false(reserve_parse("10%%", r, RESERVES_MAX, &n));
	assert_false(reserve_parse("5x:10%", r, RESERVES_MAX, &n));
	assert_false(reserve_parse("1h:1% 2h:1% 3h:1% 4h:1% 5h:1%", r, RESERVES_MAX, &n));
	assert_true(reserve_parse("20% 5h:10%", r, RESERVES_MAX, &n));
	assert_true(reserve_for(r, n, 18000) == 0.1);
	assert_true(reserve_for(r, n, 604800) == 0.2);
	assert_true(reserve_for(r, n, 0) == 0.2);
	assert_true(reserve_parse("5h:10%", r, RESERVES_MAX, &n));
	assert_true(reserve_for(r, n, 604800) == -1);
}

static struct reading_set
claude(const char *info)
{
	struct reading_set set = { .n = 0 };
	json_t *obj = json_loads(info, 0, NULL);

	assert_non_null(obj);
	readings_from_claude(&set, obj, T0);
	json_decref(obj);
	return set;
}

static void
test_claude_readings(void **state)
{
	struct reading_set s;

	(void)state;
	s = claude("{\"status\":\"allowed_warning\",\"resetsAt\":1796050800,\"rateLimitType\":\"five_hour\","
	    "\"utilization\":0.92,\"surpassedThreshold\":0.9}");
	assert_int_equal(s.n, 1);
	assert_string_equal(s.r[0].window, "five_hour");
	assert_true(s.r[0].used == 0.92 && s.r[0].window_secs == 18000 && s.r[0].resets_at == 1796050800);
	assert_string_equal(s.r[0].status, "allowed_warning");
	/* the threshold stands in for a utilization left out; ms become s */
	s = claude("{\"status\":\"allowed_warning\",\"resetsAt\":1796212800000,\"rateLimitType\":\"seven_day_opus\","
	    "\"surpassedThreshold\":0.95}");
	assert_true(s.r[0].used == 0.95 && s.r[0].resets_at == 1796212800 && s.r[0].window_secs == 604800);
	assert_string_equal(s.r[0].model, "opus");
	/* unifiedWindows: each window; the named one keeps its status */
	s = claude("{\"status\":\"allowed\",\"resetsAt\":1796050800,\"rateLimitType\":\"five_hour\","
	    "\"unifiedWindows\":{\"five_hour\":{\"utilization\":0.31,\"resetsAt\":1796050800},"
	    "\"seven_day\":{\"utilization\":1,\"resetsAt\":1796569200}}}");
	assert_int_equal(s.n, 2);
	assert_true(s.r[0].used == 0.31);
	assert_string_equal(s.r[0].status, "allowed");
	assert_true(s.r[1].used == 1 && reading_left(&s.r[1]) == 0);
	/* a rejection leaves nothing, whatever its utilization says */
	s = claude("{\"status\":\"rejected\",\"resetsAt\":1796050800,\"rateLimitType\":\"five_hour\"}");
	assert_true(s.r[0].used == -1 && reading_left(&s.r[0]) == 0 && reading_warns(&s.r[0]));
	/* nonsense: no window, negative or non-numeric values */
	s = claude("{\"status\":\"allowed\",\"utilization\":-3}");
	assert_int_equal(s.n, 0);
	s = claude("{\"status\":\"allowed\",\"rateLimitType\":\"five_hour\",\"utilization\":\"0.5\",\"resetsAt\":12}");
	assert_true(s.n == 1 && s.r[0].used == -1 && s.r[0].resets_at == 0 && !reading_current(&s.r[0], T0));
}

static void
test_codex_readings(void **state)
{
	struct reading_set s = { .n = 0 };
	json_t *obj = json_loads("{\"primary\":{\"used_percent\":93.0,\"window_minutes\":300,\"resets_at\":1796050800},"
	    "\"secondary\":{\"used_percent\":41,\"window_minutes\":10080,\"resets_in_seconds\":600}}", 0, NULL);

	(void)state;
	readings_from_codex(&s, obj, T0);
	json_decref(obj);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.r[0].window, "primary");
	assert_true(s.r[0].used == 0.93 && s.r[0].window_secs == 18000 && s.r[0].resets_at == 1796050800);
	assert_true(s.r[1].used == 0.41 && s.r[1].window_secs == 604800 && s.r[1].resets_at == T0 + 600);
	readings_from_codex(&s, NULL, T0);
	assert_int_equal(s.n, 2);
}

static void
test_reserve_holds_by_window_and_model(void **state)
{
	struct reserve r[RESERVES_MAX];
	struct usage_reading rows[2] = {
		{ .window = "five_hour", .window_secs = 18000, .used = 0.85, .resets_at = T0 + 3600, .at = T0 },
		{ .window = "seven_day_opus", .model = "opus", .window_secs = 604800, .used = 0.97,
		  .resets_at = T0 + 86400, .at = T0 },
	};
	size_t n;

	(void)state;
	assert_true(reserve_parse("10%", r, RESERVES_MAX, &n));
	assert_ptr_equal(reserve_holding(r, n, rows, 2, "claude-opus-4-6", T0), &rows[1]);
	assert_null(reserve_holding(r, n, rows, 2, "claude-sonnet-4-5", T0));
	assert_null(reserve_holding(r, n, rows, 2, "", T0));
	assert_null(reserve_holding(r, n, rows, 2, "claude-opus-4-6", T0 + 86400));
	assert_true(reserve_parse("5h:20%", r, RESERVES_MAX, &n));
	assert_ptr_equal(reserve_holding(r, n, rows, 2, "", T0), &rows[0]);
	/* on_reserve: a start once per window and reset */
	assert_true(reserve_starts(r, n, NULL, &rows[0], T0));
	assert_false(reserve_starts(r, n, &rows[0], &rows[0], T0));
	rows[1] = rows[0];
	rows[1].resets_at += 18000;
	assert_true(reserve_starts(r, n, &rows[0], &rows[1], T0));
	rows[1].at = T0 - 1;
	assert_false(reserve_starts(r, n, &rows[0], &rows[1], T0));
}

/* The runway: the reading's pace alone, and with the runs metered since
 * (40% by 1000 tokens, 500 more since: 60% used 2h10m into the window). */
static void
test_runway_metered(void **state)
{
	struct usage_reading r = { .window_secs = 18000, .used = 0.4, .resets_at = T0 + 3 * 3600, .at = T0 };
	struct window_meter none = { 1000, 0 }, since = { 1000, 500 }, uncalibrated = { 0, 500 };
	double now = T0 + 600;

	(void)state;
	assert_true(fabs(reading_runway(&r, now) - (3 * 3600 - 600)) < 1e-6);
	assert_true(reading_runway_metered(&r, NULL, now) == reading_runway(&r, now));
	assert_true(reading_runway_metered(&r, &none, now) == reading_runway(&r, now));
	assert_true(reading_runway_metered(&r, &uncalibrated, now) == reading_runway(&r, now));
	assert_true(fabs(reading_runway_metered(&r, &since, now) - 5200) < 1e-6);
	since.after = 2000;   /* more than the window holds: out now */
	assert_true(reading_runway_metered(&r, &since, now) == 0);
	r.resets_at = now - 1;   /* its window reset since: nothing to say */
	assert_true(reading_runway_metered(&r, &since, now) == -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reserve_grammar),
		cmocka_unit_test(test_claude_readings),
		cmocka_unit_test(test_codex_readings),
		cmocka_unit_test(test_reserve_holds_by_window_and_model),
		cmocka_unit_test(test_runway_metered),
	};

	return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
