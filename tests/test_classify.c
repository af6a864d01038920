/* Unit tests for the classifier core: markers, envelopes, evidence, the
 * streaming machinery and the FailureSignal JSON. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "classify.h"
#include "dialect.h"
#include "textutil.h"

#define NOW 1796040000  /* 2026-11-30T12:00:00Z */

static const char claude_cap[] =
    "{\"type\":\"system\",\"subtype\":\"init\",\"model\":\"claude-opus-4-6\",\"session_id\":\"s\"}\n"
    "{\"type\":\"assistant\",\"message\":{\"id\":\"m\",\"model\":\"claude-opus-4-6\",\"role\":\"assistant\","
    "\"content\":[{\"type\":\"text\",\"text\":\"On it; the 429 rate limit is in the tests\"}]}}\n"
    "{\"type\":\"rate_limit_event\",\"rate_limit_info\":{\"status\":\"rejected\",\"resetsAt\":1796059800,"
    "\"rateLimitType\":\"five_hour\"}}\n"
    "{\"type\":\"assistant\",\"message\":{\"model\":\"<synthetic>\",\"role\":\"assistant\",\"content\":"
    "[{\"type\":\"text\",\"text\":\"You\u2019ve hit your session limit \u00b7 resets 5:30pm (UTC)\"}]},"
    "\"error\":\"rate_limit\"}\r\n"
    "{\"is_error\":true,\"api_error_status\":429,\"result\":\"You've hit your session limit\","
    "\"subtype\":\"success\",\"type\":\"result\"}\n";

static void
classify_chunks(const char *s, size_t len, size_t chunk, const char *family, struct fail_signal *out)
{
	struct classifier *c = classifier_new(family, NOW);

	assert_non_null(c);
	for (size_t off = 0; off < len; off += chunk)
		classifier_feed(c, s + off, len - off < chunk ? len - off : chunk);
	classifier_finish(c, -1, out);
	classifier_free(c);
}

static char *
signal_json(const struct fail_signal *sig)
{
	json_t *o = signal_to_json(sig, NOW);
	char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);

	json_decref(o);
	return s;
}

static void
test_claude_cap_verdict(void **state)
{
	struct fail_signal sig;

	classify_chunks(claude_cap, sizeof(claude_cap) - 1, 1 << 20, NULL, &sig);
	assert_int_equal(sig.reason, REASON_USAGE_LIMIT);
	assert_true(sig.confidence == 1.0);
	assert_string_equal(sig.family, "claude");
	assert_string_equal(sig.model, "claude-opus-4-6");
	assert_string_equal(sig.limit_type, "five_hour");
	assert_int_equal(sig.http_status, 429);
	assert_string_equal(sig.error_type, "rate_limit");
	assert_int_equal((long)sig.resets_at, 1796059800);
	assert_int_equal(sig.reset_source, RESET_SRC_PROVIDER);
	assert_int_equal(sig.line, 5);
	assert_true(sig.after_output);
	assert_true(sig.terminal);
}

/* The verdict must not depend on how the stream was split into chunks. */
static void
test_chunking_invariant(void **state)
{
	struct fail_signal whole, part;
	char *a, *b;
	static const size_t sizes[] = { 1, 2, 3, 7, 64, 333 };

	classify_chunks(claude_cap, sizeof(claude_cap) - 1, 1 << 20, NULL, &whole);
	a = signal_json(&whole);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		classify_chunks(claude_cap, sizeof(claude_cap) - 1, sizes[i], NULL, &part);
		b = signal_json(&part);
		assert_string_equal(a, b);
		free(b);
	}
	free(a);
}

/*
 * A line that ends in a labelled body with a trailing blank opens that
 * body whether it comes whole or in two chunks: the goose record after it
 * is part of the body either way (a fuzz finding: whole, the line was
 * counted as plain text and the record read as goose's).
 */
