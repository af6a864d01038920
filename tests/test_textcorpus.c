/*
 * The generated adversarial corpus (fixtures/README.md "Provider
 * signatures").  Every entry of fixtures/catalogue/signatures.tsv is put,
 * in process, into every context a success transcript can put it in (it
 * must not trip) and into its real positions (it must trip with its
 * reason, reset and scope); the expected verdicts follow the text rules of
 * docs/design.md section 4.  A third pass checks the evidence alone: the
 * reason, reset and scope the wordings and bodies give (lib/markers.c,
 * lib/envelope.c), whatever the line grammar decides.
 *
 * Switches (environment):
 *   RLWRAP_CORPUS_STRICT=1|0  whether classifier mismatches fail the test
 *                             (default CORPUS_STRICT_DEFAULT); the evidence
 *                             pass and the size of the corpus always count.
 *   RLWRAP_CORPUS_SHOW=N      mismatches printed, the first of each
 *                             context that has one (default 40).
 *   RLWRAP_CORPUS_ALL=1       every mismatch (up to RLWRAP_CORPUS_SHOW), not
 *                             only the first of each context.
 *   RLWRAP_CORPUS_ONLY=ID     only the entry ID (for debugging one).
 *
 * Ownership: the catalogue is read once into static storage (entries[]
 * and the text they point into); each case is built in one reused buffer.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "classify.h"
#include "dialect.h"
#include "timeparse.h"

#include "ansi.h"
#include "screen.h"

/* While the classifier does not yet follow every text rule of
 * docs/design.md section 4, classifier mismatches are reported and not
 * counted; 1 once it does. */
#ifndef CORPUS_STRICT_DEFAULT
#define CORPUS_STRICT_DEFAULT 1
#endif

#define NOW 1796040000  /* 2026-11-30T12:00:00Z */
#define ENTRIES_MAX 256
#define CASE_MAX 16384
#define COMBINATIONS_MIN 10000

struct entry {
	const char *id;
	bool banner;           /* an agent's own banner, not a provider body */
	const char *family;
	enum reason reason;
	double reset;          /* 0: states none */
	bool reset_unread;     /* states one the reset parser does not read yet */
	const char *scope;     /* "family", a model, or "*" (a model, not checked) */
	const char *status;    /* "-" or the HTTP status the body came with */
	char *text;
};

enum side { SUCCESS, FAILURE };

enum tally { T_FALSE_TRIP, T_MISS, T_WRONG_REASON, T_WRONG_RESET, T_WRONG_SCOPE, T_COUNT };

static const char *const tally_names[T_COUNT] = {
	"false trips", "misses", "wrong reason", "wrong reset", "wrong scope",
};

static struct entry entries[ENTRIES_MAX];
static size_t nentries;
static char *catalogue_text;

#define CONTEXT_KEYS_MAX 256

static struct {
	long combinations;
	long pty_generated;
	long counts[T_COUNT];
	long evidence_bad;
	int shown, show_max;
	bool show_all;             /* every mismatch, not the first of each context */
	/* Mismatches by context (colour folded in): where the rules fail. */
	char keys[CONTEXT_KEYS_MAX][96];
	long key_counts[CONTEXT_KEYS_MAX];
	size_t nkeys;
} stats;

/* ---- the catalogue ---- */

/* \e is ESC, \N a line break; nothing else is escaped. */
static void
unescape(char *s)
{
	char *o = s;

	for (const char *p = s; *p != '\0'; p++) {
		if (p[0] == '\\' && (p[1] == 'e' || p[1] == 'N')) {
			*o++ = p[1] == 'e' ? '\x1b' : '\n';
			p++;
		} else
			*o++ = *p;
	}
	*o = '\0';
}

static double
reset_value(const char *s)
{
	double t;

	if (strcmp(s, "-") == 0)
		return 0;
	if (s[0] == '+')
		return NOW + strtod(s + 1, NULL);
	assert_true(time_parse(s, &t));
	return t;
}

static void
entry_from_fields(char **f)
{
	struct entry *e = &entries[nentries++];

	e->id = f[0];
	e->banner = strcmp(f[1], "banner") == 0;
	e->family = f[2];
	if (!reason_from_name(f[3], &e->reason))
		fail_msg("catalogue entry %s: unknown reason %s", f[0], f[3]);
	e->reset_unread = f[4][0] == '?';
	e->reset = e->reset_unread ? 0 : reset_value(f[4]);
	e->scope = strcmp(f[5], "-") == 0 ? "family" : f[5];
	e->status = f[6];
	e->text = f[8];
	unescape(e->text);
}

