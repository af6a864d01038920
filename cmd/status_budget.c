/*
 * The budgets for `status`: each configured budget of each key that may
 * spend it (the account a spawn would get, and those running or waiting
 * now), what its window holds, and when a spawn has room again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "budget.h"
#include "cmd.h"
#include "conf.h"

/* Whether (account, family) is already in rows[n]. */
static bool
key_listed(const struct budget_state *rows, size_t n, const char *account, const char *family)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(rows[i].account, account) == 0 && strcmp(rows[i].family, family) == 0)
			return true;
	return false;
}

/* Every budget of fc for account, appended to *rows. */
static bool
add_key(struct store *store, const struct family_config *fc, const char *account, double now,
    struct budget_state **rows, size_t *n, struct store_error *err)
{
	struct budget_state *grown;

	if (key_listed(*rows, *n, account, fc->name))
		return true;
	grown = reallocarray(*rows, *n + fc->budgets_len, sizeof(**rows));
	if (grown == NULL)
		return false;
	*rows = grown;
	for (size_t i = 0; i < fc->budgets_len; i++) {
		struct budget_key key = { .account = account, .family = fc->name, .budgets = &fc->budgets[i],
			.count = 1 };
		struct budget_look look;
		struct budget_state *s = &grown[*n];

		if (!budget_look(store, &key, now, fc->estimate_tokens, &look, err))
			return false;
		memset(s, 0, sizeof(*s));
		strlcpy(s->family, fc->name, sizeof(s->family));
		strlcpy(s->account, account, sizeof(s->account));
		s->budget = fc->budgets[i];
		s->room = look.room;
		s->used = look.used_each[0];
		s->room_at = look.room ? 0 : look.until;
		(*n)++;
	}
	return true;
}

bool
status_budgets(struct store *store, const struct config *cfg, const char *const *accounts,
    const char *const *families, size_t nkeys, double now, struct budget_state **rows, size_t *n,
    struct store_error *err)
{
	char account[KEY_ACCOUNT_MAX];

	*rows = NULL;
	*n = 0;
	for (size_t f = 0; f < cfg->families_len; f++) {
		const struct family_config *fc = &cfg->families[f];

		if (fc->budgets_len == 0)
			continue;
		config_resolve_account(cfg, fc->name, NULL, account, sizeof(account));
		if (!add_key(store, fc, account, now, rows, n, err))
			return false;
		for (size_t k = 0; k < nkeys; k++)
			if (strcmp(families[k], fc->name) == 0 && !add_key(store, fc, accounts[k], now, rows, n, err))
				return false;
	}
	return true;
}

/* "30000 tokens per 1m0s model=opus" */
void
status_budget_text(const struct budget_state *s, char *buf, size_t size)
{
	char window[32];

	format_duration_short(s->budget.window, window, sizeof(window));
	snprintf(buf, size, "%g %s per %s%s%s", s->budget.amount, budget_unit_name(s->budget.unit), window,
	    s->budget.model[0] != '\0' ? " model=" : "", s->budget.model);
}