static void
test_labelled_body_in_any_chunking(void **state)
{
	static const char stream[] = "abc\"def\":{ \n"
	    "{\"type\":\"message\",\"message\":{\"id\":\"m\",\"role\":\"assistant\",\"created\":1796039389,"
	    "\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}}\n";
	struct fail_signal whole, part;
	char *a, *b;

	(void)state;
	classify_chunks(stream, sizeof(stream) - 1, 1 << 20, NULL, &whole);
	assert_string_equal(whole.family, "generic");
	a = signal_json(&whole);
	for (size_t chunk = 1; chunk < sizeof(stream); chunk++) {
		classify_chunks(stream, sizeof(stream) - 1, chunk, NULL, &part);
		b = signal_json(&part);
		assert_string_equal(a, b);
		free(b);
	}
	free(a);
}

static void
count_signal(const struct fail_signal *sig, void *arg)
{
	(void)sig;
	++*(int *)arg;
}

/* classify_chunks with an exit code, watched (a signal callback: every
 * line read) or not (plain text may be counted unread). */
static void
classify_exit(const char *s, size_t len, size_t chunk, int exit_code, bool watched, struct fail_signal *out)
{
	struct classifier *c = classifier_new(NULL, NOW);
	int signals = 0;

	assert_non_null(c);
	if (watched)
		classifier_on_signal(c, count_signal, &signals);
	for (size_t off = 0; off < len; off += chunk)
		classifier_feed(c, s + off, len - off < chunk ? len - off : chunk);
	classifier_finish(c, exit_code, out);
	classifier_free(c);
}

/* n ordinary lines of build output and prose, appended to buf. */
static void
append_lines(char *buf, size_t size, int n)
{
	static const char *const kinds[] = {
		"cc -O2 -Wall -c src/limiter.c -o src/limiter.o",
		"  CC       src/app.o",
		"test_rate_limit_exceeded_returns_429 ... ok",
		"Quota exceeded errors are now surfaced to the caller.",
		"[ 42%] Building C object CMakeFiles/app.dir/run.c.o",
		"",
		"The retry now honours Retry-After on a 429 from the provider.",
	};

	for (int i = 0; i < n; i++) {
		strlcat(buf, kinds[i % 7], size);
		strlcat(buf, "\n", size);
	}
}

/*
 * Long plain text is counted in regions, not read line by line, when no
 * callback watches (classify_lines.c): a banner at the end still trips,
 * one the run went on from does not, whatever the chunking, and the same
 * as when every line is read.
 */
static void
test_text_regions(void **state)
{
	static char buf[1 << 20];
	static const char banner[] = "You've hit your limit \xc2\xb7 resets 3pm (UTC)\n";
	static const size_t chunks[] = { 1, 7, 4096, 1 << 20 };
	struct { int before, after; enum reason want; } cases[] = {
		{ 3000, 0, REASON_USAGE_LIMIT }, { 3000, 2, REASON_USAGE_LIMIT },
		{ 1500, 1500, REASON_EXIT_NONZERO }, { 0, 3000, REASON_EXIT_NONZERO },
	};

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		buf[0] = '\0';
		append_lines(buf, sizeof(buf), cases[k].before);
		strlcat(buf, banner, sizeof(buf));
		append_lines(buf, sizeof(buf), cases[k].after);
		for (size_t i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++) {
			struct fail_signal quiet, watched;

			classify_exit(buf, strlen(buf), chunks[i], 1, false, &quiet);
			classify_exit(buf, strlen(buf), chunks[i], 1, true, &watched);
			assert_int_equal(quiet.reason, cases[k].want);
			assert_int_equal(watched.reason, cases[k].want);
			if (cases[k].want == REASON_USAGE_LIMIT) {
				assert_int_equal(quiet.line, cases[k].before + 1);
				assert_int_equal((long)quiet.resets_at, 1796050800);   /* 15:00 UTC */
			}
		}
	}
}

