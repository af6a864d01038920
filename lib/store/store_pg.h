/*
 * store_pg.h: what the PostgreSQL backend shows of a connection string
 * (its ops table is in store_backend.h).
 *
 * Ownership: the caller owns every buffer; nothing is kept.
 */
#ifndef RLWRAP_STORE_PG_H
#define RLWRAP_STORE_PG_H

#include <stddef.h>

/* The URL or conninfo string with its password, wherever written, as "***". */
void pg_display_url(const char *url, char *out, size_t size);

#endif
