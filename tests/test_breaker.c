/* Unit tests for lib/breaker.c: cooldown arithmetic, recording runs, the
 * gate, probe leases, manual trips and resets, on a store in tmpdir. */
#include "unit.h"

#include <sys/wait.h>

#include "breaker.h"
#include "conf.h"
#include "store.h"
#include "unit_store.h"

static void
test_escalation_and_cap(void **state)
{
	struct config cfg;
	struct breaker b = { 0 };
	struct trip unknown = { .reason = REASON_RATE_LIMIT };
	double now = NOW;
	double want[] = { 900, 1800, 3600, 7200, 14400, 28800, 57600, 86400, 86400 };

	config_defaults(&cfg);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		/* Each trip comes after the previous reset: a new episode, still consecutive. */
		assert_int_equal(breaker_apply_trip(&b, &cfg, &unknown, now), CHANGE_TRIPPED);
		assert_true(b.resets_at - now == want[i]);
		assert_string_equal(b.reset_source, "default");
		now = b.resets_at + 1;
	}
	assert_int_equal(b.trips, 9);
	/* A known reset ends the streak; usage-limit starts at 1h. */
	struct trip known = { .reason = REASON_USAGE_LIMIT, .resets_at = now + 100, .source = "provider" };
	breaker_apply_trip(&b, &cfg, &known, now);
	assert_int_equal(b.consecutive_unknown, 0);
	now = b.resets_at + 1;
	unknown.reason = REASON_USAGE_LIMIT;
	breaker_apply_trip(&b, &cfg, &unknown, now);
	assert_true(b.resets_at - now == 3600);
}

static void
test_never_shorten_and_provider_replaces_guess(void **state)
{
	struct config cfg;
	struct breaker b = { 0 };
	struct trip provider = { .reason = REASON_USAGE_LIMIT, .resets_at = NOW + 4 * 3600, .source = "provider" };
	struct trip bare = { .reason = REASON_RATE_LIMIT };
	struct trip earlier = { .reason = REASON_USAGE_LIMIT, .resets_at = NOW + 600, .source = "text" };

	config_defaults(&cfg);
	assert_int_equal(breaker_apply_trip(&b, &cfg, &provider, NOW), CHANGE_TRIPPED);
	/* A bare 429 (15m guess) never shortens the provider's 4h. */
	assert_int_equal(breaker_apply_trip(&b, &cfg, &bare, NOW + 60), CHANGE_KEPT);
	assert_true(b.resets_at == NOW + 4 * 3600);
	assert_string_equal(b.reset_source, "provider");
	assert_int_equal(b.reason, REASON_USAGE_LIMIT);
	/* Nor does an earlier stated reset. */
	assert_int_equal(breaker_apply_trip(&b, &cfg, &earlier, NOW + 60), CHANGE_KEPT);
	assert_true(b.resets_at == NOW + 4 * 3600);
	/* A later one extends. */
	provider.resets_at = NOW + 5 * 3600;
	assert_int_equal(breaker_apply_trip(&b, &cfg, &provider, NOW + 60), CHANGE_EXTENDED);
	assert_true(b.resets_at == NOW + 5 * 3600);

	/* A guess, then a stated reset shorter than the guess: replaced. */
	struct breaker g = { 0 };
	breaker_apply_trip(&g, &cfg, &bare, NOW);
	breaker_apply_trip(&g, &cfg, &bare, NOW + 1);     /* escalated: 30m */
	assert_true(g.resets_at == NOW + 1 + 1800);
	provider.resets_at = NOW + 300;
	assert_int_equal(breaker_apply_trip(&g, &cfg, &provider, NOW + 2), CHANGE_REPLACED);
	assert_true(g.resets_at == NOW + 300);
	assert_string_equal(g.reset_source, "provider");
}

/* A daily quota with a 41s hint: the first trip honours the hint; a probe
 * that hits the same quota again opens for the escalated usage-limit
 * cooldown, capped at the period, instead of 41s more. */
