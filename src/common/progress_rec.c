/* A rank's progress record (progress_rec.h): pure. */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "progress_rec.h"

int progress_rec_format(const struct progress_rec *r, char *buf)
{
	char tmp[PROGRESS_REC_LEN + 1];
	int n = snprintf(tmp, sizeof(tmp), "v1 %u %llu %llu %c %ld %d %llu",
			 r->restart, (unsigned long long)r->step,
			 (unsigned long long)r->mono_ms, r->state, (long)r->pid,
			 r->sig, (unsigned long long)r->save_ms);

	if (n < 0 || n > PROGRESS_REC_LEN - 1)
		return -1;
	memset(buf, ' ', PROGRESS_REC_LEN);
	memcpy(buf, tmp, (size_t)n);
	buf[PROGRESS_REC_LEN - 1] = '\n';
	return 0;
}

int progress_rec_parse(const char *buf, size_t len, struct progress_rec *r)
{
	char tmp[PROGRESS_REC_LEN + 1], state, end;
	unsigned long long step, mono, save = 0;
	unsigned restart;
	long pid;
	int sig, n = 0, k;

	if (len != PROGRESS_REC_LEN || buf[len - 1] != '\n' ||
	    memchr(buf, '\0', len))
		return -1;
	memcpy(tmp, buf, len);
	tmp[len - 1] = '\0';
	/* SAVE_MS is optional (a record of an older writer has none). */
	k = sscanf(tmp, "v1 %u %llu %llu %c %ld %d %n%c", &restart, &step,
		   &mono, &state, &pid, &sig, &n, &end);
	if (k == 7 && sscanf(tmp + n, "%llu %c", &save, &end) != 1)
		return -1;
	if (k < 6 || (k == 7 && (tmp[n] < '0' || tmp[n] > '9')) ||
	    (state != PROGRESS_STEPPING && state != PROGRESS_SAVING) ||
	    pid <= 0 || sig < 0 || sig >= NSIG)
		return -1;
	r->restart = restart;
	r->step = step;
	r->mono_ms = mono;
	r->state = state;
	r->pid = (pid_t)pid;
	r->sig = sig;
	r->save_ms = save;
	return 0;
}