static void
load_catalogue(void)
{
	const char *dir = getenv("FIXTURES");
	char path[1024];
	FILE *fp;
	long size;

	snprintf(path, sizeof(path), "%s/catalogue/signatures.tsv", dir != NULL ? dir : "fixtures");
	fp = fopen(path, "r");
	if (fp == NULL)
		fail_msg("cannot open %s", path);
	fseek(fp, 0, SEEK_END);
	size = ftell(fp);
	rewind(fp);
	catalogue_text = calloc(1, (size_t)size + 1);
	assert_non_null(catalogue_text);
	assert_int_equal(fread(catalogue_text, 1, (size_t)size, fp), (size_t)size);
	fclose(fp);
	for (char *line = strtok(catalogue_text, "\n"); line != NULL; line = strtok(NULL, "\n")) {
		char *f[9];
		int n = 0;

		if (line[0] == '#')
			continue;
		for (char *t = line; n < 9 && (f[n] = t) != NULL; n++) {
			t = strchr(t, '\t');
			if (t != NULL)
				*t++ = '\0';
		}
		if (n != 9 || f[8] == NULL)
			fail_msg("catalogue line with %d fields: %s", n, line);
		assert_true(nentries < ENTRIES_MAX);
		entry_from_fields(f);
	}
}

/* ---- cases ---- */

struct buf {
	char s[CASE_MAX];
	size_t len;
};

static void
put(struct buf *b, const char *s)
{
	size_t n = strlen(s);

	assert_true(b->len + n < sizeof(b->s));
	memcpy(b->s + b->len, s, n + 1);
	b->len += n;
}

static void
putf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(b->s + b->len, sizeof(b->s) - b->len, fmt, ap);
	va_end(ap);
	assert_true(n >= 0 && (size_t)n < sizeof(b->s) - b->len);
	b->len += (size_t)n;
}

/* Ordinary lines of an answer: prose that talks about limits, as success
 * transcripts do. */
static const char *const prose[] = {
	"The retry wrapper now backs off on a 429 and the suite passes.",
	"I updated the handler so that quota errors reach the caller.",
	"All 214 tests pass; the flaky one was a race in the cache.",
	"Next I will document the new rate-limit settings in the README.",
	"The provider recovered after the second attempt.",
	"Summary: three files changed, 41 insertions, 12 deletions.",
	"That message only shows when the account is out of credits.",
	"No further action is needed on your side.",
	"I also removed the unused import in src/limits.ts.",
	"Let me know if you want the backoff to be configurable.",
};

#define NPROSE (sizeof(prose) / sizeof(prose[0]))

/* Failures of the run that have nothing to do with a provider. */
static const char *const unrelated[] = {
	"FAIL src/parser.test.ts > parses nested arrays\n"
	"AssertionError: expected [ 1, 2 ] to deeply equal [ 1, 2, 3 ]\n"
	" Test Files  1 failed | 12 passed (13)\n",
	"FAILED tests/test_io.py::test_roundtrip - AssertionError: assert 3 == 4\n"
	"========================= 1 failed, 87 passed in 4.21s =========================\n",
	"error[E0308]: mismatched types\n"
	"  --> src/main.rs:14:9\n"
	"error: could not compile `app` (bin \"app\") due to 1 previous error\n",
};

#define NUNRELATED (sizeof(unrelated) / sizeof(unrelated[0]))

/* The entry's line as printed: plain or in colour. */
static void
put_line(struct buf *b, const struct entry *e, bool colour)
{
	if (colour)
		put(b, "\x1b[1;31m");
	put(b, e->text);
	if (colour)
		put(b, "\x1b[0m");
}

/* ---- success contexts: the entry is content, or the run went on ---- */

typedef void (*context_fn)(struct buf *b, const struct entry *e, bool colour);

static void
c_sentence(struct buf *b, const struct entry *e, bool colour)
{
	put(b, "While testing I saw the provider answer ");
	put_line(b, e, colour);
	put(b, " and the retry then worked.\n");
}

static void
c_backticks(struct buf *b, const struct entry *e, bool colour)
{
	put(b, "The log showed `");
	put_line(b, e, colour);
	put(b, "` once; the next attempt succeeded.\n");
}

