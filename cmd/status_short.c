/*
 * rlwrap status --short: one line for a shell prompt or a status bar, e.g.
 * "claude 1h23m · codex ok".  The families that matter are the ones with a
 * breaker that blocks a spawn now (open: the time left; half-open: a probe
 * runs) and the agent families that ran in the last 24 hours ("ok"; not
 * "generic", the catch-all for other commands).  Nothing at all is printed
 * when there are none, so an empty prompt segment stays empty.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "breaker.h"
#include "cmd.h"
#include "visible.h"

#define SHORT_SEPARATOR " \xc2\xb7 "   /* U+00B7 MIDDLE DOT */

struct short_item {
	char family[KEY_FAMILY_MAX];
	char text[640];   /* "claude:opus@work 1h23m" */
};

/* "2d3h", "1h23m", "45m", "<1m": minutes rounded up, never seconds. */
static void
format_left(double secs, char *buf, size_t size)
{
	long long m = (long long)ceil((secs < 0 ? 0 : secs) / 60);

	if (secs < 60)
		snprintf(buf, size, "<1m");
	else if (m >= 24 * 60)
		snprintf(buf, size, "%lldd%lldh", m / (24 * 60), m % (24 * 60) / 60);
	else if (m >= 60)
		snprintf(buf, size, "%lldh%02lldm", m / 60, m % 60);
	else
		snprintf(buf, size, "%lldm", m);
}

static int
by_family_then_text(const void *a, const void *b)
{
	const struct short_item *x = a, *y = b;
	int c = strcmp(x->family, y->family);

	return c != 0 ? c : strcmp(x->text, y->text);
}

static bool
family_blocked(const struct short_item *items, size_t n, const char *family)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(items[i].family, family) == 0)
			return true;
	return false;
}

/* "claude budget 3m": a budget without room for the next spawn, unless a
 * breaker of the family already says it is blocked. */
static size_t
budget_items(const struct budget_state *budgets, size_t nbudgets, time_t now, struct short_item *items,
    size_t n)
{
	char left[32];

	for (size_t i = 0; i < nbudgets; i++) {
		const struct budget_state *s = &budgets[i];

		if (s->room || family_blocked(items, n, s->family))
			continue;
		format_left(s->room_at - (double)now, left, sizeof(left));
		strlcpy(items[n].family, s->family, sizeof(items[n].family));
		snprintf(items[n].text, sizeof(items[n].text), "%s budget %s", s->family, left);
		n++;
	}
	return n;
}

/* "claude reserve 1h20m" where the reserve holds, "claude five_hour 92%"
 * where a window warns, unless a breaker already blocks the family. */
static size_t
reading_items(const struct short_readings *rd, time_t now, struct short_item *items, size_t n)
{
	size_t first = n;
	bool holds;

	for (size_t i = 0; rd != NULL && i < rd->n; i++) {
		if (family_blocked(items, first, rd->rows[i].family) ||
		    !status_short_reading(rd->cfg, &rd->rows[i], (double)now, items[n].text, sizeof(items[n].text),
		    &holds))
			continue;
		strlcpy(items[n].family, rd->rows[i].family, sizeof(items[n].family));
		n++;
	}
	return n;
}

/* Appends the blocking breakers and budgets, then "family ok" for the
 * families that ran lately and block nothing; returns the count. */
static size_t
short_items(const struct breaker *rows, size_t nrows, const struct family_counts *counts,
    size_t ncounts, const struct budget_state *budgets, size_t nbudgets, const struct short_readings *rd,
    time_t now, struct short_item *items)
{
	struct probe_lease self;
	size_t n = 0;
	char key[512], left[32];

	holder_self(&self);
	for (size_t i = 0; i < nrows; i++) {
		enum breaker_view view = breaker_view(&rows[i], (double)now, self.host);

		if (view != VIEW_OPEN && view != VIEW_HALF_OPEN)
			continue;
		key_format(&rows[i].key, key, sizeof(key));
		if (view == VIEW_OPEN)
			format_left(rows[i].resets_at - (double)now, left, sizeof(left));
		strlcpy(items[n].family, rows[i].key.family, sizeof(items[n].family));
		snprintf(items[n].text, sizeof(items[n].text), "%s %s", key,
		    view == VIEW_OPEN ? left : "probing");
		n++;
	}
	n = reading_items(rd, now, items, n);
	n = budget_items(budgets, nbudgets, now, items, n);
	for (size_t i = 0; i < ncounts; i++) {
		if (strcmp(counts[i].family, "generic") == 0 || family_blocked(items, n, counts[i].family))
			continue;
		strlcpy(items[n].family, counts[i].family, sizeof(items[n].family));
		snprintf(items[n].text, sizeof(items[n].text), "%s ok", counts[i].family);
		n++;
	}
	return n;
}

int
status_print_short(const struct breaker *rows, size_t nrows, const struct family_counts *counts,
    size_t ncounts, const struct budget_state *budgets, size_t nbudgets, const struct short_readings *readings,
    time_t now)
{
	struct short_item *items = calloc(nrows + ncounts + nbudgets + (readings != NULL ? readings->n : 0) + 1,
	    sizeof(*items));
	char shown[sizeof(items->text) * 4];
	size_t n;

	if (items == NULL)
		return 1;
	n = short_items(rows, nrows, counts, ncounts, budgets, nbudgets, readings, now, items);
	qsort(items, n, sizeof(*items), by_family_then_text);
	for (size_t i = 0; i < n; i++)   /* family, scope and account came from the store */
		printf("%s%s", i > 0 ? SHORT_SEPARATOR : "", visible_text(items[i].text, shown, sizeof(shown)));
	if (n > 0)
		putchar('\n');
	free(items);
	return fflush(stdout) == 0 ? 0 : 1;
}
