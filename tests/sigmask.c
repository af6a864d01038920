/*
 * sigmask: prints the signals this process starts with blocked and ignored,
 * by name, one line each ("blocked: INT USR1" / "ignored: -"), so a test can
 * compare a child of rlwrap with the same helper run directly.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

static void
print_set(const char *label, const sigset_t *set)
{
	int any = 0;

	printf("%s:", label);
	for (int sig = 1; sig < NSIG; sig++) {
		const char *name = sigabbrev_np(sig);

		if (sigismember(set, sig) != 1)
			continue;
		if (name != NULL)
			printf(" %s", name);
		else
			printf(" %d", sig);
		any = 1;
	}
	printf("%s\n", any ? "" : " -");
}

int
main(void)
{
	sigset_t blocked, ignored;
	struct sigaction sa;

	sigprocmask(SIG_BLOCK, NULL, &blocked);
	sigemptyset(&ignored);
	for (int sig = 1; sig < NSIG; sig++)
		if (sigaction(sig, NULL, &sa) == 0 && sa.sa_handler == SIG_IGN)
			sigaddset(&ignored, sig);
	print_set("blocked", &blocked);
	print_set("ignored", &ignored);
	return 0;
}