static void
c_fence(struct buf *b, const struct entry *e, bool colour)
{
	put(b, "Here is the error you asked about:\n\n```\n");
	put_line(b, e, colour);
	put(b, "\n```\n");
}

static void
c_fence_lang(struct buf *b, const struct entry *e, bool colour)
{
	put(b, "```text\n");
	put_line(b, e, colour);
	put(b, "\n```\n\nIt is handled by the retry wrapper now.\n");
}

static void
c_fence_tilde(struct buf *b, const struct entry *e, bool colour)
{
	put(b, "~~~\n");
	put_line(b, e, colour);
	put(b, "\n~~~\n");
}

/* ~~~ inside a ``` fence closes nothing (CommonMark): the entry is still
 * in the fence. */
static void
c_fence_tilde_in_backticks(struct buf *b, const struct entry *e, bool colour)
{
	put(b, "```\nexample output:\n~~~\n");
	put_line(b, e, colour);
	put(b, "\n```\n");
}

static void
c_fence_backticks_in_tilde(struct buf *b, const struct entry *e, bool colour)
{
	put(b, "~~~\n```\n");
	put_line(b, e, colour);
	put(b, "\n~~~\n");
}

/* A ```` fence is not closed by the ``` pair inside it. */
static void
c_fence_long(struct buf *b, const struct entry *e, bool colour)
{
	put(b, "````markdown\n```\n```\n");
	put_line(b, e, colour);
	put(b, "\n````\n");
}

static void
c_fence_indented(struct buf *b, const struct entry *e, bool colour)
{
	put(b, "Steps:\n\n   ```console\n");
	put_line(b, e, colour);
	put(b, "\n   ```\n");
}

static void
c_table_row(struct buf *b, const struct entry *e, bool colour)
{
	put(b, "| error | meaning |\n|---|---|\n| ");
	put_line(b, e, colour);
	put(b, " | retried |\n");
}

static void
c_table_after(struct buf *b, const struct entry *e, bool colour)
{
	put_line(b, e, colour);
	put(b, "\n\n| provider | status |\n|---|---|\n| openai | ok |\n");
}

static void
c_quote(struct buf *b, const struct entry *e, bool colour)
{
	put(b, "You reported this:\n\n> ");
	put_line(b, e, colour);
	put(b, "\n");
}

static void
c_quote_nested(struct buf *b, const struct entry *e, bool colour)
{
	put(b, "> > ");
	put_line(b, e, colour);
	put(b, "\n");
}

static void
c_list_dash(struct buf *b, const struct entry *e, bool colour)
{
	put(b, "Messages you may see:\n\n- ");
	put_line(b, e, colour);
	put(b, "\n");
}

static void
c_list_star(struct buf *b, const struct entry *e, bool colour)
{
	put(b, "* ");
	put_line(b, e, colour);
	put(b, "\n");
}

static void
c_list_plus(struct buf *b, const struct entry *e, bool colour)
{
	put(b, "+ ");
	put_line(b, e, colour);
	put(b, "\n");
}

static void
c_list_dot(struct buf *b, const struct entry *e, bool colour)
{
	put(b, "Known errors:\n1. Connection reset by the proxy\n2. ");
	put_line(b, e, colour);
	put(b, "\n");
}

static void
c_list_paren(struct buf *b, const struct entry *e, bool colour)
{
	put(b, "1) ");
	put_line(b, e, colour);
	put(b, "\n");
}

static void
c_list_of_banners(struct buf *b, const struct entry *e, bool colour)
{
	put(b, "The CLI prints one of these when a limit is hit:\n\n- ");
	put_line(b, e, colour);
	put(b, "\n- ");
	put_line(b, e, colour);
	put(b, "\n");
}

static void
c_linkdefs_after(struct buf *b, const struct entry *e, bool colour)
{
	put_line(b, e, colour);
	put(b, "\n\n[limits]: https://docs.example.com/limits\n"
	    "[billing]: https://docs.example.com/billing \"Billing\"\n");
}

static void
c_linkdef_title(struct buf *b, const struct entry *e, bool colour)
{
	put(b, "[the error]: https://docs.example.com/errors (");
	put_line(b, e, colour);
	put(b, ")\n");
}

static void
c_deflist_after(struct buf *b, const struct entry *e, bool colour)
{
	put_line(b, e, colour);
	put(b, "\n: shown when the provider refuses the request\n");
}

static void
c_deflist(struct buf *b, const struct entry *e, bool colour)
{
	put(b, "Provider error\n: ");
	put_line(b, e, colour);
	put(b, "\n");
}

