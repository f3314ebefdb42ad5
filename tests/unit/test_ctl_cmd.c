/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * Command table, dispatcher, built-in help, config-line tokenizer and
 * config-file loader. Handlers log what they were called with; messages
 * are compared in full.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tep_ctl_cmd.h"
#include "tep_ctl_proto.h"

/* ---- a small fake dataplane -------------------------------------------- */

struct fake {
	char vrfs[8][16];
	int nvrf;
	char log[16][128];	/* one line per handler call */
	int nlog;
	enum tep_ctl_origin origins[16];
};

static void
log_call(struct tep_ctl_ctx *ctx, const char *name, int argc, char **argv)
{
	struct fake *f = tep_ctl_ctx_user(ctx);
	char *l;
	size_t n;
	int i;

	assert_true(f->nlog < 16);
	f->origins[f->nlog] = tep_ctl_ctx_origin(ctx);
	l = f->log[f->nlog++];
	n = (size_t)snprintf(l, 128, "%s(%d)", name, argc);
	for (i = 0; i < argc; i++)
		n += (size_t)snprintf(l + n, 128 - n, " %s", argv[i]);
	assert_null(argv[argc]);
}

static bool
has_vrf(struct fake *f, const char *name)
{
	int i;

	for (i = 0; i < f->nvrf; i++)
		if (strcmp(f->vrfs[i], name) == 0)
			return true;
	return false;
}

static int
vrf_add(struct tep_ctl_ctx *ctx, int argc, char **argv, struct tep_out *out,
	struct tep_err *err)
{
	struct fake *f = tep_ctl_ctx_user(ctx);

	(void)out;
	log_call(ctx, "vrf_add", argc, argv);
	if (has_vrf(f, argv[0]))
		return tep_err_set(err, EEXIST, "vrf \"%s\" exists", argv[0]);
	snprintf(f->vrfs[f->nvrf++], 16, "%s", argv[0]);
	return 0;
}

/* route add PREFIX [vrf NAME] via IP */
static int
route_add(struct tep_ctl_ctx *ctx, int argc, char **argv, struct tep_out *out,
	  struct tep_err *err)
{
	struct fake *f = tep_ctl_ctx_user(ctx);
	int i;

	log_call(ctx, "route_add", argc, argv);
	if (strchr(argv[0], '/') == NULL ||
	    strcmp(strchr(argv[0], '/'), "/33") == 0)
		return tep_err_set(err, EINVAL, "bad prefix \"%s\"", argv[0]);
	for (i = 1; i + 1 < argc; i++)
		if (strcmp(argv[i], "vrf") == 0 && !has_vrf(f, argv[i + 1]))
			return tep_err_set(err, ENOENT, "unknown vrf \"%s\"",
					   argv[i + 1]);
	tep_out_str(out, "prefix", "added %s\n", argv[0]);
	return 0;
}

static int
route_del(struct tep_ctl_ctx *ctx, int argc, char **argv, struct tep_out *out,
	  struct tep_err *err)
{
	(void)out;
	(void)err;
	log_call(ctx, "route_del", argc, argv);
	return -ENOENT;		/* DPDK style, no message */
}

static int
route_show(struct tep_ctl_ctx *ctx, int argc, char **argv,
	   struct tep_out *out, struct tep_err *err)
{
	(void)err;
	log_call(ctx, "route_show", argc, argv);
	tep_out_text(out, "no routes\n");
	return 0;
}

static int
stats(struct tep_ctl_ctx *ctx, int argc, char **argv, struct tep_out *out,
      struct tep_err *err)
{
	(void)out;
	(void)err;
	log_call(ctx, "stats", argc, argv);
	return 0;
}

static int
dummy_tick(struct tep_ctl_ctx *ctx, void *arg, struct tep_out *out,
	   struct tep_err *err)
{
	(void)ctx;
	(void)arg;
	(void)out;
	(void)err;
	return TEP_CTL_STREAM_END;
}

static int
stats_watch(struct tep_ctl_ctx *ctx, int argc, char **argv,
	    struct tep_out *out, struct tep_err *err)
{
	int rc;

	(void)out;
	log_call(ctx, "stats_watch", argc, argv);
	/* not on a socket: streaming is refused */
	rc = tep_ctl_stream_start(ctx, 1000, dummy_tick, NULL, NULL);
	if (rc != 0)
		return tep_err_set(err, rc, "cannot stream here");
	return 0;
}

