#ifndef ELASTIC_PIPEWRITE_H
#define ELASTIC_PIPEWRITE_H

#include <stddef.h>

/*
 * Writes len bytes of buf to fd, a pipe whose reader may be gone (a step
 * whose srun ended): 0 when all were written, -1 with errno set (EPIPE
 * then) otherwise, never SIGPIPE, which would end the calling process.
 * The signal mask and any SIGPIPE pending before are left as they were.
 */
int pipe_write(int fd, const void *buf, size_t len);

#endif