static void
test_period_quota_does_not_flap(void **state)
{
	struct config cfg;
	struct breaker b = { 0 };
	struct trip daily = { .reason = REASON_USAGE_LIMIT, .source = "provider", .limit_type = "daily" };
	struct trip minute = { .reason = REASON_RATE_LIMIT, .source = "provider" };
	double now = NOW, want[] = { 41, 3600, 7200, 14400, 28800, 57600, 86400, 86400 };

	(void)state;
	config_defaults(&cfg);
	cfg.max_cooldown = 7 * 86400;   /* the period, not max_cooldown, caps a daily quota */
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		daily.resets_at = now + 41;
		assert_int_equal(breaker_apply_trip(&b, &cfg, &daily, now), CHANGE_TRIPPED);
		assert_true(b.resets_at - now == want[i]);
		assert_string_equal(b.reset_source, i == 0 ? "provider" : "default");
		now = b.resets_at + 1;   /* the probe runs and fails again */
	}
	/* A stated reset beyond the guess is kept as stated. */
	daily.resets_at = now + 20 * 3600;
	breaker_apply_trip(&b, &cfg, &daily, now);
	assert_true(b.resets_at == now + 20 * 3600);
	assert_string_equal(b.reset_source, "provider");
	/* A per-minute limit with the same hint keeps following the hint. */
	struct breaker m = { 0 };
	for (int i = 0; i < 3; i++) {
		minute.resets_at = now + 41;
		breaker_apply_trip(&m, &cfg, &minute, now);
		assert_true(m.resets_at == now + 41);
		now = m.resets_at + 1;
	}
}

static struct gate_decision
gate(struct store *store, const struct config *cfg, const char *account, const char *model,
    const struct probe_lease *holder, double wait_max, double now)
{
	struct gate_request req = { .account = account, .family = "claude", .model = model,
		.wait_max = wait_max, .record = true };
	struct gate_decision d;
	struct store_error err;

	if (holder != NULL)
		req.holder = *holder;
	else
		holder_self(&req.holder);
	if (!breaker_gate(store, cfg, &req, now, &d, &err))
		fail_msg("gate: %s", err.message);
	return d;
}

static void
test_success_closes_only_after_last_trip(void **state)
{
	struct store *store = open_store("success.db");
	struct config cfg;
	struct fail_signal limit, ok;
	struct record_outcome out;

	config_defaults(&cfg);
	signal_of(&limit, REASON_USAGE_LIMIT, "family", NOW + 3600);
	signal_of(&ok, REASON_NONE, "", 0);
	out = record(store, &cfg, "default", "", &limit, NOW - 10, NOW, NULL);
	assert_int_equal(out.change, CHANGE_TRIPPED);
	assert_true(out.run_id > 0);
	/* A run that started before the trip and succeeded later: stays open. */
	out = record(store, &cfg, "default", "", &ok, NOW - 100, NOW + 50, NULL);
	assert_int_equal(out.closed, 0);
	assert_int_equal(gate(store, &cfg, "default", "", NULL, -1, NOW + 60).verdict, GATE_REFUSE);
	/* One that started after it closes it. */
	out = record(store, &cfg, "default", "", &ok, NOW + 1, NOW + 70, NULL);
	assert_int_equal(out.closed, 1);
	assert_int_equal(out.change, CHANGE_CLOSED);
	assert_int_equal(gate(store, &cfg, "default", "", NULL, -1, NOW + 80).verdict, GATE_RUN);
	store_close(store);
}

/* "try again in 0.186s" read to the second can pass before the run ends: the
 * provider's word still holds (the next spawn may probe), never the
 * unknown-reset cooldown. */
static void
test_stated_wait_passed_by_the_end(void **state)
{
	struct store *store = open_store("passed.db");
	struct config cfg;
	struct fail_signal limit;
	struct record_outcome out;

	config_defaults(&cfg);
	signal_of(&limit, REASON_RATE_LIMIT, "family", NOW);
	out = record(store, &cfg, "default", "", &limit, NOW - 2, NOW + 0.4, NULL);
	assert_int_equal(out.change, CHANGE_TRIPPED);
	assert_true(out.breaker.resets_at == NOW + 1);
	assert_string_equal(out.breaker.reset_source, "provider");
	assert_int_not_equal(gate(store, &cfg, "default", "", NULL, -1, NOW + 2).verdict, GATE_REFUSE);
	store_close(store);
}

