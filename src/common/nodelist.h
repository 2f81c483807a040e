#ifndef ELASTIC_COMMON_NODELIST_H
#define ELASTIC_COMMON_NODELIST_H

/*
 * The first host of a Slurm node list, without libslurm (a group's
 * rendezvous host): "gpu[003-004,9]" -> "gpu003", "n[1-2]x" -> "n1x",
 * "a,b" -> "a".  malloc'd (the caller frees it); NULL for "" or when out
 * of memory.
 */
char *nodelist_first_host(const char *list);

#endif
