/* holder.c: process identity and the one liveness rule (holder.h). */
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "holder.h"

void
holder_local_host(char *buf, size_t size)
{
	const char *env = getenv("RLWRAP_HOST");

	if (env != NULL && *env != '\0') {
		strlcpy(buf, env, size);
		return;
	}
	if (gethostname(buf, size) != 0)
		strlcpy(buf, "localhost", size);
	buf[size - 1] = '\0';
}

long long
holder_start_time(long pid)
{
	/* /proc where there is one, else sysctl (compat/proc_start.c). */
	return process_start_time(pid);
}

bool
holder_self(struct probe_lease *holder)
{
	memset(holder, 0, sizeof(*holder));
	holder->pid = (long)getpid();
	holder->start_time = holder_start_time(holder->pid);
	holder_local_host(holder->host, sizeof(holder->host));
	return holder->start_time >= 0;
}

bool
holder_same(const struct probe_lease *a, const struct probe_lease *b)
{
	return a->pid != 0 && a->pid == b->pid && a->start_time == b->start_time &&
	    strcmp(a->host, b->host) == 0;
}

bool
holder_alive(const struct probe_lease *holder, double now, const char *local_host)
{
	long long start;

	if (holder->pid <= 0)
		return false;
	if (strcmp(holder->host, local_host) != 0)
		return holder->host_until > 0 ? holder->host_until > now : holder->expires_at > now;
	start = holder_start_time(holder->pid);
	return start >= 0 && start == holder->start_time;
}
