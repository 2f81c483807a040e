#ifndef ELASTIC_SAFEOPEN_H
#define ELASTIC_SAFEOPEN_H

#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "error.h"

/*
 * Open the directory at path (O_RDONLY, close-on-exec).  With strict (a
 * root process reading what users own): path is absolute and walked one
 * component at a time, a symbolic link is followed only if root owns it,
 * and nothing else but a directory is opened (a FIFO never blocks).
 * Returns the descriptor, or -1 with err set and errno kept (ENOENT: no
 * such directory).
 */
int safeopen_dir(const char *path, bool strict, elastic_error_t *err);

/*
 * Is an entry with this stat (lstat's) uid's own and writable by no one
 * else: owned by uid, not writable by others, and writable by its group
 * only when that group is gid, uid's primary group (a user private
 * group, as Debian makes them)?
 */
bool safeopen_owned(const struct stat *st, uid_t uid, gid_t gid);

/*
 * Open the directory at path as its owner uid (a launcher, as the job's
 * user, opening the job's checkpoint dir): path is absolute and walked
 * one component at a time, a symbolic link is followed only if root or
 * uid owns it (never one another user made), and the directory must be
 * safeopen_owned() by uid (gid its primary group).  Returns the
 * descriptor, or -1 with err set and errno kept (ENOENT: no such
 * directory; EPERM: not uid's own).
 */
int safeopen_dir_owned(const char *path, uid_t uid, gid_t gid,
		       elastic_error_t *err);

#endif
