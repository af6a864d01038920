/*
 * store_bench: in-process latencies of the store, for bench/store.sh.
 *   store_bench gate DB N       median / p90 of a refusing breaker_gate() (record = true)
 *   store_bench record DB N     median / p90 of breaker_record_run() of a run
 *   store_bench writers DB N P  P processes each recording N runs: operations per second
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "breaker.h"

static double
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int
by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static struct store *
open_at(const char *path)
{
	struct store_options opts;
	struct store_error err;
	struct store *store;

	store_options_resolve(&opts, NULL, 10000, 30, &err);
	strlcpy(opts.path, path, sizeof(opts.path));
	if (!store_open(&opts, &store, &err)) {
		fprintf(stderr, "store_bench: %s\n", err.message);
		exit(1);
	}
	return store;
}

static bool
record_one(struct store *store, const struct config *cfg, double t, bool fail)
{
	char a0[] = "claude", a1[] = "-p", a2[] = "fix the tests", a3[] = "--model", a4[] = "opus";
	char *argv[] = { a0, a1, a2, a3, a4, NULL };
	struct run_report run = { .argc = 5, .argv = argv, .cwd = "/tmp", .account = "default",
		.family = "claude", .model = "claude-opus-4-6", .source = "wrap", .started_at = t - 5,
		.ended_at = t, .exit_code = 0, .usage = { 1000, 200, 0.01 } };
	struct fail_signal sig;
	struct record_outcome out;
	struct store_error err;

	signal_init(&sig);
	sig.terminal = true;
	sig.confidence = 1.0;
	sig.reason = fail ? REASON_RATE_LIMIT : REASON_NONE;
	if (fail)
		sig.resets_at = t + 3600;
	if (!breaker_record_run(store, cfg, &run, &sig, &out, &err)) {
		fprintf(stderr, "store_bench: %s\n", err.message);
		return false;
	}
	return true;
}

static void
report(const char *what, double *samples, int n)
{
	qsort(samples, (size_t)n, sizeof(*samples), by_value);
	printf("%s: median %.1f us, p90 %.1f us (%d runs)\n", what, samples[n / 2], samples[n * 9 / 10], n);
}

int
main(int argc, char **argv)
{
	struct config cfg;
	struct store *store;
	int n = argc > 3 ? atoi(argv[3]) : 1000;
	double *samples, t = 1796040000;

	if (argc < 4) {
		fprintf(stderr, "usage: store_bench gate|record|writers DB N [P]\n");
		return 2;
	}
	config_defaults(&cfg);
	samples = calloc((size_t)n, sizeof(*samples));
	if (strcmp(argv[1], "gate") == 0) {
		struct gate_request req = { .account = "default", .family = "claude", .model = "claude-opus-4-6",
			.wait_max = -1, .record = true };
		struct gate_decision d;
		struct store_error err;

		store = open_at(argv[2]);
		record_one(store, &cfg, t, true);
		holder_self(&req.holder);
		for (int i = 0; i < n; i++) {
			double t0 = now_us();

			if (!breaker_gate(store, &cfg, &req, t + 1, &d, &err) || d.verdict != GATE_REFUSE)
				return 1;
			samples[i] = now_us() - t0;
		}
		report("refusing gate (read + refusal row)", samples, n);
	} else if (strcmp(argv[1], "record") == 0) {
		store = open_at(argv[2]);
		for (int i = 0; i < n; i++) {
			double t0 = now_us();

			if (!record_one(store, &cfg, t + i, false))
				return 1;
			samples[i] = now_us() - t0;
		}
		report("run record (insert + breakers + prune)", samples, n);
	} else {
		int procs = argc > 4 ? atoi(argv[4]) : 8, failed = 0, status;
		double t0 = now_us(), secs;

		for (int p = 0; p < procs; p++)
			if (fork() == 0) {
				store = open_at(argv[2]);
				for (int i = 0; i < n; i++)
					if (!record_one(store, &cfg, t + i, i % 10 == 0))
						_exit(1);
				store_close(store);
				_exit(0);
			}
		while (wait(&status) > 0)
			failed += !WIFEXITED(status) || WEXITSTATUS(status) != 0;
		secs = (now_us() - t0) / 1e6;
		printf("%d writers x %d runs: %.0f records/s (%.2f s, %d failed)\n", procs, n,
		    procs * n / secs, secs, failed);
		return failed != 0;
	}
	store_close(store);
	free(samples);
	return 0;
}
