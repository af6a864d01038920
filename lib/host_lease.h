/*
 * host_lease.h: this host's lease in the store, which holder_alive()
 * (holder.h) reads for holders on other hosts: renewed by any rlwrap
 * process of the host, at most once every HOST_LEASE_RENEW_SECS.
 *
 * Ownership: every buffer is the caller's; nothing is kept between calls.
 */
#ifndef RLWRAP_HOST_LEASE_H
#define RLWRAP_HOST_LEASE_H

#include <stdbool.h>
#include <stddef.h>

#include "holder.h"
#include "store.h"

/*
 * Whether this process is the one to renew its host's lease now: true at
 * most once per every seconds among the processes sharing stamp (a file,
 * created 0600 when missing; its mtime, the kernel's clock, is the last
 * renewal).  stamp NULL or "": always.
 */
bool holder_lease_due(const char *stamp, double every);
/* When due (holder_lease_due()): host's lease renewed until now + ttl.
 * False only when a renewal was due and failed. */
bool holder_lease_renew(struct store *store, const char *stamp, const char *host, double now,
    double every, double ttl, struct store_error *err);
/* The stamp of host for the store opts names: beside a server's memo, in
 * the state directory for a file (one per store and host name: processes
 * with different $RLWRAP_HOST may share a home); false when there is no
 * state directory (each process renews at most once an interval). */
bool holder_lease_stamp(const struct store_options *opts, const char *host, char *buf, size_t size);

#endif
