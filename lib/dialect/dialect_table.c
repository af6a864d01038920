/*
 * The dialect table, from lib/dialect/dialect_list.h, which the build generates from
 * the dialect sources listed in Makefile.am (DIALECT_SOURCES): one
 * DIALECT(dialect_<name>) per struct dialect they define, in that order.
 * Everything that names the families reads this table.
 */
#include <stdio.h>
#include <string.h>

#include "classify.h"
#include "dialect.h"

#define DIALECT(d) extern const struct dialect d;
#include "dialect_list.h"
#undef DIALECT

#define DIALECT(d) &d,
const struct dialect *const dialect_table[] = {
#include "dialect_list.h"
	NULL
};
#undef DIALECT

const struct dialect *
dialect_find(const char *name)
{
	for (int i = 0; dialect_table[i] != NULL; i++)
		if (strcmp(dialect_table[i]->name, name) == 0)
			return dialect_table[i];
	return NULL;
}

bool
family_known(const char *name)
{
	return dialect_find(name) != NULL;
}

/* Built on first use; only the command line's error paths ask for it. */
const char *
family_list(void)
{
	static char list[256];
	size_t len = 0;

	if (list[0] != '\0')
		return list;
	for (int i = 0; dialect_table[i] != NULL && len < sizeof(list); i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", i > 0 ? ", " : "",
		    dialect_table[i]->name);
	return list;
}