static void
c_indented(struct buf *b, const struct entry *e, bool colour)
{
	put(b, "For example:\n\n    ");
	put_line(b, e, colour);
	put(b, "\n");
}

static void
c_indented_after(struct buf *b, const struct entry *e, bool colour)
{
	put_line(b, e, colour);
	put(b, "\n\n    retry_after = 30\n    backoff(retry_after)\n");
}

static void
c_heading(struct buf *b, const struct entry *e, bool colour)
{
	put(b, "## ");
	put_line(b, e, colour);
	put(b, "\n");
}

static void
c_log_excerpt(struct buf *b, const struct entry *e, bool colour)
{
	put(b, "2024/12/25 00:40:01 INFO starting worker\n2024/12/25 00:40:02 ERROR ");
	put_line(b, e, colour);
	put(b, "\n2024/12/25 00:40:09 INFO request succeeded after retry\n");
}

static void
c_log_bracketed(struct buf *b, const struct entry *e, bool colour)
{
	put(b, "[2024-12-25T00:40:02Z] ERROR ");
	put_line(b, e, colour);
	put(b, "\n[2024-12-25T00:40:05Z] INFO job 42 finished in 3.1s\n");
}

static void
c_yaml(struct buf *b, const struct entry *e, bool colour)
{
	put(b, "en:\n  session: ");
	put_line(b, e, colour);
	put(b, "\n  weekly: %{count} messages left this week\n");
}

static void
c_details(struct buf *b, const struct entry *e, bool colour)
{
	put(b, "<details>\n<summary>log</summary>\n\n");
	put_line(b, e, colour);
	put(b, "\n\n</details>\n");
}

/* At exit 0 an answer that ends with the entry still had other content. */
static void
c_prose_then_last(struct buf *b, const struct entry *e, bool colour)
{
	put(b, "I looked into the failure you pasted.\nThe fix is in src/client.ts.\n\n");
	put_line(b, e, colour);
	put(b, "\n");
}

static const struct {
	const char *name;
	context_fn fn;
	bool exit0_only;    /* at exit 1 it would be the last thing printed */
} contexts[] = {
	{ "sentence", c_sentence, false },
	{ "inline-code", c_backticks, false },
	{ "fence", c_fence, false },
	{ "fence-lang", c_fence_lang, false },
	{ "fence-tilde", c_fence_tilde, false },
	{ "fence-tilde-in-backticks", c_fence_tilde_in_backticks, false },
	{ "fence-backticks-in-tilde", c_fence_backticks_in_tilde, false },
	{ "fence-long", c_fence_long, false },
	{ "fence-indented", c_fence_indented, false },
	{ "table-row", c_table_row, false },
	{ "table-after", c_table_after, false },
	{ "quote", c_quote, false },
	{ "quote-nested", c_quote_nested, false },
	{ "list-dash", c_list_dash, false },
	{ "list-star", c_list_star, false },
	{ "list-plus", c_list_plus, false },
	{ "list-dot", c_list_dot, false },
	{ "list-paren", c_list_paren, false },
	{ "list-of-banners", c_list_of_banners, false },
	{ "linkdefs-after", c_linkdefs_after, false },
	{ "linkdef-title", c_linkdef_title, false },
	{ "deflist-after", c_deflist_after, false },
	{ "deflist", c_deflist, false },
	{ "indented-code", c_indented, false },
	{ "indented-after", c_indented_after, false },
	{ "heading", c_heading, false },
	{ "log-excerpt", c_log_excerpt, false },
	{ "log-bracketed", c_log_bracketed, false },
	{ "yaml-i18n", c_yaml, false },
	{ "html-details", c_details, false },
	{ "prose-then-last", c_prose_then_last, true },
};

#define NCONTEXTS (sizeof(contexts) / sizeof(contexts[0]))

/* ---- judging ---- */

static bool
tripped(const struct fail_signal *sig)
{
	return sig->reason != REASON_NONE && sig->reason != REASON_EXIT_NONZERO &&
	    sig->reason != REASON_NO_RESULT;
}

static bool
reset_matches(double want, double got)
{
	return want == 0 ? got == 0 : got != 0 && got - want < 1.01 && want - got < 1.01;
}

static bool
scope_matches(const char *want, const char *got)
{
	return strcmp(want, "*") == 0 || strcmp(want, got) == 0;
}

