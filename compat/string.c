/* string.c: the OpenBSD string and memory functions libc may lack. */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifndef HAVE_STRLCPY
size_t
rlwrap_strlcpy(char *dst, const char *src, size_t size)
{
	size_t len = strlen(src);

	if (size > 0) {
		size_t n = len < size - 1 ? len : size - 1;

		memcpy(dst, src, n);
		dst[n] = '\0';
	}
	return len;
}
#endif

#ifndef HAVE_STRLCAT
size_t
rlwrap_strlcat(char *dst, const char *src, size_t size)
{
	size_t have = strnlen(dst, size);

	if (have == size)
		return size + strlen(src);
	return have + strlcpy(dst + have, src, size - have);
}
#endif

#ifndef HAVE_REALLOCARRAY
void *
rlwrap_reallocarray(void *p, size_t n, size_t size)
{
	if (size != 0 && n > SIZE_MAX / size) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc(p, n * size);
}
#endif

#ifndef HAVE_EXPLICIT_BZERO
/* Through a volatile pointer, so that the compiler cannot drop the store
 * to memory about to be freed. */
static void *(*const volatile memset_kept)(void *, int, size_t) = memset;

void
rlwrap_explicit_bzero(void *p, size_t n)
{
	memset_kept(p, 0, n);
}
#endif

#ifndef HAVE_MEMRCHR
void *
rlwrap_memrchr(const void *p, int c, size_t n)
{
	const unsigned char *s = p;

	while (n-- > 0)
		if (s[n] == (unsigned char)c)
			return (void *)(uintptr_t)(s + n);
	return NULL;
}
#endif

#ifndef HAVE_STRTONUM
/* The OpenBSD contract: the value, or 0 with *errstr "invalid", "too
 * small" or "too large". */
long long
rlwrap_strtonum(const char *s, long long lo, long long hi, const char **errstr)
{
	const char *why = NULL;
	long long v = 0;
	char *end;

	errno = 0;
	if (lo > hi)
		why = "invalid";
	else if (s == NULL || *s == '\0' || ((v = strtoll(s, &end, 10)), *end != '\0'))
		why = "invalid";
	else if ((errno == ERANGE && v == LLONG_MIN) || v < lo)
		why = "too small";
	else if ((errno == ERANGE && v == LLONG_MAX) || v > hi)
		why = "too large";
	if (errstr != NULL)
		*errstr = why;
	if (why != NULL) {
		errno = strcmp(why, "invalid") == 0 ? EINVAL : ERANGE;
		return 0;
	}
	return v;
}
#endif
