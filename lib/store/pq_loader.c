/* pq_loader.c: dlopen(3) of libpq on first use (pq_loader.h says why). */
#define PQ_LOADER_IMPL
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "pq_loader.h"

struct pq_api pq_api;
static bool pq_loaded;

bool
pq_load(char *err, size_t size)
{
	void *lib;

	if (pq_loaded)
		return true;
	/* Lazy: the calls of libpq's thirty libraries that a connection never
	 * makes are never bound (docs/design.md section 6). */
	if ((lib = dlopen(PQ_SONAME, RTLD_LAZY | RTLD_LOCAL)) == NULL) {
		snprintf(err, size, "PostgreSQL store: cannot load %s: %s", PQ_SONAME, dlerror());
		return false;
	}
#define PQ_FIND(name) \
	if ((*(void **)&pq_api.name = dlsym(lib, #name)) == NULL) { \
		snprintf(err, size, "PostgreSQL store: %s has no %s", PQ_SONAME, #name); \
		return false; \
	}
	PQ_FUNCTIONS(PQ_FIND)
#undef PQ_FIND
	pq_loaded = true;
	return true;
}

int
pq_lib_version(void)
{
	char err[256];

	return pq_load(err, sizeof(err)) ? pq_api.PQlibVersion() : 0;
}