static const struct tep_ctl_cmd cmds[] = {
	{
		.keywords = "vrf add",
		.usage = "NAME",
		.help = "create a VRF",
		.min_args = 1,
		.max_args = 1,
		.fn = vrf_add,
	},
	{
		.keywords = "route add",
		.usage = "PREFIX [vrf NAME] (via IP [dev PORT] | "
			 "tunnel NAME | blackhole)",
		.help = "add a route",
		.min_args = 2,
		.max_args = 6,
		.fn = route_add,
	},
	{
		.keywords = "route del",
		.usage = "PREFIX [vrf NAME]",
		.help = "delete a route",
		.min_args = 1,
		.max_args = 3,
		.fn = route_del,
	},
	{
		.keywords = "route show",
		.usage = "[vrf NAME]",
		.help = "list routes",
		.min_args = 0,
		.max_args = 2,
		.fn = route_show,
	},
	{
		.keywords = "stats",
		.help = "show counters",
		.min_args = 0,
		.max_args = 0,
		.fn = stats,
	},
	{
		.keywords = "stats watch",
		.usage = "[INTERVAL]",
		.help = "show counters every INTERVAL ms",
		.min_args = 0,
		.max_args = 1,
		.flags = TEP_CTL_CMD_STREAM,
		.fn = stats_watch,
	},
};

struct fix {
	struct tep_ctl_table *t;
	struct tep_ctl_ctx *ctx;
	struct fake f;
	struct tep_out out;
	struct tep_err err;
};

static int
setup(void **state)
{
	struct fix *x = calloc(1, sizeof(*x));
	struct tep_err err;

	if (x == NULL)
		return -1;
	x->t = tep_ctl_table_new();
	x->ctx = tep_ctl_ctx_new(&x->f);
	if (x->t == NULL || x->ctx == NULL ||
	    tep_ctl_register_all(x->t, cmds, sizeof(cmds) / sizeof(cmds[0]),
				 &err) != 0)
		return -1;
	tep_out_init(&x->out, false, 0);
	*state = x;
	return 0;
}

static int
teardown(void **state)
{
	struct fix *x = *state;

	tep_out_fini(&x->out);
	tep_ctl_ctx_free(x->ctx);
	tep_ctl_table_free(x->t);
	free(x);
	return 0;
}

/* Dispatch a space-separated command line (no quoting needed here). */
static int
run(struct fix *x, const char *line)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "%s", line);
	tep_out_reset(&x->out);
	return tep_ctl_run_line(x->t, x->ctx, buf, &x->out, &x->err);
}

static char *
out_str(struct fix *x)
{
	static char s[4096];

	tep_out_finish(&x->out);
	assert_true(tep_out_len(&x->out) < sizeof(s));
	memcpy(s, tep_out_data(&x->out), tep_out_len(&x->out));
	s[tep_out_len(&x->out)] = '\0';
	return s;
}

/* ---- tokenizer ----------------------------------------------------------- */

struct tok_case {
	const char *line;
	int argc;
	const char *argv[8];
};

static void
test_tokenize_ok(void **state)
{
	static const struct tok_case cases[] = {
		{ "route add 10.0.0.0/8 via 192.0.2.1", 5,
		  { "route", "add", "10.0.0.0/8", "via", "192.0.2.1" } },
		{ "", 0, { NULL } },
		{ "   \t  ", 0, { NULL } },
		{ "# a comment", 0, { NULL } },
		{ "  \t# indented comment \"with quote", 0, { NULL } },
		{ "\t vrf  add\tred  ", 3, { "vrf", "add", "red" } },
		{ "vrf add blue # the blue one", 3, { "vrf", "add", "blue" } },
		{ "a#b", 1, { "a" } },
		{ "name \"hello world\"", 2, { "name", "hello world" } },
		{ "\"a \\\"q\\\" b\\\\c\"", 1, { "a \"q\" b\\c" } },
		{ "a\"b c\"d e", 2, { "ab cd", "e" } },
		{ "x \"\" y", 3, { "x", "", "y" } },
		{ "\"#not a comment\" #but this is", 1, { "#not a comment" } },
		{ "path a\\b", 2, { "path", "a\\b" } },
		{ "caf\xc3\xa9 \xe2\x82\xac", 2, { "caf\xc3\xa9", "\xe2\x82\xac" } },
		{ "\"\"", 1, { "" } },
	};
	char line[256], *argv[TEP_CTL_MAX_ARGS + 1];
	struct tep_err err;
	size_t i;
	int argc, j;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(line, sizeof(line), "%s", cases[i].line);
		assert_int_equal(tep_ctl_tokenize(line, &argc, argv,
						  TEP_CTL_MAX_ARGS, &err), 0);
		assert_int_equal(argc, cases[i].argc);
		for (j = 0; j < argc; j++)
			assert_string_equal(argv[j], cases[i].argv[j]);
		assert_null(argv[argc]);
	}
}

