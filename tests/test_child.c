/* Unit tests for lib/child.c: how a child's end becomes rlwrap's exit
 * status. */
#include "unit.h"

#include <errno.h>
#include <signal.h>
#include <sys/wait.h>

#include "child.h"

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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_status_encoding),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
