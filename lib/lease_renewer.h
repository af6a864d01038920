/*
 * lease_renewer.h: a thread that keeps this host's lease (host_lease.h)
 * fresh while a run's child runs, so that other hosts see the run alive
 * although its wrapper holds no connection.
 *
 * Ownership: lease_renewer_start() returns a thread and its state, which
 * the caller ends and frees with lease_renewer_stop(); opts, stamp and
 * host are copied.
 */
#ifndef RLWRAP_LEASE_RENEWER_H
#define RLWRAP_LEASE_RENEWER_H

#include "store.h"

/* Looks every interval seconds whether this host's lease is due
 * (holder_lease_renew() with stamp and host) and then renews it until now
 * + ttl on a connection to the store at opts opened for that alone and
 * closed at once, with now from clock(arg), until lease_renewer_stop().  NULL
 * when the thread cannot start (this host's runs then live by the other
 * processes of the host, or as long as their rows' alive_until). */
struct lease_renewer;
struct lease_renewer *lease_renewer_start(const struct store_options *opts, const char *stamp, const char *host,
    double interval, double ttl, double (*clock)(const void *), const void *clock_arg);
void lease_renewer_stop(struct lease_renewer *r);

#endif
