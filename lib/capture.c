/* The verdict on a captured stream (capture.h). */
#include <stdlib.h>

#include "ansi.h"
#include "capture.h"
#include "classify.h"
#include "screen.h"

struct capture {
	struct classifier *c;
	struct screen *screen;        /* NULL: bytes go straight to c */
	struct ansi_screen drawing;   /* whether the capture drew a screen */
};

bool
capture_is_terminal(const char *p, size_t len)
{
	size_t i = 0, lf = 0, crlf = 0;
	bool control = false;

	while (i < len && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' || p[i] == '\n'))
		i++;
	if (i < len && (p[i] == '{' || p[i] == '['))
		return false;
	for (i = 0; i < len; i++) {
		if (p[i] == '\033' && i + 1 < len && (p[i + 1] == '[' || p[i + 1] == ']'))
			control = true;
		else if (p[i] == '\r' && i + 1 < len && p[i + 1] != '\n')
			control = true;
		else if (p[i] == '\n') {
			lf++;
			crlf += i > 0 && p[i - 1] == '\r';
		}
	}
	return control && crlf * 2 >= lf;
}

struct capture *
capture_new(const char *family, time_t now, bool screen, int rows, int cols)
{
	struct capture *k = calloc(1, sizeof(*k));

	if (k == NULL)
		return NULL;
	ansi_screen_init(&k->drawing);
	if ((k->c = classifier_new(family, now)) == NULL ||
	    (screen && (k->screen = screen_new(rows, cols)) == NULL)) {
		capture_free(k);
		return NULL;
	}
	return k;
}

struct classifier *
capture_classifier(struct capture *k)
{
	return k->c;
}

void
capture_feed(struct capture *k, const char *buf, size_t len)
{
	if (k->screen != NULL) {
		screen_feed(k->screen, buf, len);
		ansi_screen_feed(&k->drawing, buf, len);
	} else
		classifier_feed(k->c, buf, len);
}

bool
capture_finish(struct capture *k, int exit_code, struct fail_signal *out)
{
	if (k->screen != NULL) {
		size_t len;
		char *text = screen_text(k->screen, &len);

		if (text == NULL)
			return false;
		/* As the wrapper judges its pty (cmd/run.c, screen_judged). */
		classifier_set_screen(k->c, k->drawing.drawn ? SCREEN_DRAWN : SCREEN_LINES);
		classifier_feed(k->c, text, len);
		free(text);
		screen_free(k->screen);
		k->screen = NULL;
	}
	classifier_finish(k->c, exit_code, out);
	return true;
}

void
capture_free(struct capture *k)
{
	if (k == NULL)
		return;
	screen_free(k->screen);
	classifier_free(k->c);
	free(k);
}
