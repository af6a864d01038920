/* Unit tests for the wrapper's library parts: detection, screen-text
 * stripping, stream merging and exit-status encoding. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "ansi.h"
#include "child.h"
#include "detect.h"
#include "linemerge.h"
#include "tapqueue.h"

/* A NULL-terminated argv of line's words, valid until the next call. */
static char **
words(const char *line)
{
	static char copy[512], *argv[32];
	int n = 0;

	strlcpy(copy, line, sizeof(copy));
	for (char *tok = strtok(copy, " "); tok != NULL && n < 31; tok = strtok(NULL, " "))
		argv[n++] = tok;
	argv[n] = NULL;
	return argv;
}

static const char *
family_of(const char *line)
{
	static char out[32];

	detect_family(words(line), NULL, 0, out, sizeof(out));
	return out;
}

static void
family_from_basename(void **state)
{
	assert_string_equal(family_of("claude -p hi"), "claude");
	assert_string_equal(family_of("/usr/local/bin/codex exec --json"), "codex");
	assert_string_equal(family_of("gemini -p x"), "gemini");
	assert_string_equal(family_of("cursor-agent -p x"), "cursor");
	assert_string_equal(family_of("qwen -p x"), "qwen");
	assert_string_equal(family_of("pi --mode json"), "pi");
	assert_string_equal(family_of("opencode run"), "opencode");
	assert_string_equal(family_of("cat file"), "generic");
	assert_string_equal(family_of("claudette"), "generic");
}

static void
family_through_launchers(void **state)
{
	assert_string_equal(family_of("env -u FOO A=1 B=2 claude -p hi"), "claude");
	assert_string_equal(family_of("env -- codex exec"), "codex");
	assert_string_equal(family_of("nice -n 5 timeout -s INT 10m stdbuf -oL gemini -p x"), "gemini");
	assert_string_equal(family_of("timeout --kill-after 5 1h claude"), "claude");
	assert_string_equal(family_of("/usr/bin/nice -10 codex"), "codex");
	assert_string_equal(family_of("stdbuf -o L -e L pi"), "pi");
	assert_string_equal(family_of("npx -y @anthropic-ai/claude-code -p x"), "claude");
	assert_string_equal(family_of("npx @openai/codex@0.40.0 exec"), "codex");
	assert_string_equal(family_of("bunx @google/gemini-cli"), "gemini");
	assert_string_equal(family_of("npx -p @qwen-code/qwen-code qwen -p x"), "qwen");
	assert_string_equal(family_of("npx --package=opencode-ai opencode run"), "opencode");
	assert_string_equal(family_of("node /usr/lib/node_modules/@anthropic-ai/claude-code/cli.js -p"),
	    "claude");
	assert_string_equal(family_of("node --require x.js /opt/bin/codex.js"), "codex");
	assert_string_equal(family_of("env"), "generic");
}

static void
family_from_map(void **state)
{
	static const struct command_family map[] = {
		{ "my-agent", "codex" }, { "/opt/x/run-claude", "claude" },
	};
	char out[32];

	detect_family(words("/usr/bin/my-agent --x"), map, 2, out, sizeof(out));
	assert_string_equal(out, "codex");
	detect_family(words("env A=1 /opt/x/run-claude"), map, 2, out, sizeof(out));
	assert_string_equal(out, "claude");
	detect_family(words("claude"), map, 2, out, sizeof(out));
	assert_string_equal(out, "claude");
}

static void
command_name_and_index(void **state)
{
	assert_int_equal(detect_command_index(words("env A=1 nice -n 3 /usr/bin/claude -p x")), 5);
	assert_string_equal(detect_command_name(words("env A=1 nice -n 3 /usr/bin/claude -p x")),
	    "claude");
	assert_int_equal(detect_command_index(words("env A=1")), 2);
	assert_string_equal(detect_command_name(words("env A=1")), "env");
}

static void
model_from_arguments(void **state)
{
	const struct { const char *line, *family, *want; } cases[] = {
		{ "claude -p hi --model opus", "claude", "opus" },
		{ "codex exec -m gpt-5-codex", "codex", "gpt-5-codex" },
		{ "gemini --model=gemini-2.5-pro", "gemini", "gemini-2.5-pro" },
		{ "mytool -m msg", "generic", "" },
		{ "claude -- --model x", "claude", "" },
		{ "codex -mo3", "codex", "o3" },
		{ "env A=1 claude --model sonnet", "claude", "sonnet" },
	};
	char out[64];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		detect_model(words(cases[i].line), cases[i].family, out, sizeof(out));
		assert_string_equal(out, cases[i].want);
	}
}

