/*
 * pty-echo: a keystroke's echo latency through a command on a terminal.
 * Runs the command on a new pseudo-terminal (80x24, canonical mode with
 * echo, as a shell leaves it), waits until it echoes, then types KEYS
 * letters one at a time, each after the last one's echo and a 2 ms pause
 * (an Enter every 50 keys, not timed), and prints each letter's time from
 * the write to the first byte of its echo, in microseconds, one a line.
 *     pty-echo KEYS command [arg ...]
 * Built by bench/pty-echo.sh.
 */
#include <errno.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static double
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* Reads what arrives within ms; returns the byte count (0: nothing). */
static ssize_t
read_within(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char buf[4096];

	if (poll(&p, 1, ms) <= 0)
		return 0;
	return read(fd, buf, sizeof(buf));
}

static void
drain(int fd, int quiet_ms)
{
	while (read_within(fd, quiet_ms) > 0)
		;
}

static pid_t
spawn(char **argv, int *master)
{
	struct winsize ws = { .ws_row = 24, .ws_col = 80 };
	int slave;
	pid_t pid;

	if (openpty(master, &slave, NULL, NULL, &ws) < 0)
		return -1;
	if ((pid = fork()) == 0) {
		setsid();
		ioctl(slave, TIOCSCTTY, 0);
		dup2(slave, 0);
		dup2(slave, 1);
		dup2(slave, 2);
		close(slave);
		close(*master);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(slave);
	return pid;
}

int
main(int argc, char **argv)
{
	int keys, master, status;
	pid_t pid;

	if (argc < 3 || (keys = atoi(argv[1])) < 1) {
		fprintf(stderr, "usage: pty-echo KEYS command [arg ...]\n");
		return 2;
	}
	if ((pid = spawn(argv + 2, &master)) < 0) {
		perror("pty-echo");
		return 1;
	}
	/* Ready when a key comes back; then settled (a wrapper's terminal
	 * set up, the probe's echo gone). */
	for (int i = 0; i < 100 && (write(master, "x", 1), read_within(master, 100)) <= 0; i++)
		;
	usleep(300000);
	drain(master, 50);
	for (int k = 1; k <= keys; k++) {
		double t0 = now_us();

		if (write(master, "a", 1) != 1 || read_within(master, 5000) <= 0) {
			fprintf(stderr, "pty-echo: no echo for key %d\n", k);
			kill(pid, SIGKILL);
			return 1;
		}
		printf("%.1f\n", now_us() - t0);
		usleep(2000);
		drain(master, 0);
		if (k % 50 == 0) {
			(void)!write(master, "\r", 1);
			drain(master, 20);
		}
	}
	(void)!write(master, "\r\x04", 2);
	drain(master, 200);
	close(master);
	waitpid(pid, &status, 0);
	return 0;
}
