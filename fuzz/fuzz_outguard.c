/*
 * fuzz_outguard: the output-file guard (lib/outfile.h) against paths of
 * arbitrary bytes in a private directory that holds "rlwrap's own files"
 * (state.db, its -wal not yet made, config, key) and decoys: a FIFO, a
 * link to the db, a dangling link to the -wal, a hard link to the db, a
 * link loop and a subdirectory.
 *
 * Input: byte 0 picks what is done with the path (guard, open, replace,
 * or first plant a symlink NAME -> TARGET, then replace); the rest is
 * "PATH" or "NAME\0TARGET\0PATH".  Paths are kept inside the directory (no
 * leading '/', no "..").  Checks: nothing blocks (libFuzzer's -timeout
 * catches a hang); what the guard lets through is neither one of the own
 * files nor a FIFO; whatever happens, every own file keeps its content and
 * the -wal is never made.  Everything the input made is removed after it.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const own_names[] = { "state.db", "state.db-wal", "config", "key" };
static const char *const own_content[] = { "db\n", NULL, "cfg\n", "key\n" };
static const char *const fixed_names[] = {
	".", "..", "state.db", "config", "key", "fifo", "ldb", "lwal", "hard", "loop", "sub", "lsub",
};
static struct own_files own;

static void
violated(const char *why, const char *path)
{
	fprintf(stderr, "fuzz_outguard: %s: \"%s\"\n", why, path);
	abort();
}

static void
put(const char *name, const char *text)
{
	FILE *fp = fopen(name, "w");

	if (fp == NULL || fputs(text, fp) < 0 || fclose(fp) != 0)
		violated("cannot set up", name);
}

/* The directory, made once; the process stays in it. */
static void
set_up(void)
{
	char dir[] = "/tmp/fuzz-outguard.XXXXXX";

	if (mkdtemp(dir) == NULL || chdir(dir) != 0)
		violated("cannot set up", dir);
	for (size_t i = 0; i < 4; i++) {
		if (own_content[i] != NULL)
			put(own_names[i], own_content[i]);
		snprintf(own.file[i].path, sizeof(own.file[i].path), "%s/%s", dir, own_names[i]);
		own.file[i].what = own_names[i];
	}
	own.n = 4;
	if (mkfifo("fifo", 0600) != 0 || symlink("state.db", "ldb") != 0 || symlink("state.db-wal", "lwal") != 0 ||
	    link("state.db", "hard") != 0 || symlink("loop", "loop") != 0 || mkdir("sub", 0700) != 0 ||
	    symlink("sub", "lsub") != 0)
		violated("cannot set up", dir);
}

static bool
fixed(const char *name)
{
	for (size_t i = 0; i < sizeof(fixed_names) / sizeof(fixed_names[0]); i++)
		if (strcmp(name, fixed_names[i]) == 0)
			return true;
	return false;
}

/* Removes what an input made, in the directory and in sub/. */
static void
clean_up(void)
{
	const char *dirs[] = { ".", "sub" };
	char path[512];

	for (size_t d = 0; d < 2; d++) {
		DIR *dp = opendir(dirs[d]);
		struct dirent *e;

		while (dp != NULL && (e = readdir(dp)) != NULL) {
			if (d == 0 && fixed(e->d_name))
				continue;
			if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
				continue;
			snprintf(path, sizeof(path), "%s/%s", dirs[d], e->d_name);
			if (unlink(path) != 0)
				(void)rmdir(path);
		}
		if (dp != NULL)
			closedir(dp);
	}
}

/* A path that stays inside the directory. */
static bool
inside(const char *p)
{
	return *p != '\0' && *p != '/' && strstr(p, "..") == NULL && strlen(p) < 200;
}

static void
check_own_files(const char *path)
{
	char buf[16];

	for (size_t i = 0; i < 4; i++) {
		FILE *fp = fopen(own_names[i], "r");
		size_t n;

		if (own_content[i] == NULL) {
			if (fp != NULL)
				violated("the -wal was made", path);
			continue;
		}
		if (fp == NULL)
			violated("an own file is gone", path);
		n = fread(buf, 1, sizeof(buf) - 1, fp);
		buf[n] = '\0';
		fclose(fp);
		if (strcmp(buf, own_content[i]) != 0)
			violated("an own file was written", path);
	}
}

/* What the guard let through is no own file and no FIFO. */
static void
check_allowed(const char *path)
{
	struct stat st, ost;

	if (stat(path, &st) != 0)
		return;
	if (S_ISFIFO(st.st_mode))
		violated("a FIFO let through", path);
	for (size_t i = 0; i < 4; i++)
		if (stat(own_names[i], &ost) == 0 && ost.st_ino == st.st_ino && ost.st_dev == st.st_dev)
			violated("an own file let through", path);
}

static void
exercise(unsigned op, const char *path)
{
	char err[PATH_MAX + 256];
	int fd;

	if (outfile_guard(path, &own, err, sizeof(err)))
		check_allowed(path);
	if (op == 1 && (fd = outfile_open(path, &own, err, sizeof(err))) >= 0) {
		(void)!write(fd, "x", 1);
		close(fd);
	} else if (op >= 2)
		(void)outfile_replace(path, &own, "new\n", 4, err, sizeof(err));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool ready;
	char buf[1024], *name = buf, *target = NULL, *path = buf;
	unsigned op;

	if (!ready) {
		set_up();
		ready = true;
	}
	if (size < 2 || size >= sizeof(buf))
		return 0;
	op = data[0] % 4;
	memcpy(buf, data + 1, size - 1);
	buf[size - 1] = '\0';
	if (op == 3) {
		target = name + strlen(name) + 1;
		if (target >= buf + size - 1)
			return 0;
		path = target + strlen(target) + 1;
		if (path >= buf + size - 1 || !inside(name) || !inside(target))
			return 0;
		(void)symlink(target, name);
	}
	if (inside(path))
		exercise(op, path);
	check_own_files(path);
	clean_up();
	return 0;
}
