#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "safeopen.h"

#define MAX_HOPS 40 /* symbolic links followed, as the kernel's limit */

static int fail(elastic_error_t *err, int e, const char *path, const char *why)
{
	elastic_errorf(err, "%s: %s", path, why ? why : strerror(e));
	errno = e;
	return -1;
}

/* Walk path from "/", following only the links root or link_owner owns. */
static int walk(const char *path, uid_t link_owner, elastic_error_t *err)
{
	char rest[PATH_MAX], buf[PATH_MAX], target[PATH_MAX], why[128];
	int fd, nfd, hops = 0;

	if (path[0] != '/')
		return fail(err, EINVAL, path, "not an absolute path");
	if (strlen(path) >= sizeof(rest))
		return fail(err, ENAMETOOLONG, path, NULL);
	strcpy(rest, path);
	fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return fail(err, errno, path, NULL);
	for (;;) {
		char *p = rest, *comp, *slash;
		struct stat st;
		ssize_t n;

		while (*p == '/')
			p++;
		if (!*p)
			return fd;
		comp = p;
		slash = strchr(p, '/');
		if (slash)
			*slash = '\0';
		nfd = openat(fd, comp,
			     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (nfd >= 0) {
			close(fd);
			fd = nfd;
			/* What is left after this component. */
			memmove(rest, slash ? slash + 1 : p + strlen(p),
				strlen(slash ? slash + 1 : "") + 1);
			continue;
		}
		if (errno != ELOOP && errno != ENOTDIR) {
			int e = errno;

			close(fd);
			return fail(err, e, path, NULL);
		}
		if (fstatat(fd, comp, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISLNK(st.st_mode)) {
			close(fd);
			return fail(err, ENOTDIR, path, NULL);
		}
		if (st.st_uid != 0 && st.st_uid != link_owner) {
			close(fd);
			snprintf(why, sizeof(why),
				 "a symbolic link owned by uid %u, not "
				 "followed",
				 (unsigned)st.st_uid);
			return fail(err, ELOOP, path, why);
		}
		if (++hops > MAX_HOPS) {
			close(fd);
			return fail(err, ELOOP, path, NULL);
		}
		n = readlinkat(fd, comp, target, sizeof(target) - 1);
		if (n <= 0) {
			close(fd);
			return fail(err, n < 0 ? errno : ENOENT, path, NULL);
		}
		target[n] = '\0';
		/* The link's target, then what followed the link. */
		if ((size_t)snprintf(buf, sizeof(buf), "%s/%s", target,
				     slash ? slash + 1 : "") >= sizeof(buf)) {
			close(fd);
			return fail(err, ENAMETOOLONG, path, NULL);
		}
		strcpy(rest, buf);
		if (target[0] == '/') {
			close(fd);
			fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (fd < 0)
				return fail(err, errno, path, NULL);
		}
	}
}

int safeopen_dir(const char *path, bool strict, elastic_error_t *err)
{
	int fd;

	if (strict)
		return walk(path, 0, err);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd >= 0 ? fd : fail(err, errno, path, NULL);
}

bool safeopen_owned(const struct stat *st, uid_t uid, gid_t gid)
{
	return st->st_uid == uid && !(st->st_mode & S_IWOTH) &&
	       (!(st->st_mode & S_IWGRP) || st->st_gid == gid);
}

int safeopen_dir_owned(const char *path, uid_t uid, gid_t gid,
		       elastic_error_t *err)
{
	char why[160];
	struct stat st;
	int fd = walk(path, uid, err);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0) {
		int e = errno;

		close(fd);
		return fail(err, e, path, NULL);
	}
	if (safeopen_owned(&st, uid, gid))
		return fd;
	close(fd);
	if (st.st_uid != uid)
		snprintf(why, sizeof(why),
			 "owned by uid %u, not by uid %u: not used",
			 (unsigned)st.st_uid, (unsigned)uid);
	else
		snprintf(why, sizeof(why),
			 "writable by other users (mode %04o): not used "
			 "(chmod go-w)",
			 (unsigned)(st.st_mode & 07777));
	return fail(err, EPERM, path, why);
}
