/* Unit tests for lib/history.c: exact run filters (a comma is any-of, keys
 * AND together), newest first, and the recovered mark. */
#include "unit.h"

#include "breaker.h"
#include "conf.h"
#include "history.h"
#include "store.h"

static void
test_filter_errors_list_valid_values(void **state)
{
	struct run_filter f;
	char err[512];

	(void)state;
	run_filter_init(&f);
	assert_true(run_filter_add(&f, "reason=rate-limit,usage-limit", err, sizeof(err)));
	assert_int_equal(f.count[FILTER_REASON], 2);
	assert_false(run_filter_add(&f, "reason=rate", err, sizeof(err)));
	assert_non_null(strstr(err, "not a reason (none, rate-limit"));
	assert_false(run_filter_add(&f, "exit=256", err, sizeof(err)));
	assert_non_null(strstr(err, "not an exit status"));
	assert_false(run_filter_add(&f, "colour=red", err, sizeof(err)));
	assert_non_null(strstr(err, "KEY one of reason, family"));
	assert_false(run_filter_add(&f, "family", err, sizeof(err)));
	run_filter_free(&f);
	assert_int_equal(f.count[FILTER_REASON], 0);
}

static struct store *
store_with_runs(void)
{
	struct store_options opts = { .busy_timeout_ms = 2000, .keep_runs = 10000, .keep_days = 0 };
	static const struct { const char *family; enum reason reason; int exit_code; } runs[] = {
		{ "claude", REASON_NONE, 0 }, { "claude", REASON_RATE_LIMIT, 1 },
		{ "codex", REASON_USAGE_LIMIT, 1 }, { "codex", REASON_NONE, 0 },
	};
	struct store_error err;
	struct config cfg;
	struct store *store;

	config_defaults(&cfg);
	cfg.breaker_enabled = false;
	snprintf(opts.path, sizeof(opts.path), "%s/history.db", tmpdir);
	if (!store_open(&opts, &store, &err))
		fail_msg("store_open: %s", err.message);
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		struct run_report run = { .account = "default", .family = runs[i].family, .model = "",
			.source = "record", .started_at = NOW + i, .ended_at = NOW + i,
			.exit_code = runs[i].exit_code, .usage = { -1, -1, -1 } };
		struct fail_signal sig;
		struct record_outcome out;

		signal_init(&sig);
		sig.reason = runs[i].reason;
		sig.confidence = 1.0;
		if (!breaker_record_run(store, &cfg, &run, &sig, &out, &err))
			fail_msg("record: %s", err.message);
	}
	return store;
}

struct seen {
	long long ids[8];
	size_t n;
};

static bool
collect_id(const struct run_row *row, void *arg)
{
	struct seen *s = arg;

	if (s->n < 8)
		s->ids[s->n++] = row->id;
	return true;
}

static struct seen
runs_matching(struct store *store, const struct run_filter *f)
{
	struct seen s = { .n = 0 };
	struct store_error err;

	if (!store_runs_each(store, f, collect_id, &s, &err))
		fail_msg("runs: %s", err.message);
	return s;
}

static void
test_filters_and_recovered_mark(void **state)
{
	struct store *store = store_with_runs();
	struct store_error err;
	struct run_filter f;
	struct seen s;
	char msg[256];

	(void)state;
	run_filter_init(&f);
	s = runs_matching(store, &f);
	assert_int_equal(s.n, 4);
	assert_true(s.ids[0] > s.ids[3]);                   /* newest first */
	assert_true(run_filter_add(&f, "family=claude,codex", msg, sizeof(msg)));
	assert_true(run_filter_add(&f, "exit=1", msg, sizeof(msg)));
	s = runs_matching(store, &f);
	assert_int_equal(s.n, 2);
	run_filter_free(&f);
	assert_true(run_filter_add(&f, "family=clau", msg, sizeof(msg)));
	assert_int_equal(runs_matching(store, &f).n, 0);   /* exact, never a prefix */
	run_filter_free(&f);
	f.failed_only = true;
	s = runs_matching(store, &f);
	assert_int_equal(s.n, 2);
	assert_true(store_run_mark_recovered(store, s.ids[0], s.ids[1] + 100, &err));
	assert_int_equal(runs_matching(store, &f).n, 1);
	store_close(store);
}