/* Counts a mismatch under its context; true the first time that context
 * has one. */
static bool
count_context(enum tally t, const char *ctx)
{
	char key[96];
	const char *sgr = strstr(ctx, "/sgr");
	size_t i, n = sgr != NULL ? (size_t)(sgr - ctx) : strlen(ctx);

	snprintf(key, sizeof(key), "%s %.*s%s", t == T_FALSE_TRIP ? "success" : "failure", (int)n, ctx,
	    sgr != NULL ? sgr + 4 : "");
	for (i = 0; i < stats.nkeys && strcmp(stats.keys[i], key) != 0; i++)
		;
	if (i == stats.nkeys) {
		if (stats.nkeys == CONTEXT_KEYS_MAX)
			return false;
		strlcpy(stats.keys[stats.nkeys++], key, sizeof(stats.keys[0]));
	}
	return stats.key_counts[i]++ == 0;
}

static void
show(enum tally t, const struct entry *e, const char *ctx, int exit_code, const struct fail_signal *sig)
{
	char got[64], want[64];

	stats.counts[t]++;
	/* The first mismatch of each context, so that the lines shown cover
	 * the contexts that fail rather than the first entries. */
	if ((!count_context(t, ctx) && !stats.show_all) || stats.shown >= stats.show_max)
		return;
	stats.shown++;
	format_utc_iso(sig->resets_at, got, sizeof(got));
	format_utc_iso(e->reset, want, sizeof(want));
	printf("# %s: %s in %s, exit %d: got %s reset %s scope %s; want ", tally_names[t], e->id, ctx,
	    exit_code, reason_name(sig->reason), sig->resets_at > 0 ? got : "-", sig->scope);
	if (t == T_FALSE_TRIP)
		printf("no trip\n");
	else
		printf("%s reset %s scope %s\n", reason_name(e->reason), e->reset > 0 ? want : "-", e->scope);
}

static void
judge(const struct entry *e, const char *ctx, int exit_code, enum side side, const struct fail_signal *sig)
{
	if (side == SUCCESS) {
		if (tripped(sig))
			show(T_FALSE_TRIP, e, ctx, exit_code, sig);
		return;
	}
	if (!tripped(sig))
		show(T_MISS, e, ctx, exit_code, sig);
	else if (sig->reason != e->reason)
		show(T_WRONG_REASON, e, ctx, exit_code, sig);
	else if (!e->reset_unread && !reset_matches(e->reset, sig->resets_at))
		show(T_WRONG_RESET, e, ctx, exit_code, sig);
	else if (!scope_matches(e->scope, sig->scope))
		show(T_WRONG_SCOPE, e, ctx, exit_code, sig);
}

static void
run_case(const struct entry *e, const char *ctx, const struct buf *b, int exit_code, enum side side)
{
	struct classifier *c = classifier_new(e->family, NOW);
	struct fail_signal sig;

	assert_non_null(c);
	classifier_feed(c, b->s, b->len);
	classifier_finish(c, exit_code, &sig);
	classifier_free(c);
	stats.combinations++;
	judge(e, ctx, exit_code, side, &sig);
}

/* ---- the success side ---- */

/* One context at exit 0, and at exit 1 with an unrelated failure after it
 * (in colour at exit 0 only: the colour and the exit status are judged
 * apart, and the corpus stays fast under the sanitizers). */
static void
success_case(const struct entry *e, const char *name, const struct buf *b, bool exit0_only, size_t k)
{
	struct buf with;
	char ctx[96];

	run_case(e, name, b, 0, SUCCESS);
	if (exit0_only)
		return;
	with = *b;
	put(&with, "\n");
	put(&with, unrelated[k % NUNRELATED]);
	snprintf(ctx, sizeof(ctx), "%s+unrelated-failure", name);
	run_case(e, ctx, &with, 1, SUCCESS);
}

static void
success_side(const struct entry *e, size_t k)
{
	static struct buf b;
	char name[96];

	for (int colour = 0; colour <= 1; colour++) {
		for (size_t i = 0; i < NCONTEXTS; i++) {
			b.len = 0;
			contexts[i].fn(&b, e, colour);
			snprintf(name, sizeof(name), "%s%s", contexts[i].name, colour ? "/sgr" : "");
			success_case(e, name, &b, contexts[i].exit0_only || colour, k + i);
		}
		for (size_t n = 1; n <= 10; n++) {
			b.len = 0;
			put_line(&b, e, colour);
			put(&b, "\n");
			for (size_t j = 0; j < n; j++)
				putf(&b, "%s\n", prose[(k + j) % NPROSE]);
			snprintf(name, sizeof(name), "then-%zu-prose%s", n, colour ? "/sgr" : "");
			success_case(e, name, &b, colour, k + n);
		}
	}
}

