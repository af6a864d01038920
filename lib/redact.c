/* redact.c: secrets in argv and in messages replaced by "[redacted]" before
 * they reach the store or the screen, by one table of rules. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "redact.h"
#include "textutil.h"
#include "visible.h"

/* ---- the tables ---- */

/* Options whose value is a secret ("--name V" or "--name=V"): whole names,
 * then name endings; any case. */
static const char *const secret_option_names[] = {
	"key", "token", "secret", "password", "passwd", "pass", "apikey", "auth", "pat",
	"passphrase", "cookie", "credential", "credentials", "bearer",
};
static const char *const secret_option_endings[] = {
	"-key", "_key", "apikey", "-token", "_token", "-secret", "_secret", "-password", "_password",
	"-passwd", "_passwd", "-passphrase", "_passphrase", "-auth", "_auth", "-pat", "_pat",
	"-cookie", "_cookie", "-credentials", "_credentials", "-credential", "_credential",
	"-bearer", "_bearer", "-pass", "_pass",
};
/* Environment-style "NAME=V": whole names, then NAME's endings, any case
 * ("PASS" and "DB_PASS", but not "BYPASS" or "COMPASS"). */
static const char *const secret_assignment_names[] = { "pass", "pat", "auth" };
static const char *const secret_assignment_endings[] = {
	"key", "token", "secret", "password", "passwd", "passphrase", "_pat", "_auth", "cookie",
	"credentials", "credential", "_pass", "_pwd", "_bearer",
};
/* Options whose value is "user:password" (curl, wget): the password goes. */
static const char *const user_password_options[] = { "-u", "--user", "--proxy-user", "-U" };
/* Header names whose value is a credential, in a "-H 'Name: value'" or a message. */
static const char *const secret_headers[] = {
	"authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "api-key",
	"x-auth-token", "private-token", "x-goog-api-key",
};
/* Words whose next word is a credential: "Bearer T", "Basic T". */
static const char *const credential_schemes[] = { "bearer", "basic", "token" };
/* Query parameters whose value is a credential: "?access_token=T". */
static const char *const secret_query_params[] = {
	"access_token", "api_key", "apikey", "key", "token", "secret", "password", "sig", "signature",
	"auth", "client_secret", "refresh_token", "id_token", "pass", "passwd", "pwd", "private_token",
	"oauth_token", "x-amz-signature", "x-amz-credential", "x-amz-security-token",
	"x-goog-signature", "x-goog-credential",
};

/* Key shapes: a prefix and the shortest whole word that is a key. */
static const struct key_prefix {
	const char *prefix;
	size_t min_len;
} key_prefixes[] = {
	{ "sk-", 20 },            /* OpenAI, Anthropic (sk-ant-), DeepSeek, ... */
	{ "sk_live_", 20 }, { "sk_test_", 20 }, { "rk_live_", 20 },   /* Stripe */
	{ "ghp_", 20 }, { "gho_", 20 }, { "ghu_", 20 }, { "ghs_", 20 }, { "ghr_", 20 },
	{ "github_pat_", 20 },    /* GitHub */
	{ "glpat-", 20 }, { "gldt-", 20 }, { "glrt-", 20 },   /* GitLab */
	{ "xai-", 20 },           /* xAI */
	{ "AKIA", 20 }, { "ASIA", 20 },   /* AWS access key ids */
	{ "AIza", 30 },           /* Google */
	{ "hf_", 20 },            /* Hugging Face */
	{ "gsk_", 20 },           /* Groq */
	{ "pplx-", 20 },          /* Perplexity */
	{ "r8_", 20 },            /* Replicate */
	{ "npm_", 20 }, { "pypi-", 20 },
	{ "shpat_", 20 }, { "shpss_", 20 }, { "shpca_", 20 },   /* Shopify */
	{ "dop_v1_", 20 }, { "doo_v1_", 20 },   /* DigitalOcean */
	{ "whsec_", 20 },         /* Stripe webhooks */
	{ "glsa_", 20 },          /* Grafana */
	{ "lin_api_", 20 },       /* Linear */
	{ "PMAK-", 20 },          /* Postman */
	{ "nvapi-", 20 },         /* NVIDIA */
	{ "dckr_pat_", 20 },      /* Docker */
	{ "tskey-", 20 },         /* Tailscale */
	{ "AGE-SECRET-KEY-", 20 },
	{ "eyJ", 20 },            /* a JWT (all its segments: dotted_prefixes) */
};

