/* Unit tests for lib/admission.c: slots handed out first
 * come, first served, dead holders and waiters cleared, lost runs. */
#include "unit.h"

#include <signal.h>
#include <sys/wait.h>

#include "admission.h"
#include "breaker.h"
#include "history.h"
#include "store.h"
#include "unit_store.h"

#define TTL 90.0

/* This process, as seen from a host of its own: every other admission in
 * a test judges it by its heartbeat, and it judges itself by its pid. */
static struct admission
waiter(const char *host, long max)
{
	struct admission a = { .account = "default", .family = "claude", .max = max, .ttl = TTL };

	assert_true(holder_self(&a.self));
	strlcpy(a.self.host, host, sizeof(a.self.host));
	return a;
}

static struct run_row
row_of(const char *what, double now)
{
	static const char *const argv[] = { "[\"a\"]", "[\"b\"]", "[\"c\"]", "[\"d\"]" };
	struct run_row r = { .argv_json = argv[what[0] - 'a'], .family = "claude", .account = "default",
		.source = "wrap", .started_at = now, .exit_code = -1, .usage = { -1, -1, -1 } };

	signal_init(&r.signal);
	return r;
}

/* Whether a gets in at now; *run_id its row then. */
static bool
try(struct store *store, struct admission *a, const char *what, double now, long long *run_id)
{
	struct run_row r = row_of(what, now);
	struct store_error err;
	bool admitted;

	if (!admission_try(store, a, &r, now, &admitted, run_id, &err))
		fail_msg("admission_try: %s", err.message);
	return admitted;
}

struct states {
	char of[8][16];   /* by argv letter */
};

static bool
note_state(const struct run_row *row, void *arg)
{
	struct states *s = arg;

	strlcpy(s->of[row->argv_json[2] - 'a'], row->state, sizeof(s->of[0]));
	return true;
}

static struct states
states(struct store *store)
{
	struct states s = { 0 };
	struct run_filter f;
	struct store_error err;

	run_filter_init(&f);
	if (!store_runs_each(store, &f, note_state, &s, &err))
		fail_msg("runs: %s", err.message);
	return s;
}

static void
finish(struct store *store, long long id, const char *what, double now)
{
	struct run_row r = row_of(what, now);
	struct store_error err;
	long long got;

	r.id = id;
	r.state = "finished";
	r.ended_at = now;
	assert_true(store_run_add(store, &r, now, &got, &err));
	assert_int_equal(got, id);
}

static void
test_no_limit_starts_at_once(void **state)
{
	struct store *store = open_store("nolimit.db");
	struct admission a = waiter("h1", 0);
	struct running_run *rows;
	struct store_error err;
	long long id = 0;
	size_t n;

	assert_true(try(store, &a, "a", NOW, &id));
	assert_true(id > 0);
	assert_int_equal(a.ticket, 0);
	assert_true(store_running(store, "default", "claude", &rows, &n, &err));
	assert_int_equal(n, 1);
	assert_string_equal(rows[0].owner.host, "h1");
	assert_true(rows[0].owner.expires_at == NOW + TTL);
	free(rows);
	finish(store, id, "a", NOW + 1);
	assert_string_equal(states(store).of[0], "finished");
	store_close(store);
}

static void
test_first_come_first_served(void **state)
{
	struct store *store = open_store("fifo.db");
	struct admission a = waiter("ha", 2), b = waiter("hb", 2), c = waiter("hc", 2), d = waiter("hd", 2);
	long long ida = 0, idb = 0, idc = 0, idd = 0;
	struct store_error err;

	assert_true(try(store, &a, "a", NOW, &ida));
	assert_true(try(store, &b, "b", NOW, &idb));
	assert_false(try(store, &c, "c", NOW, &idc));
	assert_int_equal(c.running, 2);
	assert_int_equal(c.ahead, 0);
	assert_false(try(store, &d, "d", NOW, &idd));
	assert_int_equal(d.ahead, 1);
	/* a ends: the slot is c's, not d's, even if d looks first. */
	finish(store, ida, "a", NOW + 1);
	assert_false(try(store, &d, "d", NOW + 1, &idd));
	assert_true(try(store, &c, "c", NOW + 1, &idc));
	assert_int_equal(c.ticket, 0);
	assert_false(try(store, &d, "d", NOW + 2, &idd));
	assert_int_equal(d.ahead, 0);
	/* b's host goes quiet; c's host renews its lease: b's slot is d's
	 * once b's host lease has run out, and b is lost. */
	assert_true(store_host_renew(store, "hb", NOW + 5, &err));
	assert_true(store_host_renew(store, "hc", NOW + 2 * TTL, &err));
	assert_true(store_ticket_renew(store, d.ticket, NOW + 2 * TTL, &err));
	assert_false(try(store, &d, "d", NOW + 4, &idd));
	assert_true(try(store, &d, "d", NOW + 6, &idd));
	struct states s = states(store);
	assert_string_equal(s.of[0], "finished");
	assert_string_equal(s.of[1], "lost");
	assert_string_equal(s.of[2], "running");
	assert_string_equal(s.of[3], "running");
	store_close(store);
}

