/* ownfiles.c: the one list of rlwrap's own files, for the output-file guard. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "breaker_memo.h"
#include "holder.h"
#include "host_lease.h"
#include "ownfiles.h"
#include "run_sign.h"
#include "store.h"

static void
add(struct own_files *out, const char *what, const char *path, const char *suffix)
{
	struct own_file *f;
	int n;

	if (out->n >= OWN_FILES_MAX || path[0] == '\0')
		return;
	f = &out->file[out->n];
	n = snprintf(f->path, sizeof(f->path), "%s%s", path, suffix);
	if (n <= 0 || (size_t)n >= sizeof(f->path))
		return;
	f->what = what;
	out->n++;
}

/* A SQLite file and the side files SQLite keeps beside it. */
static void
add_sqlite(struct own_files *out, const char *path, const char *const what[4])
{
	add(out, what[0], path, "");
	add(out, what[1], path, "-wal");
	add(out, what[2], path, "-shm");
	add(out, what[3], path, "-journal");
}

/* name in the directory of path. */
static void
add_beside(struct own_files *out, const char *what, const char *path, const char *name)
{
	const char *slash = strrchr(path, '/');
	char buf[PATH_MAX];
	int n = slash == NULL ? snprintf(buf, sizeof(buf), "%s", name) :
	    snprintf(buf, sizeof(buf), "%.*s/%s", (int)(slash - path), path, name);

	if (n > 0 && (size_t)n < sizeof(buf))
		add(out, what, buf, "");
}

void
own_files_list(struct own_files *out, const struct config *cfg)
{
	static const char *const state[4] = {
		"the state file", "the state file's -wal", "the state file's -shm", "the state file's -journal",
	};
	static const char *const journal[4] = {
		"the server store's journal", "the journal's -wal", "the journal's -shm", "the journal's -journal",
	};
	struct store_options opts;
	struct store_error error;
	char buf[PATH_MAX + 64], host[256];

	out->n = 0;
	if (config_default_path(buf, sizeof(buf)))
		add(out, "the config", buf, "");
	if (run_sign_key_path(buf, sizeof(buf)))
		add(out, "the key file", buf, "");
	if (!store_options_resolve(&opts, cfg != NULL ? cfg->store_path : NULL, 0, 0, &error))
		return;
	if (cfg != NULL)
		store_options_server(&opts, cfg->store_schema, 0, 0, cfg->store_pool);
	if (!store_is_server_url(opts.path)) {
		add_sqlite(out, opts.path, state);
		add_beside(out, "the hooks log", opts.path, "hooks.log");
	}
	add_sqlite(out, opts.journal_path, journal);
	add(out, "the journal's replay marker", opts.journal_path, ".replay");
	add(out, "the server's away marker", opts.journal_path, ".away");
	if (memo_path(&opts, buf, sizeof(buf)))
		add(out, "the server store's memo", buf, "");
	holder_local_host(host, sizeof(host));
	if (holder_lease_stamp(&opts, host, buf, sizeof(buf)))
		add(out, "the host lease's stamp", buf, "");
}
