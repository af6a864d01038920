/*
 * holder.h: who holds something in the store (a half-open breaker's probe
 * lease, a running run, a place in the queue for a slot, recover's claim
 * on a run), and the one rule of whether that holder is still alive
 * (docs/design.md section 10, "Liveness").
 *
 * A holder is a process: its host, pid and start time (struct probe_lease
 * in store.h).  On this host it is alive while that pid runs with that
 * start time, asked of the kernel.  On another host it is alive while its
 * host's lease is fresh: every rlwrap process renews its host's row in the
 * hosts table, at most once every HOST_LEASE_RENEW_SECS per host (a stamp
 * file beside the store says when it last was), for HOST_LEASE_TTL_SECS.
 * A host that never wrote a lease (an older rlwrap) is trusted until the
 * holder's own expiry.
 *
 * Ownership: every buffer is the caller's; nothing is kept between calls.
 */
#ifndef RLWRAP_HOLDER_H
#define RLWRAP_HOLDER_H

#include <stdbool.h>
#include <stddef.h>

#include "store.h"

/* How often a host renews its lease, and how long a renewal lasts: a dead
 * host's runs and places are freed within HOST_LEASE_TTL_SECS plus a look. */
#define HOST_LEASE_RENEW_SECS 3.0
#define HOST_LEASE_TTL_SECS 10.0

/* This host's name: $RLWRAP_HOST when set (containers that share a
 * hostname, tests that play two hosts), else the hostname. */
void holder_local_host(char *buf, size_t size);
/* The start time of pid (clock ticks since boot), -1 when it is gone or a
 * zombie.  The one place that reads it. */
long long holder_start_time(long pid);
/* This process as a holder: pid, start time, host; expiries 0.  False when
 * its start time cannot be read (it is then never seen alive). */
bool holder_self(struct probe_lease *holder);
bool holder_same(const struct probe_lease *a, const struct probe_lease *b);

/*
 * The one liveness rule.  pid 0: nobody.  On local_host: the pid runs with
 * the same start time.  Elsewhere: host_until > now when the store had a
 * lease of its host, else expires_at > now.
 */
bool holder_alive(const struct probe_lease *holder, double now, const char *local_host);

#endif