static void
test_low_confidence_and_disabled_never_trip(void **state)
{
	struct store *store = open_store("lowconf.db");
	struct config cfg;
	struct fail_signal sig;

	config_defaults(&cfg);
	signal_of(&sig, REASON_RATE_LIMIT, "family", 0);
	sig.confidence = 0.2;
	assert_int_equal(record(store, &cfg, "default", "", &sig, NOW, NOW, NULL).change, CHANGE_NONE);
	signal_of(&sig, REASON_OVERLOADED, "family", 0);
	assert_int_equal(record(store, &cfg, "default", "", &sig, NOW, NOW, NULL).change, CHANGE_NONE);
	signal_of(&sig, REASON_USAGE_LIMIT, "family", 0);
	cfg.breaker_enabled = false;
	assert_int_equal(record(store, &cfg, "default", "", &sig, NOW, NOW, NULL).change, CHANGE_NONE);
	assert_int_equal(gate(store, &cfg, "default", "", NULL, -1, NOW).verdict, GATE_RUN);
	cfg.breaker_enabled = true;
	assert_int_equal(gate(store, &cfg, "default", "", NULL, -1, NOW).verdict, GATE_RUN);
	store_close(store);
}

static void
test_model_scope_and_accounts(void **state)
{
	struct store *store = open_store("scope.db");
	struct config cfg;
	struct fail_signal opus;
	struct gate_decision d;

	config_defaults(&cfg);
	signal_of(&opus, REASON_USAGE_LIMIT, "opus", NOW + 7200);
	assert_int_equal(record(store, &cfg, "work", "claude-opus-4-6", &opus, NOW, NOW, NULL).change, CHANGE_TRIPPED);
	d = gate(store, &cfg, "work", "claude-opus-4-6", NULL, -1, NOW + 1);
	assert_int_equal(d.verdict, GATE_REFUSE);
	assert_string_equal(d.blocking.key.scope, "opus");
	assert_true(d.blocked_until == NOW + 7200);
	assert_string_equal(d.blocking.reset_source, "provider");
	assert_int_equal(gate(store, &cfg, "work", "claude-sonnet-4-5", NULL, -1, NOW + 1).verdict, GATE_RUN);
	assert_int_equal(gate(store, &cfg, "work", "", NULL, -1, NOW + 1).verdict, GATE_RUN);
	/* Another account is not blocked. */
	assert_int_equal(gate(store, &cfg, "default", "claude-opus-4-6", NULL, -1, NOW + 1).verdict, GATE_RUN);
	/* --wait: within budget waits until the reset plus jitter, beyond it refuses. */
	d = gate(store, &cfg, "work", "claude-opus-4-6", NULL, 3 * 3600, NOW + 1);
	assert_int_equal(d.verdict, GATE_WAIT);
	assert_true(d.until >= NOW + 7200);
	assert_int_equal(gate(store, &cfg, "work", "claude-opus-4-6", NULL, 3600, NOW + 1).verdict, GATE_REFUSE);
	store_close(store);
}

static void
test_wait_plan_and_jitter(void **state)
{
	double wake;

	assert_true(breaker_wait_plan(NOW + 100, NOW, 6 * 3600, 2.5, &wake));
	assert_true(wake == NOW + 102.5);
	assert_false(breaker_wait_plan(NOW + 7 * 3600, NOW, 6 * 3600, 0, &wake));
	assert_false(breaker_wait_plan(NOW + 10, NOW, -1, 0, &wake));
	for (int i = 0; i < 100; i++) {
		double j = breaker_jitter(3600);

		assert_true(j >= 0 && j <= 30);
		assert_true(breaker_jitter(5) <= 1);
	}
}

/* Trips claude family-wide until NOW + 60 and returns the store. */
static struct store *
tripped_store(const char *name, const struct config *cfg)
{
	struct store *store = open_store(name);
	struct fail_signal sig;

	signal_of(&sig, REASON_RATE_LIMIT, "family", NOW + 60);
	record(store, cfg, "default", "", &sig, NOW, NOW, NULL);
	return store;
}

static long
dead_pid(void)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	return (long)pid;
}

