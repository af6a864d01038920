/* breaker_memo.c: the open breakers a server store last showed this host. */
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
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

/* ---- refusals from the memo, counted until the next server contact ---- */

/* The counter file, open and locked (flock: the counts are read, changed
 * and written back whole under it); -1 when it cannot be. */
static int
refusals_open(const char *memo, bool create)
{
	char path[PATH_MAX + 16];
	struct store_error err;
	int fd, n = snprintf(path, sizeof(path), "%s.refusals", memo);

	if (n < 0 || (size_t)n >= sizeof(path) || (create && !store_make_parent_dirs(path, &err)))
		return -1;
	if ((fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | (create ? O_CREAT : 0), 0600)) < 0)
		return -1;
	if (flock(fd, LOCK_EX) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Its rows, or a new empty array (an empty or unreadable file counts none). */
static json_t *
refusals_read(int fd)
{
	json_t *doc, *rows;

	if (lseek(fd, 0, SEEK_SET) != 0 || (doc = json_loadfd(fd, 0, NULL)) == NULL)
		return json_array();
	rows = json_object_get(doc, "refusals");
	if (!json_is_array(rows) || json_integer_value(json_object_get(doc, "version")) != MEMO_VERSION) {
		json_decref(doc);
		return json_array();
	}
	json_incref(rows);
	json_decref(doc);
	return rows;
}

static bool
refusals_write(int fd, json_t *rows)
{
	json_t *doc = json_pack("{s:i, s:O}", "version", MEMO_VERSION, "refusals", rows);
	bool ok = doc != NULL && ftruncate(fd, 0) == 0 && lseek(fd, 0, SEEK_SET) == 0 &&
	    json_dumpfd(doc, fd, JSON_COMPACT) == 0;

	json_decref(doc);
	return ok;
}

static bool
refusal_row_is(const json_t *row, const struct memo_refusals *r)
{
	return row_of_key(row, r->blocking.key.account, r->blocking.key.family) &&
	    strcmp(row_text(row, "scope"), r->blocking.key.scope) == 0 && strcmp(row_text(row, "model"), r->model) == 0;
}

/* r's counts into rows: its row's grown (the latest breaker kept), or a new one. */
static bool
refusals_merge(json_t *rows, const struct memo_refusals *r)
{
	json_t *row, *b;
	double first, last;
	size_t i;

	json_array_foreach(rows, i, row) {
		if (!refusal_row_is(row, r))
			continue;
		first = row_number(row, "first_at");
		last = row_number(row, "last_at");
		json_object_set_new(row, "n", json_integer((json_int_t)row_number(row, "n") + r->n));
		json_object_set_new(row, "first_at", json_real(first < r->first_at ? first : r->first_at));
		if (last > r->last_at)
			return true;
		json_object_set_new(row, "last_at", json_real(r->last_at));
		b = row_new(&r->blocking, r->last_at);
		json_object_update_existing(row, b);
		json_decref(b);
		return true;
	}
	if ((row = row_new(&r->blocking, r->last_at)) == NULL)
		return false;
	json_object_set_new(row, "model", json_string(r->model));
	json_object_set_new(row, "n", json_integer(r->n));
	json_object_set_new(row, "first_at", json_real(r->first_at));
	json_object_set_new(row, "last_at", json_real(r->last_at));
	return json_array_append_new(rows, row) == 0;
}

bool
memo_refusals_add(const char *path, const struct memo_refusals *add, size_t count)
{
	json_t *rows;
	bool ok = true;
	int fd;

	if (count == 0)
		return true;
	if ((fd = refusals_open(path, true)) < 0)
		return false;
	rows = refusals_read(fd);
	for (size_t i = 0; ok && i < count; i++)
		ok = add[i].n <= 0 || refusals_merge(rows, &add[i]);
	ok = ok && refusals_write(fd, rows);
	json_decref(rows);
	close(fd);
	return ok;
}

bool
memo_refusal_count(const char *path, const struct breaker *blocking, const char *model, double now)
{
	struct memo_refusals r = { .blocking = *blocking, .n = 1, .first_at = now, .last_at = now };

	strlcpy(r.model, model != NULL ? model : "", sizeof(r.model));
	return memo_refusals_add(path, &r, 1);
}

static bool
refusal_from_row(const json_t *row, struct memo_refusals *r)
{
	memset(r, 0, sizeof(*r));
	if (!row_breaker(row, &r->blocking))
		return false;
	strlcpy(r->model, row_text(row, "model"), sizeof(r->model));
	r->n = (long)row_number(row, "n");
	r->first_at = row_number(row, "first_at");
	r->last_at = row_number(row, "last_at");
	return r->n > 0;
}

bool
memo_refusals_take(const char *path, struct memo_refusals **out, size_t *count)
{
	json_t *rows, *row;
	size_t i;
	int fd;

	*out = NULL;
	*count = 0;
	if ((fd = refusals_open(path, false)) < 0)
		return true;   /* nothing counted */
	rows = refusals_read(fd);
	if (json_array_size(rows) > 0 && (*out = reallocarray(NULL, json_array_size(rows), sizeof(**out))) == NULL) {
		json_decref(rows);
		close(fd);
		return false;
	}
	json_array_foreach(rows, i, row)
		*count += refusal_from_row(row, &(*out)[*count]);
	/* Taken: emptied under the lock, so another contact finds none. */
	if (ftruncate(fd, 0) != 0) {
		free(*out);
		*out = NULL;
		*count = 0;
	}
	json_decref(rows);
	close(fd);
	return true;
}
