/*
 * relay.h: the pump between a spawned child (child.h) and rlwrap's own
 * descriptors.  Its stdout and stderr (or a pseudo-terminal) are relayed
 * byte for byte as they arrive and shown to the tap; on a pty, stdin is
 * copied in; rlwrap stops and continues with the child; when it exits, its
 * pipes are drained for at most a bounded time.
 *
 * Ownership: the relay borrows struct child and its spec from the caller
 * and closes the child's descriptors when it returns; its read buffer is
 * static (one child at a time, as child.h's signal state).
 */
#ifndef RLWRAP_RELAY_H
#define RLWRAP_RELAY_H

#include <stdbool.h>

#include "child.h"

/*
 * Relays output, forwards signals and input until the child has exited and
 * its output is drained (or the drain bound has passed).  When the child
 * stops, rlwrap stops with the same signal, its terminal restored (and, with
 * track_screen, the main screen and the cursor back); when rlwrap is
 * continued, the terminal is raw again, the window size applied, and the
 * child continued.  Returns 0, with the wait status in c->status, or -1 with
 * errno set.
 */
int relay_pump(struct child *c, const struct child_spec *spec);

/*
 * The calling thread (the relay) as SCHED_BATCH (batch true) or back to
 * SCHED_OTHER: a relay of pipes then no longer preempts the command each
 * time it writes, and reads what it wrote in larger pieces, with a
 * seventh of the context switches (docs/benchmarks.md).  Only from
 * SCHED_OTHER to SCHED_BATCH and back, so a policy the user chose stays;
 * true when the policy changed.  Called after the spawn, so the command
 * never inherits it.
 */
bool relay_batch(bool batch);

#endif