/*
 * The word masks (classify_lines.c, region_scan_masked) find a line's first
 * non-blank across 64-byte words: a JSON failure indented by a run of
 * blanks that starts anywhere in a word, and runs into the next, or the
 * one after, still ends the region and decides.
 */
static void
test_text_regions_by_words(void **state)
{
	static char buf[16384];
	static const char result[] = "{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":true,"
	    "\"api_error_status\":429,\"result\":\"API Error: 429 rate limited\"}\n";
	static const size_t indents[] = { 0, 1, 2, 63, 64, 65, 129 };
	struct fail_signal sig;

	for (size_t lead = 0; lead < 64; lead++)
		for (size_t k = 0; k < sizeof(indents) / sizeof(indents[0]); k++) {
			size_t n;

			memset(buf, 'w', lead);
			buf[lead] = '\0';
			strlcat(buf, "\n", sizeof(buf));
			append_lines(buf, sizeof(buf), 40);
			n = strlen(buf);
			memset(buf + n, k % 2 ? '\t' : ' ', indents[k]);
			buf[n + indents[k]] = '\0';
			strlcat(buf, result, sizeof(buf));
			classify_exit(buf, strlen(buf), 1 << 20, 1, false, &sig);
			assert_int_equal(sig.reason, REASON_RATE_LIMIT);
		}
}

/*
 * Lines whose first or last byte asks for a closer look and that settle
 * nothing (a log's "[ 42%]", a checkbox, prose that starts like a header,
 * a blank line with a CR, a line ending in a bracket) are read and
 * counted where they stand in a region: the banner after them keeps its
 * line number, watched or not, in any chunking.  A JSON array among the
 * log's bracketed lines still ends the region, wherever it falls in a
 * 64-byte word.
 */
static void
test_text_regions_lines_that_ask(void **state)
{
	static char buf[1 << 18];
	static const char *const asking[] = {
		"Retry-After is honoured on 429 and 503 responses.", "\r", "  \r", "[x] done",
		"[1]: https://example.com/limits", "anthropic-version is 2023-06-01", "Request retried [",
		"see the list ]", "[ 7%] Linking C executable app",
	};
	static const char banner[] = "You've hit your limit \xc2\xb7 resets 3pm (UTC)\n";
	static const char array[] = "[{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":true,"
	    "\"api_error_status\":429,\"result\":\"API Error: 429 rate limited\"}]\n";
	static const size_t chunks[] = { 7, 4096, 1 << 18 };
	struct fail_signal quiet, watched;
	int lines = 0;

	buf[0] = '\0';
	for (int i = 0; i < 2000; i++, lines += 2) {
		append_lines(buf, sizeof(buf), 1);
		strlcat(buf, asking[i % (sizeof(asking) / sizeof(asking[0]))], sizeof(buf));
		strlcat(buf, "\n", sizeof(buf));
	}
	strlcat(buf, banner, sizeof(buf));
	for (size_t i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++) {
		classify_exit(buf, strlen(buf), chunks[i], 1, false, &quiet);
		classify_exit(buf, strlen(buf), chunks[i], 1, true, &watched);
		assert_int_equal(quiet.reason, REASON_USAGE_LIMIT);
		assert_int_equal(watched.reason, REASON_USAGE_LIMIT);
		assert_int_equal(quiet.line, lines + 1);
		assert_int_equal(watched.line, lines + 1);
	}
	for (size_t lead = 0; lead < 64; lead++) {
		memset(buf, 'w', lead);
		buf[lead] = '\0';
		strlcat(buf, "\n", sizeof(buf));
		for (int i = 0; i < 200; i++)
			strlcat(buf, "[ 42%] Building C object CMakeFiles/app.dir/run.c.o\n", sizeof(buf));
		strlcat(buf, array, sizeof(buf));
		append_lines(buf, sizeof(buf), 3);
		classify_exit(buf, strlen(buf), 1 << 18, 1, false, &quiet);
		assert_int_equal(quiet.reason, REASON_RATE_LIMIT);
	}
}

