/* cpus.c: how many CPUs this process may use. */
#include <sched.h>
#include <unistd.h>

long
usable_cpus(void)
{
	long n;
#if defined(HAVE_SCHED_GETAFFINITY) && defined(HAVE_DECL_CPU_COUNT) && HAVE_DECL_CPU_COUNT
	cpu_set_t cpus;

	/* The affinity mask: taskset and cgroup cpusets leave fewer. */
	if (sched_getaffinity(0, sizeof(cpus), &cpus) == 0)
		return CPU_COUNT(&cpus);
#endif
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? n : 1;
}