/* Key shapes whose word goes on past dots: a JWT's three segments, a
 * SendGrid key, a Google OAuth access token. */
static const char *const dotted_prefixes[] = { "eyJ", "SG.", "ya29." };

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static bool
in_list_ci(const char *const *list, size_t n, const char *s, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(list[i]) == len && strncasecmp(list[i], s, len) == 0)
			return true;
	return false;
}

static bool
ends_in_list_ci(const char *const *list, size_t n, const char *s, size_t len)
{
	for (size_t i = 0; i < n; i++) {
		size_t k = strlen(list[i]);

		if (len >= k && strncasecmp(s + len - k, list[i], k) == 0)
			return true;
	}
	return false;
}

static bool
is_token_char(char c)
{
	return isalnum((unsigned char)c) || strchr("_+/=-", c) != NULL;
}

static size_t
token_end(const char *s, size_t len, size_t i)
{
	while (i < len && is_token_char(s[i]))
		i++;
	return i;
}

/* Does the word s[0..len) look like a credential? */
static bool
key_shaped(const char *s, size_t len)
{
	size_t hex = 0, upper = 0, lower = 0, digit = 0, slash = 0;

	for (size_t i = 0; i < ARRAY_LEN(key_prefixes); i++)
		if (len >= key_prefixes[i].min_len &&
		    strncmp(s, key_prefixes[i].prefix, strlen(key_prefixes[i].prefix)) == 0)
			return true;
	/* Slack: xoxb-, xoxp-, xoxa-, xoxr-, xoxs-, xoxe- ... */
	if (len >= 15 && strncmp(s, "xox", 3) == 0 && isalpha((unsigned char)s[3]) && s[4] == '-')
		return true;
	if (len < 32)
		return false;
	for (size_t i = 0; i < len; i++) {
		hex += isxdigit((unsigned char)s[i]) != 0;
		upper += isupper((unsigned char)s[i]) != 0;
		lower += islower((unsigned char)s[i]) != 0;
		digit += isdigit((unsigned char)s[i]) != 0;
		slash += s[i] == '/';
	}
	if (hex == len)
		return true;
	return upper > 0 && lower > 0 && digit > 0 && s[0] != '/' && slash * 10 <= len;
}

/* A URL's user that reads as a login name ("git", "alice", "rlwrap_user",
 * "j.doe2"): short, starting with a letter, few digits, not mixing upper
 * case, lower case and digits as tokens do, not key-shaped.  Anything else
 * before '@' without a ':' is a token ("https://TOKEN@host"). */
static bool
login_name(const char *s, size_t len)
{
	size_t digits = 0, upper = 0;

	if (len == 0 || len > 24 || !isalpha((unsigned char)s[0]) || key_shaped(s, len))
		return false;
	for (size_t i = 0; i < len; i++) {
		if (!isalnum((unsigned char)s[i]) && strchr("._-%", s[i]) == NULL)
			return false;
		digits += isdigit((unsigned char)s[i]) != 0;
		upper += isupper((unsigned char)s[i]) != 0;
	}
	return digits <= 4 && (upper == 0 || digits == 0);
}

/* ---- rules over text: each says whether a secret starts its span at or
 * after i, as [*start, *end) ---- */

/* "scheme://user:password@host": the password; "scheme://token@host": the token. */
static bool
match_url_userinfo(const char *s, size_t len, size_t i, size_t *start, size_t *end)
{
	size_t j = i + 3, colon = 0;

	if (len - i < 3 || strncmp(s + i, "://", 3) != 0)
		return false;
	for (; j < len && strchr("/?#@ \t\r\n\"'<>", s[j]) == NULL; j++)
		if (s[j] == ':' && colon == 0)
			colon = j;
	if (j >= len || s[j] != '@')
		return false;
	*start = colon != 0 ? colon + 1 : i + 3;
	*end = j;
	return *end > *start && (colon != 0 || !login_name(s + *start, *end - *start));
}

