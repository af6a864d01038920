/* Unit tests for lib/child.c: how a child's end becomes rlwrap's exit
 * status, and the relay's scheduling policy. */
#include "unit.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>

#include "relay.h"

static void
test_exit_status_encoding(void **state)
{
	assert_int_equal(wait_status_exit_code(W_EXITCODE(0, 0)), 0);
	assert_int_equal(wait_status_exit_code(W_EXITCODE(255, 0)), 255);
	assert_int_equal(wait_status_exit_code(W_EXITCODE(0, SIGKILL)), 137);
	assert_int_equal(wait_status_exit_code(W_EXITCODE(0, SIGINT)), 130);
	assert_int_equal(wait_status_signal(W_EXITCODE(0, SIGSEGV)), SIGSEGV);
	assert_int_equal(wait_status_signal(W_EXITCODE(3, 0)), 0);
	assert_int_equal(exec_error_exit_code(ENOENT), 127);
	assert_int_equal(exec_error_exit_code(ENOTDIR), 127);
	assert_int_equal(exec_error_exit_code(EACCES), 126);
	assert_int_equal(exec_error_exit_code(ENOEXEC), 126);
}

/* SCHED_OTHER to SCHED_BATCH and back; any other policy is left alone
 * (SCHED_IDLE here: one an unprivileged process may take). */
static void
test_relay_batch_round_trip(void **state)
{
	struct sched_param none = { 0 };

	(void)state;
	assert_int_equal(sched_getscheduler(0), SCHED_OTHER);
	assert_false(relay_batch(false));
	assert_true(relay_batch(true));
	assert_int_equal(sched_getscheduler(0), SCHED_BATCH);
	assert_false(relay_batch(true));
	assert_true(relay_batch(false));
	assert_int_equal(sched_getscheduler(0), SCHED_OTHER);
	if (sched_setscheduler(0, SCHED_IDLE, &none) == 0) {
		assert_false(relay_batch(true));
		assert_false(relay_batch(false));
		assert_int_equal(sched_getscheduler(0), SCHED_IDLE);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_status_encoding),
		cmocka_unit_test(test_relay_batch_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