/* ---- the failure side: the entry as the last thing printed ---- */

/* What CLIs, SDKs and loggers put in front of a provider's body.  (Not
 * Claude's "⎿": a tool's output is drawn in that gutter, and only the
 * agent's own banners count there.) */
static const char *const labels[] = {
	"",
	"Error: ",
	"error: ",
	"Ran into this error: ",
	"Model call failed: ",
	"AI_RetryError: Failed after 3 attempts. Last error: ",
	"Codex stream error: ",
	"Unknown agent error: ",
	"Stream error: ",
	"\xe2\x9c\x97 Execution failed: ",
	"2024/12/25 00:40:02 ERROR ",
	"2024/12/25 00:40:02 Failed to get response: ",
	"[2024-12-25T00:40:02Z] ERROR ",
	"23:27:08 - openhands:ERROR: ",
	"2024-12-25 00:40:02,123 ERROR ",
	"[ERROR] ",
	"\x1b[31mERROR:\x1b[0m ",
	"\xe2\x97\x8f ",
	"\xe2\xa0\x8b ",
};

#define NLABELS (sizeof(labels) / sizeof(labels[0]))

/* Where a last line stands: alone, with blank lines or stack frames after
 * it (its details), or after the run's own output. */
enum position { P_ALONE, P_BLANKS_AFTER, P_FRAMES_AFTER, P_AFTER_OUTPUT, P_COUNT };

static const char *const position_names[P_COUNT] = {
	"alone", "blanks-after", "frames-after", "after-output",
};

static void
put_positioned(struct buf *b, enum position p, const char *label, const struct entry *e, bool colour)
{
	if (p == P_AFTER_OUTPUT)
		put(b, "Reading the repository...\nApplying the patch to src/app.ts\n");
	put(b, label);
	put_line(b, e, colour);
	put(b, "\n");
	if (p == P_BLANKS_AFTER)
		put(b, "\n\n");
	else if (p == P_FRAMES_AFTER)
		put(b, "    at Object.request (/app/node_modules/sdk/index.js:120:15)\n"
		    "    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)\n");
}

static void
failure_case(const struct entry *e, enum position p, const char *label, const char *label_name,
    bool colour, int exit_code)
{
	static struct buf b;
	char ctx[160];

	b.len = 0;
	put_positioned(&b, p, label, e, colour);
	snprintf(ctx, sizeof(ctx), "%s/%s%s", position_names[p], label_name, colour ? "/sgr" : "");
	run_case(e, ctx, &b, exit_code, FAILURE);
}

/* A body behind each label, and behind the SDKs' status framing when its
 * status is known ("Error code: 429 - {...}", "Error: 429 {...}"). */
static void
body_failures(const struct entry *e)
{
	char label[96], name[128];

	for (int colour = 0; colour <= 1; colour++) {
		for (size_t i = 0; i < NLABELS; i++) {
			snprintf(name, sizeof(name), "label[%zu]'%s'", i, labels[i]);
			for (char *q = name; *q != '\0'; q++)
				if (*q == '\x1b')
					*q = '^';   /* the SGR label, printable in a log */
			failure_case(e, P_ALONE, labels[i], name, colour, 1);
		}
		for (enum position p = P_BLANKS_AFTER; p < P_COUNT; p++)
			failure_case(e, p, "Error: ", "Error:", colour, 1);
		if (strcmp(e->status, "-") == 0)
			continue;
		snprintf(label, sizeof(label), "openai.APIStatusError: Error code: %s - ", e->status);
		failure_case(e, P_ALONE, label, "sdk-repr", colour, 1);
		snprintf(label, sizeof(label), "Error: %s ", e->status);
		failure_case(e, P_ALONE, label, "status-prefix", colour, 1);
	}
}

/* An agent's own banner: last at exit 1, and the whole output at exit 0
 * (CLIs that print their own error and exit 0). */