struct tok_err_case {
	const char *line;
	const char *msg;
};

static void
test_tokenize_errors(void **state)
{
	static const struct tok_err_case cases[] = {
		{ "abc \"unterminated", "unterminated quote at column 5" },
		{ "a \"b\" \"c", "unterminated quote at column 7" },
		{ "a\x01" "b", "control character 0x01 at column 2" },
		{ "route add\r", "control character 0x0d at column 10" },
		{ "x \x7f", "control character 0x7f at column 3" },
		{ "\"tab\tin quotes\"", "control character 0x09 at column 5" },
		{ "\"a\\q\"", "unknown escape \"\\q\" at column 3" },
		{ "\"a\\", "unterminated quote at column 1" },
		{ "\"a\\\n\"", "control character 0x0a at column 4" },
		{ "ok \"x\x1b[31m\"", "control character 0x1b at column 6" },
	};
	char line[256], *argv[TEP_CTL_MAX_ARGS + 1];
	struct tep_err err;
	size_t i;
	int argc;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(line, sizeof(line), "%s", cases[i].line);
		assert_int_equal(tep_ctl_tokenize(line, &argc, argv,
						  TEP_CTL_MAX_ARGS, &err),
				 EINVAL);
		assert_int_equal(err.code, EINVAL);
		assert_string_equal(err.msg, cases[i].msg);
	}
}

static void
test_tokenize_limits(void **state)
{
	static char line[4 * TEP_CTL_MAX_ARGS + 8 + TEP_CTL_MAX_WORD * 2];
	char *argv[TEP_CTL_MAX_ARGS + 1];
	struct tep_err err;
	size_t n = 0;
	int i, argc;

	(void)state;
	/* 128 words fit */
	for (i = 0; i < TEP_CTL_MAX_ARGS; i++)
		n += (size_t)sprintf(line + n, "w%d ", i % 10);
	assert_int_equal(tep_ctl_tokenize(line, &argc, argv, TEP_CTL_MAX_ARGS,
					  &err), 0);
	assert_int_equal(argc, TEP_CTL_MAX_ARGS);
	assert_string_equal(argv[127], "w7");

	/* the 129th does not: its column is named */
	n = 0;
	for (i = 0; i < TEP_CTL_MAX_ARGS + 1; i++)
		n += (size_t)sprintf(line + n, "w%d ", i % 10);
	assert_int_equal(tep_ctl_tokenize(line, &argc, argv, TEP_CTL_MAX_ARGS,
					  &err), EINVAL);
	assert_string_equal(err.msg, "too many words at column 385 (at most 128)");

	/* a caller's smaller limit */
	strcpy(line, "a b c");
	assert_int_equal(tep_ctl_tokenize(line, &argc, argv, 2, &err), EINVAL);
	assert_string_equal(err.msg, "too many words at column 5 (at most 2)");

	/* a word of TEP_CTL_MAX_WORD bytes, quoted, fits */
	line[0] = 'x';
	line[1] = ' ';
	line[2] = '"';
	memset(line + 3, 'a', TEP_CTL_MAX_WORD);
	strcpy(line + 3 + TEP_CTL_MAX_WORD, "\"");
	assert_int_equal(tep_ctl_tokenize(line, &argc, argv, TEP_CTL_MAX_ARGS,
					  &err), 0);
	assert_int_equal(argc, 2);
	assert_int_equal(strlen(argv[1]), TEP_CTL_MAX_WORD);
	/* one byte more does not (the line was split in place: rebuild) */
	line[0] = 'x';
	line[1] = ' ';
	line[2] = 'a';
	memset(line + 3, 'a', TEP_CTL_MAX_WORD);
	line[3 + TEP_CTL_MAX_WORD] = '\0';
	assert_int_equal(tep_ctl_tokenize(line, &argc, argv, TEP_CTL_MAX_ARGS,
					  &err), EINVAL);
	assert_string_equal(err.msg,
			    "word too long at column 3 (at most 1024 bytes)");
	/* columns count input bytes, escapes and quotes included */
	strcpy(line, "\"a\\\"b\" ");
	memset(line + 7, 'a', TEP_CTL_MAX_WORD + 1);
	line[7 + TEP_CTL_MAX_WORD + 1] = '\0';
	assert_int_equal(tep_ctl_tokenize(line, &argc, argv, TEP_CTL_MAX_ARGS,
					  &err), EINVAL);
	assert_string_equal(err.msg,
			    "word too long at column 8 (at most 1024 bytes)");
	strcpy(line, "\"a\\\"b\" \"c\\\\d\" e\x01");
	assert_int_equal(tep_ctl_tokenize(line, &argc, argv, TEP_CTL_MAX_ARGS,
					  &err), EINVAL);
	assert_string_equal(err.msg, "control character 0x01 at column 16");
}

