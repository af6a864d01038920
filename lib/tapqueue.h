/*
 * tapqueue.h: hands the child's output from the relay to a consumer that
 * runs on a worker thread, through a bounded ring of buffers, so that the
 * classifier and --raw-stream never slow down the pass-through: the relay
 * waits only when the consumer is a whole ring behind.
 *
 * Ownership: tap_queue_new() returns a queue (its worker thread starts with
 * the first chunk) that the caller ends with tap_queue_free(), which first
 * delivers every chunk pushed.  Chunks are copied in; the consumer gets a pointer valid for
 * the duration of its call.  The consumer runs on the worker with every
 * signal blocked, so signals keep reaching the relay's thread.
 */
#ifndef RLWRAP_TAPQUEUE_H
#define RLWRAP_TAPQUEUE_H

#include <stdbool.h>
#include <stddef.h>

#define TAP_QUEUE_SLOTS 8
#define TAP_QUEUE_SLOT_SIZE (256 * 1024)

typedef void (*tap_consumer)(int stream, const char *buf, size_t len, void *arg);

struct tap_queue;

/* NULL when the buffers cannot be had (the caller then consumes
 * synchronously); a thread that cannot be had later has the pushing thread
 * consume each chunk as it is pushed. */
struct tap_queue *tap_queue_new(tap_consumer consume, void *arg);
/* Copies len bytes in, in slot-sized pieces; blocks while the ring is full. */
void tap_queue_push(struct tap_queue *q, int stream, const char *buf, size_t len);
/* len bytes of stream wait in the pipe fd: the worker reads them there, in
 * their turn, into a slot; blocks while the ring is full. */
void tap_queue_push_from(struct tap_queue *q, int stream, int fd, size_t len);
/* Waits until the consumer has had everything pushed so far. */
void tap_queue_sync(struct tap_queue *q);
/* Delivers what is left, stops the worker and frees the queue. */
void tap_queue_free(struct tap_queue *q);

#endif
