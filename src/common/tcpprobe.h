#ifndef ELASTIC_COMMON_TCPPROBE_H
#define ELASTIC_COMMON_TCPPROBE_H

#include <stdbool.h>

/*
 * Does addr:port accept a TCP connection within ms?  Nothing is sent.
 * A host that is up answers even when its daemons are slow; a dead or
 * cut-off one does not.  Unknown (true) when addr does not resolve.
 */
bool tcp_answers(const char *addr, unsigned port, int ms);

/* Does node's slurmd (Slurm's NodeAddr and Port for it) accept a
 * connection within ms?  Unknown (true) when Slurm cannot tell. */
bool slurmd_answers(const char *node, int ms);

#endif