static void
banner_failures(const struct entry *e)
{
	static struct buf b;

	for (int colour = 0; colour <= 1; colour++) {
		for (enum position p = P_ALONE; p < P_COUNT; p++)
			failure_case(e, p, "", "own", colour, 1);
		failure_case(e, P_ALONE, "[2026-11-30T11:59:42] ", "timestamped", colour, 1);
		failure_case(e, P_ALONE, "", "whole-output-exit-0", colour, 0);
		failure_case(e, P_BLANKS_AFTER, "", "whole-output-exit-0", colour, 0);
		if (strcmp(e->family, "claude") != 0)
			continue;
		/* Claude's footer and turn summary are its chrome, not output. */
		for (int exit_code = 0; exit_code <= 1; exit_code++) {
			b.len = 0;
			put_line(&b, e, colour);
			put(&b, "\n/login to switch to an API usage-billed account.\n\n"
			    "\xe2\x9c\xbb Baked for 2m 4s\n");
			run_case(e, exit_code == 0 ? (colour ? "claude-chrome-after-exit-0/sgr" : "claude-chrome-after-exit-0") :
			    (colour ? "claude-chrome-after/sgr" : "claude-chrome-after"), &b, exit_code, FAILURE);
		}
	}
}

/* ---- pty mode: the bytes a TUI writes around a banner ---- */

/* An Ink redraw (erase line, up one, column 1), a spinner, the banner
 * under a tool's frame; the banner is the agent's last message and the
 * person then types /quit (exit 0): per the screen rule it trips; the
 * same banner quoted in a line the answer goes on from does not. */
static void
pty_bytes(struct buf *b, const struct entry *e, int variant)
{
	b->len = 0;
	put(b, "\x1b[?25l\xe2\xa0\x8b Thinking\xe2\x80\xa6\r\x1b[2K\xe2\xa0\x99 Thinking\xe2\x80\xa6\r\x1b[2K");
	switch (variant) {
	case 0:
		put(b, "\x1b[2K\x1b[1A\x1b[2K\x1b[G");
		put(b, e->text);
		break;
	case 1:
		put(b, "\xe2\x8f\xba Bash(npm test)\r\n  \xe2\x8e\xbf  ");
		put(b, e->text);
		break;
	case 2:
		put(b, "I saw \"");
		put(b, e->text);
		put(b, "\" in your log.\r\n\x1b[2K\x1b[1A\x1b[2K\x1b[GThe retry worked; all tests pass.");
		break;
	default:   /* an answer printed as lines (claude -p on a terminal) that ends quoting it */
		b->len = 0;
		put(b, "The retry works now. When the plan runs out, the CLI prints:\r\n\r\n");
		put(b, e->text);
		put(b, "\r\n");
		return;
	}
	put(b, "\r\n\r\n\xe2\x9c\xbb Baked for 2m 4s\r\n\x1b[2K> /quit\r\n\x1b[?25h");
}

/*
 * A pty case as the wrapper judges it: the bytes through the emulator at
 * the wrapper's default size, the screen's text to the classifier, drawn
 * (cursor moves, erases) or printed as lines; exit 0 (the person typed
 * /quit, or the answer was given).
 */
#define PTY_JUDGED 1
static void
pty_case(const struct entry *e, const struct buf *b, int variant)
{
	static const char *const names[] = {
		"pty-ink-redraw", "pty-under-frame", "pty-quoted-then-prose", "pty-lines-quoted-last",
	};
	struct classifier *c = classifier_new(e->family, NOW);
	struct screen *scr = screen_new(24, 80);
	struct ansi_screen drawing;
	struct fail_signal sig;
	char *text;
	size_t len;

	assert_non_null(c);
	assert_non_null(scr);
	ansi_screen_init(&drawing);
	screen_feed(scr, b->s, b->len);
	ansi_screen_feed(&drawing, b->s, b->len);
	assert_non_null(text = screen_text(scr, &len));
	classifier_set_screen(c, drawing.drawn ? SCREEN_DRAWN : SCREEN_LINES);
	classifier_feed(c, text, len);
	classifier_finish(c, 0, &sig);
	free(text);
	screen_free(scr);
	classifier_free(c);
	stats.combinations++;
	stats.pty_generated++;
	judge(e, names[variant], 0, variant >= 2 ? SUCCESS : FAILURE, &sig);
}

static void
pty_side(const struct entry *e)
{
	static struct buf b;

	if (strchr(e->text, '\n') != NULL)
		return;
	for (int variant = 0; variant < 4; variant++) {
		/* Claude's tool gutter frames only Claude's own banners. */
		if (variant == 1 && (!e->banner || strcmp(e->family, "claude") != 0))
			continue;
		pty_bytes(&b, e, variant);
		pty_case(e, &b, variant);
	}
}