/* A text failure the run went on from is gone before what comes next: a
 * later JSON failure does not take its reset. */
static void
test_text_failure_gone_after_three_lines(void **state)
{
	static char buf[8192];
	struct fail_signal sig;

	strlcpy(buf, "Error: 429 Too Many Requests. Please try again in 30s.\n", sizeof(buf));
	append_lines(buf, sizeof(buf), 20);
	strlcat(buf, "{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":true,"
	    "\"api_error_status\":429,\"result\":\"API Error: 429 rate limited\"}\n", sizeof(buf));
	for (int watched = 0; watched <= 1; watched++) {
		classify_exit(buf, strlen(buf), 1 << 20, 1, watched, &sig);
		assert_int_equal(sig.reason, REASON_RATE_LIMIT);
		assert_true(sig.resets_at == 0);
	}
	/* Right after the error line, it is the failure's own. */
	strlcpy(buf, "Error: 429 Too Many Requests. Please try again in 30s.\n", sizeof(buf));
	strlcat(buf, "{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":true,"
	    "\"api_error_status\":429,\"result\":\"API Error: 429 rate limited\"}\n", sizeof(buf));
	classify_exit(buf, strlen(buf), 1 << 20, 1, false, &sig);
	assert_int_equal(sig.reason, REASON_RATE_LIMIT);
	assert_int_equal((long)sig.resets_at, NOW + 30);
}

static void
test_success_is_none_despite_prose(void **state)
{
	static const char s[] =
	    "{\"type\":\"system\",\"subtype\":\"init\",\"model\":\"claude-sonnet-4-5\"}\n"
	    "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\","
	    "\"content\":\"Error: 429 {\\\"type\\\":\\\"error\\\",\\\"error\\\":{\\\"type\\\":\\\"rate_limit_error\\\"}}\"}]}}\n"
	    "You've hit your session limit (a line of stderr prose that is not a failure of this run)\n"
	    "{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":\"Fixed the 429 handling\"}\n";
	struct fail_signal sig;

	classify_chunks(s, sizeof(s) - 1, 5, NULL, &sig);
	assert_int_equal(sig.reason, REASON_NONE);
	assert_true(sig.confidence == 1.0);
	assert_int_equal(sig.line, 4);
}

static void
test_injected_record_salvaged(void **state)
{
	static const char s[] =
	    "{\"type\":\"system\",\"subtype\":\"init\",\"model\":\"claude-opus-4-6\"}\n"
	    "{\"type\":\"result\",\"subtype\":\"success\",\"is_er{\"type\":\"rate_limit_event\",\"rate_limit_info\":"
	    "{\"status\":\"rejected\",\"resetsAt\":1796050000,\"rateLimitType\":\"seven_day\"}}\n"
	    "ror\":true,\"api_error_status\":429,\"result\":\"API Error: Rate limit reached\"}\n";
	struct fail_signal sig;

	classify_chunks(s, sizeof(s) - 1, 1 << 20, NULL, &sig);
	/* The bare 429 inherits the injected rejected event's window and reset. */
	assert_int_equal(sig.reason, REASON_USAGE_LIMIT);
	assert_string_equal(sig.limit_type, "seven_day");
	assert_int_equal((long)sig.resets_at, 1796050000);
	assert_int_equal(sig.http_status, 429);
}

