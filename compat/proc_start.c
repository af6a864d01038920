/* proc_start.c: a process's start time, which with its pid names it on a
 * host (a pid is used again; a pid and a start time are not). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#if !defined(HAVE_LINUX_PROC) && defined(HAVE_SYS_SYSCTL_H) && defined(HAVE_DECL_KERN_PROC_PID) && HAVE_DECL_KERN_PROC_PID
#include <sys/sysctl.h>
#if defined(__FreeBSD__) || defined(__DragonFly__)
#include <sys/user.h>
#endif
#define START_SYSCTL 1
#endif

#if defined(HAVE_LINUX_PROC)
long long
process_start_time(long pid)
{
	char path[64], buf[1024], *p;
	long long start = -1;
	FILE *fp;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if (pid <= 0 || (fp = fopen(path, "re")) == NULL)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	/* The command name (field 2) may hold spaces and ')': fields 3.. follow
	 * the last ')'.  A zombie (state Z or X) has died: its parent just has
	 * not reaped it yet. */
	if ((p = strrchr(buf, ')')) == NULL || p[1] != ' ' || p[2] == 'Z' || p[2] == 'X')
		return -1;
	for (int field = 3; field <= 22 && p != NULL; field++)
		p = strchr(p + 1, ' ');
	if (p != NULL && sscanf(p + 1, "%lld", &start) != 1)
		start = -1;
	return start;
}
#elif defined(START_SYSCTL)
/* Microseconds since the epoch, from kinfo_proc (macOS, the BSDs). */
long long
process_start_time(long pid)
{
	int mib[4] = { CTL_KERN, KERN_PROC, KERN_PROC_PID, (int)pid };
	struct kinfo_proc kp;
	size_t len = sizeof(kp);
	struct timeval tv;

	memset(&kp, 0, sizeof(kp));
	if (pid <= 0 || sysctl(mib, 4, &kp, &len, NULL, 0) != 0 || len < sizeof(kp))
		return -1;
#ifdef __APPLE__
	if (kp.kp_proc.p_stat == SZOMB)
		return -1;
	tv = kp.kp_proc.p_starttime;
#else
	if (kp.ki_stat == SZOMB)
		return -1;
	tv = kp.ki_start;
#endif
	return (long long)tv.tv_sec * 1000000LL + (long long)tv.tv_usec;
}
#else
/*
 * POSIX alone has no start time: 0 while the process lives, so a pid
 * used again passes for the process that had it.  A child of ours that
 * has exited but is not reaped is seen as gone (waitid's WNOWAIT leaves
 * it to be reaped).
 */
long long
process_start_time(long pid)
{
	siginfo_t si;

	if (pid <= 0 || (kill((pid_t)pid, 0) != 0 && errno == ESRCH))
		return -1;
	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == (pid_t)pid)
		return -1;
	return 0;
}
#endif
