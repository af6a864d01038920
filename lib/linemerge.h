/*
 * linemerge.h: one byte stream from the child's stdout and stderr, in
 * arrival order, without splicing a line of one into a line of the other.
 * While one stream is in the middle of a line, the other's bytes wait (up to
 * LINE_MERGE_HOLD_MAX) for that line to end.  Nothing is ever lost: when the
 * wait would grow past the cap, the held bytes go out at once.
 *
 * This is what --raw-stream writes and what the classifier reads, so the
 * file classify-failure reads later gives the same verdict.
 *
 * Ownership: struct line_merge is caller-allocated; line_merge_free()
 * releases the hold buffer it allocates on first use.
 */
#ifndef RLWRAP_LINEMERGE_H
#define RLWRAP_LINEMERGE_H

#include <stddef.h>

#define LINE_MERGE_HOLD_MAX (64 * 1024)

typedef void (*merge_emit)(const char *buf, size_t len, void *arg);

struct line_merge {
	merge_emit emit;
	void *arg;
	int holder;          /* stream whose line is open, -1 at a line boundary */
	int held_stream;     /* the stream waiting in held (never the holder) */
	char *held;
	size_t held_len;
};

void line_merge_init(struct line_merge *m, merge_emit emit, void *arg);
/* stream is 0 or 1. */
void line_merge_feed(struct line_merge *m, int stream, const char *buf, size_t len);
/* Emits whatever is still held. */
void line_merge_finish(struct line_merge *m);
void line_merge_free(struct line_merge *m);

#endif
