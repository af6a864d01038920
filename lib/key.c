/* key.c: "family[:model][@account]". */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "key.h"

static bool
has_control(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (iscntrl((unsigned char)s[i]))
			return true;
	return false;
}

static bool
copy_part(char *dst, size_t size, const char *src, size_t len)
{
	if (len == 0 || len >= size || has_control(src, len))
		return false;
	memcpy(dst, src, len);
	dst[len] = '\0';
	return true;
}

bool
key_parse(const char *text, struct breaker_key *key, char *err, size_t errsize)
{
	const char *at = strchr(text, '@'), *end = at != NULL ? at : text + strlen(text);
	const char *colon = memchr(text, ':', (size_t)(end - text));
	size_t family_len = (size_t)((colon != NULL ? colon : end) - text);

	memset(key, 0, sizeof(*key));
	strlcpy(key->scope, SCOPE_FAMILY, sizeof(key->scope));
	for (size_t i = 0; i < family_len; i++)
		if (!isalnum((unsigned char)text[i]) && strchr("._-", text[i]) == NULL)
			family_len = 0;
	if (!copy_part(key->family, sizeof(key->family), text, family_len)) {
		snprintf(err, errsize, "%s: not a key (family[:model][@account], like claude:opus@work)", text);
		return false;
	}
	if (colon != NULL && !copy_part(key->scope, sizeof(key->scope), colon + 1, (size_t)(end - colon - 1))) {
		snprintf(err, errsize, "%s: empty or bad model after ':'", text);
		return false;
	}
	if (at != NULL && !copy_part(key->account, sizeof(key->account), at + 1, strlen(at + 1))) {
		snprintf(err, errsize, "%s: empty or bad account after '@'", text);
		return false;
	}
	return true;
}

void
key_format(const struct breaker_key *key, char *buf, size_t size)
{
	bool family_wide = strcmp(key->scope, SCOPE_FAMILY) == 0 || key->scope[0] == '\0';
	bool default_account = key->account[0] == '\0' || strcmp(key->account, "default") == 0;

	snprintf(buf, size, "%s%s%s%s%s", key->family, family_wide ? "" : ":",
	    family_wide ? "" : key->scope, default_account ? "" : "@",
	    default_account ? "" : key->account);
}

bool
scope_applies(const char *scope, const char *model)
{
	if (strcmp(scope, SCOPE_FAMILY) == 0 || scope[0] == '\0')
		return true;
	return model != NULL && *model != '\0' && strcasestr(model, scope) != NULL;
}
