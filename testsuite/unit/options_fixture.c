/* Test fixtures shared by the tests of options.c (options_fixture.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "options_fixture.h"

struct elastic_opts opts_of(const char *spec)
{
	struct elastic_opts o = { 0 };
	char buf[8192], *save = NULL, *w;

	assert_true(strlen(spec) < sizeof(buf));
	strcpy(buf, spec);
	for (w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		char name[64];
		char *eq = strchr(w, '=');
		elastic_error_t err = { "" };
		int id;

		assert_non_null(eq);
		*eq = '\0';
		snprintf(name, sizeof(name), "elastic-%s", w);
		id = options_lookup(name);
		if (id < 0)
			fail_msg("no option %s", name);
		if (options_set(&o, id, eq + 1, &err) != 0)
			fail_msg("options_set(%s, %s): %s", name, eq + 1,
				 err.text);
	}
	return o;
}

struct elastic_policy policy_of(const char *text)
{
	struct elastic_policy p;
	elastic_error_t err = { "" };

	if (policy_parse(&p, text, "e.conf", &err) != 0)
		fail_msg("policy_parse: %s", err.text);
	return p;
}

struct size_config sizeconf_of(const char *text)
{
	struct size_config sc;
	elastic_error_t err = { "" };

	if (sizeconf_parse(&sc, text, "s.conf", &err) != 0)
		fail_msg("sizeconf_parse: %s", err.text);
	return sc;
}

void assert_same_opts(const struct elastic_opts *a,
		      const struct elastic_opts *b)
{
	assert_int_equal(a->min, b->min);
	assert_int_equal(a->max, b->max);
	assert_int_equal(a->step, b->step);
	assert_int_equal(a->nsizes, b->nsizes);
	for (unsigned i = 0; i < a->nsizes; i++)
		assert_int_equal(a->sizes[i], b->sizes[i]);
	assert_int_equal(a->grace, b->grace);
	assert_int_equal(a->scale_delay, b->scale_delay);
	assert_int_equal(a->fault_timeout, b->fault_timeout);
	assert_int_equal(a->ondemand, b->ondemand);
	assert_int_equal(a->signal, b->signal);
	assert_int_equal(a->keep, b->keep);
	assert_int_equal(a->spares, b->spares);
	assert_string_equal(a->checkpoint_dir, b->checkpoint_dir);
	assert_string_equal(a->resume_from, b->resume_from);
	assert_string_equal(a->eval_cmd, b->eval_cmd);
}

const char *sizes_list(unsigned first, unsigned n)
{
	static char buf[1024];
	size_t j = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < n; i++)
		j += snprintf(buf + j, sizeof(buf) - j, "%s%u", i ? "," : "",
			      first + i);
	return buf;
}

void finalize_ok(struct elastic_opts *o, const struct elastic_policy *p,
		 const struct elastic_submitter *who,
		 const struct size_config *sc)
{
	elastic_error_t err = { "" };

	if (options_finalize(o, p, who, sc, &err) != 0)
		fail_msg("options_finalize: %s", err.text);
}

void finalize_fails(const struct elastic_opts *o,
		    const struct elastic_policy *p,
		    const struct elastic_submitter *who,
		    const struct size_config *sc, const char *msg)
{
	struct elastic_opts t = *o;
	elastic_error_t err = { "" };

	assert_int_equal(options_finalize(&t, p, who, sc, &err), -1);
	assert_string_equal(err.text, msg);
	/* Every member: the tail padding of a copy is undefined. */
	assert_memory_equal(&t, o,
			    offsetof(struct elastic_opts, size_config_path) +
				sizeof(t.size_config_path));
}
