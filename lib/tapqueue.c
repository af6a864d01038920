/* tapqueue.c: a single-producer, single-consumer ring of byte chunks. */
#include <pthread.h>
#include <signal.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tapqueue.h"

struct slot {
	int stream;
	int from_fd;     /* -1, or the pipe the worker reads len bytes from */
	size_t len;
	char *buf;
};

struct tap_queue {
	pthread_mutex_t lock;
	pthread_cond_t filled;       /* a slot was filled, or the queue is closing */
	pthread_cond_t emptied;      /* a slot was consumed */
	struct slot slots[TAP_QUEUE_SLOTS];
	size_t head, count;          /* next slot to consume, slots in use (the one being read included) */
	bool closing;
	tap_consumer consume;
	void *arg;
	pthread_t worker;
	bool started;                /* the worker runs (it starts with the first chunk) */
	bool no_thread;              /* it could not start: the producer consumes */
	char *memory;
};

/* The bytes were in the pipe before their slot was pushed: no wait. */
static void
slot_fill(struct slot *s)
{
	size_t got = 0;

	while (s->from_fd >= 0 && got < s->len) {
		ssize_t n = read(s->from_fd, s->buf + got, s->len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	if (s->from_fd >= 0)
		s->len = got;
}

static void *
worker_main(void *p)
{
	struct tap_queue *q = p;

	pthread_mutex_lock(&q->lock);
	for (;;) {
		struct slot *s;

		while (q->count == 0 && !q->closing)
			pthread_cond_wait(&q->filled, &q->lock);
		if (q->count == 0)
			break;
		s = &q->slots[q->head];
		/* The slot stays counted while it is read, so the relay cannot reuse it. */
		pthread_mutex_unlock(&q->lock);
		slot_fill(s);
		q->consume(s->stream, s->buf, s->len, q->arg);
		pthread_mutex_lock(&q->lock);
		q->head = (q->head + 1) % TAP_QUEUE_SLOTS;
		q->count--;
		pthread_cond_signal(&q->emptied);
	}
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

static bool
start_worker(struct tap_queue *q)
{
	sigset_t all, old;
	bool ok;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ok = pthread_create(&q->worker, NULL, worker_main, q) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ok;
}

struct tap_queue *
tap_queue_new(tap_consumer consume, void *arg)
{
	struct tap_queue *q = calloc(1, sizeof(*q));

	if (q == NULL || (q->memory = malloc((size_t)TAP_QUEUE_SLOTS * TAP_QUEUE_SLOT_SIZE)) == NULL) {
		free(q);
		return NULL;
	}
	for (size_t i = 0; i < TAP_QUEUE_SLOTS; i++)
		q->slots[i].buf = q->memory + i * TAP_QUEUE_SLOT_SIZE;
	q->consume = consume;
	q->arg = arg;
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->filled, NULL);
	pthread_cond_init(&q->emptied, NULL);
	return q;
}

/* The worker starts with the first chunk, so that a child that prints
 * nothing costs no thread (docs/design.md section 9). */
static bool
worker_ready(struct tap_queue *q)
{
	if (!q->started && !q->no_thread) {
		q->started = start_worker(q);
		q->no_thread = !q->started;
	}
	return q->started;
}

/* buf NULL: len bytes wait in from_fd. */
static void
push_piece(struct tap_queue *q, int stream, const char *buf, int from_fd, size_t len)
{
	struct slot *s;

	if (!worker_ready(q)) {   /* no thread: consumed here, in the producer's turn */
		struct slot here = { stream, buf != NULL ? -1 : from_fd, len, q->memory };

		if (buf != NULL) {
			q->consume(stream, buf, len, q->arg);
			return;
		}
		slot_fill(&here);
		q->consume(stream, here.buf, here.len, q->arg);
		return;
	}
	pthread_mutex_lock(&q->lock);
	while (q->count == TAP_QUEUE_SLOTS)
		pthread_cond_wait(&q->emptied, &q->lock);
	s = &q->slots[(q->head + q->count) % TAP_QUEUE_SLOTS];
	pthread_mutex_unlock(&q->lock);
	/* The slot is free and only this thread fills slots: copy unlocked. */
	if (buf != NULL)
		memcpy(s->buf, buf, len);
	s->from_fd = buf != NULL ? -1 : from_fd;
	s->len = len;
	s->stream = stream;
	pthread_mutex_lock(&q->lock);
	q->count++;
	pthread_cond_signal(&q->filled);
	pthread_mutex_unlock(&q->lock);
}

void
tap_queue_push(struct tap_queue *q, int stream, const char *buf, size_t len)
{
	while (len > 0) {
		size_t n = len < TAP_QUEUE_SLOT_SIZE ? len : TAP_QUEUE_SLOT_SIZE;

		push_piece(q, stream, buf, -1, n);
		buf += n;
		len -= n;
	}
}

void
tap_queue_push_from(struct tap_queue *q, int stream, int fd, size_t len)
{
	while (len > 0) {
		size_t n = len < TAP_QUEUE_SLOT_SIZE ? len : TAP_QUEUE_SLOT_SIZE;

		push_piece(q, stream, NULL, fd, n);
		len -= n;
	}
}

void
tap_queue_sync(struct tap_queue *q)
{
	pthread_mutex_lock(&q->lock);
	while (q->count > 0)
		pthread_cond_wait(&q->emptied, &q->lock);
	pthread_mutex_unlock(&q->lock);
}

void
tap_queue_free(struct tap_queue *q)
{
	if (q == NULL)
		return;
	if (q->started) {
		pthread_mutex_lock(&q->lock);
		q->closing = true;
		pthread_cond_signal(&q->filled);
		pthread_mutex_unlock(&q->lock);
		pthread_join(q->worker, NULL);
	}
	pthread_mutex_destroy(&q->lock);
	pthread_cond_destroy(&q->filled);
	pthread_cond_destroy(&q->emptied);
	free(q->memory);
	free(q);
}
