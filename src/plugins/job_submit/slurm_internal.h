#ifndef ELASTIC_JOB_SUBMIT_SLURM_INTERNAL_H
#define ELASTIC_JOB_SUBMIT_SLURM_INTERNAL_H

/*
 * Symbols slurmctld exports to its plugins that no public header declares.
 * They resolve when slurmctld loads the plugin.  Strings handed to
 * slurmctld (job_desc fields, err_msg) must come from slurm_xstrdup:
 * slurmctld frees them with xfree, which checks xmalloc's header.
 */
#include <slurm/slurm.h>

char *slurm_xstrdup(const char *str);
void slurm_xfree(void **p);
void slurm_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void slurm_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* slurmctld's parsed slurm.conf; we only read slurm_conf.slurm_conf. */
extern slurm_conf_t slurm_conf;

#endif
