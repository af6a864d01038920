/* Unit tests for lib/store/breaker_memo.c: what a server store's open breakers
 * leave behind on this host, and when that is trusted. */
#include "unit.h"

#include <sys/stat.h>

#include "breaker_memo.h"

static struct breaker
open_breaker(const char *account, const char *family, const char *scope, double resets_at)
{
	struct breaker b;

	memset(&b, 0, sizeof(b));
	strlcpy(b.key.account, account, sizeof(b.key.account));
	strlcpy(b.key.family, family, sizeof(b.key.family));
	strlcpy(b.key.scope, scope, sizeof(b.key.scope));
	b.state = BREAKER_OPEN;
	b.reason = REASON_USAGE_LIMIT;
	b.resets_at = resets_at;
	b.trips = 3;
	strlcpy(b.reset_source, "provider", sizeof(b.reset_source));
	strlcpy(b.last_message, "You've hit your limit \xc2\xb7 resets 3pm", sizeof(b.last_message));
	return b;
}

static void
memo_file(const char *name, char *path, size_t size)
{
	snprintf(path, size, "%s/%s", tmpdir, name);
	unlink(path);
}

static void
test_memo_path(void **state)
{
	struct store_options a = { .path = "postgresql://db/x", .schema = "rlwrap",
		.journal_path = "/home/u/.local/state/rlwrap/journal.db" };
	struct store_options b = a, file = a;
	char pa[256], pb[256];

	assert_true(memo_path(&a, pa, sizeof(pa)));
	assert_int_equal(strncmp(pa, "/home/u/.local/state/rlwrap/server-", 35), 0);
	strlcpy(b.schema, "team2", sizeof(b.schema));
	assert_true(memo_path(&b, pb, sizeof(pb)));
	assert_string_not_equal(pa, pb);   /* a store is its URL and its schema */
	strlcpy(file.path, "/tmp/state.db", sizeof(file.path));
	assert_false(memo_path(&file, pa, sizeof(pa)));
	file = a;
	file.journal_path[0] = '\0';
	assert_false(memo_path(&file, pa, sizeof(pa)));
}

static void
test_memo_refuses_until_reset_within_ttl(void **state)
{
	struct breaker b = open_breaker("default", "claude", "*", NOW + 3600), got;
	char path[256];
	struct stat st;

	memo_file("refuse.memo", path, sizeof(path));
	assert_false(memo_blocker(path, "default", "claude", "", NOW, 30, &got));
	memo_note(path, "default", "claude", "", &b, NOW);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_true(memo_blocker(path, "default", "claude", "claude-opus-4-6", NOW + 29, 30, &got));
	assert_int_equal(got.reason, REASON_USAGE_LIMIT);
	assert_true(got.resets_at == NOW + 3600);
	assert_string_equal(got.reset_source, "provider");
	assert_string_equal(got.key.scope, "*");
	assert_string_equal(got.last_message, b.last_message);
	/* Read too long ago: the server is asked again. */
	assert_false(memo_blocker(path, "default", "claude", "", NOW + 30, 30, &got));
	/* Past the reset, whatever the ttl. */
	assert_false(memo_blocker(path, "default", "claude", "", NOW + 3600, 7200, &got));
	/* Other keys are not covered. */
	assert_false(memo_blocker(path, "work", "claude", "", NOW, 30, &got));
	assert_false(memo_blocker(path, "default", "codex", "", NOW, 30, &got));
}

static void
test_memo_scopes(void **state)
{
	struct breaker opus = open_breaker("default", "claude", "opus", NOW + 600);
	struct breaker all = open_breaker("default", "claude", "*", NOW + 300), got;
	char path[256];

	memo_file("scopes.memo", path, sizeof(path));
	memo_note(path, "default", "claude", "claude-opus-4-6", &opus, NOW);
	assert_false(memo_blocker(path, "default", "claude", "claude-sonnet-4-5", NOW, 30, &got));
	assert_true(memo_blocker(path, "default", "claude", "claude-opus-4-6", NOW, 30, &got));
	/* A trip just recorded replaces only its own scope's row. */
	memo_note(path, "default", "claude", NULL, &all, NOW);
	assert_true(memo_blocker(path, "default", "claude", "claude-sonnet-4-5", NOW, 30, &got));
	assert_string_equal(got.key.scope, "*");
	assert_true(memo_blocker(path, "default", "claude", "claude-opus-4-6", NOW, 30, &got));
	assert_string_equal(got.key.scope, "opus");   /* the later reset */
	/* The server let a sonnet spawn through: the family row was reset. */
	memo_note(path, "default", "claude", "claude-sonnet-4-5", NULL, NOW + 1);
	assert_false(memo_blocker(path, "default", "claude", "claude-sonnet-4-5", NOW + 1, 30, &got));
	assert_true(memo_blocker(path, "default", "claude", "claude-opus-4-6", NOW + 1, 30, &got));
	/* And an opus one: nothing is left, nor is the file. */
	memo_note(path, "default", "claude", "claude-opus-4-6", NULL, NOW + 2);
	assert_int_equal(access(path, F_OK), -1);
}

