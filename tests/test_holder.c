/* Unit tests for lib/holder.c: process identity, the one liveness rule,
 * the host lease and its stamp. */
#include "unit.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "holder.h"
#include "host_lease.h"
#include "store.h"
#include "unit_store.h"

static void
test_a_process_on_this_host_lives_while_its_pid_runs(void **state)
{
	struct probe_lease self, other;
	int status, go[2];
	pid_t pid;
	char c;

	assert_true(holder_self(&self));
	assert_true(holder_alive(&self, NOW, self.host));
	assert_false(holder_alive(&(struct probe_lease){ 0 }, NOW, self.host));
	other = self;
	other.start_time++;
	assert_false(holder_alive(&other, NOW, self.host));
	/* Its host's lease says nothing on its own host: the kernel does. */
	other.host_until = NOW + 100;
	assert_false(holder_alive(&other, NOW, self.host));
	/* A child: alive while it runs; dead once it has exited, reaped or not. */
	assert_int_equal(pipe(go), 0);
	if ((pid = fork()) == 0) {
		close(go[1]);
		_exit(read(go[0], &c, 1) < 0);
	}
	close(go[0]);
	other = self;
	other.pid = pid;
	other.start_time = holder_start_time(pid);
	assert_true(other.start_time >= 0);
	assert_true(holder_alive(&other, NOW, self.host));
	close(go[1]);
	for (int i = 0; i < 200 && holder_start_time(pid) >= 0; i++)
		usleep(10000);
	assert_false(holder_alive(&other, NOW, self.host));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_false(holder_alive(&other, NOW, self.host));
}

static void
test_another_host_lives_by_its_lease_else_its_own_expiry(void **state)
{
	struct probe_lease other = { .pid = 999999, .start_time = 1, .host = "elsewhere", .expires_at = NOW + 90 };

	/* No lease known (an older rlwrap): its own expiry. */
	assert_true(holder_alive(&other, NOW + 89, "here"));
	assert_false(holder_alive(&other, NOW + 90, "here"));
	/* A lease known: it alone decides, shorter or longer. */
	other.host_until = NOW + 10;
	assert_true(holder_alive(&other, NOW + 9, "here"));
	assert_false(holder_alive(&other, NOW + 10, "here"));
	other.host_until = NOW + 200;
	assert_true(holder_alive(&other, NOW + 150, "here"));
	assert_true(holder_same(&other, &other));
	assert_false(holder_same(&(struct probe_lease){ 0 }, &(struct probe_lease){ 0 }));
}

static void
test_rlwrap_host_names_the_host(void **state)
{
	char host[256];

	setenv("RLWRAP_HOST", "bench-host-7", 1);
	holder_local_host(host, sizeof(host));
	assert_string_equal(host, "bench-host-7");
	unsetenv("RLWRAP_HOST");
	holder_local_host(host, sizeof(host));
	assert_string_not_equal(host, "");
}

static void
test_the_stamp_lets_one_renewal_through_per_interval(void **state)
{
	char stamp[PATH_MAX];
	struct timespec old[2] = { { .tv_sec = 1000 }, { .tv_sec = 1000 } };
	struct stat st;

	snprintf(stamp, sizeof(stamp), "%s/host.lease", tmpdir);
	assert_true(holder_lease_due(stamp, 3600));
	assert_int_equal(stat(stamp, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_false(holder_lease_due(stamp, 3600));
	assert_false(holder_lease_due(stamp, 3600));
	/* A stamp from long ago (or from a clock that stepped back) is due. */
	assert_int_equal(utimensat(AT_FDCWD, stamp, old, 0), 0);
	assert_true(holder_lease_due(stamp, 3600));
	assert_false(holder_lease_due(stamp, 3600));
	assert_true(holder_lease_due("", 3600));
	assert_true(holder_lease_due(NULL, 3600));
}

static void
test_the_store_keeps_the_latest_lease_and_joins_it_to_the_owners(void **state)
{
	struct store *store = open_store("hosts.db");
	struct run_row run = { .family = "claude", .account = "default", .source = "wrap", .started_at = NOW,
		.exit_code = -1, .usage = { -1, -1, -1 }, .state = "running", .host = "elsewhere", .pid = 999999,
		.pid_start_time = 1, .alive_until = NOW + 90 };
	struct running_run *rows;
	struct store_error err;
	long long id;
	double until;
	size_t n;

	signal_init(&run.signal);
	assert_true(store_host_lease(store, "elsewhere", &until, &err));
	assert_true(until == 0);
	assert_true(store_run_start(store, &run, &id, &err));
	assert_true(store_running(store, NULL, NULL, &rows, &n, &err));
	assert_int_equal(n, 1);
	assert_true(rows[0].owner.host_until == 0);
	free(rows);
	assert_true(holder_lease_renew(store, "", "elsewhere", NOW, 3, 10, &err));
	assert_true(store_host_renew(store, "elsewhere", NOW + 5, &err));   /* never back */
	assert_true(store_host_lease(store, "elsewhere", &until, &err));
	assert_true(until == NOW + 10);
	assert_true(store_running(store, NULL, NULL, &rows, &n, &err));
	assert_true(rows[0].owner.host_until == NOW + 10);
	assert_true(holder_alive(&rows[0].owner, NOW + 9, "here"));
	assert_false(holder_alive(&rows[0].owner, NOW + 11, "here"));
	free(rows);
	store_close(store);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_process_on_this_host_lives_while_its_pid_runs),
		cmocka_unit_test(test_another_host_lives_by_its_lease_else_its_own_expiry),
		cmocka_unit_test(test_rlwrap_host_names_the_host),
		cmocka_unit_test(test_the_stamp_lets_one_renewal_through_per_interval),
		cmocka_unit_test(test_the_store_keeps_the_latest_lease_and_joins_it_to_the_owners),
	};

	return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
