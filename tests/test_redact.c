/* Unit tests for lib/redact.c: what is taken for a secret in a command
 * line, and what is not. */
#include "unit.h"

#include "redact.h"

static void
expect_redacted(bool after_option, const char *arg, const char *want, bool want_flag)
{
	bool flag = false;
	char *got = redact_arg(arg, after_option, &flag);

	assert_non_null(got);
	if (strcmp(got, want) != 0)
		fail_msg("redact(%s) = '%s', want '%s'", arg, got, want);
	assert_int_equal(flag, want_flag);
	free(got);
}

static void
test_redaction_vectors(void **state)
{
	expect_redacted(false, "--api-key=abc123", "--api-key=[redacted]", true);
	expect_redacted(false, "--token=t", "--token=[redacted]", true);
	expect_redacted(false, "--auth-token=xyz", "--auth-token=[redacted]", true);
	expect_redacted(true, "hunter2", "[redacted]", true);
	expect_redacted(false, "ANTHROPIC_API_KEY=whatever", "ANTHROPIC_API_KEY=[redacted]", true);
	expect_redacted(false, "GH_TOKEN=x", "GH_TOKEN=[redacted]", true);
	expect_redacted(false, "DB_PASSWORD=pw", "DB_PASSWORD=[redacted]", true);
	expect_redacted(false, "MY_SECRET=s", "MY_SECRET=[redacted]", true);
	expect_redacted(false, "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx", "[redacted]", true);
	expect_redacted(false, "use sk-proj-abcdefghijklmnopqrstuv now", "use [redacted] now", true);
	expect_redacted(false, "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9", "Authorization: [redacted]", true);
	expect_redacted(false, "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "[redacted]", true);
	expect_redacted(false, "AIzaSyA-1234567890abcdefghijklmnopqrst", "[redacted]", true);
	expect_redacted(false, "0123456789abcdef0123456789abcdef", "[redacted]", true);
	expect_redacted(false, "key: Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZg==", "key: [redacted]", true);
	/* Things that are not secrets stay. */
	expect_redacted(false, "-p", "-p", false);
	expect_redacted(false, "fix the tests in /home/user/Projects/Service2/src/Main", "fix the tests in /home/user/Projects/Service2/src/Main", false);
	expect_redacted(false, "--max-tokens=4096", "--max-tokens=4096", false);
	expect_redacted(false, "MAX_TOKENS=5", "MAX_TOKENS=5", false);
	expect_redacted(false, "--output-format", "--output-format", false);
	expect_redacted(false, "a task-list of short words", "a task-list of short words", false);
	assert_true(redact_is_secret_option("--api-key"));
	assert_true(redact_is_secret_option("--password"));
	assert_true(redact_is_secret_option("--secret"));
	assert_false(redact_is_secret_option("--model"));
	assert_false(redact_is_secret_option("--api-key=x"));
}

static void
test_redact_argv_json(void **state)
{
	char a0[] = "claude", a1[] = "--api-key", a2[] = "sk-zzz", a3[] = "-p", a4[] = "hello",
	    a5[] = "--model", a6[] = "opus";
	char *argv[] = { a0, a1, a2, a3, a4, a5, a6, NULL };
	bool flag = false;
	json_t *j = redact_argv_json(7, argv, &flag);
	char *text = json_dumps(j, JSON_COMPACT);

	assert_string_equal(text, "[\"claude\",\"--api-key\",\"[redacted]\",\"-p\",\"hello\",\"--model\",\"opus\"]");
	assert_true(flag);
	free(text);
	json_decref(j);
	flag = false;
	j = redact_argv_json(2, argv + 3, &flag);
	assert_false(flag);
	json_decref(j);
}

/* One vector per shape of the rules table (lib/redact.c): a command line
 * argument after an argument (ctx), and what is stored. */
static const struct shape_vector {
	const char *rule;
	enum redact_context ctx;
	const char *arg, *want;
} shape_vectors[] = {
	{ "url-credentials", AFTER_PLAIN, "https://alice:s3cret@git.example.com/repo.git",
	  "https://alice:[redacted]@git.example.com/repo.git" },
	{ "url-credentials", AFTER_PLAIN, "clone https://x-access-token:abc123@github.com/o/r now",
	  "clone https://x-access-token:[redacted]@github.com/o/r now" },
	{ "url-credentials (token as user)", AFTER_PLAIN, "https://abcdef0123456789@host/x",
	  "https://[redacted]@host/x" },
	{ "url-credentials (postgresql)", AFTER_PLAIN, "postgresql://rlwrap:pw@db.example.com/state",
	  "postgresql://rlwrap:[redacted]@db.example.com/state" },
	{ "query-secret", AFTER_PLAIN, "https://api.example.com/v1?access_token=abc123&page=2",
	  "https://api.example.com/v1?access_token=[redacted]&page=2" },
	{ "query-secret", AFTER_PLAIN, "https://maps.example.com/?q=rome&key=XYZ987",
	  "https://maps.example.com/?q=rome&key=[redacted]" },
	{ "-u user:pw", AFTER_USER_OPTION, "alice:hunter2", "alice:[redacted]" },
	{ "--user=user:pw", AFTER_PLAIN, "--user=alice:hunter2", "--user=alice:[redacted]" },
	{ "Authorization: Basic", AFTER_PLAIN, "Authorization: Basic YWxpY2U6aHVudGVyMg==",
	  "Authorization: [redacted]" },
	{ "Authorization: Bearer", AFTER_PLAIN, "authorization: Bearer abcdefgh12",
	  "authorization: [redacted]" },
	{ "Basic in a message", AFTER_PLAIN, "sent Basic YWxpY2U6aHVudGVyMg== to it",
	  "sent Basic [redacted] to it" },
	{ "Cookie header", AFTER_PLAIN, "Cookie: session=abc; theme=dark", "Cookie: [redacted]" },
	{ "X-Api-Key header", AFTER_PLAIN, "x-api-key: 12345678", "x-api-key: [redacted]" },
	{ "PRIVATE-TOKEN header", AFTER_PLAIN, "PRIVATE-TOKEN: glxyz", "PRIVATE-TOKEN: [redacted]" },
	{ "--auth", AFTER_SECRET_OPTION, "alice:pw", "[redacted]" },
	{ "--auth=", AFTER_PLAIN, "--auth=alice:pw", "--auth=[redacted]" },
	{ "--pat=", AFTER_PLAIN, "--pat=abc", "--pat=[redacted]" },
	{ "--passphrase=", AFTER_PLAIN, "--passphrase=open sesame", "--passphrase=[redacted]" },
	{ "--cookie=", AFTER_PLAIN, "--cookie=sid=1", "--cookie=[redacted]" },
	{ "GITLAB_PAT=", AFTER_PLAIN, "GITLAB_PAT=abc", "GITLAB_PAT=[redacted]" },
	{ "GPG_PASSPHRASE=", AFTER_PLAIN, "GPG_PASSPHRASE=x", "GPG_PASSPHRASE=[redacted]" },
	{ "glpat-", AFTER_PLAIN, "glpat-AbCdEfGhIjKlMnOpQrSt", "[redacted]" },
	{ "xai-", AFTER_PLAIN, "key xai-AbCdEfGhIjKlMnOpQrStUv1234", "key [redacted]" },
	{ "AKIA", AFTER_PLAIN, "AKIAIOSFODNN7EXAMPLE", "[redacted]" },
	{ "ASIA", AFTER_PLAIN, "ASIAIOSFODNN7EXAMPLE", "[redacted]" },
	{ "ghp_", AFTER_PLAIN, "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "[redacted]" },
	{ "github_pat_", AFTER_PLAIN, "github_pat_11ABCDEFG0abcdefghijkl_mnopqrstuv", "[redacted]" },
	{ "xoxb-", AFTER_PLAIN, "xoxb-1234567890-abcdefghij", "[redacted]" },
	{ "xoxe-", AFTER_PLAIN, "xoxe-1-abcdefghijklmnop", "[redacted]" },
	{ "AIza", AFTER_PLAIN, "AIzaSyA-1234567890abcdefghijklmnopqrst", "[redacted]" },
	{ "sk-ant-", AFTER_PLAIN, "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx", "[redacted]" },
	{ "hf_", AFTER_PLAIN, "hf_AbCdEfGhIjKlMnOpQrStUvWx", "[redacted]" },
	{ "sk_live_", AFTER_PLAIN, "sk_live_AbCdEfGhIjKlMnOpQrSt", "[redacted]" },
	{ "JWT", AFTER_PLAIN, "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abc", "[redacted]" },
	/* Not secrets. */
	{ "plain URL", AFTER_PLAIN, "https://example.com/a?page=2", "https://example.com/a?page=2" },
	{ "email", AFTER_PLAIN, "mail alice@example.com", "mail alice@example.com" },
	{ "a URL's user name", AFTER_PLAIN, "postgresql://rlwrap_user@db.example.com/state",
	  "postgresql://rlwrap_user@db.example.com/state" },
	{ "-u without colon", AFTER_USER_OPTION, "alice", "alice" },
	{ "a word after Basic", AFTER_PLAIN, "Basic idea", "Basic idea" },
	{ "--author", AFTER_PLAIN, "--author=Alice", "--author=Alice" },
	{ "--path", AFTER_PLAIN, "--path=/tmp", "--path=/tmp" },
	{ "AKIA short", AFTER_PLAIN, "AKIA is a prefix", "AKIA is a prefix" },
};

static void
test_redaction_shapes(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(shape_vectors) / sizeof(shape_vectors[0]); i++) {
		const struct shape_vector *v = &shape_vectors[i];
		bool flag = false;
		char *got = redact_arg_in(v->arg, v->ctx, &flag);

		assert_non_null(got);
		if (strcmp(got, v->want) != 0 || flag != (strcmp(v->arg, v->want) != 0))
			fail_msg("%s: redact(%s) = '%s' (flag %d), want '%s'", v->rule, v->arg, got, flag, v->want);
		free(got);
	}
}

/*
 * The redaction table: secret shapes of every kind, each with
 * the secret that must not survive; in_text: redact_text() finds it in a
 * message too, not only redact_arg() in a command line.  Then lookalikes,
 * which must come through unchanged.
 */
static const struct secret_shape {
	const char *arg, *secret;
	bool in_text;
} secret_shapes[] = {
	/* credentials in URLs */
	{ "https://alice:s3cret@git.example.com/r.git", "s3cret", true },
	{ "https://ghp_AbCdEfGhIjKlMnOpQr1234@github.com/x.git", "ghp_AbCdEf", true },
	{ "https://abcdefghijklmnopqrstuvwxyz@github.com/x.git", "abcdefghijklmnop", true },
	{ "https://Tok3nTok3nTok3n@github.com/x.git", "Tok3n", true },
	{ "https://oauth2:glpat-AbCdEfGhIjKl@gitlab.com/x.git", "glpat-AbCd", true },
	{ "https://x-token-auth:bbtoken123@bitbucket.org/x", "bbtoken123", true },
	{ "postgresql://fleet:p%40ss%3Aw%2Frd%231@db/x", "p%40ss", true },
	{ "postgres://u:pw1@db.example.com:5432/x", "pw1", true },
	{ "mysql://root:toor@127.0.0.1/db", "toor", true },
	{ "redis://:redispass@cache:6379/0", "redispass", true },
	{ "mongodb+srv://app:m0ng0pw@cluster0.example.net/db", "m0ng0pw", true },
	{ "amqp://guest:rabbitpw@mq/vhost", "rabbitpw", true },
	{ "ftp://anon:ftp-secret@ftp.example.com/pub", "ftp-secret", true },
	{ "git+https://deploy:dpl-9f8e7d@host/r.git", "dpl-9f8e7d", true },
	{ "clone https://x-access-token:abc123@github.com/o/r now", "abc123", true },
	{ "https://o1.ingest.example.io/api?sentry_key=1&token=t0k3nvalue", "t0k3nvalue", true },
	{ "https://api.example.com/v1?access_token=abc123&page=2", "abc123", true },
	{ "https://maps.example.com/?q=rome&key=XYZ987", "XYZ987", true },
	{ "https://h/x?password=hunter2", "hunter2", true },
	{ "https://h/x?pwd=hunter3&a=b", "hunter3", true },
	{ "https://bucket.s3.amazonaws.com/o?X-Amz-Credential=AKIDX&X-Amz-Signature=5ig", "5ig", true },
	{ "https://storage.googleapis.com/b/o?X-Goog-Signature=g00gsig", "g00gsig", true },
	{ "https://acct.blob.core.windows.net/c/b?sv=2020&sig=azur3sig", "azur3sig", true },
	{ "https://h/cb?client_secret=cl1ent&refresh_token=r3fr", "cl1ent", true },
	{ "https://h/cb?id_token=idt0k", "idt0k", true },
	{ "https://h/api?private_token=gitlabpt", "gitlabpt", true },
	/* environment assignments with secret-looking names */
	{ "ANTHROPIC_API_KEY=whatever1", "whatever1", false },
	{ "OPENAI_API_KEY=sk-zz", "sk-zz", false },
	{ "GH_TOKEN=x1", "x1", false },
	{ "GITHUB_TOKEN=ghx", "ghx", false },
	{ "DB_PASSWORD=pw2", "pw2", false },
	{ "MY_SECRET=s3", "s3", false },
	{ "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI", "wJalrXUtnFEMI", false },
	{ "AWS_SESSION_TOKEN=FwoGZXIv", "FwoGZXIv", false },
	{ "PASS=hunter4", "hunter4", false },
	{ "pass=hunter5", "hunter5", false },
	{ "DB_PASS=hunter6", "hunter6", false },
	{ "SMTP_PASS=hunter7", "hunter7", false },
	{ "MYSQL_PWD=hunter8", "hunter8", false },
	{ "PGPASSWORD=hunter9", "hunter9", false },
	{ "REDIS_PASSWD=hunter10", "hunter10", false },
	{ "GPG_PASSPHRASE=open sesame", "open sesame", false },
	{ "GITLAB_PAT=abc", "abc", false },
	{ "NPM_AUTH=npmauth", "npmauth", false },
	{ "SESSION_COOKIE=sid1", "sid1", false },
	{ "GOOGLE_APPLICATION_CREDENTIALS=/k.json", "/k.json", false },
	{ "AZURE_CREDENTIAL=azc", "azc", false },
	{ "API_BEARER=brr", "brr", false },
	{ "STRIPE_WEBHOOK_SECRET=wh1", "wh1", false },
	{ "HF_TOKEN=hft", "hft", false },
	/* headers, schemes and options */
	{ "Authorization: Bearer abcdefgh12", "abcdefgh12", true },
	{ "authorization: Basic YWxpY2U6aHVudGVyMg==", "YWxpY2U6", true },
	{ "Proxy-Authorization: Basic cHJveHk6cHc=", "cHJveHk6", true },
	{ "--header=Authorization: Bearer abcdefgh34", "abcdefgh34", true },
	{ "sent Bearer zyxwvuts98 to it", "zyxwvuts98", true },
	{ "sent Basic YWxpY2U6aHVudGVyMg== to it", "YWxpY2U6", true },
	{ "Cookie: session=abc; theme=dark", "session=abc", true },
	{ "Set-Cookie: sid=s1d; Path=/", "sid=s1d", true },
	{ "x-api-key: 12345678", "12345678", true },
	{ "X-Goog-Api-Key: g00gk3y", "g00gk3y", true },
	{ "PRIVATE-TOKEN: glxyz", "glxyz", true },
	{ "X-Auth-Token: xat0k", "xat0k", true },
	{ "--api-key=abc123", "abc123", false },
	{ "--token=t0", "t0", false },
	{ "--auth-token=xyz", "xyz", false },
	{ "--bearer=b3arer", "b3arer", false },
	{ "--bearer-token=b3t", "b3t", false },
	{ "--password=pw3", "pw3", false },
	{ "--pass=pw4", "pw4", false },
	{ "--db-pass=pw5", "pw5", false },
	{ "--client-secret=cs1", "cs1", false },
	{ "--client-credential=cc1", "cc1", false },
	{ "--basic-auth=u:pw6", "pw6", false },
	{ "--user=alice:hunter11", "hunter11", false },
	{ "--proxy-user=bob:hunter12", "hunter12", false },
	/* JWTs and the well-known key prefixes */
	{ "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
	  "SflKxwRJSMeKKF2QT4fw", true },
	{ "token eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJ4In0.c2lnbmF0dXJlX3BhcnQ and more", "c2lnbmF0dXJlX3BhcnQ", true },
	{ "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx", "AbCdEfGhIj", true },
	{ "use sk-proj-abcdefghijklmnopqrstuv now", "abcdefghijklmnop", true },
	{ "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "abcdefghij", true },
	{ "gho_abcdefghijklmnopqrstuvwxyz01", "abcdefghij", true },
	{ "github_pat_11ABCDEFG0abcdefghijkl_mnopqrstuv", "11ABCDEFG0", true },
	{ "glpat-AbCdEfGhIjKlMnOpQrSt", "AbCdEfGhIj", true },
	{ "key xai-AbCdEfGhIjKlMnOpQrStUv1234", "AbCdEfGhIj", true },
	{ "AKIAIOSFODNN7EXAMPLE", "IOSFODNN7", true },
	{ "ASIAIOSFODNN7EXAMPLE", "IOSFODNN7", true },
	{ "AIzaSyA-1234567890abcdefghijklmnopqrst", "1234567890abc", true },
	{ "xoxb-1234567890-abcdefghij", "1234567890", true },
	{ "xoxp-1234567890-abcdefghij", "1234567890", true },
	{ "hf_AbCdEfGhIjKlMnOpQrStUvWx", "AbCdEfGhIj", true },
	{ "gsk_AbCdEfGhIjKlMnOpQrStUvWx", "AbCdEfGhIj", true },
	{ "sk_live_AbCdEfGhIjKlMnOpQrSt", "AbCdEfGhIj", true },
	{ "rk_live_AbCdEfGhIjKlMnOpQrSt", "AbCdEfGhIj", true },
	{ "npm_AbCdEfGhIjKlMnOpQrStUv", "AbCdEfGhIj", true },
	{ "pypi-AgEIcHlwaS5vcmcCJGFiYw", "AgEIcHlwaS5v", true },
	{ "shpat_0123456789abcdefabcd", "0123456789ab", true },
	{ "dop_v1_0123456789abcdefabcd", "0123456789ab", true },
	{ "whsec_AbCdEfGhIjKlMnOpQrSt", "AbCdEfGhIj", true },
	{ "SG.AbCdEfGhIjKlMnOpQrStUv.wXyZ0123456789abcdefgh", "wXyZ0123456789", true },
	{ "ya29.a0AfH6SMBxAbCdEfGhIjKlMnOp", "a0AfH6SMBx", true },
	{ "AGE-SECRET-KEY-1QQPZ9XV3F5ZJ3EXAMPLE", "1QQPZ9XV3F5ZJ3", true },
	{ "0123456789abcdef0123456789abcdef", "0123456789abcdef01", true },
	{ "key: Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZg==", "Zm9vYmFyYmF6", true },
};

static const char *const lookalikes[] = {
	"https://example.com/a?page=2",
	"https://github.com/owner/repo.git",
	"ssh://git@github.com/owner/repo.git",
	"https://alice@example.com/x",
	"https://rlwrap_user@db.example.com/state",
	"postgresql://rlwrap_user@db.example.com/state",
	"https://j.doe2@host/r.git",
	"mail alice@example.com",
	"alice@example.com:repo.git",
	"https://h/x?keyword=rome&page=2",
	"https://h/search?q=password+reset",
	"https://h/x?monkey=banana",
	"-p",
	"--model",
	"--max-tokens=4096",
	"MAX_TOKENS=5",
	"--output-format",
	"--author=Alice",
	"--path=/tmp",
	"--passes=3",
	"--keyboard=us",
	"--tokenizer=bpe",
	"--authors=a,b",
	"BYPASS=1",
	"COMPASS=north",
	"PWD=/home/user",
	"OLDPWD=/home/user/src",
	"PATH=/usr/bin:/bin",
	"KEYBOARD_LAYOUT=us",
	"PASSES=2",
	"TOKEN_LIMIT_NOTE_FOR_USERS",
	"a task-list of short words",
	"Basic idea",
	"Bearer in mind",
	"AKIA is a prefix",
	"sk-short",
	"eyJ is how a JWT starts",
	"SG.short",
	"fix the tests in /home/user/Projects/Service2/src/Main",
	"version 1.2.3.4 released",
	"Authorization failed for the request",
	"the cookie policy",
	"git@github.com:owner/repo.git",
	"https://user%40example.com@host/x",
};

/* Every vector is tried and each miss named, then the count checked. */
static void
test_redaction_table(void **state)
{
	size_t misses = 0;
	char out[512];

	(void)state;
	assert_true(sizeof(secret_shapes) / sizeof(secret_shapes[0]) >= 80);
	assert_true(sizeof(lookalikes) / sizeof(lookalikes[0]) >= 40);
	for (size_t i = 0; i < sizeof(secret_shapes) / sizeof(secret_shapes[0]); i++) {
		const struct secret_shape *v = &secret_shapes[i];
		bool flag = false;
		char *got = redact_arg_in(v->arg, AFTER_PLAIN, &flag);

		assert_non_null(got);
		if (!flag || strstr(got, v->secret) != NULL || strstr(got, REDACTED) == NULL) {
			print_message("redact_arg(%s) = '%s': '%s' survived\n", v->arg, got, v->secret);
			misses++;
		}
		free(got);
		if (v->in_text && (!redact_text(v->arg, out, sizeof(out)) || strstr(out, v->secret) != NULL)) {
			print_message("redact_text(%s) = '%s': '%s' survived\n", v->arg, out, v->secret);
			misses++;
		}
	}
	for (size_t i = 0; i < sizeof(lookalikes) / sizeof(lookalikes[0]); i++) {
		bool flag = false;
		char *got = redact_arg_in(lookalikes[i], AFTER_PLAIN, &flag);

		assert_non_null(got);
		if (flag || strcmp(got, lookalikes[i]) != 0) {
			print_message("lookalike redacted: '%s' became '%s'\n", lookalikes[i], got);
			misses++;
		}
		free(got);
	}
	assert_int_equal(misses, 0);
}

static void
test_redact_user_option_in_argv(void **state)
{
	char a0[] = "curl", a1[] = "-u", a2[] = "alice:hunter2", a3[] = "--user", a4[] = "bob:pw",
	    a5[] = "https://example.com";
	char *argv[] = { a0, a1, a2, a3, a4, a5, NULL };
	bool flag = false;
	json_t *j = redact_argv_json(6, argv, &flag);
	char *text = json_dumps(j, JSON_COMPACT);

	(void)state;
	assert_string_equal(text, "[\"curl\",\"-u\",\"alice:[redacted]\",\"--user\",\"bob:[redacted]\","
	    "\"https://example.com\"]");
	assert_true(flag);
	free(text);
	json_decref(j);
}

static void
test_redact_text_messages(void **state)
{
	char out[256];

	(void)state;
	assert_true(redact_text("Invalid API key sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx-yz: check it", out,
	    sizeof(out)));
	assert_string_equal(out, "Invalid API key [redacted]: check it");
	assert_true(redact_text("Incorrect API key provided: sk-proj-abcdefghijklmnopqrst.", out, sizeof(out)));
	assert_string_equal(out, "Incorrect API key provided: [redacted].");
	assert_false(redact_text("You have hit your limit \xc2\xb7 resets 5pm", out, sizeof(out)));
	assert_string_equal(out, "You have hit your limit \xc2\xb7 resets 5pm");
	/* cut on a character boundary */
	assert_false(redact_text("ab\xc3\xa9", out, 4));
	assert_string_equal(out, "ab");
}

static void
test_argv_exact_round_trip(void **state)
{
	char a0[] = "sh", a1[] = "keep-\xe9", a2[] = "back\\slash \\x41", a3[] = "caf\xc3\xa9";
	char *argv[] = { a0, a1, a2, a3, NULL };
	char *text = argv_exact_json(4, argv, NULL), decoded[64];
	json_t *j = json_loads(text, 0, NULL);

	(void)state;
	assert_non_null(j);
	assert_string_equal(json_string_value(json_array_get(j, 1)), "keep-\\xE9");
	for (size_t i = 0; i < 4; i++) {
		argv_exact_decode(json_string_value(json_array_get(j, i)), decoded);
		assert_string_equal(decoded, argv[i]);
	}
	json_decref(j);
	free(text);
	/* the same as the argv JSON: kept once, as "=" */
	text = argv_exact_json(1, argv, "[\"sh\"]");
	assert_string_equal(text, "=");
	assert_string_equal(argv_exact_text(text, "[\"sh\"]"), "[\"sh\"]");
	free(text);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_redaction_vectors),
		cmocka_unit_test(test_redact_argv_json),
		cmocka_unit_test(test_redaction_shapes),
		cmocka_unit_test(test_redaction_table),
		cmocka_unit_test(test_redact_user_option_in_argv),
		cmocka_unit_test(test_redact_text_messages),
		cmocka_unit_test(test_argv_exact_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
