/*
 * sigtrap [SIG]: a fake agent that catches the signals rlwrap forwards.
 * Prints "ready" (with its pid), then "got NAME" for each signal caught, and
 * exits 0 after SIG (default TERM).  Dies of SIGALRM after 10 seconds, so a
 * test can never hang on it.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const int trapped[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH,
	SIGCONT, SIGTSTP };
static volatile sig_atomic_t done_sig;

static void
on_signal(int sig)
{
	char line[32];
	const char *name = sigabbrev_np(sig);
	int n = snprintf(line, sizeof(line), "got %s\n", name != NULL ? name : "?");

	(void)!write(STDOUT_FILENO, line, (size_t)n);
	if (sig == done_sig)
		_exit(0);
}

int
main(int argc, char **argv)
{
	struct sigaction sa;
	char name[16];

	done_sig = SIGTERM;
	if (argc > 1) {
		for (int s = 1; s < NSIG; s++)
			if (sigabbrev_np(s) != NULL && strcmp(sigabbrev_np(s), argv[1]) == 0)
				done_sig = s;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	for (size_t i = 0; i < sizeof(trapped) / sizeof(trapped[0]); i++)
		sigaction(trapped[i], &sa, NULL);
	snprintf(name, sizeof(name), "%d", (int)getpid());
	printf("ready %s\n", name);
	fflush(stdout);
	alarm(10);
	signal(SIGALRM, SIG_DFL);
	for (;;)
		pause();
}