static void
account_from_environment(void **state)
{
	char out[128];
	struct config cfg;

	config_defaults(&cfg);
	unsetenv("RLWRAP_ACCOUNT");
	unsetenv("CLAUDE_CONFIG_DIR");
	setenv("HOME", "/home/u", 1);
	config_resolve_account(&cfg, "claude", NULL, out, sizeof(out));
	assert_string_equal(out, "default");
	setenv("CLAUDE_CONFIG_DIR", "/home/u/.claude-work", 1);
	config_resolve_account(&cfg, "claude", NULL, out, sizeof(out));
	assert_string_equal(out, "~/.claude-work");
	config_resolve_account(&cfg, "codex", NULL, out, sizeof(out));
	assert_string_equal(out, "default");
	setenv("GEMINI_CLI_HOME", "/home/u/gem", 1);
	config_resolve_account(&cfg, "gemini", NULL, out, sizeof(out));
	assert_string_equal(out, "~/gem");
	unsetenv("GEMINI_CLI_HOME");
	setenv("CLAUDE_CONFIG_DIR", "/srv/claude", 1);
	config_resolve_account(&cfg, "claude", NULL, out, sizeof(out));
	assert_string_equal(out, "/srv/claude");
	setenv("RLWRAP_ACCOUNT", "work", 1);
	config_resolve_account(&cfg, "claude", NULL, out, sizeof(out));
	assert_string_equal(out, "work");
	unsetenv("RLWRAP_ACCOUNT");
	unsetenv("CLAUDE_CONFIG_DIR");
}

/* Strips in pieces of every size, to catch state lost across calls. */
static void
assert_stripped(const char *in, const char *want)
{
	size_t len = strlen(in);

	for (size_t piece = 1; piece <= len; piece++) {
		struct ansi_strip st;
		char out[1024];
		size_t n = 0;

		ansi_strip_init(&st);
		for (size_t off = 0; off < len; off += piece) {
			size_t k = len - off < piece ? len - off : piece;

			n += ansi_strip(&st, in + off, k, out + n);
		}
		out[n] = '\0';
		assert_string_equal(out, want);
	}
}

static void
ansi_stripping(void **state)
{
	assert_stripped("plain text\n", "plain text\n");
	assert_stripped("\x1b[1;31mred\x1b[0m word\r\n", "red word\n");
	assert_stripped("\x1b]0;title\x07hello\n", "hello\n");
	assert_stripped("\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\\n", "link\n");
	assert_stripped("\x1b[2J\x1b[Hrow one\x1b[2;1Hrow two\n", "row one\nrow two\n");
	assert_stripped("a\x1b[5Cb\n", "a b\n");
	assert_stripped("\x1b(Bx\x1b" "7y\x1b" "8\n", "xy\n");
	assert_stripped("You've hit your limit \xc2\xb7 resets 6pm\n",
	    "You've hit your limit \xc2\xb7 resets 6pm\n");
	assert_stripped("spin\rspin\rdone\n", "spin\nspin\ndone\n");
	assert_stripped("a\x01\x7f\tb\n\n\n", "a b\n");
	assert_stripped("\x1bP1$r0m\x1b\\after\n", "after\n");
}

struct sink {
	char buf[4096];
	size_t len;
};

static void
sink_emit(const char *buf, size_t len, void *arg)
{
	struct sink *s = arg;

	memcpy(s->buf + s->len, buf, len);
	s->len += len;
	s->buf[s->len] = '\0';
}

static void
merge_keeps_lines_whole(void **state)
{
	struct sink s = { .len = 0 };
	struct line_merge m;

	line_merge_init(&m, sink_emit, &s);
	line_merge_feed(&m, 0, "{\"type\":", 8);
	line_merge_feed(&m, 1, "error: 429\n", 11);
	line_merge_feed(&m, 0, "\"result\"}\n{\"a\"", 14);
	line_merge_feed(&m, 1, "more\n", 5);
	line_merge_feed(&m, 0, ":1}\n", 4);
	line_merge_finish(&m);
	assert_string_equal(s.buf, "{\"type\":\"result\"}\nerror: 429\n{\"a\":1}\nmore\n");
	line_merge_free(&m);
}