/* ---- dispatcher ---------------------------------------------------------- */

static void
test_dispatch_longest_match(void **state)
{
	struct fix *x = *state;

	assert_int_equal(run(x, "stats"), 0);
	assert_int_equal(x->f.nlog, 1);
	assert_string_equal(x->f.log[0], "stats(0)");

	/* "stats watch" beats "stats" + argument "watch" */
	assert_int_equal(run(x, "stats watch"), ENOTSUP);
	assert_int_equal(x->f.nlog, 2);
	assert_string_equal(x->f.log[1], "stats_watch(0)");
	assert_string_equal(x->err.msg, "cannot stream here");

	assert_int_equal(run(x, "route add 10.0.0.0/8 via 192.0.2.1"), 0);
	assert_string_equal(x->f.log[2], "route_add(3) 10.0.0.0/8 via 192.0.2.1");
	assert_string_equal(out_str(x), "added 10.0.0.0/8\n");
	assert_int_equal(x->err.code, 0);

	/* and the direct API */
	{
		char *argv[] = { "route", "show", NULL };
		int nkw = 0;
		const struct tep_ctl_cmd *c;

		c = tep_ctl_lookup(x->t, 2, argv, &nkw);
		assert_non_null(c);
		assert_string_equal(c->keywords, "route show");
		assert_int_equal(nkw, 2);
		argv[1] = "nope";
		assert_null(tep_ctl_lookup(x->t, 2, argv, &nkw));
	}
}

static void
test_dispatch_unknown(void **state)
{
	struct fix *x = *state;

	assert_int_equal(run(x, "frobnicate now"), EINVAL);
	assert_string_equal(x->err.msg,
			    "unknown command \"frobnicate\"; try help");
	assert_int_equal(run(x, "route frob 1 2"), EINVAL);
	assert_string_equal(x->err.msg,
			    "unknown command \"route frob\"; try help route");
	assert_int_equal(run(x, "route"), EINVAL);
	assert_string_equal(x->err.msg,
			    "incomplete command \"route\"; try help route");
	/* keywords are case-sensitive */
	assert_int_equal(run(x, "STATS"), EINVAL);
	assert_string_equal(x->err.msg, "unknown command \"STATS\"; try help");
	assert_int_equal(x->f.nlog, 0);

	{
		char *argv[] = { NULL };

		assert_int_equal(tep_ctl_dispatch(x->t, x->ctx, 0, argv,
						  &x->out, &x->err), EINVAL);
		assert_string_equal(x->err.msg, "empty command; try help");
	}
}

static void
test_dispatch_arg_count(void **state)
{
	struct fix *x = *state;

	assert_int_equal(run(x, "route add 10.0.0.0/8"), EINVAL);
	assert_string_equal(x->err.msg,
		"route add: missing arguments; usage: route add PREFIX "
		"[vrf NAME] (via IP [dev PORT] | tunnel NAME | blackhole)");
	assert_int_equal(run(x, "route add 1/8 a b c d e f"), EINVAL);
	assert_string_equal(x->err.msg,
		"route add: too many arguments; usage: route add PREFIX "
		"[vrf NAME] (via IP [dev PORT] | tunnel NAME | blackhole)");
	/* no usage string */
	assert_int_equal(run(x, "stats now"), EINVAL);
	assert_string_equal(x->err.msg,
			    "stats: too many arguments; usage: stats");
	assert_int_equal(x->f.nlog, 0);
	/* the bounds themselves are fine */
	assert_int_equal(run(x, "route add 1/8 a b c d e"), 0);
	assert_int_equal(run(x, "route add 1/8 a"), 0);
	assert_int_equal(x->f.nlog, 2);
}