/* The injected record is found in a line the prefilter drops, in any chunking. */
static void
test_injection_in_skipped_line(void **state)
{
	static const char s[] =
	    "{\"type\":\"system\",\"subtype\":\"init\",\"model\":\"claude-opus-4-6\"}\n"
	    "{\"type\":\"assistant\",\"message\":{\"model\":\"claude-opus-4-6\",\"content\":[{\"type\":\"text\",\"text\":\"a\"}]}}\n"
	    "{\"type\":\"assistant\",\"message\":{\"model\":\"claude-opus-4-6\",\"content\":[{\"type\":\"text\",\"text\":\"hal"
	    "{\"type\":\"rate_limit_event\",\"rate_limit_info\":{\"status\":\"rejected\",\"resetsAt\":1796050000}}\n"
	    "f done\"}]}}\n";
	static const size_t sizes[] = { 1, 5, 64, 100, 1 << 20 };
	struct fail_signal sig;

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		classify_chunks(s, sizeof(s) - 1, sizes[i], NULL, &sig);
		assert_int_equal(sig.reason, REASON_USAGE_LIMIT);
		assert_int_equal((long)sig.resets_at, 1796050000);
		assert_int_equal(sig.line, 3);
	}
}

static void
test_rejected_then_success_is_none(void **state)
{
	static const char s[] =
	    "{\"type\":\"rate_limit_event\",\"rate_limit_info\":{\"status\":\"rejected\",\"resetsAt\":1796050000}}\n"
	    "{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":\"done\"}\n";
	struct fail_signal sig;

	classify_chunks(s, sizeof(s) - 1, 1 << 20, NULL, &sig);
	assert_int_equal(sig.reason, REASON_NONE);
	assert_int_equal(sig.resets_at, 0);
}

static void
evidence_of(const char *text, struct evidence *ev)
{
	evidence_init(ev);
	evidence_add_text(ev, text, strlen(text), NOW);
}

static void
test_text_precedence(void **state)
{
	struct evidence ev;

	evidence_of("You've hit your usage limit. Visit https://chatgpt.com/codex/settings/usage to "
	    "purchase more credits or try again at 3:28 PM.", &ev);
	assert_int_equal(evidence_reason(&ev), REASON_USAGE_LIMIT);
	evidence_of("429: you are rate limited due to insufficient credits", &ev);
	assert_int_equal(evidence_reason(&ev), REASON_CREDIT_EXHAUSTED);
	evidence_of("Insufficient balance. Manage your billing here", &ev);
	evidence_set_status(&ev, 401, true);
	assert_int_equal(evidence_reason(&ev), REASON_CREDIT_EXHAUSTED);
	evidence_of("API Error: 529 Overloaded. This is a server-side issue", &ev);
	assert_int_equal(evidence_reason(&ev), REASON_OVERLOADED);
	assert_int_equal(ev.http_status, 529);
	evidence_of("Request too large for gpt-4o in organization org-x on tokens per min (TPM): "
	    "Limit 30000, Requested 36055. rate limit", &ev);
	assert_int_equal(evidence_reason(&ev), REASON_INVALID_REQUEST);
	evidence_of("something unrelated went wrong", &ev);
	assert_int_equal(evidence_reason(&ev), REASON_AGENT_ERROR);
	assert_false(text_names_failure(&ev));
	evidence_of("Quota exceeded for metric: x, limit: 0.5", &ev);
	assert_int_equal(evidence_reason(&ev), REASON_RATE_LIMIT);
	evidence_of("Quota exceeded for metric: x, limit: 0, model: gemini", &ev);
	assert_int_equal(evidence_reason(&ev), REASON_USAGE_LIMIT);
}