/* "?access_token=T" or "&key=T": the value. */
static bool
match_query_param(const char *s, size_t len, size_t i, size_t *start, size_t *end)
{
	size_t j = i + 1;

	if (s[i] != '?' && s[i] != '&')
		return false;
	while (j < len && (isalnum((unsigned char)s[j]) || s[j] == '_' || s[j] == '-'))
		j++;
	if (j >= len || s[j] != '=' || !in_list_ci(secret_query_params, ARRAY_LEN(secret_query_params),
	    s + i + 1, j - i - 1))
		return false;
	*start = j + 1;
	*end = *start + strcspn(s + *start, "&# \t\r\n\"'");
	if (*end > len)
		*end = len;
	return *end > *start;
}

/* "Authorization: Basic T", "Cookie: a=b; c=d": everything after the colon, to the line's end. */
static bool
match_header(const char *s, size_t len, size_t i, size_t *start, size_t *end)
{
	size_t j = i;

	while (j < len && (isalnum((unsigned char)s[j]) || s[j] == '-'))
		j++;
	if (j >= len || s[j] != ':' ||
	    !in_list_ci(secret_headers, ARRAY_LEN(secret_headers), s + i, j - i))
		return false;
	for (j++; j < len && s[j] == ' '; j++)
		;
	*start = j;
	while (j < len && s[j] != '\n' && s[j] != '\r')
		j++;
	*end = j;
	return *end > *start;
}

/* "Bearer T", "Basic T": the word after the scheme, when 8 characters or more. */
static bool
match_scheme(const char *s, size_t len, size_t i, size_t *start, size_t *end)
{
	size_t j = i;

	while (j < len && isalpha((unsigned char)s[j]))
		j++;
	if (j >= len || s[j] != ' ' ||
	    !in_list_ci(credential_schemes, ARRAY_LEN(credential_schemes), s + i, j - i))
		return false;
	while (j < len && s[j] == ' ')
		j++;
	*start = j;
	*end = token_end(s, len, j);
	return *end - *start >= 8;
}

/* The end of a word that starts like a dotted key, through its dots; i
 * when it does not start so. */
static size_t
dotted_end(const char *s, size_t len, size_t i)
{
	size_t end = i;

	for (size_t p = 0; p < ARRAY_LEN(dotted_prefixes) && end == i; p++)
		if (len - i >= strlen(dotted_prefixes[p]) &&
		    strncmp(s + i, dotted_prefixes[p], strlen(dotted_prefixes[p])) == 0)
			end = token_end(s, len, i + strlen(dotted_prefixes[p]));
	while (end > i && end + 1 < len && s[end] == '.' && is_token_char(s[end + 1]))
		end = token_end(s, len, end + 1);
	return end - i >= 20 ? end : i;
}

/* A word shaped like a key (key_prefixes, or long and random), or a
 * dotted one whole. */
static bool
match_key_word(const char *s, size_t len, size_t i, size_t *start, size_t *end)
{
	*start = i;
	if ((*end = dotted_end(s, len, i)) > i)
		return true;
	*end = token_end(s, len, i);
	return *end > i && key_shaped(s + i, *end - i);
}

static const struct text_rule {
	const char *name;
	bool word_start;   /* tried only where a word starts */
	bool (*match)(const char *s, size_t len, size_t i, size_t *start, size_t *end);
} text_rules[] = {
	{ "url-credentials", false, match_url_userinfo },
	{ "query-secret", false, match_query_param },
	{ "secret-header", true, match_header },
	{ "credential-scheme", true, match_scheme },
	{ "key-shape", true, match_key_word },
};

/* Copies s[0..len) to out (room for 2 * len + sizeof(REDACTED)), each span a
 * rule finds replaced; returns the end of what was written. */
