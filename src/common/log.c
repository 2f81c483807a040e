#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "error.h"
#include "log.h"

/* Set once at start-up, read by every thread (elasticd's API and
 * submission threads log too). */
static struct {
	char ident[32];
	enum elog_level level;
	unsigned flags;
	FILE *stream;
} lg = { "elastic", ELOG_INFO, 0, NULL };

void elog_init(const char *ident, enum elog_level level, unsigned flags)
{
	snprintf(lg.ident, sizeof(lg.ident), "%s", ident ? ident : "elastic");
	lg.level = level;
	lg.flags = flags;
}

bool elog_journal_stream(const char *journal_stream, int fd)
{
	uintmax_t dev, ino;
	struct stat st;
	char *end;

	if (!journal_stream || !*journal_stream)
		return false;
	dev = strtoumax(journal_stream, &end, 10);
	if (*end != ':' || end == journal_stream)
		return false;
	journal_stream = end + 1;
	ino = strtoumax(journal_stream, &end, 10);
	if (*end || end == journal_stream || fstat(fd, &st) < 0)
		return false;
	return st.st_dev == dev && st.st_ino == ino;
}

void elog_set_stream(FILE *f)
{
	lg.stream = f;
}

void elog_set_level(enum elog_level level)
{
	lg.level = level;
}

void elog_set_flags(unsigned flags)
{
	lg.flags = flags;
}

bool elog_enabled(enum elog_level level)
{
	return level <= lg.level;
}

void elog(enum elog_level level, const char *fmt, ...)
{
	static const char *const tag[] = { "", "warning: ", "", "debug: " };
	/* sd-daemon(3)'s prefixes: LOG_ERR, LOG_WARNING, LOG_INFO,
	 * LOG_DEBUG, which journald takes as the line's priority. */
	static const char *const prio[] = { "<3>", "<4>", "<6>", "<7>" };
	char raw[1024], line[1024], ts[32] = "";
	va_list ap;

	if (!elog_enabled(level))
		return;
	if (lg.flags & ELOG_TIME) {
		struct timespec t;
		struct tm tm;

		clock_gettime(CLOCK_REALTIME, &t);
		localtime_r(&t.tv_sec, &tm);
		snprintf(ts, sizeof(ts), "%02d:%02d:%02d.%03ld ", tm.tm_hour,
			 tm.tm_min, tm.tm_sec, t.tv_nsec / 1000000);
	}
	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	/* What users wrote (a URL, a job name) cannot forge a line. */
	elastic_escape(line, sizeof(line), raw);
	/* One fprintf per line: stdio locks the stream, so lines of
	 * different threads never interleave. */
	fprintf(lg.stream ? lg.stream : stderr, "%s%s: %s%s%s\n",
		lg.flags & ELOG_JOURNAL ? prio[level] : "", lg.ident, ts,
		tag[level], line);
}