static void
test_dispatch_handler_errors(void **state)
{
	struct fix *x = *state;

	assert_int_equal(run(x, "route add 10.0.0.0/33 via 192.0.2.1"), EINVAL);
	assert_string_equal(x->err.msg, "bad prefix \"10.0.0.0/33\"");
	assert_int_equal(x->err.code, EINVAL);

	assert_int_equal(run(x, "route add 10.0.0.0/8 vrf blue via 1.2.3.4"),
			 ENOENT);
	assert_string_equal(x->err.msg, "unknown vrf \"blue\"");

	/* -errno and no message: the dispatcher names the command */
	assert_int_equal(run(x, "route del 10.0.0.0/8"), ENOENT);
	assert_int_equal(x->err.code, ENOENT);
	assert_string_equal(x->err.msg, "route del: No such file or directory");

	/* control characters never reach a handler */
	{
		char w0[] = "vrf", w1[] = "add", w2[] = "re\nd";
		char *argv[] = { w0, w1, w2, NULL };

		assert_int_equal(tep_ctl_dispatch(x->t, x->ctx, 3, argv,
						  &x->out, &x->err), EINVAL);
		assert_string_equal(x->err.msg,
				    "control character 0x0a in word 3");
	}
	assert_int_equal(x->f.nlog, 3);

	/* a message with control characters stays on one line */
	tep_err_set(&x->err, EINVAL, "bad name \"%s\"", "a\nb\x1b");
	assert_string_equal(x->err.msg, "bad name \"a?b?\"");
	/* too long: cut, marked */
	{
		char big[2000];

		memset(big, 'q', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		tep_err_set(&x->err, EINVAL, "%s", big);
		assert_int_equal(strlen(x->err.msg), TEP_ERR_MSG_MAX - 1);
		assert_string_equal(x->err.msg + TEP_ERR_MSG_MAX - 4, "...");
	}
}

static void
test_register_errors(void **state)
{
	struct fix *x = *state;
	struct tep_ctl_cmd c = cmds[0];
	static const char *const bad_kw[] = {
		"", " vrf", "vrf ", "vrf  add", "Vrf add", "vrf\tadd",
		"vrf add!", "a b c d e f g h i",
	};
	size_t i;

	assert_int_equal(tep_ctl_register(x->t, &cmds[0], &x->err), EEXIST);
	assert_string_equal(x->err.msg, "command \"vrf add\" already registered");
	c.keywords = "help";
	assert_int_equal(tep_ctl_register(x->t, &c, &x->err), EEXIST);
	for (i = 0; i < sizeof(bad_kw) / sizeof(bad_kw[0]); i++) {
		c.keywords = bad_kw[i];
		assert_int_equal(tep_ctl_register(x->t, &c, &x->err), EINVAL);
	}
	c.keywords = "a b c d e f g h";		/* 8 words: the limit */
	assert_int_equal(tep_ctl_register(x->t, &c, &x->err), 0);
	c.keywords = "vrf del";
	c.fn = NULL;
	assert_int_equal(tep_ctl_register(x->t, &c, &x->err), EINVAL);
	c.fn = vrf_add;
	c.min_args = 2;
	c.max_args = 1;
	assert_int_equal(tep_ctl_register(x->t, &c, &x->err), EINVAL);
	assert_string_equal(x->err.msg,
			    "command \"vrf del\": bad argument counts");
	c.min_args = -1;
	c.max_args = TEP_CTL_ARGS_ANY;
	assert_int_equal(tep_ctl_register(x->t, &c, &x->err), EINVAL);
	c.min_args = 0;
	c.flags = 0x80;
	assert_int_equal(tep_ctl_register(x->t, &c, &x->err), EINVAL);
	c.flags = 0;
	c.help = NULL;
	assert_int_equal(tep_ctl_register(x->t, &c, &x->err), EINVAL);
	c.help = "h";
	assert_int_equal(tep_ctl_register(x->t, &c, &x->err), 0);
	/* any number of arguments */
	assert_int_equal(run(x, "vrf del a b c d e f g h i j k"), 0);
	assert_string_equal(x->f.log[0], "vrf_add(11) a b c d e f g h i j k");
}

/* ---- help ---------------------------------------------------------------- */

static void
test_help_text(void **state)
{
	struct fix *x = *state;

	assert_int_equal(run(x, "help route"), 0);
	assert_string_equal(out_str(x),
		"route add PREFIX [vrf NAME] (via IP [dev PORT] | tunnel NAME "
		"| blackhole)\n"
		"    add a route\n"
		"route del PREFIX [vrf NAME]\n"
		"    delete a route\n"
		"route show [vrf NAME]\n"
		"    list routes\n");

	/* sorted by keywords, a prefix first; help itself is listed */
	assert_int_equal(run(x, "help"), 0);
	assert_string_equal(out_str(x),
		"help [COMMAND...]\n"
		"    list the commands, or those that start with COMMAND\n"
		"route add PREFIX [vrf NAME] (via IP [dev PORT] | tunnel NAME "
		"| blackhole)\n"
		"    add a route\n"
		"route del PREFIX [vrf NAME]\n"
		"    delete a route\n"
		"route show [vrf NAME]\n"
		"    list routes\n"
		"stats\n"
		"    show counters\n"
		"stats watch [INTERVAL]\n"
		"    show counters every INTERVAL ms\n"
		"vrf add NAME\n"
		"    create a VRF\n");

	/* full keywords and extra words select the command */
	assert_int_equal(run(x, "help stats watch 100"), 0);
	assert_string_equal(out_str(x), "stats watch [INTERVAL]\n"
			    "    show counters every INTERVAL ms\n");

	assert_int_equal(run(x, "help nope"), EINVAL);
	assert_string_equal(x->err.msg,
			    "no command starts with \"nope\"; try help");
	assert_int_equal(run(x, "help route nope"), EINVAL);
	assert_string_equal(x->err.msg,
			    "no command starts with \"route nope\"; try help");
}

static void
test_help_json(void **state)
{
	struct fix *x = *state;
	char line[] = "help stats";

	tep_out_fini(&x->out);
	tep_out_init(&x->out, true, 0);
	assert_int_equal(tep_ctl_run_line(x->t, x->ctx, line, &x->out,
					  &x->err), 0);
	assert_string_equal(out_str(x),
		"{\"commands\":["
		"{\"command\":\"stats\",\"usage\":null,"
		"\"help\":\"show counters\",\"stream\":false},"
		"{\"command\":\"stats watch\",\"usage\":\"[INTERVAL]\","
		"\"help\":\"show counters every INTERVAL ms\",\"stream\":true}"
		"]}\n");
}

/* ---- context ------------------------------------------------------------- */

static void
test_ctx(void **state)
{
	struct fix *x = *state;
	pid_t pid;
	uid_t uid;
	gid_t gid;

	assert_ptr_equal(tep_ctl_ctx_user(x->ctx), &x->f);
	assert_int_equal(tep_ctl_ctx_origin(x->ctx), TEP_CTL_ORIGIN_API);
	assert_int_equal(tep_ctl_ctx_peer(x->ctx, &pid, &uid, &gid), ENOTCONN);
	assert_int_equal(run(x, "stats"), 0);
	assert_int_equal(x->f.origins[0], TEP_CTL_ORIGIN_API);
	tep_ctl_ctx_free(NULL);
	tep_ctl_table_free(NULL);
}

/* ---- configuration files ------------------------------------------------- */

static char tmpdir[64];

static int
group_setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/tep-ctl-cmd.XXXXXX");
	return mkdtemp(tmpdir) != NULL ? 0 : -1;
}

