/*
 * elasticctl report (elasticctl.h): a job's accounting from elasticd
 * (GET /v1/groups/JOB/account) or from a saved document (--from-file),
 * printed as text or, with --json, as the document; drawn by gnuplot
 * into --png and --svg.  The reading, the text, the data and the script
 * are acct.h's (pure); here are the requests, the files and gnuplot.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "acct.h"
#include "common/filesave.h"
#include "common/parse.h"
#include "elasticctl.h"
#include "gnuplot.h"

#define MAX_DOC	    (64UL << 20)
#define MAX_PICTURE (256UL << 20)
#define SCRIPT	    "report.gp"
#define GNUPLOT_OUT "gnuplot.out"
/* A file's path in the private directory (of at most PATH_MAX). */
#define PATH_IN (PATH_MAX + 32)

/* The document's text into *ret (caller frees): 0, or the exit code
 * having said why. */
static int report_fetch(const struct ctl *c, const struct report_opts *o,
			char **ret)
{
	struct apiclient_body b = { .max = MAX_DOC };
	elastic_error_t err;
	char path[64];
	int rc;

	if (o->from_file) {
		if (parse_read_file(o->from_file, MAX_DOC, false, ret, &err)) {
			elog_error("%s", err.text);
			return EXIT_FAIL;
		}
		return EXIT_OK;
	}
	snprintf(path, sizeof(path), "/v1/groups/%u/account", o->job);
	rc = ctl_request(c, "GET", path, o->job, &b);
	if (!rc && !b.len) {
		elog_error("elasticd at %s sent an empty account",
			   c->api.server);
		rc = EXIT_FAIL;
	}
	if (rc) {
		free(b.data);
		return rc;
	}
	*ret = b.data;
	return EXIT_OK;
}

/* dir/name, for the file calls. */
static const char *report_in(char *buf, size_t len, const char *dir,
			     const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
	return buf;
}

/* text as dir/name, the private directory's own: 0, or -1 with err. */
static int report_write(const char *dir, const char *name, const char *text,
			elastic_error_t *err)
{
	char path[PATH_IN], tmp[PATH_IN + 8];

	report_in(path, sizeof(path), dir, name);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	return file_save_atomic(path, tmp, 0600, text, strlen(text), err);
}

/* The picture gnuplot made (dir/name) copied to dest, the file of option
 * opt: 0, or -1 with err. */