static char *
redact_spans(char *out, const char *s, size_t len, bool *redacted)
{
	size_t i = 0, start, end;

	while (i < len) {
		bool word = is_token_char(s[i]) && (i == 0 || !is_token_char(s[i - 1])), hit = false;

		for (size_t r = 0; r < ARRAY_LEN(text_rules) && !hit; r++)
			hit = (word || !text_rules[r].word_start) && text_rules[r].match(s, len, i, &start, &end);
		if (hit) {
			memcpy(out, s + i, start - i);
			out += start - i;
			memcpy(out, REDACTED, strlen(REDACTED));
			out += strlen(REDACTED);
			*redacted = true;
			i = end;
			continue;
		}
		end = word ? token_end(s, len, i) : i + 1;
		memcpy(out, s + i, end - i);
		out += end - i;
		i = end;
	}
	return out;
}

/* ---- rules over one argument of a command line ---- */

/* Length of the option name after the dashes, or 0 when arg is not "-name" / "--name". */
static size_t
option_name(const char *arg, const char **name)
{
	const char *s = arg;

	if (s[0] != '-')
		return 0;
	s += s[1] == '-' ? 2 : 1;
	*name = s;
	if (strlen(s) < 3 || !isalpha((unsigned char)*s))
		return 0;
	return strcspn(s, "=");
}

static bool
secret_option_name(const char *name, size_t len)
{
	return in_list_ci(secret_option_names, ARRAY_LEN(secret_option_names), name, len) ||
	    ends_in_list_ci(secret_option_endings, ARRAY_LEN(secret_option_endings), name, len);
}

bool
redact_is_secret_option(const char *arg)
{
	const char *name;
	size_t len = option_name(arg, &name);

	return len > 0 && name[len] == '\0' && secret_option_name(name, len);
}

/* Is arg an option whose next argument is "user:password" (-u, --user)? */
static bool
redact_is_user_option(const char *arg)
{
	return in_list_ci(user_password_options, ARRAY_LEN(user_password_options), arg, strlen(arg));
}

/* "NAME=value" with an environment-style NAME ending like a secret: the
 * length of "NAME=", else 0. */
static size_t
secret_assignment(const char *arg)
{
	size_t len = strcspn(arg, "=");

	if (arg[len] != '=' || arg[len + 1] == '\0' || len == 0 || isdigit((unsigned char)arg[0]))
		return 0;
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)arg[i]) && arg[i] != '_')
			return 0;
	return in_list_ci(secret_assignment_names, ARRAY_LEN(secret_assignment_names), arg, len) ||
	    ends_in_list_ci(secret_assignment_endings, ARRAY_LEN(secret_assignment_endings), arg, len) ?
	    len + 1 : 0;
}

/* What of arg to keep before "[redacted]" when a rule of the command line
 * takes the rest; 0 with *whole false when none does. */
static size_t
argument_rule(const char *arg, enum redact_context ctx, bool *whole)
{
	const char *name, *colon;
	size_t name_len = option_name(arg, &name);

	*whole = false;
	if (ctx == AFTER_SECRET_OPTION && *arg != '\0') {
		*whole = true;
		return 0;
	}
	if (ctx == AFTER_USER_OPTION && (colon = strchr(arg, ':')) != NULL && colon[1] != '\0')
		return (size_t)(colon - arg) + 1;
	if (name_len > 0 && name[name_len] == '=' && name[name_len + 1] != '\0') {
		if (secret_option_name(name, name_len))
			return (size_t)(name - arg) + name_len + 1;
		colon = strchr(name + name_len, ':');
		if (in_list_ci(user_password_options, ARRAY_LEN(user_password_options), arg,
		    (size_t)(name - arg) + name_len) && colon != NULL && colon[1] != '\0')
			return (size_t)(colon - arg) + 1;
	}
	return secret_assignment(arg);
}

char *
redact_arg_in(const char *arg, enum redact_context ctx, bool *redacted)
{
	size_t len = strlen(arg), keep;
	bool whole;
	char *out, *end;

	if ((out = malloc(2 * len + sizeof(REDACTED))) == NULL)
		return NULL;
	keep = argument_rule(arg, ctx, &whole);
	if (whole || keep > 0) {
		memcpy(out, arg, keep);
		memcpy(out + keep, REDACTED, sizeof(REDACTED));
		*redacted = true;
		return out;
	}
	end = redact_spans(out, arg, len, redacted);
	*end = '\0';
	return out;
}

