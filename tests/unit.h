/*
 * unit.h: what the cmocka unit tests share: the includes cmocka needs, and a
 * private temporary directory per test program (tmpdir), made by
 * make_tmpdir() and removed with everything in it by remove_tmpdir(), the
 * group setup and teardown.
 *
 * Ownership: tmpdir is static storage; files written there belong to the
 * test program and go with the directory.
 */
#ifndef RLWRAP_TESTS_UNIT_H
#define RLWRAP_TESTS_UNIT_H
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOW 1796040000.0   /* 2026-11-30T12:00:00Z */

static char tmpdir[64];

static inline int
make_tmpdir(void **state)
{
	(void)state;
	strlcpy(tmpdir, "/tmp/rlwrap-test-XXXXXX", sizeof(tmpdir));
	return mkdtemp(tmpdir) != NULL ? 0 : -1;
}

static inline int
remove_tmpdir(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static inline void
write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

#endif
