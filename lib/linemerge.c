/*
 * Line-boundary interleaving of two streams.  With only two streams, at most
 * one waits at a time: the one that is not holding the open line.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "linemerge.h"

void
line_merge_init(struct line_merge *m, merge_emit emit, void *arg)
{
	memset(m, 0, sizeof(*m));
	m->emit = emit;
	m->arg = arg;
	m->holder = -1;
	m->held_stream = -1;
}

/* Emits buf as stream s's; s holds the line unless buf ends one. */
static void
take(struct line_merge *m, int s, const char *buf, size_t len)
{
	if (len == 0)
		return;
	m->emit(buf, len, m->arg);
	m->holder = buf[len - 1] == '\n' ? -1 : s;
}

/* Emits the held stream's complete lines, keeping an unfinished tail. */
static void
release_lines(struct line_merge *m)
{
	const char *nl = m->held_len > 0 ? memrchr(m->held, '\n', m->held_len) : NULL;
	size_t head;

	if (nl == NULL)
		return;
	head = (size_t)(nl - m->held) + 1;
	m->emit(m->held, head, m->arg);
	memmove(m->held, m->held + head, m->held_len - head);
	m->held_len -= head;
}

static void
release_all(struct line_merge *m)
{
	size_t len = m->held_len;

	m->held_len = 0;
	take(m, m->held_stream, m->held, len);
}

static void
hold(struct line_merge *m, int s, const char *buf, size_t len)
{
	if (m->held == NULL && (m->held = malloc(LINE_MERGE_HOLD_MAX)) == NULL) {
		take(m, s, buf, len);   /* no memory: lossless, lines may splice */
		return;
	}
	if (m->held_len + len > LINE_MERGE_HOLD_MAX) {
		release_all(m);
		take(m, s, buf, len);
		return;
	}
	memcpy(m->held + m->held_len, buf, len);
	m->held_len += len;
	m->held_stream = s;
}

void
line_merge_feed(struct line_merge *m, int s, const char *buf, size_t len)
{
	const char *nl;

	if (len == 0)
		return;
	if (m->holder != -1 && m->holder != s) {
		hold(m, s, buf, len);
		return;
	}
	if (m->held_len > 0 && (nl = memrchr(buf, '\n', len)) != NULL) {
		size_t head = (size_t)(nl - buf) + 1;

		take(m, s, buf, head);
		buf += head;
		len -= head;
		release_lines(m);
		if (len == 0 && m->held_len > 0) {
			release_all(m);
			return;
		}
	}
	take(m, s, buf, len);
	if (m->holder == -1 && m->held_len > 0)
		release_all(m);
}

void
line_merge_finish(struct line_merge *m)
{
	if (m->held_len > 0)
		release_all(m);
}

void
line_merge_free(struct line_merge *m)
{
	free(m->held);
	m->held = NULL;
	m->held_len = 0;
}
