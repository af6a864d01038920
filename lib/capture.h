/*
 * capture.h: the verdict on a captured stream, read as `classify-failure`
 * reads it: the bytes go to the classifier, or, when the capture is a
 * terminal's raw output (a pty run's --raw-stream), through a terminal
 * emulator whose screen is judged at the end, as the wrapper judges a pty.
 *
 * Ownership: capture_new() returns a capture the caller frees with
 * capture_free(); capture_classifier() lends the capture's classifier,
 * valid until capture_free().  Not thread-safe.
 */
#ifndef RLWRAP_CAPTURE_H
#define RLWRAP_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "failsignal.h"

/* How much of a capture's start capture_is_terminal() needs to see. */
#define CAPTURE_HEAD_MAX 65536

struct capture;

/* From the capture's first bytes: not JSON lines, terminal control (an
 * ESC [ or ESC ] sequence, or a carriage return that ends no line), and
 * lines ended as a terminal ends them (\r\n, at least half of them). */
bool capture_is_terminal(const char *head, size_t len);

/* screen: read through a rows x cols terminal (capture_is_terminal, or
 * forced).  NULL when out of memory. */
struct capture *capture_new(const char *family, time_t now, bool screen, int rows, int cols);
struct classifier *capture_classifier(struct capture *k);
void capture_feed(struct capture *k, const char *buf, size_t len);
/* The verdict; false (out is untouched) when out of memory.  Once only. */
bool capture_finish(struct capture *k, int exit_code, struct fail_signal *out);
void capture_free(struct capture *k);

#endif