/* ---- the evidence alone ---- */

static void
evidence_check(const struct entry *e, const char *text, const char *how)
{
	struct evidence ev;
	enum reason r;
	bool scope_ok;

	evidence_init(&ev);
	evidence_add_text(&ev, text, strlen(text), NOW);
	r = evidence_reason(&ev);
	scope_ok = strcmp(e->scope, "*") == 0 ||
	    strcmp(ev.scope_model[0] != '\0' ? ev.scope_model : "family", e->scope) == 0;
	if (text_names_failure(&ev) && r == e->reason && (e->reset_unread || reset_matches(e->reset, ev.reset.at)) &&
	    scope_ok)
		return;
	stats.evidence_bad++;
	printf("# evidence: %s (%s): reason %s reset %.0f scope %s; want %s reset %.0f scope %s\n",
	    e->id, how, reason_name(r), ev.reset.at, ev.scope_model[0] != '\0' ? ev.scope_model : "family",
	    reason_name(e->reason), e->reset, e->scope);
}

/* As printed, behind each label (whose words must not change the
 * reason), and behind its status. */
static void
evidence_side(const struct entry *e)
{
	char framed[CASE_MAX];

	evidence_check(e, e->text, "as printed");
	for (size_t i = 1; i < NLABELS && !e->banner; i++) {
		snprintf(framed, sizeof(framed), "%s%s", labels[i], e->text);
		evidence_check(e, framed, labels[i]);
	}
	if (strcmp(e->status, "-") == 0)
		return;
	snprintf(framed, sizeof(framed), "Error code: %s - %s", e->status, e->text);
	evidence_check(e, framed, "behind its status");
}

/* ---- the run ---- */

static int
env_int(const char *name, int dflt)
{
	const char *v = getenv(name), *errstr;
	long long n;

	if (v == NULL || *v == '\0')
		return dflt;
	n = strtonum(v, 0, 1000000, &errstr);
	return errstr == NULL ? (int)n : dflt;
}

/* The counts, printed; the number of classifier mismatches. */
static long
print_counts(bool strict)
{
	long bad = 0;

	printf("# corpus: %zu catalogue entries, %ld combinations judged, %ld pty cases built%s\n",
	    nentries, stats.combinations, stats.pty_generated,
#ifdef PTY_JUDGED
	    " and judged"
#else
	    " (not judged)"
#endif
	    );
	for (int t = 0; t < T_COUNT; t++) {
		printf("#   %s: %ld\n", tally_names[t], stats.counts[t]);
		bad += stats.counts[t];
	}
	printf("#   evidence mismatches: %ld\n", stats.evidence_bad);
	for (size_t i = 0; i < nentries; i++)
		if (entries[i].reset_unread)
			printf("#   reset stated but not read (not checked): %s\n", entries[i].id);
	for (size_t i = 0; i < stats.nkeys; i++)
		printf("#   mismatches in %s: %ld\n", stats.keys[i], stats.key_counts[i]);
	printf("# classifier mismatches %s (RLWRAP_CORPUS_STRICT=%d)\n",
	    strict ? "fail the test" : "are reported only", strict ? 1 : 0);
	return bad;
}

static void
test_generated_corpus(void **state)
{
	const char *only = getenv("RLWRAP_CORPUS_ONLY");
	bool strict = env_int("RLWRAP_CORPUS_STRICT", CORPUS_STRICT_DEFAULT) != 0;
	long bad;

	(void)state;
	stats.show_max = env_int("RLWRAP_CORPUS_SHOW", 40);
	stats.show_all = env_int("RLWRAP_CORPUS_ALL", 0) != 0;
	load_catalogue();
	assert_true(nentries >= 60);
	for (size_t i = 0; i < nentries; i++) {
		const struct entry *e = &entries[i];

		if (only != NULL && strcmp(only, e->id) != 0)
			continue;
		evidence_side(e);
		success_side(e, i);
		if (e->banner)
			banner_failures(e);
		else
			body_failures(e);
		pty_side(e);
	}
	bad = print_counts(strict);
	free(catalogue_text);
	if (only == NULL)
		assert_true(stats.combinations >= COMBINATIONS_MIN);
	assert_int_equal(stats.evidence_bad, 0);
	if (strict && bad > 0)
		fail_msg("%ld corpus cases with the wrong verdict", bad);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_generated_corpus),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