/* Wordings from providers the fixtures do not replay. */
static void
test_more_wordings(void **state)
{
	static const struct { const char *text; enum reason reason; } cases[] = {
		{ "You've reached your free Grok Build usage limit for now.", REASON_USAGE_LIMIT },
		{ "You have reached your daily gemini-2.5-pro quota limit", REASON_USAGE_LIMIT },
		{ "You have reached your specified API usage limits. You will regain access on "
		  "2026-12-01 at 00:00 UTC.", REASON_CREDIT_EXHAUSTED },
		{ "You exceeded your current quota, please check your plan and billing details.",
		  REASON_CREDIT_EXHAUSTED },
		{ "You exceeded your current quota, please check your plan and billing details. "
		  "* Quota exceeded for metric: generate_content_free_tier_requests, limit: 2\n"
		  "Please retry in 44.09s.", REASON_RATE_LIMIT },
		{ "Rate limit exceeded: free-models-per-day. Add 10 credits", REASON_USAGE_LIMIT },
		{ "No deployments available for selected model, Try again in 5 seconds.", REASON_RATE_LIMIT },
		{ "Your team has either used all available credits or reached its monthly spending limit.",
		  REASON_CREDIT_EXHAUSTED },
		{ "Service tier capacity exceeded for this model.", REASON_OVERLOADED },
		{ "stream disconnected before completion: Your requests to gpt-5.4 have exceeded rate limit.",
		  REASON_RATE_LIMIT },
		{ "Incorrect API key provided: sk-abc***", REASON_AUTH },
		{ "OAuth token has expired. Please run /login", REASON_AUTH },
		{ "This model's maximum context length is 128000 tokens.", REASON_INVALID_REQUEST },
		{ "Request timed out.", REASON_TIMEOUT },
		{ "Claude usage limit reached. Your limit will reset at 5pm (Europe/Warsaw).", REASON_USAGE_LIMIT },
	};
	struct evidence ev;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		evidence_of(cases[i].text, &ev);
		if (evidence_reason(&ev) != cases[i].reason)
			fail_msg("%s: got %s", cases[i].text, reason_name(evidence_reason(&ev)));
	}
}

static void
test_confidence_ladder(void **state)
{
	struct evidence ev;

	evidence_of("429 {\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"slow down\"}}", &ev);
	assert_int_equal(ev.http_status, 429);
	assert_true(ev.status_structured);
	assert_string_equal(ev.error_type, "rate_limit_error");
	assert_true(evidence_confidence(&ev) == 1.0);
	evidence_init(&ev);
	evidence_set_status(&ev, 429, true);
	assert_true(evidence_confidence(&ev) == 0.8);
	evidence_of("unexpected status 401 Unauthorized: Missing bearer", &ev);
	assert_int_equal(ev.http_status, 401);
	assert_false(ev.status_structured);
	assert_true(evidence_confidence(&ev) == 0.5);
	assert_int_equal(evidence_reason(&ev), REASON_AUTH);
}

static void
test_python_repr_envelope(void **state)
{
	struct evidence ev;

	evidence_of("openai.RateLimitError: Error code: 429 - {'error': {'message': \"You've exceeded it\", "
	    "'type': 'insufficient_quota', 'param': None, 'code': 'insufficient_quota'}}", &ev);
	assert_int_equal(ev.http_status, 429);
	assert_true(ev.status_structured);
	assert_string_equal(ev.error_type, "insufficient_quota");
	assert_int_equal(evidence_reason(&ev), REASON_CREDIT_EXHAUSTED);
}

static void
test_google_envelope(void **state)
{
	static const char s[] =
	    "{\"error\":{\"code\":429,\"message\":\"Quota exceeded for metric: x\",\"status\":\"RESOURCE_EXHAUSTED\","
	    "\"details\":[{\"@type\":\"type.googleapis.com/google.rpc.QuotaFailure\",\"violations\":[{\"quotaId\":"
	    "\"GenerateRequestsPerDayPerProjectPerModel-FreeTier\",\"quotaDimensions\":{\"model\":\"gemini-2.5-pro\"}}]},"
	    "{\"@type\":\"type.googleapis.com/google.rpc.RetryInfo\",\"retryDelay\":\"34s\"}]}}\n";
	struct fail_signal sig;

	classify_chunks(s, sizeof(s) - 1, 1 << 20, NULL, &sig);
	assert_int_equal(sig.reason, REASON_USAGE_LIMIT);   /* PerDay: a daily quota */
	assert_true(sig.confidence == 1.0);
	assert_string_equal(sig.scope, "gemini-2.5-pro");
	assert_string_equal(sig.limit_type, "daily");
	assert_int_equal((long)sig.resets_at, NOW + 34);
	assert_int_equal(sig.reset_source, RESET_SRC_PROVIDER);
	assert_string_equal(sig.family, "generic");
}