static void
test_run_claim(void **state)
{
	struct store *store = store_with_runs();
	struct probe_lease self, dead, by;
	struct store_error err;
	enum run_claim got;
	struct run_filter f;
	struct seen s;

	(void)state;
	run_filter_init(&f);
	f.failed_only = true;
	s = runs_matching(store, &f);
	assert_true(s.n >= 2);
	holder_self(&self);
	dead = self;
	dead.start_time = self.start_time + 1;   /* this pid, another process: gone */
	assert_true(store_run_claim(store, s.ids[0], &self, NOW, NOW, &got, &by, &err));
	assert_int_equal(got, CLAIM_TAKEN);
	/* A recover that started before the claim ran alongside it: never. */
	assert_true(store_run_claim(store, s.ids[0], &dead, NOW + 1, NOW - 10, &got, &by, &err));
	assert_int_equal(got, CLAIM_HELD);
	assert_int_equal(by.pid, self.pid);
	/* One that started after it: not while the holder lives. */
	assert_true(store_run_claim(store, s.ids[0], &dead, NOW + 2, NOW + 1, &got, &by, &err));
	assert_int_equal(got, CLAIM_HELD);
	/* A dead holder's claim from before the start is taken over. */
	assert_true(store_run_claim(store, s.ids[1], &dead, NOW, NOW, &got, &by, &err));
	assert_int_equal(got, CLAIM_TAKEN);
	assert_true(store_run_claim(store, s.ids[1], &self, NOW + 2, NOW + 1, &got, &by, &err));
	assert_int_equal(got, CLAIM_TAKEN);
	/* A recovered run, or one that is gone, is never claimed. */
	assert_true(store_run_mark_recovered(store, s.ids[0], 77, &err));
	assert_true(store_run_claim(store, s.ids[0], &self, NOW + 3, NOW + 3, &got, &by, &err));
	assert_int_equal(got, CLAIM_RECOVERED);
	assert_true(store_run_claim(store, 999999, &self, NOW + 3, NOW + 3, &got, &by, &err));
	assert_int_equal(got, CLAIM_RECOVERED);
	store_close(store);
}

/* A row of the chain store: state, reason and origin as given. */
static long long
chain_row(struct store *store, const char *state, enum reason reason, long long origin, double at)
{
	struct run_row row;
	struct store_error err;
	long long id;

	memset(&row, 0, sizeof(row));
	row.argv_json = "[\"task\"]";
	row.cwd = "/tmp";
	row.family = "claude";
	row.account = "default";
	row.source = "wrap";
	row.state = state;
	row.started_at = row.ended_at = at;
	row.exit_code = strcmp(state, "refused") == 0 ? 75 : 1;
	row.origin = origin;
	row.usage = (struct run_usage){ -1, -1, -1, false };
	signal_init(&row.signal);
	row.signal.reason = reason;
	if (!store_run_add(store, &row, at, &id, &err))
		fail_msg("run_add: %s", err.message);
	return id;
}

static void
test_chain_offers_origins_and_counts_attempts(void **state)
{
	struct store_options opts = { .busy_timeout_ms = 2000, .keep_runs = 10000, .keep_days = 0 };
	struct probe_lease self, by;
	struct store_error err;
	enum run_claim got;
	struct run_filter f;
	struct store *store;
	long long failed, refused, lost;
	long attempts;
	struct seen s;

	(void)state;
	snprintf(opts.path, sizeof(opts.path), "%s/chain.db", tmpdir);
	assert_true(store_open(&opts, &store, &err));
	failed = chain_row(store, "finished", REASON_OVERLOADED, 0, NOW);
	refused = chain_row(store, "refused", REASON_USAGE_LIMIT, 0, NOW + 1);
	lost = chain_row(store, "lost", REASON_NONE, 0, NOW + 2);
	chain_row(store, "finished", REASON_OVERLOADED, failed, NOW + 3);   /* a failed re-run */
	chain_row(store, "refused", REASON_USAGE_LIMIT, failed, NOW + 4);   /* a refused one: no attempt */
	run_filter_init(&f);
	f.failed_only = true;
	s = runs_matching(store, &f);
	/* the origins only: refused offered, lost not, re-runs never */
	assert_int_equal(s.n, 2);
	assert_true(s.ids[0] == refused && s.ids[1] == failed);
	f.include_lost = true;
	assert_int_equal(runs_matching(store, &f).n, 3);
	assert_int_equal(runs_matching(store, &f).ids[0], lost);
	holder_self(&self);
	assert_true(store_run_claim_origin(store, failed, &self, NOW, NOW, 1, &got, &by, &attempts, &err));
	assert_int_equal(got, CLAIM_EXHAUSTED);
	assert_int_equal(attempts, 1);
	assert_true(store_run_claim_origin(store, failed, &self, NOW, NOW, 2, &got, &by, &attempts, &err));
	assert_int_equal(got, CLAIM_TAKEN);
	assert_true(store_run_note(store, failed, "gave up", &err));
	store_close(store);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_filter_errors_list_valid_values),
		cmocka_unit_test(test_filters_and_recovered_mark),
		cmocka_unit_test(test_run_claim),
		cmocka_unit_test(test_chain_offers_origins_and_counts_attempts),
	};

	return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
