/*
 * paired: whole-process timing of two commands, run alternately so that
 * both see the same machine.  Prints the median wall time of each and the
 * median of the paired differences (B - A), then the same three for CPU
 * time (user + system, the process and its children), in milliseconds, and
 * last the median of the paired ratios B / A of wall time:
 *     paired RUNS STATUS_A STATUS_B A-ARGV... --- B-ARGV...
 * Every run of A must exit STATUS_A and every run of B STATUS_B (else exit 1).
 * Output goes to /dev/null.  Built by the bench scripts that use it.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Wall time of one run in ms, or -1 when it did not exit with want; its CPU
 * time in *cpu. */
static double
run(char **argv, int want, double *cpu)
{
	double t0 = now_ms();
	int status;
	struct rusage ru;
	pid_t pid = fork();

	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(null, 1);
		dup2(null, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || wait4(pid, &status, 0, &ru) != pid)
		return -1;
	*cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
	    (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != want)
		return -1;
	return now_ms() - t0;
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int
main(int argc, char **argv)
{
	int runs, want_a, want_b, sep = 0;
	double *a, *b, *d, *ca, *cb, *cd, *ratio;

	if (argc < 7)
		goto usage;
	runs = atoi(argv[1]);
	want_a = atoi(argv[2]);
	want_b = atoi(argv[3]);
	for (int i = 4; i < argc; i++)
		if (strcmp(argv[i], "---") == 0)
			sep = i;
	if (runs < 1 || sep <= 4 || sep == argc - 1)
		goto usage;
	argv[sep] = NULL;
	a = calloc((size_t)runs, sizeof(*a));
	b = calloc((size_t)runs, sizeof(*b));
	d = calloc((size_t)runs, sizeof(*d));
	ca = calloc((size_t)runs, sizeof(*ca));
	cb = calloc((size_t)runs, sizeof(*cb));
	cd = calloc((size_t)runs, sizeof(*cd));
	ratio = calloc((size_t)runs, sizeof(*ratio));
	for (int i = 0; i < runs; i++) {
		/* Alternate which goes first, so neither always follows the other. */
		if (i % 2) {
			b[i] = run(argv + sep + 1, want_b, &cb[i]);
			a[i] = run(argv + 4, want_a, &ca[i]);
		} else {
			a[i] = run(argv + 4, want_a, &ca[i]);
			b[i] = run(argv + sep + 1, want_b, &cb[i]);
		}
		if (a[i] < 0 || b[i] < 0) {
			fprintf(stderr, "paired: %s exited otherwise than expected\n",
			    a[i] < 0 ? argv[4] : argv[sep + 1]);
			return 1;
		}
		d[i] = b[i] - a[i];
		cd[i] = cb[i] - ca[i];
		ratio[i] = b[i] / a[i];
	}
	printf("%.3f %.3f %.3f %.3f %.3f %.3f %.4f\n", median(a, runs), median(b, runs), median(d, runs),
	    median(ca, runs), median(cb, runs), median(cd, runs), median(ratio, runs));
	return 0;
usage:
	fprintf(stderr, "usage: paired RUNS STATUS_A STATUS_B A-ARGV... --- B-ARGV...\n");
	return 2;
}
