/*
 * run_retry.c: --retry (run.h): a limit that struck before any real output
 * is waited out and the command run again, its stdout held back until the
 * attempt that stands is known.
 */
#include <err.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "run.h"
#include "timeparse.h"

/* A retry after a limit that stated no reset: this, doubled per attempt. */
#define RETRY_BACKOFF 5.0

/* Stdin can be given to a second attempt: a terminal, /dev/null, or a
 * regular file (rewound).  A pipe's bytes would be gone. */
bool
retry_stdin_replayable(void)
{
	struct stat st, null;

	if (isatty(STDIN_FILENO))
		return true;
	if (fstat(STDIN_FILENO, &st) != 0)
		return false;
	if (S_ISREG(st.st_mode))
		return true;
	return S_ISCHR(st.st_mode) && stat("/dev/null", &null) == 0 && st.st_rdev == null.st_rdev;
}

/* Writes out what is still held (the run that stands), or drops it. */
void
retry_hold_end(struct child_hold *h, bool write_out)
{
	const char *p = h->buf;
	size_t left = h->len;

	while (write_out && left > 0) {
		ssize_t n = write(STDOUT_FILENO, p, left);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		p += n;
		left -= (size_t)n;
	}
	free(h->buf);
	memset(h, 0, sizeof(*h));
}

/* The reset to wait for before a retry: the signal's, the breaker's after
 * recording when later, else a backoff. */
static double
retry_wake(const struct run_ctx *x, const struct run_result *r, double now)
{
	double wake = r->sig.resets_at;
	enum breaker_change c = r->outcome.change;

	if (r->run_id != 0 && c != CHANGE_NONE && c != CHANGE_CLOSED && r->outcome.breaker.resets_at > wake)
		wake = r->outcome.breaker.resets_at;
	return wake > now ? wake : now + ldexp(RETRY_BACKOFF, r->attempts - 1);
}

/* Whether to run again: a limit before any real output, attempts left,
 * and the reset within the --wait budget.  *wake is when. */
bool
retry_wanted(const struct run_ctx *x, const struct run_result *r, double *wake)
{
	enum reason reason = r->sig.reason;
	double now = run_clock(&x->b);
	char left[32];

	if (!x->retry_ok || r->attempts > x->o.retry_max || r->saw_output || x->hold.overflowed ||
	    r->term_signal != 0)
		return false;
	if (reason != REASON_RATE_LIMIT && reason != REASON_USAGE_LIMIT && reason != REASON_OVERLOADED)
		return false;
	*wake = retry_wake(x, r, now);
	format_duration_short(*wake - now, left, sizeof(left));
	if (!x->o.quiet)
		own_line();
	if (*wake - now > x->o.wait_max) {
		if (!x->o.quiet)
			warnx_visible("%s: %s; not retrying: the reset is in %s, beyond the --wait budget",
			    x->id.family, reason_name(reason), left);
		return false;
	}
	if (!x->o.quiet)
		warnx_visible("%s: %s before any output; retrying in %s (attempt %d of %lld)", x->id.family,
		    reason_name(reason), left, r->attempts + 1, x->o.retry_max + 1);
	return true;
}

/* Waits for the retry and passes the gate again: -1 to run, else the
 * attempt that stands is final (*exit_rc >= 0 when it was interrupted). */
bool
retry_prepare(struct run_ctx *x, double wake, int *exit_rc)
{
	double now = run_clock(&x->b);
	int rc;

	*exit_rc = -1;
	rc = wait_plain(&x->b, &x->o, &x->id, "retry", wake + breaker_jitter(wake - now));
	if (rc < 0)
		rc = gate_before_spawn(&x->b, &x->o, &x->id, x->o.wait_max, x->o.force);
	if (rc == EXIT_REFUSED)
		return false;
	if (rc >= 0) {
		*exit_rc = rc;
		return false;
	}
	retry_hold_end(&x->hold, false);
	if (lseek(STDIN_FILENO, 0, SEEK_SET) < 0 && errno != ESPIPE)
		warn("--retry: rewinding stdin");
	return true;
}
