/* Unit tests for lib/tapqueue.c: every relayed byte reaches the classifier's
 * worker, in order. */
#include "unit.h"

#include <dirent.h>

#include "tapqueue.h"

struct collected {
	char *buf;
	size_t len, calls;
	int last_stream;
	bool streams_in_order;
};

static void
collect(int stream, const char *buf, size_t len, void *arg)
{
	struct collected *c = arg;

	c->buf = realloc(c->buf, c->len + len);
	assert_non_null(c->buf);
	memcpy(c->buf + c->len, buf, len);
	c->len += len;
	c->calls++;
	if (stream < c->last_stream)
		c->streams_in_order = false;
	c->last_stream = stream;
}

/* Every byte reaches the worker, in order, whatever the chunk sizes. */
static void
test_queue_delivers_in_order(void **state)
{
	struct collected c = { .streams_in_order = true };
	struct tap_queue *q = tap_queue_new(collect, &c);
	size_t total = 3 * TAP_QUEUE_SLOTS * TAP_QUEUE_SLOT_SIZE + 12345, off = 0, step = 1;
	char *data = malloc(total);

	assert_non_null(q);
	assert_non_null(data);
	for (size_t i = 0; i < total; i++)
		data[i] = (char)(i * 7 + i / 251);
	while (off < total) {
		size_t n = step < total - off ? step : total - off;

		tap_queue_push(q, off < total / 2 ? 0 : 1, data + off, n);
		off += n;
		step = step * 3 + 1;   /* from single bytes to several slots at once */
	}
	tap_queue_sync(q);
	assert_int_equal(c.len, total);
	tap_queue_free(q);
	assert_memory_equal(c.buf, data, total);
	assert_true(c.streams_in_order);
	free(c.buf);
	free(data);
}

/* The threads of this process, from /proc/self/task. */
static int
thread_count(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

/* A queue that is never given a byte starts no thread (a child that prints
 * nothing costs none); the first chunk starts it. */
static void
test_queue_starts_its_thread_with_the_first_chunk(void **state)
{
	struct collected c = { .streams_in_order = true };
	int before = thread_count();
	struct tap_queue *q = tap_queue_new(collect, &c);

	assert_non_null(q);
	assert_int_equal(thread_count(), before);
	tap_queue_free(q);
	assert_int_equal(c.calls, 0);
	q = tap_queue_new(collect, &c);
	tap_queue_push(q, 0, "abc", 3);
	assert_int_equal(thread_count(), before + 1);
	tap_queue_free(q);
	assert_int_equal(c.len, 3);
	assert_memory_equal(c.buf, "abc", 3);
	free(c.buf);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_queue_delivers_in_order),
		cmocka_unit_test(test_queue_starts_its_thread_with_the_first_chunk),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
