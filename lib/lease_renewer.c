/* lease_renewer.c: the thread that renews this host's lease while a run's child runs (lease_renewer.h). */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "host_lease.h"
#include "lease_renewer.h"

/* The renewer's waits are on the monotonic clock where a condition
 * variable can be (macOS: the wall clock, which a clock step moves). */
#ifdef HAVE_PTHREAD_CONDATTR_SETCLOCK
#define COND_CLOCK CLOCK_MONOTONIC
#else
#define COND_CLOCK CLOCK_REALTIME
#endif

struct lease_renewer {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool stop;
	struct store_options opts;
	char stamp[PATH_MAX], host[256];
	double interval, ttl;
	double (*clock)(const void *);
	const void *clock_arg;
};

static void
deadline_after(struct timespec *t, double secs)
{
	clock_gettime(COND_CLOCK, t);
	t->tv_sec += (time_t)secs;
	t->tv_nsec += (long)((secs - (double)(time_t)secs) * 1e9);
	if (t->tv_nsec >= 1000000000L) {
		t->tv_sec++;
		t->tv_nsec -= 1000000000L;
	}
}

/* A connection only for a renewal that is due, closed at once: a running
 * agent holds none.  A failed renewal is tried again at the next look;
 * other hosts only ever see the host go quiet. */
static void *
renew_loop(void *arg)
{
	struct lease_renewer *r = arg;
	struct store *store = NULL;
	struct store_error error;
	struct timespec at;

	pthread_mutex_lock(&r->lock);
	for (;;) {
		deadline_after(&at, r->interval);
		while (!r->stop && pthread_cond_timedwait(&r->wake, &r->lock, &at) != ETIMEDOUT)
			continue;
		if (r->stop)
			break;
		pthread_mutex_unlock(&r->lock);
		if (holder_lease_due(r->stamp, r->interval) && store_open(&r->opts, &store, &error)) {
			(void)store_host_renew(store, r->host, r->clock(r->clock_arg) + r->ttl, &error);
			store_close(store);
			store = NULL;
		}
		pthread_mutex_lock(&r->lock);
	}
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

struct lease_renewer *
lease_renewer_start(const struct store_options *opts, const char *stamp, const char *host, double interval,
    double ttl, double (*clock)(const void *), const void *clock_arg)
{
	struct lease_renewer *r = calloc(1, sizeof(*r));
	pthread_condattr_t attr;

	if (r == NULL)
		return NULL;
	r->opts = *opts;
	strlcpy(r->stamp, stamp != NULL ? stamp : "", sizeof(r->stamp));
	strlcpy(r->host, host, sizeof(r->host));
	r->interval = interval;
	r->ttl = ttl;
	r->clock = clock;
	r->clock_arg = clock_arg;
	pthread_mutex_init(&r->lock, NULL);
	pthread_condattr_init(&attr);
#ifdef HAVE_PTHREAD_CONDATTR_SETCLOCK
	pthread_condattr_setclock(&attr, COND_CLOCK);
#endif
	pthread_cond_init(&r->wake, &attr);
	pthread_condattr_destroy(&attr);
	if (pthread_create(&r->thread, NULL, renew_loop, r) != 0) {
		pthread_cond_destroy(&r->wake);
		pthread_mutex_destroy(&r->lock);
		free(r);
		return NULL;
	}
	return r;
}

void
lease_renewer_stop(struct lease_renewer *r)
{
	if (r == NULL)
		return;
	pthread_mutex_lock(&r->lock);
	r->stop = true;
	pthread_cond_signal(&r->wake);
	pthread_mutex_unlock(&r->lock);
	pthread_join(r->thread, NULL);
	pthread_cond_destroy(&r->wake);
	pthread_mutex_destroy(&r->lock);
	free(r);
}
