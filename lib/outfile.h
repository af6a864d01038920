/*
 * outfile.h: the files rlwrap writes where the user says (--signal-file,
 * --raw-stream), in directories other users may write too, such as /tmp
 * (docs/design.md section 13).
 *
 * The rules (one guard, outfile_guard(), for every such file): a final
 * symlink is followed only when the user (or root) owns the link itself: a
 * link you made names the file you meant; one another user planted is
 * refused.  A path that is, links to, or shares an inode with one of
 * rlwrap's own files (ownfiles.h) is refused, and so is an existing file
 * that is not a regular file, a terminal or /dev/null (a FIFO would hang
 * the wrapper).  Everything is opened with O_NONBLOCK.  Files are created
 * 0600.
 *
 * Ownership: nothing here allocates; failures return false or -1 with a
 * message in err ("PATH: why").
 */
#ifndef RLWRAP_OUTFILE_H
#define RLWRAP_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "ownfiles.h"

/* outfile_open()'s answer when the guard refused the file. */
#define OUTFILE_REFUSED (-2)

/* May path be written?  False, with why in err, when the rules above
 * refuse it; own may be NULL (no own files). */
bool outfile_guard(const char *path, const struct own_files *own, char *err, size_t errlen);

/* Opens path for writing (created 0600, not truncated: see outfile_truncate()),
 * by the rules above: -1 when it cannot be, OUTFILE_REFUSED when it may
 * not be (checked again on what was opened). */
int outfile_open(const char *path, const struct own_files *own, char *err, size_t errlen);
/* Empties what outfile_open() opened when it is a regular file. */
bool outfile_truncate(int fd, const char *path, char *err, size_t errlen);
/* Is fd the file path names (the same device and inode)? */
bool outfile_is(int fd, const char *path);

/* Whether outfile_replace(path) could work: the rule allows it and the
 * directory it goes in takes a new file. */
bool outfile_check(const char *path, const struct own_files *own, char *err, size_t errlen);
/* Writes data as the whole new content of path: a 0600 temporary file in
 * the same directory, renamed into place, so that a reader sees the old
 * document or the new one, never a part. */
bool outfile_replace(const char *path, const struct own_files *own, const char *data, size_t len,
    char *err, size_t errlen);

#endif
