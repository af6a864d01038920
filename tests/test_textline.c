/* Unit tests for lib/textline.c: the grammar of failure lines in plain
 * text, line by line. */
#include "unit.h"

#include "textline.h"

static enum textline_kind
kind_of(const char *line)
{
	struct textline_state st = { false };
	size_t indent = strspn(line, " "), body;

	return textline_kind(&st, line + indent, strlen(line + indent), indent, &body);
}

/* The agents' and providers' own wording, where a line starts. */
static void
test_textline_banners(void **state)
{
	static const char *const lines[] = {
		"You've hit your limit \xc2\xb7 resets 3pm (America/New_York)",
		"You\xe2\x80\x99ve hit your session limit \xc2\xb7 resets 12:50pm (Europe/Paris)",
		"Claude AI usage limit reached|1796065200",
		"5-hour limit reached \xe2\x88\x99 resets 2am",
		"Credit balance is too low",
		"You've hit your usage limit. Upgrade to Pro (https://openai.com/chatgpt/pricing), or try again in 2 days 3 hours.",
		"ERROR: You've hit your usage limit. Try again at 3:28 PM.",
		"[2026-11-30T11:59:42] ERROR: exceeded retry limit, last status: 429 Too Many Requests, request id: x",
		"[API Error: You have exhausted your daily quota on this model.]",
		"API Error: Rate limit reached",
		"Cloud Code Assist API error (429): You have exhausted your capacity on this model.",
		"OpenAI API error: 402 This request requires more credits, or fewer max_tokens.",
		"\xe2\x8e\xbf  You've hit your weekly limit \xc2\xb7 resets Dec 3 at 4:30am (Asia/Kolkata)",
		"\xe2\x9c\x95 [API Error: You have exhausted your capacity on this model.]",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		if (kind_of(lines[i]) != TEXTLINE_BANNER)
			fail_msg("not a banner: %s", lines[i]);
	}
}

/* Error lines: a label, an exception class or an HTTP status at the start. */
static void
test_textline_error_lines(void **state)
{
	static const char *const lines[] = {
		"Error: 429 Too Many Requests",
		"openai.RateLimitError: Error code: 429 - {'error': {'code': 'rate_limit_exceeded'}}",
		"google.api_core.exceptions.ResourceExhausted: 429 Quota exceeded for quota metric",
		"2026-11-30T11:59:58.204Z WARN llm: Error: 429 Too Many Requests: rate limit",
		"llm call failed: 429 Too Many Requests",
		"< HTTP/1.1 429 Too Many Requests",
		"HTTP/2 503",
		"429 {\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\"}}",
		"529 overloaded_error: Overloaded",
		"fatal: rate limit exceeded",
		"[ERROR] upstream: Error: 402 Payment Required",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		if (kind_of(lines[i]) != TEXTLINE_ERROR)
			fail_msg("not an error line: %s", lines[i]);
	}
}

/* The same words in a sentence, a test name, a quote, code, a list, a log. */
static void
test_textline_plain(void **state)
{
	static const char *const lines[] = {
		"Done: I added rate limiting middleware to src/app.ts.",
		"A 429 Too Many Requests response now backs off.",
		"test_rate_limit_exceeded_returns_429 ... ok",
		"tests/test_limiter.py::test_rate_limit_exceeded_returns_429 PASSED",
		"- honour Retry-After on 429",
		"            raise RateLimitError(\"Rate limit reached, try again in 20s\")",
		"raise RateLimitError(\"Rate limit reached, try again in 20s\")",
		"\"You've hit your limit \xc2\xb7 resets 3pm (America/New_York)\"",
		"> You've hit your limit \xc2\xb7 resets 3pm",
		"| 429 | rate_limit_error | wait |",
		"src/client.ts:44:  if (res.status === 429) {",
		"## Error: 429 Too Many Requests",
		"You've hit your limit on retries when Retry-After is missing.",
		"Credit balance is too low errors are no longer retried.",
		"2026-11-30T10:02:11.517Z DEBUG http: POST /v1/embeddings -> 429",
		"E       openai.RateLimitError: Error code: 429",
		"FAILED tests/test_x.py::test_retry - openai.RateLimitError: Error code: 429",
		"\xe2\x8e\xbf  Error: 429 Too Many Requests",
		"\xe2\x9c\x93 handles overloaded upstream (10 ms)",
		"429 tests passed",
		"Rate limiting is now enforced per key.",
		"    Error: 429 Too Many Requests",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		if (kind_of(lines[i]) != TEXTLINE_PLAIN)
			fail_msg("not plain: %s", lines[i]);
	}
}

/* Inside a fenced block nothing counts; the fence closes it. */
static void
test_textline_fences(void **state)
{
	struct textline_state st = { false };
	size_t body;
	const char *banner = "Credit balance is too low";

	(void)state;
	assert_int_equal(textline_kind(&st, "```", 3, 0, &body), TEXTLINE_PLAIN);
	assert_int_equal(textline_kind(&st, banner, strlen(banner), 0, &body), TEXTLINE_PLAIN);
	assert_int_equal(textline_kind(&st, "```", 3, 0, &body), TEXTLINE_PLAIN);
	assert_int_equal(textline_kind(&st, banner, strlen(banner), 0, &body), TEXTLINE_BANNER);
}