static void
test_message_cleaned_and_capped(void **state)
{
	struct fail_signal sig;
	char text[2000];

	signal_init(&sig);
	memset(text, 'a', sizeof(text));
	memcpy(text + 509, "\xc3\xa9\xc3\xa9", 4);   /* a two-byte character across the cut */
	text[3] = '\x07';
	signal_set_message(&sig, text, sizeof(text));
	assert_true(strlen(sig.message) <= SIGNAL_MESSAGE_MAX);
	assert_null(strchr(sig.message, '\x07'));
	/* Never half a UTF-8 sequence at the end. */
	assert_int_not_equal((unsigned char)sig.message[strlen(sig.message) - 1], 0xc3);
}

/* Hostile input: no crash, and never a reset beyond 8 days. */
static void
test_hostile_input(void **state)
{
	struct classifier *c = classifier_new(NULL, NOW);
	struct fail_signal sig;
	char *deep = malloc(200001);
	char junk[4096];
	static const char absurd[] =
	    "{\"type\":\"rate_limit_event\",\"rate_limit_info\":{\"status\":\"rejected\",\"resetsAt\":1e300}}\n"
	    "{\"type\":\"rate_limit_event\",\"rate_limit_info\":{\"status\":\"rejected\",\"resetsAt\":1797040000}}\n";

	assert_non_null(deep);
	memset(deep, '[', 100000);
	memset(deep + 100000, ']', 100000);
	deep[200000] = '\n';
	srand(7);
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (char)(rand() & 0xff);
	classifier_feed(c, deep, 200001);
	classifier_feed(c, junk, sizeof(junk));
	classifier_feed(c, "\n", 1);
	classifier_feed(c, absurd, sizeof(absurd) - 1);
	classifier_finish(c, 0, &sig);
	assert_int_equal(sig.reason, REASON_USAGE_LIMIT);
	assert_true(sig.resets_at <= NOW + 8 * 86400);
	classifier_free(c);
	free(deep);
}

/* A line far over the cap is cut, and the next line is still read. */
static void
test_long_line_then_result(void **state)
{
	struct classifier *c = classifier_new("claude", NOW);
	static const char tail[] =
	    "\n{\"type\":\"result\",\"is_error\":true,\"api_error_status\":401,\"result\":\"Invalid API key\"}\n";
	char *big = malloc(1 << 20);
	struct fail_signal sig;

	assert_non_null(big);
	memset(big, 'x', 1 << 20);
	big[0] = '{';
	for (int i = 0; i < 5; i++)
		classifier_feed(c, big, 1 << 20);
	classifier_feed(c, tail, sizeof(tail) - 1);
	classifier_finish(c, 1, &sig);
	assert_int_equal(sig.reason, REASON_AUTH);
	assert_int_equal(sig.line, 2);
	assert_int_equal(sig.exit_code, 1);
	classifier_free(c);
	free(big);
}

/* classify_chunks for a run that exited 1: an error line that is not a
 * banner explains only a failed exit (fixtures/README.md). */
static void
classify_failed_run(const char *s, size_t len, size_t chunk, struct fail_signal *out)
{
	struct classifier *c = classifier_new(NULL, NOW);

	assert_non_null(c);
	for (size_t off = 0; off < len; off += chunk)
		classifier_feed(c, s + off, len - off < chunk ? len - off : chunk);
	classifier_finish(c, 1, out);
	classifier_free(c);
}

/* A labelled body is gathered whole in any chunking; a line no body could
 * hold ends the gathering and is read itself. */