static void
test_memo_unreadable_is_none(void **state)
{
	struct breaker b = open_breaker("default", "claude", "*", NOW + 3600), got;
	char path[256];

	memo_file("junk.memo", path, sizeof(path));
	write_file(path, "{\"version\":1,\"breakers\":[{\"account\":\"default\"");
	assert_false(memo_blocker(path, "default", "claude", "", NOW, 30, &got));
	write_file(path, "{\"version\":2,\"breakers\":[]}");
	assert_false(memo_blocker(path, "default", "claude", "", NOW, 30, &got));
	write_file(path, "{\"version\":1,\"breakers\":[{\"account\":\"default\",\"family\":\"claude\","
	    "\"scope\":\"*\",\"reason\":\"no-such-reason\",\"resets_at\":1e10,\"seen_at\":1796040000}]}");
	assert_false(memo_blocker(path, "default", "claude", "", NOW, 30, &got));
	/* A note over junk starts afresh; a reset made here forgets it all. */
	memo_note(path, "default", "claude", "", &b, NOW);
	assert_true(memo_blocker(path, "default", "claude", "", NOW, 30, &got));
	memo_forget(path);
	assert_false(memo_blocker(path, "default", "claude", "", NOW, 30, &got));
	/* A directory that is not there yet is made. */
	snprintf(path, sizeof(path), "%s/new/dir/x.memo", tmpdir);
	memo_note(path, "default", "claude", "", &b, NOW);
	assert_true(memo_blocker(path, "default", "claude", "", NOW, 30, &got));
}

/* The refusals the memo decided: counted per key, model and scope, taken
 * whole by one contact, given back when it could not write them. */
static void
test_memo_refusals_counted_and_taken(void **state)
{
	struct breaker all = open_breaker("default", "claude", "*", NOW + 3600);
	struct breaker later = open_breaker("default", "claude", "*", NOW + 7200);
	struct breaker work = open_breaker("work", "claude", "*", NOW + 3600);
	struct memo_refusals *rows, *again;
	char path[256], counts[300];
	size_t count, n;
	struct stat st;

	memo_file("count.memo", path, sizeof(path));
	snprintf(counts, sizeof(counts), "%s.refusals", path);
	unlink(counts);
	assert_true(memo_refusals_take(path, &rows, &count));   /* no file: none */
	assert_int_equal(count, 0);
	assert_null(rows);
	assert_true(memo_refusal_count(path, &all, "claude-opus-4-6", NOW));
	assert_true(memo_refusal_count(path, &later, "claude-opus-4-6", NOW + 5));
	assert_true(memo_refusal_count(path, &all, "claude-opus-4-6", NOW + 2));   /* out of order */
	assert_true(memo_refusal_count(path, &work, "", NOW + 1));
	assert_int_equal(stat(counts, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_true(memo_refusals_take(path, &rows, &count));
	assert_int_equal(count, 2);
	assert_string_equal(rows[0].blocking.key.account, "default");
	assert_string_equal(rows[0].model, "claude-opus-4-6");
	assert_int_equal(rows[0].n, 3);
	assert_true(rows[0].first_at == NOW);
	assert_true(rows[0].last_at == NOW + 5);
	assert_true(rows[0].blocking.resets_at == NOW + 7200);   /* the latest refusal's breaker */
	assert_int_equal(rows[0].blocking.reason, REASON_USAGE_LIMIT);
	assert_string_equal(rows[1].blocking.key.account, "work");
	assert_int_equal(rows[1].n, 1);
	/* Taken: a second contact finds nothing to write again. */
	assert_true(memo_refusals_take(path, &again, &n));
	assert_int_equal(n, 0);
	free(again);
	/* Given back (the write failed), and counted on from there. */
	rows[0].n = 2;
	assert_true(memo_refusals_add(path, rows, count));
	assert_true(memo_refusal_count(path, &work, "", NOW + 9));
	free(rows);
	assert_true(memo_refusals_take(path, &rows, &count));
	assert_int_equal(count, 2);
	assert_int_equal(rows[0].n, 2);
	assert_int_equal(rows[1].n, 2);
	assert_true(rows[1].last_at == NOW + 9);
	free(rows);
	/* A reset made here forgets the memo, not the refusals it made. */
	assert_true(memo_refusal_count(path, &all, "", NOW));
	memo_forget(path);
	assert_true(memo_refusals_take(path, &rows, &count));
	assert_int_equal(count, 1);
	free(rows);
	/* Junk counts nothing, and is written over. */
	write_file(counts, "{\"version\":1,\"refusals\":[{\"n\":");
	assert_true(memo_refusals_take(path, &rows, &count));
	assert_int_equal(count, 0);
	free(rows);
	assert_true(memo_refusal_count(path, &all, "", NOW));
	assert_true(memo_refusals_take(path, &rows, &count));
	assert_int_equal(count, 1);
	free(rows);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_memo_path),
		cmocka_unit_test(test_memo_refuses_until_reset_within_ttl),
		cmocka_unit_test(test_memo_scopes),
		cmocka_unit_test(test_memo_unreadable_is_none),
		cmocka_unit_test(test_memo_refusals_counted_and_taken),
	};

	return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