static void
test_probe_lease(void **state)
{
	struct config cfg;
	struct store *store;
	struct probe_lease me, other;
	struct gate_decision d;
	struct store_error err;
	int closed;

	config_defaults(&cfg);
	store = tripped_store("probe.db", &cfg);
	assert_true(holder_self(&me));
	assert_int_equal(gate(store, &cfg, "default", "", &me, -1, NOW + 30).verdict, GATE_REFUSE);
	/* After the reset the first spawn probes... */
	d = gate(store, &cfg, "default", "", &me, -1, NOW + 61);
	assert_int_equal(d.verdict, GATE_PROBE);
	/* ...and a live holder keeps the others out (or waiting until the lease expiry). */
	other = me;
	other.pid = me.pid + 1;
	d = gate(store, &cfg, "default", "", &other, -1, NOW + 62);
	assert_int_equal(d.verdict, GATE_REFUSE);
	assert_true(d.probe_busy);
	d = gate(store, &cfg, "default", "", &other, 3600, NOW + 62);
	assert_int_equal(d.verdict, GATE_WAIT);
	assert_true(d.blocked_until == NOW + 61 + cfg.probe_timeout);
	/* First real output closes it. */
	assert_true(breaker_probe_output(store, "default", "claude", &me, NOW + 70, &closed, NULL, &err));
	assert_int_equal(closed, 1);
	assert_int_equal(gate(store, &cfg, "default", "", &other, -1, NOW + 71).verdict, GATE_RUN);
	store_close(store);
}

static void
test_probe_lease_takeover(void **state)
{
	struct config cfg;
	struct store *store;
	struct probe_lease me, dead, restarted, remote;
	struct gate_decision d;

	config_defaults(&cfg);
	store = tripped_store("takeover.db", &cfg);
	holder_self(&me);
	/* A holder whose pid is gone. */
	dead = me;
	dead.pid = dead_pid();
	assert_int_equal(gate(store, &cfg, "default", "", &dead, -1, NOW + 61).verdict, GATE_PROBE);
	d = gate(store, &cfg, "default", "", &me, -1, NOW + 62);
	assert_int_equal(d.verdict, GATE_PROBE);
	assert_int_equal(d.blocking.lease.pid, me.pid);
	/* A holder whose pid was reused (start time changed). */
	restarted = me;
	restarted.start_time = me.start_time - 1;
	store_close(store);
	store = tripped_store("takeover2.db", &cfg);
	assert_int_equal(gate(store, &cfg, "default", "", &restarted, -1, NOW + 61).verdict, GATE_PROBE);
	assert_int_equal(gate(store, &cfg, "default", "", &me, -1, NOW + 62).verdict, GATE_PROBE);
	store_close(store);
	/* Another host's lease: trusted until it expires, then taken over. */
	store = tripped_store("takeover3.db", &cfg);
	remote = me;
	strlcpy(remote.host, "elsewhere.example", sizeof(remote.host));
	assert_int_equal(gate(store, &cfg, "default", "", &remote, -1, NOW + 61).verdict, GATE_PROBE);
	assert_int_equal(gate(store, &cfg, "default", "", &me, -1, NOW + 62).verdict, GATE_REFUSE);
	assert_int_equal(gate(store, &cfg, "default", "", &me, -1, NOW + 62 + cfg.probe_timeout).verdict,
	    GATE_PROBE);
	store_close(store);
}

static void
test_probe_retrip_and_release(void **state)
{
	struct config cfg;
	struct store *store;
	struct probe_lease me;
	struct fail_signal sig;
	struct record_outcome out;

	config_defaults(&cfg);
	store = tripped_store("retrip.db", &cfg);
	holder_self(&me);
	assert_int_equal(gate(store, &cfg, "default", "", &me, -1, NOW + 61).verdict, GATE_PROBE);
	/* The probe hits the limit again: re-tripped, lease gone. */
	signal_of(&sig, REASON_RATE_LIMIT, "family", 0);
	out = record(store, &cfg, "default", "", &sig, NOW + 61, NOW + 65, &me);
	assert_int_equal(out.change, CHANGE_TRIPPED);
	assert_int_equal(out.breaker.lease.pid, 0);
	assert_true(out.breaker.resets_at == NOW + 65 + 900);
	/* A probe that fails for another reason releases its lease: the next spawn probes. */
	assert_int_equal(gate(store, &cfg, "default", "", &me, -1, NOW + 2000).verdict, GATE_PROBE);
	signal_of(&sig, REASON_AUTH, "family", 0);
	record(store, &cfg, "default", "", &sig, NOW + 2000, NOW + 2001, &me);
	me.pid++;
	assert_int_equal(gate(store, &cfg, "default", "", &me, -1, NOW + 2002).verdict, GATE_PROBE);
	store_close(store);
}

