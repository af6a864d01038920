/* redact.c: secrets in argv replaced by "[redacted]" before they reach the store. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "redact.h"
#include "visible.h"

static bool
ends_with_ci(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len >= n && strncasecmp(s + len - n, suffix, n) == 0;
}

/* The option name of "--name" or "--name=value", lower case rules; len excludes "=value". */
static bool
secret_option_name(const char *name, size_t len)
{
	static const char *const exact[] = { "key", "token", "secret", "password", "passwd", "apikey", "pass" };
	static const char *const suffixes[] = { "-key", "_key", "-token", "_token", "-secret", "_secret",
		"-password", "_password", "-passwd", "apikey" };

	for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
		if (len == strlen(exact[i]) && strncasecmp(name, exact[i], len) == 0)
			return true;
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++)
		if (ends_with_ci(name, len, suffixes[i]))
			return true;
	return false;
}

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

bool
redact_is_secret_option(const char *arg)
{
	const char *name;
	size_t len = option_name(arg, &name);

	return len > 0 && name[len] == '\0' && secret_option_name(name, len);
}

/* "NAME=value" with an environment-style NAME ending in KEY/TOKEN/SECRET/PASSWORD. */
static size_t
secret_assignment(const char *arg)
{
	size_t len = strcspn(arg, "=");

	if (arg[len] != '=' || arg[len + 1] == '\0' || len == 0 || isdigit((unsigned char)arg[0]))
		return 0;
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)arg[i]) && arg[i] != '_')
			return 0;
	if (ends_with_ci(arg, len, "key") || ends_with_ci(arg, len, "token") ||
	    ends_with_ci(arg, len, "secret") || ends_with_ci(arg, len, "password") ||
	    ends_with_ci(arg, len, "passwd"))
		return len + 1;
	return 0;
}

static bool
is_token_char(char c)
{
	return isalnum((unsigned char)c) || strchr("_+/=-", c) != NULL;
}

/* Does the run s[0..len) look like a credential? */
static bool
key_shaped(const char *s, size_t len)
{
	static const struct { const char *prefix; size_t min_len; } prefixes[] = {
		{ "sk-", 20 }, { "ghp_", 20 }, { "gho_", 20 }, { "ghu_", 20 }, { "ghs_", 20 },
		{ "ghr_", 20 }, { "github_pat_", 20 }, { "AIza", 30 }, { "xoxb-", 15 },
		{ "xoxa-", 15 }, { "xoxp-", 15 }, { "xoxr-", 15 },
	};
	size_t hex = 0, upper = 0, lower = 0, digit = 0, slash = 0;

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (len >= prefixes[i].min_len && strncmp(s, prefixes[i].prefix, strlen(prefixes[i].prefix)) == 0)
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

/* Copies src[0..len) to out, each key-shaped word (and the word after "Bearer") redacted. */
static char *
redact_words(char *out, const char *src, size_t len, bool *redacted)
{
	bool after_bearer = false;
	size_t i = 0;

	while (i < len) {
		size_t start = i;

		if (!is_token_char(src[i])) {
			*out++ = src[i++];
			continue;
		}
		while (i < len && is_token_char(src[i]))
			i++;
		if ((after_bearer && i - start >= 8) || key_shaped(src + start, i - start)) {
			memcpy(out, REDACTED, strlen(REDACTED));
			out += strlen(REDACTED);
			*redacted = true;
		} else {
			memcpy(out, src + start, i - start);
			out += i - start;
		}
		after_bearer = i - start == 6 && strncasecmp(src + start, "Bearer", 6) == 0 &&
		    i < len && src[i] == ' ';
	}
	return out;
}

/*
 * A copy of arg with the password of every URL in it ("scheme://user:PASSWORD@
 * host", as in a postgresql:// URL) redacted; NULL when out of memory.
 */
static char *
url_passwords_redacted(const char *arg, bool *redacted)
{
	size_t len = strlen(arg), n = 0;
	char *out = malloc(len + len / 4 * sizeof(REDACTED) + sizeof(REDACTED));
	const char *p = arg, *scheme;

	if (out == NULL)
		return NULL;
	while ((scheme = strstr(p, "://")) != NULL) {
		const char *user = scheme + 3, *end = user + strcspn(user, "/?#@ "), *colon;

		colon = memchr(user, ':', (size_t)(end - user));
		if (*end != '@' || colon == NULL || colon + 1 == end) {
			memcpy(out + n, p, (size_t)(user - p));
			n += (size_t)(user - p);
			p = user;
			continue;
		}
		memcpy(out + n, p, (size_t)(colon + 1 - p));
		n += (size_t)(colon + 1 - p);
		memcpy(out + n, REDACTED, strlen(REDACTED));
		n += strlen(REDACTED);
		*redacted = true;
		p = end;
	}
	strcpy(out + n, p);
	return out;
}

char *
redact_arg(const char *arg, bool after_secret_option, bool *redacted)
{
	size_t len = strlen(arg), keep = 0;
	const char *name;
	size_t name_len = option_name(arg, &name);
	char *out, *end, *plain, *grown;

	if (after_secret_option && len > 0) {
		*redacted = true;
		return strdup(REDACTED);
	}
	if (name_len > 0 && name[name_len] == '=' && name[name_len + 1] != '\0' &&
	    secret_option_name(name, name_len))
		keep = (size_t)(name - arg) + name_len + 1;
	else
		keep = secret_assignment(arg);
	if ((out = malloc(2 * len + sizeof(REDACTED))) == NULL)
		return NULL;
	memcpy(out, arg, keep);
	if (keep > 0) {
		memcpy(out + keep, REDACTED, sizeof(REDACTED));
		*redacted = true;
		return out;
	}
	if ((plain = url_passwords_redacted(arg, redacted)) == NULL || (grown = realloc(out,
	    2 * strlen(plain) + sizeof(REDACTED))) == NULL) {
		free(plain);
		free(out);
		return NULL;
	}
	out = grown;
	end = redact_words(out, plain, strlen(plain), redacted);
	*end = '\0';
	free(plain);
	return out;
}

/* A JSON string of s; bytes that are not valid UTF-8 become '?'. */
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
	bool after_secret_option = false;

	if (array == NULL)
		return NULL;
	for (int i = 0; i < argc; i++) {
		char *clean = redact_arg(argv[i], after_secret_option, redacted);

		if (clean == NULL || json_array_append_new(array, json_string_lossy(clean)) != 0) {
			free(clean);
			json_decref(array);
			return NULL;
		}
		free(clean);
		after_secret_option = redact_is_secret_option(argv[i]);
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

char *
argv_exact_json(int argc, char *const argv[])
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