static int report_copy(const char *dir, const char *name, const char *opt,
		       const char *dest, elastic_error_t *err)
{
	elastic_error_t why;
	char path[PATH_IN], tmp[PATH_MAX + 32];
	int fd = open(report_in(path, sizeof(path), dir, name),
		      O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	struct stat st;
	char *data = NULL;
	ssize_t n = 0;
	int rc;

	if (fd < 0)
		return elastic_errorf(err, "gnuplot made no %s: %s", name,
				      strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    (size_t)st.st_size > MAX_PICTURE ||
	    !(data = malloc((size_t)st.st_size + 1)) ||
	    (n = read(fd, data, (size_t)st.st_size + 1)) != st.st_size) {
		rc = elastic_errorf(
		    err, "%s: cannot read what gnuplot made%s%s", path,
		    n < 0 ? ": " : "", n < 0 ? strerror(errno) : "");
		goto done;
	}
	snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", dest, (long)getpid());
	rc = file_save_atomic(dest, tmp, 0666, data, (size_t)n, &why);
	if (rc)
		elastic_errorf(err, "--%s=%s: cannot write it (%s)", opt, dest,
			       why.text);
done:
	free(data);
	close(fd);
	return rc;
}

/* The picture's files in dir, drawn by gnuplot and copied where asked. */
static int report_plot(const struct acct *a, const struct report_opts *o,
		       const char *gnuplot, const char *dir,
		       elastic_error_t *err)
{
	char *data = acct_plot_data(a);
	char *script = acct_plot_script(a, o->png != NULL, o->svg != NULL);
	int rc = -1;

	if (!data || !script)
		elastic_errorf(err, "out of memory");
	else if (!report_write(dir, ACCT_PLOT_DATA, data, err) &&
		 !report_write(dir, SCRIPT, script, err) &&
		 !gnuplot_run(gnuplot, dir, SCRIPT, GNUPLOT_OUT, err) &&
		 (!o->png ||
		  !report_copy(dir, ACCT_PLOT_PNG, "png", o->png, err)) &&
		 (!o->svg ||
		  !report_copy(dir, ACCT_PLOT_SVG, "svg", o->svg, err)))
		rc = 0;
	free(data);
	free(script);
	return rc;
}

/* The picture: 0, or the exit code having said why. */
static int report_draw(const struct acct *a, const struct report_opts *o)
{
	static const char *const files[] = { ACCT_PLOT_DATA, SCRIPT,
					     ACCT_PLOT_PNG, ACCT_PLOT_SVG,
					     GNUPLOT_OUT };
	const char *tmpdir = getenv("TMPDIR");
	char gnuplot[PATH_MAX], dir[PATH_MAX], path[PATH_IN];
	elastic_error_t err;
	int rc;

	if (!a->nseries) {
		elog_error("--png/--svg: job %u has no series to draw yet",
			   a->id);
		return EXIT_FAIL;
	}
	if (gnuplot_find(gnuplot, sizeof(gnuplot), &err)) {
		elog_error("%s", err.text);
		return EXIT_FAIL;
	}
	if (!tmpdir || tmpdir[0] != '/' || strlen(tmpdir) > PATH_MAX - 64)
		tmpdir = "/tmp";
	snprintf(dir, sizeof(dir), "%s/elasticctl-report.XXXXXX", tmpdir);
	if (!mkdtemp(dir)) {
		elog_error("--png/--svg: cannot make a directory in %s: %s",
			   tmpdir, strerror(errno));
		return EXIT_FAIL;
	}
	rc = report_plot(a, o, gnuplot, dir, &err);
	if (rc)
		elog_error("%s", err.text);
	for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++)
		unlink(report_in(path, sizeof(path), dir, files[i]));
	if (rmdir(dir))
		elog_error("cannot remove %s: %s", dir, strerror(errno));
	return rc ? EXIT_FAIL : EXIT_OK;
}

/* The document as text, or as it came with --json. */
static int report_print(const struct acct *a, const char *doc, bool json)
{
	char *text = json ? NULL : acct_text(a);
	size_t n = strlen(doc);

	if (json)
		printf("%s%s", doc, n && doc[n - 1] == '\n' ? "" : "\n");
	else if (text)
		fputs(text, stdout);
	free(text);
	if (!json && !text) {
		elog_error("out of memory");
		return EXIT_FAIL;
	}
	if (fflush(stdout) || ferror(stdout)) {
		elog_error("write error on standard output");
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

int ctl_report(const struct ctl *c, const struct report_opts *o)
{
	struct acct a;
	elastic_error_t err;
	char *doc = NULL;
	int rc = report_fetch(c, o, &doc);

	if (rc)
		return rc;
	if (acct_parse(doc, &a, &err)) {
		if (o->from_file)
			elog_error("%s: %s", o->from_file, err.text);
		else
			elog_error("elasticd at %s sent an account elasticctl "
				   "cannot read: %s",
				   c->api.server, err.text);
		free(doc);
		return EXIT_FAIL;
	}
	if (o->from_file && o->job && a.id != o->job) {
		elog_error("%s: the account of job %u, not of job %u",
			   o->from_file, a.id, o->job);
		rc = EXIT_FAIL;
	}
	if (!rc)
		rc = report_print(&a, doc, o->json);
	if (!rc && (o->png || o->svg))
		rc = report_draw(&a, o);
	if (!rc && !acct_adds_up(&a, NULL)) {
		elog_error("job %u: the causes do not add up to held", a.id);
		rc = EXIT_FAIL;
	}
	acct_free(&a);
	free(doc);
	return rc;
}
