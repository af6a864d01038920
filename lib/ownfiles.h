/*
 * ownfiles.h: the files that are rlwrap's own, which no file it writes on
 * request (--signal-file, --raw-stream) may name: the state file and its
 * -wal, -shm and -journal and the hooks log beside it, a server store's
 * journal (and its side files), memo and host lease stamp, the config, and the key file
 * (docs/design.md section 13).
 *
 * Ownership: struct own_files is plain fixed arrays, filled in place.
 */
#ifndef RLWRAP_OWNFILES_H
#define RLWRAP_OWNFILES_H

#include <limits.h>
#include <stddef.h>

#include "conf.h"

#define OWN_FILES_MAX 16

struct own_file {
	char path[PATH_MAX];
	const char *what;     /* "the state file's -wal", a literal */
};

struct own_files {
	size_t n;
	struct own_file file[OWN_FILES_MAX];
};

/* Every file of rlwrap's own for cfg's store (cfg may be NULL: the
 * environment's and the defaults'), those not created yet included. */
void own_files_list(struct own_files *out, const struct config *cfg);


#endif