static void
merge_is_lossless(void **state)
{
	static char big[LINE_MERGE_HOLD_MAX + 10];
	struct sink *s = calloc(1, sizeof(*s));
	struct line_merge m;
	size_t total = 0;

	memset(big, 'x', sizeof(big));
	line_merge_init(&m, sink_emit, s);
	line_merge_feed(&m, 0, "open", 4);
	line_merge_feed(&m, 1, "tail-without-newline", 20);
	line_merge_finish(&m);
	assert_string_equal(s->buf, "opentail-without-newline");
	line_merge_free(&m);

	/* Past the hold cap nothing waits any more, and nothing is lost. */
	s->len = 0;
	line_merge_init(&m, sink_emit, s);
	line_merge_feed(&m, 0, "open", 4);
	for (int i = 0; i < 2; i++) {
		line_merge_feed(&m, 1, big, 1000);
		total += 1000;
	}
	line_merge_feed(&m, 0, "\n", 1);
	line_merge_finish(&m);
	assert_int_equal(s->len, 4 + total + 1);
	assert_memory_equal(s->buf, "open\n", 5);
	line_merge_free(&m);
	free(s);
}

static void
exit_status_encoding(void **state)
{
	assert_int_equal(wait_status_exit_code(W_EXITCODE(0, 0)), 0);
	assert_int_equal(wait_status_exit_code(W_EXITCODE(255, 0)), 255);
	assert_int_equal(wait_status_exit_code(W_EXITCODE(0, SIGKILL)), 137);
	assert_int_equal(wait_status_exit_code(W_EXITCODE(0, SIGINT)), 130);
	assert_int_equal(wait_status_signal(W_EXITCODE(0, SIGSEGV)), SIGSEGV);
	assert_int_equal(wait_status_signal(W_EXITCODE(3, 0)), 0);
	assert_int_equal(exec_error_exit_code(ENOENT), 127);
	assert_int_equal(exec_error_exit_code(ENOTDIR), 127);
	assert_int_equal(exec_error_exit_code(EACCES), 126);
	assert_int_equal(exec_error_exit_code(ENOEXEC), 126);
}

struct collected {
	char *buf;
	size_t len, calls;
	int last_stream;
	bool streams_in_order;
};

static void
collect(int stream, const char *buf, size_t len, void *arg)
{
	struct collected *c = arg;

	c->buf = realloc(c->buf, c->len + len);
	assert_non_null(c->buf);
	memcpy(c->buf + c->len, buf, len);
	c->len += len;
	c->calls++;
	if (stream < c->last_stream)
		c->streams_in_order = false;
	c->last_stream = stream;
}

/* Every byte reaches the worker, in order, whatever the chunk sizes. */
static void
queue_delivers_in_order(void **state)
{
	struct collected c = { .streams_in_order = true };
	struct tap_queue *q = tap_queue_new(collect, &c);
	size_t total = 3 * TAP_QUEUE_SLOTS * TAP_QUEUE_SLOT_SIZE + 12345, off = 0, step = 1;
	char *data = malloc(total);

	assert_non_null(q);
	assert_non_null(data);
	for (size_t i = 0; i < total; i++)
		data[i] = (char)(i * 7 + i / 251);
	while (off < total) {
		size_t n = step < total - off ? step : total - off;

		tap_queue_push(q, off < total / 2 ? 0 : 1, data + off, n);
		off += n;
		step = step * 3 + 1;   /* from single bytes to several slots at once */
	}
	tap_queue_sync(q);
	assert_int_equal(c.len, total);
	tap_queue_free(q);
	assert_memory_equal(c.buf, data, total);
	assert_true(c.streams_in_order);
	free(c.buf);
	free(data);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(family_from_basename),
		cmocka_unit_test(family_through_launchers),
		cmocka_unit_test(family_from_map),
		cmocka_unit_test(command_name_and_index),
		cmocka_unit_test(model_from_arguments),
		cmocka_unit_test(account_from_environment),
		cmocka_unit_test(ansi_stripping),
		cmocka_unit_test(merge_keeps_lines_whole),
		cmocka_unit_test(merge_is_lossless),
		cmocka_unit_test(exit_status_encoding),
		cmocka_unit_test(queue_delivers_in_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
