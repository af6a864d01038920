/* breaker_memo.c: the open breakers a server store last showed this host. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "breaker_memo.h"
#include "key.h"
#include "store_backend.h"

#define MEMO_VERSION 1

/* FNV-1a: the file's name tells stores apart; it needs no secrecy (the
 * directory is the user's own), only to differ between URLs and schemas. */
static uint64_t
name_hash(const char *a, const char *b)
{
	uint64_t h = 14695981039346656037ULL;

	for (const char *s = a; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	h = (h ^ 0xff) * 1099511628211ULL;   /* "ab" + "c" is not "a" + "bc" */
	for (const char *s = b; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

bool
memo_path(const struct store_options *opts, char *buf, size_t size)
{
	const char *slash = strrchr(opts->journal_path, '/');
	int n;

	if (!store_is_server_url(opts->path) || slash == NULL)
		return false;
	n = snprintf(buf, size, "%.*s/server-%016llx.memo", (int)(slash - opts->journal_path),
	    opts->journal_path, (unsigned long long)name_hash(opts->path, opts->schema));
	return n > 0 && (size_t)n < size;
}

/* The memo's rows, or a new empty array when there is no readable memo. */
static json_t *
memo_rows(const char *path)
{
	json_t *doc = json_load_file(path, 0, NULL), *rows = json_object_get(doc, "breakers");

	if (json_is_array(rows) && json_integer_value(json_object_get(doc, "version")) == MEMO_VERSION) {
		json_incref(rows);
		json_decref(doc);
		return rows;
	}
	json_decref(doc);
	return json_array();
}

static const char *
row_text(const json_t *row, const char *name)
{
	const char *s = json_string_value(json_object_get(row, name));

	return s != NULL ? s : "";
}

static double
row_number(const json_t *row, const char *name)
{
	return json_number_value(json_object_get(row, name));
}

static bool
row_of_key(const json_t *row, const char *account, const char *family)
{
	return strcmp(row_text(row, "account"), account) == 0 && strcmp(row_text(row, "family"), family) == 0;
}

/* A row as the breaker it was when read: open, with its reason and reset. */
static bool
row_breaker(const json_t *row, struct breaker *b)
{
	memset(b, 0, sizeof(*b));
	if (!reason_from_name(row_text(row, "reason"), &b->reason))
		return false;
	strlcpy(b->key.account, row_text(row, "account"), sizeof(b->key.account));
	strlcpy(b->key.family, row_text(row, "family"), sizeof(b->key.family));
	strlcpy(b->key.scope, row_text(row, "scope"), sizeof(b->key.scope));
	strlcpy(b->reset_source, row_text(row, "reset_source"), sizeof(b->reset_source));
	strlcpy(b->last_message, row_text(row, "message"), sizeof(b->last_message));
	b->state = BREAKER_OPEN;
	b->resets_at = row_number(row, "resets_at");
	b->trips = (long)row_number(row, "trips");
	b->last_trip_at = row_number(row, "last_trip_at");
	b->updated_at = row_number(row, "seen_at");
	return b->key.scope[0] != '\0';
}

bool
memo_blocker(const char *path, const char *account, const char *family, const char *model,
    double now, double ttl, struct breaker *out)
{
	json_t *rows = memo_rows(path), *row;
	struct breaker b;
	size_t i;
	bool found = false;

	json_array_foreach(rows, i, row) {
		double seen = row_number(row, "seen_at");

		/* Read too long ago, or (a clock set back) "later" than now. */
		if (!row_of_key(row, account, family) || now - seen >= ttl || seen - now >= ttl)
			continue;
		if (row_breaker(row, &b) && b.resets_at > now && scope_applies(b.key.scope, model) &&
		    (!found || b.resets_at > out->resets_at)) {
			*out = b;
			found = true;
		}
	}
	json_decref(rows);
	return found;
}

bool
memo_open_rows(const char *path, double now, double ttl, struct breaker **rows, size_t *count)
{
	json_t *doc = memo_rows(path), *row;
	struct breaker b;
	size_t i;

	*rows = NULL;
	*count = 0;
	json_array_foreach(doc, i, row) {
		double seen = row_number(row, "seen_at");
		struct breaker *grown;

		if (now - seen >= ttl || seen - now >= ttl || !row_breaker(row, &b) || b.resets_at <= now)
			continue;
		if ((grown = reallocarray(*rows, *count + 1, sizeof(**rows))) == NULL) {
			free(*rows);
			*rows = NULL;
			*count = 0;
			json_decref(doc);
			return false;
		}
		*rows = grown;
		(*rows)[(*count)++] = b;
	}
	json_decref(doc);
	return true;
}

static json_t *
row_new(const struct breaker *b, double now)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:f, s:s, s:s, s:I, s:f, s:f}",
	    "account", b->key.account, "family", b->key.family, "scope", b->key.scope,
	    "reason", reason_name(b->reason), "resets_at", b->resets_at, "reset_source", b->reset_source,
	    "message", b->last_message, "trips", (json_int_t)b->trips, "last_trip_at", b->last_trip_at,
	    "seen_at", now);
}

/* The memo as rows: a new file renamed over the old one, or no file for none. */
static void
memo_write(const char *path, json_t *rows)
{
	char tmp[4096];
	struct store_error err;
	json_t *doc;
	int fd, n = snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", path, (long)getpid());

	if (json_array_size(rows) == 0) {
		unlink(path);
		return;
	}
	if (n < 0 || (size_t)n >= sizeof(tmp))
		return;
	doc = json_pack("{s:i, s:O}", "version", MEMO_VERSION, "breakers", rows);
	if (doc == NULL || !store_make_parent_dirs(path, &err) || (fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) < 0) {
		json_decref(doc);
		return;
	}
	if (json_dumpfd(doc, fd, JSON_COMPACT) != 0 || close(fd) != 0 || rename(tmp, path) != 0)
		unlink(tmp);
	json_decref(doc);
}

void
memo_note(const char *path, const char *account, const char *family, const char *model,
    const struct breaker *open, double now)
{
	json_t *old = memo_rows(path), *rows = json_array(), *row;
	size_t i;

	json_array_foreach(old, i, row) {
		/* What the server showed for model replaces the rows it covers. */
		if (row_of_key(row, account, family) && ((model != NULL && scope_applies(row_text(row, "scope"), model)) ||
		    (open != NULL && strcmp(row_text(row, "scope"), open->key.scope) == 0)))
			continue;
		json_array_append(rows, row);
	}
	if (open != NULL && open->resets_at > now)
		json_array_append_new(rows, row_new(open, now));
	/* Nothing new (the usual look that found nothing open): no write. */
	if (!(open == NULL && json_array_size(rows) == json_array_size(old)))
		memo_write(path, rows);
	json_decref(rows);
	json_decref(old);
}

void
memo_forget(const char *path)
{
	unlink(path);
}