static int
group_teardown(void **state)
{
	(void)state;
	return rmdir(tmpdir);
}

static void
write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static void
test_load_file_stops_at_line3(void **state)
{
	static const char conf[] =
		"vrf add red\n"
		"route add 10.0.0.0/8 vrf red via 192.0.2.1\n"
		"route add 10.1.0.0/16 vrf blue via 192.0.2.2\n"
		"vrf add blue\n";
	struct fix *x = *state;
	char path[128], want[256];

	snprintf(path, sizeof(path), "%s/tepd.conf", tmpdir);
	write_file(path, conf, strlen(conf));
	assert_int_equal(tep_ctl_load_file(x->t, x->ctx, path, &x->err),
			 ENOENT);
	snprintf(want, sizeof(want), "%s:3: unknown vrf \"blue\"", path);
	assert_string_equal(x->err.msg, want);
	assert_int_equal(x->err.code, ENOENT);
	/* lines 1 and 2 ran, line 3 failed, line 4 never ran */
	assert_int_equal(x->f.nlog, 3);
	assert_string_equal(x->f.log[0], "vrf_add(1) red");
	assert_string_equal(x->f.log[1],
			    "route_add(5) 10.0.0.0/8 vrf red via 192.0.2.1");
	assert_string_equal(x->f.log[2],
			    "route_add(5) 10.1.0.0/16 vrf blue via 192.0.2.2");
	assert_int_equal(x->f.nvrf, 1);
	assert_int_equal(x->f.origins[0], TEP_CTL_ORIGIN_FILE);
	/* the origin is restored */
	assert_int_equal(tep_ctl_ctx_origin(x->ctx), TEP_CTL_ORIGIN_API);
	unlink(path);
}