static void
test_dead_waiter_leaves_the_queue(void **state)
{
	struct store *store = open_store("deadwaiter.db");
	struct admission a = waiter("ha", 1), b = waiter("hb", 1), c = waiter("hc", 1);
	long long ida = 0, idb = 0, idc = 0;
	struct slot_ticket *tickets;
	struct store_error err;
	size_t n;
	int lost;

	assert_true(try(store, &a, "a", NOW, &ida));
	assert_false(try(store, &b, "b", NOW, &idb));
	assert_false(try(store, &c, "c", NOW, &idc));
	assert_int_equal(c.ahead, 1);
	/* b stops renewing; a's host and c go on.  Past b's ttl c is the head. */
	assert_true(store_host_renew(store, "ha", NOW + 3 * TTL, &err));
	assert_true(store_ticket_renew(store, c.ticket, NOW + 3 * TTL, &err));
	assert_false(try(store, &c, "c", NOW + TTL + 1, &idc));
	assert_int_equal(c.ahead, 0);
	assert_true(store_tickets(store, NULL, NULL, &tickets, &n, &err));
	assert_int_equal(n, 1);
	assert_int_equal(tickets[0].id, c.ticket);
	free(tickets);
	/* Giving up a place removes it; a reap finds nothing more to do. */
	assert_true(admission_leave(store, &c, &err));
	assert_true(store_tickets(store, NULL, NULL, &tickets, &n, &err));
	assert_int_equal(n, 0);
	assert_true(admission_reap(store, NOW + TTL + 2, "ha", &lost, &err));
	assert_int_equal(lost, 0);
	/* a's host lease ends: the next look by anyone marks it lost. */
	assert_true(admission_reap(store, NOW + 4 * TTL, "somewhere", &lost, &err));
	assert_int_equal(lost, 1);
	assert_string_equal(states(store).of[0], "lost");
	store_close(store);
}

/* Halved once per congestion event, never below LO; grown by one after
 * limit clean runs and the window, never above HI; kept in the store. */
static void
test_adaptive_limit_moves(void **state)
{
	struct store *store = open_store("adaptive.db");
	struct store_error err;
	struct adaptive_limit l;

	(void)state;
	assert_true(adaptive_current(store, "a", "claude", 1, 8, &l, &err));
	assert_int_equal(l.limit, 8);
	assert_true(adaptive_next(&l, 1, 8, ADAPTIVE_LIMITED, 100, 101, 60));
	assert_int_equal(l.limit, 4);
	/* started before that change: the same event */
	assert_false(adaptive_next(&l, 1, 8, ADAPTIVE_LIMITED, 100.5, 102, 60));
	assert_int_equal(l.limit, 4);
	assert_false(adaptive_next(&l, 1, 8, ADAPTIVE_OTHER, 102, 103, 60));
	/* four clean runs, but inside the window: no growth */
	for (int i = 0; i < 4; i++)
		assert_true(adaptive_next(&l, 1, 8, ADAPTIVE_CLEAN, 103, 110, 60));
	assert_int_equal(l.limit, 4);
	assert_true(adaptive_next(&l, 1, 8, ADAPTIVE_CLEAN, 150, 170, 60));
	assert_int_equal(l.limit, 5);
	assert_int_equal(l.successes, 0);
	for (long lim = 5; lim > 3; lim /= 2)
		assert_true(adaptive_next(&l, 3, 8, ADAPTIVE_LIMITED, 200 + (double)lim, 200 + (double)lim, 60));
	assert_int_equal(l.limit, 3);
	assert_true(adaptive_record(store, "a", "claude", 1, 8, ADAPTIVE_LIMITED, 300, 300, 60, &err));
	assert_true(adaptive_current(store, "a", "claude", 1, 8, &l, &err));
	assert_int_equal(l.limit, 4);   /* the store had none: 8, halved */
	assert_true(adaptive_current(store, "a", "claude", 1, 2, &l, &err));
	assert_int_equal(l.limit, 2);   /* bounds narrowed in the config since */
	store_close(store);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_limit_starts_at_once),
		cmocka_unit_test(test_first_come_first_served),
		cmocka_unit_test(test_dead_waiter_leaves_the_queue),
		cmocka_unit_test(test_adaptive_limit_moves),
	};

	return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
