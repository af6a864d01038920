/* exe_path.c: the path of the running executable (recover runs rlwrap
 * again): /proc/self/exe on Linux, _NSGetExecutablePath on macOS,
 * KERN_PROC_PATHNAME on FreeBSD, else argv[0] as the shell found it. */
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(HAVE__NSGETEXECUTABLEPATH) && defined(HAVE_MACH_O_DYLD_H)
#include <mach-o/dyld.h>
#elif defined(HAVE_SYS_SYSCTL_H) && defined(HAVE_DECL_KERN_PROC_PATHNAME) && HAVE_DECL_KERN_PROC_PATHNAME
#include <sys/types.h>
#include <sys/sysctl.h>
#define EXE_SYSCTL 1
#endif

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

static char argv0_path[PATH_MAX];

bool
exe_path_search(const char *argv0, const char *path, char *buf, size_t size)
{
	char dir[PATH_MAX], cand[PATH_MAX], real[PATH_MAX];
	const char *p = path != NULL && *path != '\0' ? path : "/usr/bin:/bin";

	if (argv0 == NULL || *argv0 == '\0')
		return false;
	if (strchr(argv0, '/') != NULL)
		return realpath(argv0, real) != NULL && strlcpy(buf, real, size) < size;
	while (*p != '\0') {
		size_t n = strcspn(p, ":");

		/* An empty entry is the current directory, as for the shell. */
		snprintf(dir, sizeof(dir), "%.*s", (int)n, n == 0 ? "." : p);
		if ((size_t)snprintf(cand, sizeof(cand), "%s/%s", dir, argv0) < sizeof(cand) &&
		    access(cand, X_OK) == 0 && realpath(cand, real) != NULL)
			return strlcpy(buf, real, size) < size;
		p += n + (p[n] == ':');
	}
	return false;
}

void
exe_path_init(const char *argv0)
{
	if (!exe_path_search(argv0, getenv("PATH"), argv0_path, sizeof(argv0_path)))
		argv0_path[0] = '\0';
}

bool
exe_path(char *buf, size_t size)
{
#if defined(HAVE_LINUX_PROC)
	ssize_t n = readlink("/proc/self/exe", buf, size - 1);

	if (n > 0) {
		buf[n] = '\0';
		return true;
	}
#elif defined(HAVE__NSGETEXECUTABLEPATH) && defined(HAVE_MACH_O_DYLD_H)
	char raw[PATH_MAX], real[PATH_MAX];
	uint32_t len = sizeof(raw);

	if (_NSGetExecutablePath(raw, &len) == 0 && realpath(raw, real) != NULL)
		return strlcpy(buf, real, size) < size;
#elif defined(EXE_SYSCTL)
	int mib[4] = { CTL_KERN, KERN_PROC, KERN_PROC_PATHNAME, -1 };
	size_t len = size;

	if (sysctl(mib, 4, buf, &len, NULL, 0) == 0 && len > 1)
		return true;
#endif
	return argv0_path[0] != '\0' && strlcpy(buf, argv0_path, size) < size;
}