static void
test_load_file_ok(void **state)
{
	/* comments, blank lines, CRLF, quotes, no final newline */
	static const char conf[] =
		"# tepd configuration\n"
		"\n"
		"vrf add red   # tenant A\r\n"
		"   \t\n"
		"vrf add \"gr een\"\n"
		"route add 10.0.0.0/8 vrf red via 192.0.2.1";
	struct fix *x = *state;
	char path[128];

	snprintf(path, sizeof(path), "%s/ok.conf", tmpdir);
	write_file(path, conf, strlen(conf));
	assert_int_equal(tep_ctl_load_file(x->t, x->ctx, path, &x->err), 0);
	assert_int_equal(x->err.code, 0);
	assert_int_equal(x->f.nlog, 3);
	assert_string_equal(x->f.log[0], "vrf_add(1) red");
	assert_string_equal(x->f.log[1], "vrf_add(1) gr een");
	assert_string_equal(x->f.log[2],
			    "route_add(5) 10.0.0.0/8 vrf red via 192.0.2.1");
	unlink(path);
}

static void
test_load_file_errors(void **state)
{
	struct fix *x = *state;
	char path[128], want[256];

	snprintf(path, sizeof(path), "%s/missing.conf", tmpdir);
	assert_int_equal(tep_ctl_load_file(x->t, x->ctx, path, &x->err),
			 ENOENT);
	snprintf(want, sizeof(want), "%s: No such file or directory", path);
	assert_string_equal(x->err.msg, want);

	snprintf(path, sizeof(path), "%s/bad.conf", tmpdir);
	write_file(path, "vrf add red\n\nvrf add \"oops\n", 27);
	assert_int_equal(tep_ctl_load_file(x->t, x->ctx, path, &x->err),
			 EINVAL);
	snprintf(want, sizeof(want),
		 "%s:3: unterminated quote at column 9", path);
	assert_string_equal(x->err.msg, want);
	assert_int_equal(x->f.nlog, 1);

	write_file(path, "# x\nfrobnicate\n", 15);
	assert_int_equal(tep_ctl_load_file(x->t, x->ctx, path, &x->err),
			 EINVAL);
	snprintf(want, sizeof(want),
		 "%s:2: unknown command \"frobnicate\"; try help", path);
	assert_string_equal(x->err.msg, want);

	write_file(path, "vrf\0add x\n", 10);
	assert_int_equal(tep_ctl_load_file(x->t, x->ctx, path, &x->err),
			 EINVAL);
	snprintf(want, sizeof(want), "%s:1: NUL byte at column 4", path);
	assert_string_equal(x->err.msg, want);

	/* streaming has no meaning in a file */
	write_file(path, "stats watch\n", 12);
	assert_int_equal(tep_ctl_load_file(x->t, x->ctx, path, &x->err),
			 ENOTSUP);
	snprintf(want, sizeof(want), "%s:1: cannot stream here", path);
	assert_string_equal(x->err.msg, want);
	unlink(path);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tokenize_ok),
		cmocka_unit_test(test_tokenize_errors),
		cmocka_unit_test(test_tokenize_limits),
		cmocka_unit_test_setup_teardown(test_dispatch_longest_match,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_dispatch_unknown,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_dispatch_arg_count,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_dispatch_handler_errors,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_register_errors,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_help_text,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_help_json,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_ctx, setup, teardown),
		cmocka_unit_test_setup_teardown(test_load_file_stops_at_line3,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_load_file_ok,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_load_file_errors,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
