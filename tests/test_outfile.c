/* Unit tests for lib/outfile.c: output files written whole, 0600, and the
 * symlink rule (followed only when the user or root owns the link). */
#include "unit.h"

#include <sys/stat.h>

#include "outfile.h"

static char *
slurp(const char *path)
{
	static char buf[256];
	FILE *fp = fopen(path, "r");
	size_t n;

	assert_non_null(fp);
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	buf[n] = '\0';
	fclose(fp);
	return buf;
}

static void
test_replace_is_whole_and_private(void **state)
{
	char path[128], other[128], err[256];
	struct stat st;

	(void)state;
	snprintf(path, sizeof(path), "%s/sig.json", tmpdir);
	snprintf(other, sizeof(other), "%s/other-name", tmpdir);
	write_file(path, "old\n");
	assert_int_equal(link(path, other), 0);
	assert_true(outfile_check(path, err, sizeof(err)));
	assert_true(outfile_replace(path, "new\n", 4, err, sizeof(err)));
	assert_string_equal(slurp(path), "new\n");
	assert_string_equal(slurp(other), "old\n");   /* a new inode took the name */
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
}

static void
test_symlink_rule(void **state)
{
	char target[128], mine[128], planted[128], err[256];
	int fd;

	(void)state;
	snprintf(target, sizeof(target), "%s/target", tmpdir);
	snprintf(mine, sizeof(mine), "%s/mine", tmpdir);
	snprintf(planted, sizeof(planted), "%s/planted", tmpdir);
	write_file(target, "precious\n");
	assert_int_equal(symlink(target, mine), 0);
	assert_true(outfile_replace(mine, "through\n", 8, err, sizeof(err)));
	assert_string_equal(slurp(target), "through\n");
	fd = outfile_open(mine, err, sizeof(err));
	assert_true(fd >= 0);
	assert_true(outfile_is(fd, target));
	close(fd);
	if (geteuid() != 0)
		skip();   /* planting a link owned by another user needs root */
	assert_int_equal(symlink(target, planted), 0);
	assert_int_equal(lchown(planted, 65534, 65534), 0);
	assert_int_equal(outfile_open(planted, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "a symlink owned by uid 65534, not by you: not followed"));
	assert_false(outfile_replace(planted, "x\n", 2, err, sizeof(err)));
	assert_false(outfile_check(planted, err, sizeof(err)));
	assert_string_equal(slurp(target), "through\n");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replace_is_whole_and_private),
		cmocka_unit_test(test_symlink_rule),
	};

	return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