char *
redact_arg(const char *arg, bool after_secret_option, bool *redacted)
{
	return redact_arg_in(arg, after_secret_option ? AFTER_SECRET_OPTION : AFTER_PLAIN, redacted);
}

bool
redact_text(const char *src, char *out, size_t size)
{
	size_t len = strlen(src);
	char *buf = malloc(2 * len + sizeof(REDACTED)), *end;
	bool redacted = false;

	if (buf == NULL) {
		/* no room to redact: say nothing rather than a secret */
		if (size > 0)
			out[0] = '\0';
		return true;
	}
	end = redact_spans(buf, src, len, &redacted);
	*end = '\0';
	utf8_copy(out, size, buf);
	free(buf);
	return redacted;
}

/* A JSON string of s; bytes that are not valid UTF-8 become '?' (the exact
 * bytes go to argv_exact_json()). */
static json_t *
json_string_lossy(char *s)
{
	json_t *str = json_string(s);

	if (str != NULL)
		return str;
	for (char *p = s; *p != '\0'; p++)
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	return json_string(s);
}

json_t *
redact_argv_json(int argc, char *const argv[], bool *redacted)
{
	json_t *array = json_array();
	enum redact_context ctx = AFTER_PLAIN;

	if (array == NULL)
		return NULL;
	for (int i = 0; i < argc; i++) {
		char *clean = redact_arg_in(argv[i], ctx, redacted);

		if (clean == NULL || json_array_append_new(array, json_string_lossy(clean)) != 0) {
			free(clean);
			json_decref(array);
			return NULL;
		}
		free(clean);
		ctx = redact_is_secret_option(argv[i]) ? AFTER_SECRET_OPTION :
		    redact_is_user_option(argv[i]) ? AFTER_USER_OPTION : AFTER_PLAIN;
	}
	return array;
}
/* One argument with '\' doubled and stray bytes as \xHH; NULL when out of memory. */
static char *
exact_escape(const char *arg)
{
	size_t len = strlen(arg), n, used = 0;
	char *out = malloc(4 * len + 1);

	if (out == NULL)
		return NULL;
	for (size_t i = 0; i < len; i += n) {
		if ((unsigned char)arg[i] < 0x80 || (n = utf8_sequence(arg + i, len - i)) == 0) {
			n = 1;
			if (arg[i] == '\\')
				used += (size_t)sprintf(out + used, "\\\\");
			else if ((unsigned char)arg[i] >= 0x80)
				used += (size_t)sprintf(out + used, "\\x%02X", (unsigned char)arg[i]);
			else
				out[used++] = arg[i];
			continue;
		}
		memcpy(out + used, arg + i, n);
		used += n;
	}
	out[used] = '\0';
	return out;
}

const char *
argv_exact_text(const char *argv_exact, const char *argv_json)
{
	return argv_exact != NULL && strcmp(argv_exact, "=") == 0 ? argv_json : argv_exact;
}

char *
argv_exact_json(int argc, char *const argv[], const char *argv_json)
{
	json_t *array = json_array();
	char *text = NULL, *one;
	bool ok = array != NULL;

	for (int i = 0; ok && i < argc; i++) {
		ok = (one = exact_escape(argv[i])) != NULL && json_array_append_new(array, json_string(one)) == 0;
		free(one);
	}
	if (ok)
		text = json_dumps(array, JSON_COMPACT);
	json_decref(array);
	if (text != NULL && argv_json != NULL && strcmp(text, argv_json) == 0) {
		free(text);
		text = strdup("=");
	}
	return text;
}

static int
hex_value(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 :
	    c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

void
argv_exact_decode(const char *s, char *out)
{
	while (*s != '\0') {
		if (s[0] == '\\' && s[1] == '\\') {
			*out++ = '\\';
			s += 2;
		} else if (s[0] == '\\' && s[1] == 'x' && hex_value(s[2]) >= 0 && hex_value(s[3]) >= 0) {
			*out++ = (char)(hex_value(s[2]) * 16 + hex_value(s[3]));
			s += 4;
		} else
			*out++ = *s++;
	}
	*out = '\0';
}