static void
test_manual_trip_and_reset(void **state)
{
	struct store *store = open_store("manual.db");
	struct config cfg;
	struct breaker_key key = { .account = "default", .family = "claude", .scope = "opus" };
	struct breaker after;
	struct store_error err;
	int matched, closed;

	config_defaults(&cfg);
	assert_true(breaker_trip_manual(store, &cfg, &key, REASON_USAGE_LIMIT, NOW + 600, NOW, &after, NULL, &err));
	assert_string_equal(after.reset_source, "manual");
	/* Never shortened by a later, earlier manual trip either. */
	assert_true(breaker_trip_manual(store, &cfg, &key, REASON_USAGE_LIMIT, NOW + 60, NOW, &after, NULL, &err));
	assert_true(after.resets_at == NOW + 600);
	strlcpy(key.scope, "*", sizeof(key.scope));
	assert_true(breaker_reset(store, &key, NOW, &matched, &closed, NULL, &err));
	assert_int_equal(matched, 1);
	assert_int_equal(closed, 1);
	assert_true(breaker_reset(store, NULL, NOW, &matched, &closed, NULL, &err));
	assert_int_equal(closed, 0);
	store_close(store);
}

/* Each change is reported once, by the transaction that made it. */
static void
test_transitions_once_per_change(void **state)
{
	struct store *store = open_store("transitions.db");
	struct breaker_key key = { .account = "default", .family = "claude", .scope = "*" };
	struct breaker_transitions t = { 0 };
	struct config cfg;
	struct fail_signal limit, ok;
	struct record_outcome out;
	struct store_error err;
	struct breaker after;
	int matched, closed;

	(void)state;
	config_defaults(&cfg);
	signal_of(&limit, REASON_USAGE_LIMIT, "family", NOW + 3600);
	signal_of(&ok, REASON_NONE, "", 0);
	out = record(store, &cfg, "default", "", &limit, NOW - 10, NOW, NULL);
	assert_int_equal(out.transitions.count, 1);
	assert_int_equal(out.transitions.change[0], CHANGE_TRIPPED);
	assert_true(out.transitions.breaker[0].resets_at == NOW + 3600);
	/* Open already: a later reset extends it, no transition. */
	signal_of(&limit, REASON_USAGE_LIMIT, "family", NOW + 7200);
	out = record(store, &cfg, "default", "", &limit, NOW, NOW + 1, NULL);
	assert_int_equal(out.change, CHANGE_EXTENDED);
	assert_int_equal(out.transitions.count, 0);
	out = record(store, &cfg, "default", "", &ok, NOW + 2, NOW + 3, NULL);
	assert_int_equal(out.transitions.count, 1);
	assert_int_equal(out.transitions.change[0], CHANGE_CLOSED);
	assert_int_equal(out.transitions.breaker[0].state, BREAKER_CLOSED);
	assert_int_equal(out.transitions.breaker[0].reason, REASON_USAGE_LIMIT);
	/* By hand: a trip of a closed breaker is one, of an open one none. */
	assert_true(breaker_trip_manual(store, &cfg, &key, REASON_RATE_LIMIT, NOW + 600, NOW + 4, &after, &t, &err));
	assert_true(breaker_trip_manual(store, &cfg, &key, REASON_RATE_LIMIT, NOW + 900, NOW + 5, &after, &t, &err));
	assert_int_equal(t.count, 1);
	assert_true(breaker_reset(store, NULL, NOW + 6, &matched, &closed, &t, &err));
	assert_true(breaker_reset(store, NULL, NOW + 7, &matched, &closed, &t, &err));
	assert_int_equal(t.count, 2);
	assert_int_equal(t.change[1], CHANGE_CLOSED);
	assert_int_equal(t.dropped, 0);
	store_close(store);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escalation_and_cap),
		cmocka_unit_test(test_never_shorten_and_provider_replaces_guess),
		cmocka_unit_test(test_period_quota_does_not_flap),
		cmocka_unit_test(test_success_closes_only_after_last_trip),
		cmocka_unit_test(test_stated_wait_passed_by_the_end),
		cmocka_unit_test(test_low_confidence_and_disabled_never_trip),
		cmocka_unit_test(test_model_scope_and_accounts),
		cmocka_unit_test(test_wait_plan_and_jitter),
		cmocka_unit_test(test_probe_lease),
		cmocka_unit_test(test_probe_lease_takeover),
		cmocka_unit_test(test_probe_retrip_and_release),
		cmocka_unit_test(test_manual_trip_and_reset),
		cmocka_unit_test(test_transitions_once_per_change),
	};

	return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
