/*
 * classify.h: the streaming classifier.  Bytes go in as they arrive, in any
 * chunking; a FailureSignal comes out at the end.  The same code serves
 * `classify-failure`, `record` and the wrapper.
 *
 * Ownership: classifier_new() returns a classifier the caller frees with
 * classifier_free().  It holds at most one line (capped at CLASSIFY_LINE_MAX)
 * plus small fixed state, whatever the input.  Signals handed out are copies.
 */
#ifndef RLWRAP_CLASSIFY_H
#define RLWRAP_CLASSIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "failsignal.h"
#include "run_usage.h"
#include "usage_reading.h"

#define CLASSIFY_LINE_MAX (1024 * 1024)

struct classifier;

/* Called for every signal as it is seen (the --all view); may be NULL. */
typedef void (*signal_cb)(const struct fail_signal *sig, void *arg);

/* Is name one of the families rlwrap has a dialect for (or "generic")? */
bool family_known(const char *name);
/* "claude, codex, ..." for messages. */
const char *family_list(void);

/* family may be NULL or "" to detect it from the stream's shape. */
struct classifier *classifier_new(const char *family, time_t now);
void classifier_free(struct classifier *c);
void classifier_on_signal(struct classifier *c, signal_cb cb, void *arg);
/* The text is what a terminal showed (--pty): SCREEN_LINES for lines a
 * program printed to it (its prompt is chrome, its indentation layout),
 * SCREEN_DRAWN for a screen a program drew (cursor moves, erases): a
 * failure standing on it trips whatever the exit status.  Set before
 * classifier_finish, at any time. */
enum screen_mode { SCREEN_NONE, SCREEN_LINES, SCREEN_DRAWN };
void classifier_set_screen(struct classifier *c, enum screen_mode mode);
/* The clock used to resolve relative and clock-time resets. */
void classifier_set_now(struct classifier *c, time_t now);

void classifier_feed(struct classifier *c, const char *buf, size_t len);
/* Ends the stream; exit_code -1 when unknown.  Fills *out with the verdict. */
void classifier_finish(struct classifier *c, int exit_code, struct fail_signal *out);

/* Live facts for the wrapper while the stream is still running. */
bool classifier_saw_output(const struct classifier *c);     /* real model output yet? */
void classifier_usage(const struct classifier *c, struct run_usage *out);
/* The usage windows the stream reported, the newest reading of each. */
void classifier_readings(const struct classifier *c, struct reading_set *out);

#endif
