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
	assert_true(outfile_check(path, NULL, err, sizeof(err)));
	assert_true(outfile_replace(path, NULL, "new\n", 4, err, sizeof(err)));
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
	assert_true(outfile_replace(mine, NULL, "through\n", 8, err, sizeof(err)));
	assert_string_equal(slurp(target), "through\n");
	fd = outfile_open(mine, NULL, err, sizeof(err));
	assert_true(fd >= 0);
	assert_true(outfile_is(fd, target));
	close(fd);
	if (geteuid() != 0)
		skip();   /* planting a link owned by another user needs root */
	assert_int_equal(symlink(target, planted), 0);
	assert_int_equal(lchown(planted, 65534, 65534), 0);
	assert_int_equal(outfile_open(planted, NULL, err, sizeof(err)), OUTFILE_REFUSED);
	assert_non_null(strstr(err, "a symlink owned by uid 65534, not by you: not followed"));
	assert_false(outfile_replace(planted, NULL, "x\n", 2, err, sizeof(err)));
	assert_false(outfile_check(planted, NULL, err, sizeof(err)));
	assert_string_equal(slurp(target), "through\n");
}

/* The guard: rlwrap's own files by name, link or inode, and files of a
 * kind that could hang the wrapper, are refused; a terminal's stand-in
 * /dev/null and a new file are not. */
static void
test_guard_refuses_own_files_and_fifos(void **state)
{
	struct own_files own = { .n = 1 };
	char db[128], wal[128], link_[128], hard[128], fifo[128], fresh[128], err[512];

	(void)state;
	snprintf(db, sizeof(db), "%s/state.db", tmpdir);
	snprintf(wal, sizeof(wal), "%s/state.db-wal", tmpdir);
	snprintf(link_, sizeof(link_), "%s/wal-link", tmpdir);
	snprintf(hard, sizeof(hard), "%s/db-hard", tmpdir);
	snprintf(fifo, sizeof(fifo), "%s/fifo", tmpdir);
	snprintf(fresh, sizeof(fresh), "%s/fresh", tmpdir);
	write_file(db, "db\n");
	assert_int_equal(link(db, hard), 0);
	assert_int_equal(symlink("state.db-wal", link_), 0);   /* dangling: no -wal yet */
	assert_int_equal(mkfifo(fifo, 0600), 0);
	strlcpy(own.file[0].path, wal, sizeof(own.file[0].path));
	own.file[0].what = "the -wal";
	own.n = 2;
	strlcpy(own.file[1].path, db, sizeof(own.file[1].path));
	own.file[1].what = "the db";
	assert_false(outfile_guard(wal, &own, err, sizeof(err)));
	assert_non_null(strstr(err, "(the -wal)"));
	assert_false(outfile_guard(link_, &own, err, sizeof(err)));
	assert_false(outfile_guard(hard, &own, err, sizeof(err)));
	assert_non_null(strstr(err, "(the db)"));
	assert_int_equal(outfile_open(hard, &own, err, sizeof(err)), OUTFILE_REFUSED);
	assert_false(outfile_replace(hard, &own, "x\n", 2, err, sizeof(err)));
	assert_string_equal(slurp(db), "db\n");
	assert_false(outfile_guard(fifo, NULL, err, sizeof(err)));
	assert_non_null(strstr(err, "a FIFO"));
	assert_int_equal(outfile_open(fifo, NULL, err, sizeof(err)), OUTFILE_REFUSED);
	assert_true(outfile_guard("/dev/null", &own, err, sizeof(err)));
	assert_true(outfile_guard(fresh, &own, err, sizeof(err)));
	assert_false(outfile_guard(tmpdir, NULL, err, sizeof(err)));
}

static bool
listed(const struct own_files *own, const char *what, const char *ending)
{
	for (size_t i = 0; i < own->n; i++) {
		size_t n = strlen(own->file[i].path), k = strlen(ending);

		if (strcmp(own->file[i].what, what) == 0 && n >= k && strcmp(own->file[i].path + n - k, ending) == 0)
			return true;
	}
	return false;
}

/* The one list: the store's files or a server's journal and memo, the
 * config and the key file, wherever the environment puts them. */
static void
test_own_files_list(void **state)
{
	struct own_files own;

	(void)state;
	setenv("XDG_STATE_HOME", tmpdir, 1);
	setenv("RLWRAP_CONFIG", "/etc/rlwrap-test.conf", 1);
	setenv("RLWRAP_DB", "/srv/state.db", 1);
	own_files_list(&own, NULL);
	assert_true(listed(&own, "the state file", "/srv/state.db"));
	assert_true(listed(&own, "the state file's -wal", "/srv/state.db-wal"));
	assert_true(listed(&own, "the state file's -journal", "/srv/state.db-journal"));
	assert_true(listed(&own, "the hooks log", "/srv/hooks.log"));
	assert_true(listed(&own, "the config", "/etc/rlwrap-test.conf"));
	assert_true(listed(&own, "the key file", "/rlwrap/key"));
	assert_true(listed(&own, "the server store's journal", "/rlwrap/journal.db"));
	assert_false(listed(&own, "the server store's memo", ".memo"));
	setenv("RLWRAP_DB", "postgresql://fleet:pw@db.example.com/rlwrap", 1);
	own_files_list(&own, NULL);
	assert_false(listed(&own, "the state file", ""));
	assert_true(listed(&own, "the server store's journal", "/rlwrap/journal.db"));
	assert_true(listed(&own, "the journal's -wal", "/rlwrap/journal.db-wal"));
	assert_true(listed(&own, "the server store's memo", ".memo"));
	unsetenv("RLWRAP_DB");
	unsetenv("RLWRAP_CONFIG");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replace_is_whole_and_private),
		cmocka_unit_test(test_symlink_rule),
		cmocka_unit_test(test_guard_refuses_own_files_and_fifos),
		cmocka_unit_test(test_own_files_list),
	};

	return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
