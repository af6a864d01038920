/*
 * pq_loader.h: libpq, loaded with dlopen(3) when a PostgreSQL store is
 * first opened instead of linked.  Linked, libpq and the thirty libraries
 * it pulls in (TLS, Kerberos, LDAP) cost every rlwrap start several
 * milliseconds of dynamic linking, wrapper and `status --short` alike,
 * when only a store on a server needs them.
 *
 * Include after <libpq-fe.h>: each libpq function lib/store/store_pg.c calls then
 * names the loaded one (pq_api), with the type libpq-fe.h gives it.  Call
 * pq_load() before the first of them.  A libpq function new to
 * lib/store/store_pg.c goes into PQ_FUNCTIONS with its #define below: rlwrap does
 * not link libpq, so until then the link fails, naming it.
 *
 * Ownership: the library, once loaded, stays loaded until exit.
 */
#ifndef RLWRAP_PQ_LOADER_H
#define RLWRAP_PQ_LOADER_H

#include <stdbool.h>
#include <stddef.h>

#include <libpq-fe.h>

/* The shared object's name: libpq's soname has been .5 since 2005. */
#define PQ_SONAME "libpq.so.5"

#define PQ_FUNCTIONS(X) X(PQclear) X(PQntuples) X(PQstatus) X(PQlibVersion) X(PQerrorMessage) \
	X(PQisBusy) X(PQsocket) X(PQsetNoticeProcessor) X(PQsendQueryParams) X(PQresultStatus) \
	X(PQresultErrorMessage) X(PQresultErrorField) X(PQgetvalue) X(PQgetisnull) X(PQgetResult) \
	X(PQfinish) X(PQexec) X(PQconsumeInput) X(PQconninfoParse) X(PQconninfoFree) \
	X(PQconnectdbParams) X(PQnotifies) X(PQfreemem) X(PQenterPipelineMode) \
	X(PQexitPipelineMode) X(PQpipelineSync) X(PQbackendPID)

#define PQ_MEMBER(name) __typeof__(name) *name;
struct pq_api {
	PQ_FUNCTIONS(PQ_MEMBER)
};
#undef PQ_MEMBER
extern struct pq_api pq_api;

/* Loads libpq and every function above, once; false with a message (the
 * library or a function is missing) otherwise. */
bool pq_load(char *err, size_t size);
/* PQlibVersion() of the loadable libpq (160004 for 16.4), 0 when none. */
int pq_lib_version(void);

#ifndef PQ_LOADER_IMPL
#define PQclear pq_api.PQclear
#define PQntuples pq_api.PQntuples
#define PQstatus pq_api.PQstatus
#define PQlibVersion pq_api.PQlibVersion
#define PQerrorMessage pq_api.PQerrorMessage
#define PQisBusy pq_api.PQisBusy
#define PQsocket pq_api.PQsocket
#define PQsetNoticeProcessor pq_api.PQsetNoticeProcessor
#define PQsendQueryParams pq_api.PQsendQueryParams
#define PQresultStatus pq_api.PQresultStatus
#define PQresultErrorMessage pq_api.PQresultErrorMessage
#define PQresultErrorField pq_api.PQresultErrorField
#define PQgetvalue pq_api.PQgetvalue
#define PQgetisnull pq_api.PQgetisnull
#define PQgetResult pq_api.PQgetResult
#define PQfinish pq_api.PQfinish
#define PQexec pq_api.PQexec
#define PQconsumeInput pq_api.PQconsumeInput
#define PQconninfoParse pq_api.PQconninfoParse
#define PQconninfoFree pq_api.PQconninfoFree
#define PQconnectdbParams pq_api.PQconnectdbParams
#define PQnotifies pq_api.PQnotifies
#define PQfreemem pq_api.PQfreemem
#define PQenterPipelineMode pq_api.PQenterPipelineMode
#define PQexitPipelineMode pq_api.PQexitPipelineMode
#define PQpipelineSync pq_api.PQpipelineSync
#define PQbackendPID pq_api.PQbackendPID
#endif

#endif
