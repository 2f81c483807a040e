#ifndef ELASTIC_COMMON_NODELIST_H
#define ELASTIC_COMMON_NODELIST_H

#include <stdbool.h>

/*
 * The first host of a Slurm node list, without libslurm (a group's
 * rendezvous host): "gpu[003-004,9]" -> "gpu003", "n[1-2]x" -> "n1x",
 * "a,b" -> "a".  malloc'd (the caller frees it); NULL for "" or when out
 * of memory.
 */
char *nodelist_first_host(const char *list);

/*
 * Is node one of the hosts of the Slurm node list?  "n[1-3,05],gpu7"
 * holds n1, n2, n3, n05 and gpu7.  Entries with more than one bracket
 * ("r[1-2]n[1-4]") hold nothing here: a caller that must be sure refuses
 * what it cannot read.
 */
bool nodelist_has(const char *list, const char *node);

#endif
