/*
 * tui: a fake full-screen agent for the job-control suite.  Switches its
 * terminal to raw mode, enters the alternate screen and hides the cursor,
 * prints "tui: ready PID", then acts on each key read:
 *   z or Ctrl-Z  suspend as vim does: screen and mode put back, SIGTSTP to
 *                its group; once continued, raw again, "tui: resumed"
 *   t            SIGTSTP to itself, nothing put back
 *   s            SIGSTOP to itself, nothing put back
 *   q            screen and mode put back, "tui: bye", exit 0
 *   d            die as a crash would: "tui: last words" (no newline), exit 3,
 *                with the alternate screen and the hidden cursor left on
 *   other        "tui: key C"
 * Prints "tui: continued" on SIGCONT and "tui: size ROWS COLS" on SIGWINCH.
 * End of input exits 0 ("tui: eof"), SIGHUP exits 129 ("tui: hangup", after
 * the key being handled).
 * Dies of SIGALRM after 60 seconds of running, so a test can never hang on it.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

static struct termios saved;
static int is_tty;
static volatile sig_atomic_t got_cont, got_winch, got_hup;

static void
say(const char *s)
{
	(void)!write(STDOUT_FILENO, s, strlen(s));
}

static void
on_signal(int sig)
{
	if (sig == SIGCONT)
		got_cont = 1;
	else if (sig == SIGWINCH)
		got_winch = 1;
	else if (sig == SIGHUP)
		got_hup = 1;
}

static void
enter(void)
{
	struct termios raw = saved;

	if (is_tty) {
		cfmakeraw(&raw);
		tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw);
	}
	say("\x1b[?1049h\x1b[?25l\x1b[2J\x1b[H");
}

static void
leave(void)
{
	say("\x1b[?25h\x1b[?1049l");
	if (is_tty)
		tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved);
}

static void
report_signals(void)
{
	char line[64];
	struct winsize ws;

	if (got_hup) {
		say("tui: hangup\r\n");
		_exit(129);
	}
	if (got_cont) {
		got_cont = 0;
		say("tui: continued\r\n");
	}
	if (got_winch) {
		got_winch = 0;
		if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0) {
			snprintf(line, sizeof(line), "tui: size %d %d\r\n", ws.ws_row, ws.ws_col);
			say(line);
		}
	}
}

static void
key(char c)
{
	char line[32];

	switch (c) {
	case 'z': case 0x1a:
		leave();
		kill(0, SIGTSTP);
		enter();
		say("tui: resumed\r\n");
		break;
	case 't':
		kill(getpid(), SIGTSTP);
		break;
	case 's':
		raise(SIGSTOP);
		break;
	case 'q':
		leave();
		say("tui: bye\n");
		exit(0);
	case 'd':
		say("tui: last words");
		_exit(3);
	default:
		snprintf(line, sizeof(line), "tui: key %c\r\n", c);
		say(line);
	}
}

int
main(void)
{
	struct sigaction sa;
	char line[32], c;
	ssize_t n;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGCONT, &sa, NULL);
	sigaction(SIGWINCH, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGTSTP, SIG_DFL);
	alarm(60);
	is_tty = tcgetattr(STDIN_FILENO, &saved) == 0;
	enter();
	snprintf(line, sizeof(line), "tui: ready %d\r\n", (int)getpid());
	say(line);
	for (;;) {
		report_signals();
		n = read(STDIN_FILENO, &c, 1);
		report_signals();
		if (n == 1)
			key(c);
		else if (n == 0) {
			leave();
			say("tui: eof\n");
			return 0;
		}
	}
}
