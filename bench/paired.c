/*
 * paired: whole-process timing of two commands, run alternately so that
 * both see the same machine.  Prints the median wall time of each and the
 * median of the paired differences (B - A), then the same three for CPU
 * time (user + system, the process and its children), in milliseconds,
 * the median of the paired ratios B / A of wall time, and the medians of
 * each one's page faults (minor + major, the process and its children):
 *     paired RUNS STATUS_A STATUS_B A-ARGV... --- B-ARGV...
 * With three or more commands (each after a ---, all expected to exit
 * STATUS_B), one line for each, A first: the medians of its wall time, CPU
 * time and page faults, and of its paired ratios to A of wall and CPU time.
 * The order rotates from one round to the next.
 * Every run of A must exit STATUS_A and every other STATUS_B (else exit 1).
 * Output goes to /dev/null.  Built by the bench scripts that use it.
 */
#include <fcntl.h>
#include <stdbool.h>
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

struct sample {
	double wall, cpu, faults;
};

/* One run (output to /dev/null); false when it did not exit with want. */
static bool
run(char **argv, int want, struct sample *s)
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
		return false;
	s->wall = now_ms() - t0;
	s->cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
	    (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
	s->faults = (double)(ru.ru_minflt + ru.ru_majflt);
	return WIFEXITED(status) && WEXITSTATUS(status) == want;
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

#define MAX_CMDS 8

/* The median over the runs of f(sample of command k, sample of command 0). */
static double
median_of(struct sample *s[], int k, int runs, double *tmp, double (*f)(const struct sample *, const struct sample *))
{
	for (int i = 0; i < runs; i++)
		tmp[i] = f(&s[k][i], &s[0][i]);
	return median(tmp, runs);
}

static double wall(const struct sample *x, const struct sample *a) { (void)a; return x->wall; }
static double cpu(const struct sample *x, const struct sample *a) { (void)a; return x->cpu; }
static double faults(const struct sample *x, const struct sample *a) { (void)a; return x->faults; }
static double wall_diff(const struct sample *x, const struct sample *a) { return x->wall - a->wall; }
static double cpu_diff(const struct sample *x, const struct sample *a) { return x->cpu - a->cpu; }
static double wall_ratio(const struct sample *x, const struct sample *a) { return x->wall / a->wall; }
static double cpu_ratio(const struct sample *x, const struct sample *a) { return x->cpu / a->cpu; }

int
main(int argc, char **argv)
{
	int runs, want_a, want_b, ncmd = 1;
	char **cmd[MAX_CMDS];
	struct sample *s[MAX_CMDS];
	double *tmp;

	if (argc < 7)
		goto usage;
	runs = atoi(argv[1]);
	want_a = atoi(argv[2]);
	want_b = atoi(argv[3]);
	cmd[0] = argv + 4;
	for (int i = 4; i < argc; i++)
		if (strcmp(argv[i], "---") == 0) {
			if (ncmd == MAX_CMDS || i + 1 == argc || argv[i + 1] == NULL)
				goto usage;
			argv[i] = NULL;
			cmd[ncmd++] = argv + i + 1;
		}
	if (runs < 1 || ncmd < 2 || cmd[0][0] == NULL)
		goto usage;
	for (int k = 0; k < ncmd; k++)
		s[k] = calloc((size_t)runs, sizeof(*s[k]));
	tmp = calloc((size_t)runs, sizeof(*tmp));
	for (int i = 0; i < runs; i++) {
		/* Rotate which goes first, so none always follows another. */
		for (int j = 0; j < ncmd; j++) {
			int k = (i + j) % ncmd;

			if (!run(cmd[k], k == 0 ? want_a : want_b, &s[k][i])) {
				fprintf(stderr, "paired: %s exited otherwise than expected\n", cmd[k][0]);
				return 1;
			}
		}
	}
	if (ncmd == 2) {
		printf("%.3f %.3f %.3f %.3f %.3f %.3f %.4f %.0f %.0f\n", median_of(s, 0, runs, tmp, wall),
		    median_of(s, 1, runs, tmp, wall), median_of(s, 1, runs, tmp, wall_diff),
		    median_of(s, 0, runs, tmp, cpu), median_of(s, 1, runs, tmp, cpu),
		    median_of(s, 1, runs, tmp, cpu_diff), median_of(s, 1, runs, tmp, wall_ratio),
		    median_of(s, 0, runs, tmp, faults), median_of(s, 1, runs, tmp, faults));
		return 0;
	}
	for (int k = 0; k < ncmd; k++)
		printf("%.3f %.3f %.0f %.4f %.4f\n", median_of(s, k, runs, tmp, wall), median_of(s, k, runs, tmp, cpu),
		    median_of(s, k, runs, tmp, faults), median_of(s, k, runs, tmp, wall_ratio),
		    median_of(s, k, runs, tmp, cpu_ratio));
	return 0;
usage:
	fprintf(stderr, "usage: paired RUNS STATUS_A STATUS_B A-ARGV... --- B-ARGV... [--- C-ARGV...]\n");
	return 2;
}