static void
test_textline_headers_and_ordinary(void **state)
{
	(void)state;
	assert_int_equal(kind_of("retry-after-ms: 8750"), TEXTLINE_HEADER);
	assert_int_equal(kind_of("< Retry-After: 30"), TEXTLINE_HEADER);
	assert_true(textline_is_ordinary("The tests pass.", 15, 0, TEXTLINE_PLAIN));
	assert_false(textline_is_ordinary("at Object.<anonymous>", 21, 4, TEXTLINE_PLAIN));
	assert_false(textline_is_ordinary("{\"a\":1}", 7, 0, TEXTLINE_PLAIN));
	assert_false(textline_is_ordinary("/upgrade to increase your usage limit.", 38, 0, TEXTLINE_PLAIN));
	assert_false(textline_is_ordinary("\xe2\x94\x82 > fix it \xe2\x94\x82", 14, 0, TEXTLINE_PLAIN));
}

static void
test_textline_unquoted_body(void **state)
{
	char out[128];
	const char *line = "test failed, to rerun pass `--test rate_limit` see 'x' or src/rate_limit.rs";

	(void)state;
	textline_unquoted(out, sizeof(out), line, strlen(line));
	assert_null(strstr(out, "rate_limit"));
	line = "Error code: 429 - {'error': {'message': 'Rate limit reached'}}";
	textline_unquoted(out, sizeof(out), line, strlen(line));
	assert_non_null(strstr(out, "'Rate limit reached'"));
	line = "You've hit it";
	textline_unquoted(out, sizeof(out), line, strlen(line));
	assert_string_equal(out, "You've hit it");
}

/* textline_quick_plain on one line: its colon and blank bits built here. */
static bool
quick_plain(const char *line)
{
	uint64_t colon[8] = { 0 }, space[8] = { 0 };
	const struct textline_bits bits = { colon, space };
	size_t len = strlen(line);

	assert_true(len < 512);
	for (size_t i = 0; i < len; i++) {
		colon[i / 64] |= (uint64_t)(line[i] == ':') << (i % 64);
		space[i / 64] |= (uint64_t)(line[i] == ' ') << (i % 64);
	}
	return textline_quick_plain(line, len, &bits, 0);
}

/* The quick look settles the common plain lines, never a failure line,
 * and never calls plain what textline_kind would not. */
static void
test_textline_quick_plain(void **state)
{
	static const char *const plain[] = {
		"cc -O2 -Wall -c src/app.ts -o src/app.o", "[ 42%] Building C object CMakeFiles/app.dir/a.o",
		"test_rate_limit_exceeded_returns_429 ... ok", "ok", "done", "}}", "+    retries += 1",
		"2026-11-30T11:07:07.120Z INFO worker: processed 12 jobs",
		"2026-11-30 11:07:09,412 DEBUG limiter: tokens=12 refill=10/s",
		"I1130 11:07:01.000 server.go:12] listening on :8080",
		"\xe2\x9c\x93 handles overloaded upstream (12 ms)", "make[2]: Leaving directory '/build/src'",
		"The API returns 429 Too Many Requests when the bucket is empty.", "    Error: 429",
	};
	static const char *const unsure[] = {
		"You've hit your limit \xc2\xb7 resets 3pm (America/New_York)", "Error: 429 Too Many Requests",
		"error: rate limited", "Claude AI usage limit reached|1796047200", "429 Too Many Requests",
		"I1130 llm call failed: 429 Too Many Requests", "[API Error: quota exhausted]",
		"2026-11-30T11:07:07.120Z ERROR llm: 429", "stream disconnected before completion: x",
		"Quota exceeded for quota metric 'x'", "HTTP/1.1 429",
		"\xe2\x8e\xbf  Error: 429", "```", "{\"type\":\"result\"}", "[1, 2]", "llm: Error: 429",
		"Error: {", "retry-after: 30", "5-hour limit reached \xc2\xb7 resets 2am",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
		if (!quick_plain(plain[i]))
			fail_msg("not settled as plain: %s", plain[i]);
		if (kind_of(plain[i]) != TEXTLINE_PLAIN)
			fail_msg("settled, but not plain: %s", plain[i]);
	}
	for (size_t i = 0; i < sizeof(unsure) / sizeof(unsure[0]); i++)
		if (quick_plain(unsure[i]))
			fail_msg("settled as plain: %s", unsure[i]);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_textline_banners),
		cmocka_unit_test(test_textline_error_lines),
		cmocka_unit_test(test_textline_plain),
		cmocka_unit_test(test_textline_fences),
		cmocka_unit_test(test_textline_headers_and_ordinary),
		cmocka_unit_test(test_textline_unquoted_body),
		cmocka_unit_test(test_textline_quick_plain),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