static void
test_labelled_bodies(void **state)
{
	static const char gaxios[] =
	    "_GaxiosError: [{\n  \"error\": {\n    \"code\": 429,\n"
	    "    \"message\": \"Resource has been exhausted (e.g. check quota).\",\n"
	    "    \"status\": \"RESOURCE_EXHAUSTED\"\n  }\n}\n]\n    at Gaxios._request (g.js:1:2)\n";
	static const char stopped[] =
	    "Step 3 of 4: [\nconnecting\nError: read ECONNRESET\n";
	static const size_t sizes[] = { 1, 5, 64, 1 << 20 };
	struct fail_signal sig;
	char *first = NULL, *b;

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		classify_failed_run(gaxios, sizeof(gaxios) - 1, sizes[i], &sig);
		assert_int_equal(sig.reason, REASON_RATE_LIMIT);
		assert_int_equal(sig.http_status, 429);
		assert_string_equal(sig.error_type, "RESOURCE_EXHAUSTED");
		assert_int_equal(sig.line, 1);
		b = signal_json(&sig);
		if (first == NULL)
			first = b;
		else {
			assert_string_equal(first, b);
			free(b);
		}
	}
	free(first);
	classify_failed_run(stopped, sizeof(stopped) - 1, 1 << 20, &sig);
	assert_int_equal(sig.reason, REASON_UNAVAILABLE);
	assert_int_equal(sig.line, 3);
}

static void
test_no_result_and_exit_only(void **state)
{
	static const char s[] = "{\"type\":\"thread.started\",\"thread_id\":\"t\"}\n{\"type\":\"turn.started\"}\n";
	struct classifier *c = classifier_new(NULL, NOW);
	struct fail_signal sig;

	classifier_feed(c, s, sizeof(s) - 1);
	classifier_finish(c, 143, &sig);
	assert_int_equal(sig.reason, REASON_NO_RESULT);
	assert_string_equal(sig.family, "codex");
	classifier_free(c);
	c = classifier_new(NULL, NOW);
	classifier_finish(c, 3, &sig);
	assert_int_equal(sig.reason, REASON_EXIT_NONZERO);
	assert_true(sig.confidence == 0.2);
	classifier_free(c);
}

static void
test_usage_reported(void **state)
{
	static const char s[] = "{\"type\":\"turn.completed\",\"usage\":{\"input_tokens\":100,\"output_tokens\":7}}\n";
	struct classifier *c = classifier_new(NULL, NOW);
	struct fail_signal sig;
	struct run_usage u;

	classifier_feed(c, s, sizeof(s) - 1);
	classifier_finish(c, 0, &sig);
	classifier_usage(c, &u);
	assert_int_equal(u.input_tokens, 100);
	assert_int_equal(u.output_tokens, 7);
	assert_true(u.cost_usd < 0);
	classifier_free(c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_claude_cap_verdict),
		cmocka_unit_test(test_chunking_invariant),
		cmocka_unit_test(test_labelled_body_in_any_chunking),
		cmocka_unit_test(test_success_is_none_despite_prose),
		cmocka_unit_test(test_injected_record_salvaged),
		cmocka_unit_test(test_injection_in_skipped_line),
		cmocka_unit_test(test_rejected_then_success_is_none),
		cmocka_unit_test(test_text_precedence),
		cmocka_unit_test(test_more_wordings),
		cmocka_unit_test(test_confidence_ladder),
		cmocka_unit_test(test_python_repr_envelope),
		cmocka_unit_test(test_google_envelope),
		cmocka_unit_test(test_message_cleaned_and_capped),
		cmocka_unit_test(test_hostile_input),
		cmocka_unit_test(test_long_line_then_result),
		cmocka_unit_test(test_labelled_bodies),
		cmocka_unit_test(test_no_result_and_exit_only),
		cmocka_unit_test(test_usage_reported),
		cmocka_unit_test(test_text_regions),
		cmocka_unit_test(test_text_regions_by_words),
		cmocka_unit_test(test_text_regions_lines_that_ask),
		cmocka_unit_test(test_text_failure_gone_after_three_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
