#include <string.h>

#include "cpu_features.h"
#include "textutil.h"
#include "visible.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif
#ifdef HAVE_AVX2_PATH
#include <immintrin.h>
#endif

char
ascii_lower(char c)
{
	return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

size_t
prefix_nocase(const char *s, size_t len, const char *word)
{
	size_t n = strlen(word);

	if (n > len)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (ascii_lower(s[i]) != ascii_lower(word[i]))
			return 0;
	return n;
}

size_t
lower_copy(char *dst, size_t size, const char *src, size_t len)
{
	size_t n = len < size - 1 ? len : size - 1;

	for (size_t i = 0; i < n; i++)
		dst[i] = ascii_lower(src[i]);
	dst[n] = '\0';
	return n;
}

const char *
find_bytes(const char *hay, size_t len, const char *needle)
{
	return memmem(hay, len, needle, strlen(needle));
}

const char *
find_nocase(const char *hay, size_t len, const char *needle)
{
	size_t n = strlen(needle);

	if (n == 0)
		return hay;
	for (size_t i = 0; i + n <= len; i++) {
		size_t j = 0;

		while (j < n && ascii_lower(hay[i + j]) == ascii_lower(needle[j]))
			j++;
		if (j == n)
			return hay + i;
	}
	return NULL;
}

void
append_text(char *dst, size_t size, const char *src, size_t len)
{
	size_t used = strlen(dst);

	if (len == 0 || used + 2 >= size)
		return;
	if (used > 0)
		dst[used++] = ' ';
	if (len > size - 1 - used)
		len = size - 1 - used;
	memcpy(dst + used, src, len);
	dst[used + len] = '\0';
}

/*
 * Length of the well-formed UTF-8 sequence at s (RFC 3629: no overlong
 * forms, surrogates or code points past U+10FFFF), 0 when there is none.
 * jansson refuses any string that is not well-formed, and a refused string
 * would drop its key from the FailureSignal.
 */
static size_t
utf8_seq(const unsigned char *s, size_t len)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (s[0] < 0x80)
		return 1;
	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;
	n = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (n > len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}


size_t
clean_copy(char *dst, size_t size, const char *src, size_t len)
{
	size_t out = 0, i = 0;

	while (i < len) {
		const unsigned char *u = (const unsigned char *)src + i;
		size_t n = utf8_seq(u, len - i);

		if (n == 0 || visible_hidden((const char *)u, n)) {
			/* Line breaks become spaces so words stay apart. */
			if ((*u == '\n' || *u == '\t' || *u == '\r') && out > 0 && dst[out - 1] != ' ' &&
			    out + 1 < size)
				dst[out++] = ' ';
			i += n > 0 ? n : 1;
			continue;
		}
		if (out + n > size - 1)
			break;
		memcpy(dst + out, src + i, n);
		out += n;
		i += n;
	}
	while (out > 0 && dst[out - 1] == ' ')
		out--;
	dst[out] = '\0';
	return out;
}

size_t
clean_copy_str(char *dst, size_t size, const char *src)
{
	return clean_copy(dst, size, src, strlen(src));
}

size_t
utf8_copy(char *dst, size_t size, const char *src)
{
	size_t len = strlen(src), out = 0, i = 0;

	while (i < len) {
		size_t n = utf8_seq((const unsigned char *)src + i, len - i);

		if (n == 0) {
			i++;
			continue;
		}
		if (out + n > size - 1)
			break;
		memcpy(dst + out, src + i, n);
		out += n;
		i += n;
	}
	dst[out] = '\0';
	return out;
}

/*
 * has_key_colon() by blocks of starts: key's first byte at a start, its
 * last letter n - 2 bytes on and a colon n bytes on make a rare candidate
 * (a JSON line has quotes and colons everywhere, and five-letter keys such
 * as "model" and "usage" by the dozen, but few that end in the key's
 * letter).  The last block ends where the line does, overlapping the one
 * before: a start read twice finds what it found once, so there is no
 * byte-by-byte tail.
 */
#ifdef HAVE_AVX2_PATH
/* Candidate starts among the 32 at p; with rare, its first byte too. */
__attribute__((target("avx2"), always_inline)) static inline unsigned
key_candidates(const char *p, size_t n, __m256i first, __m256i last, __m256i colon, __m256i rare0, bool rare)
{
	__m256i head = _mm256_loadu_si256((const __m256i *)(const void *)p);
	__m256i b = _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(const void *)(p + n - 2)), last);
	__m256i c = _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(const void *)(p + n)), colon);
	__m256i hit = _mm256_and_si256(_mm256_and_si256(_mm256_cmpeq_epi8(head, first), b), c);

	if (rare)
		hit = _mm256_or_si256(hit, _mm256_cmpeq_epi8(head, rare0));
	return (unsigned)_mm256_movemask_epi8(hit);
}

/*
 * With rare (m bytes, its first byte rare in JSON, such as '<'), a start
 * of rare is a candidate too: one pass answers both questions.  rare is a
 * constant at each call, so each caller gets a loop of its own.  64 starts
 * a turn, one branch for both halves.
 */
__attribute__((target("avx2"), always_inline)) static inline bool
key_colon_or_avx2(const char *s, size_t len, const char *key, size_t n, const char *rare, size_t m)
{
	const __m256i first = _mm256_set1_epi8(key[0]), last = _mm256_set1_epi8(key[n - 2]);
	const __m256i colon = _mm256_set1_epi8(':'), rare0 = _mm256_set1_epi8(rare != NULL ? rare[0] : 0);
	const bool with_rare = rare != NULL;
	size_t block = len >= n + 64 ? 64 : 32, stop = len - n - block;

	for (size_t at = 0;; at = at + block < stop ? at + block : stop) {
		const char *p = s + at;
		uint64_t mask = key_candidates(p, n, first, last, colon, rare0, with_rare);

		if (block == 64)
			mask |= (uint64_t)key_candidates(p + 32, n, first, last, colon, rare0, with_rare) << 32;
		for (; mask != 0; mask &= mask - 1) {
			const char *q = p + __builtin_ctzll(mask);

			if ((q[n] == ':' && memcmp(q, key, n) == 0) ||
			    (with_rare && (size_t)(s + len - q) >= m && memcmp(q, rare, m) == 0))
				return true;
		}
		if (at == stop)
			return false;
	}
}

__attribute__((target("avx2"))) static bool
key_colon_avx2(const char *s, size_t len, const char *key, size_t n)
{
	return key_colon_or_avx2(s, len, key, n, NULL, 0);
}

__attribute__((target("avx2"))) static bool
key_colon_or_rare_avx2(const char *s, size_t len, const char *key, size_t n, const char *rare, size_t m)
{
	return key_colon_or_avx2(s, len, key, n, rare, m);
}
#endif

#ifdef HAVE_AVX2_PATH
/* Candidates among the 64 starts at p (all of them in s). */
__attribute__((target("avx512f,avx512bw"), always_inline)) static inline uint64_t
key_block_avx512(const char *p, size_t n, __m512i first, __m512i last, __m512i colon)
{
	__mmask64 hit = _mm512_cmpeq_epi8_mask(_mm512_loadu_si512((const void *)p), first);

	hit = _mm512_mask_cmpeq_epi8_mask(hit, _mm512_loadu_si512((const void *)(p + n - 2)), last);
	return _cvtmask64_u64(_mm512_mask_cmpeq_epi8_mask(hit, _mm512_loadu_si512((const void *)(p + n)), colon));
}

/* The same for the starts that in allows, reading only their bytes. */
__attribute__((target("avx512f,avx512bw"), always_inline)) static inline uint64_t
key_block_masked_avx512(const char *p, size_t n, __mmask64 in, __m512i first, __m512i last, __m512i colon)
{
	__mmask64 hit = _mm512_mask_cmpeq_epi8_mask(in, _mm512_maskz_loadu_epi8(in, p), first);

	hit = _mm512_mask_cmpeq_epi8_mask(hit, _mm512_maskz_loadu_epi8(in, p + n - 2), last);
	return _cvtmask64_u64(_mm512_mask_cmpeq_epi8_mask(hit, _mm512_maskz_loadu_epi8(in, p + n), colon));
}

/* The candidates among the starts at s + at (all those left, up to 64). */
__attribute__((target("avx512f,avx512bw"), always_inline)) static inline uint64_t
key_starts_avx512(const char *s, size_t len, size_t at, size_t n, __m512i first, __m512i last, __m512i colon)
{
	size_t starts = len - n - at;

	return starts >= 64 ? key_block_avx512(s + at, n, first, last, colon) :
	    key_block_masked_avx512(s + at, n, (1ULL << starts) - 1, first, last, colon);
}

/* 64 starts a turn, each compare only where the one before matched; the
 * last starts under a mask, so nothing past s + len is read.  A candidate
 * is rare: the loop only asks whether there is one, without a call that
 * would make the compiler keep its vectors in memory (reading the blocks
 * again for their candidates did, 0.5 ms per 300 MiB), and then a byte
 * loop finds the key. */
__attribute__((target("avx512f,avx512bw"))) static bool
key_colon_avx512(const char *s, size_t len, const char *key, size_t n)
{
	const __m512i first = _mm512_set1_epi8(key[0]), last = _mm512_set1_epi8(key[n - 2]);
	const __m512i colon = _mm512_set1_epi8(':');
	uint64_t any = 0;

	for (size_t at = 0; at + n < len; at += 64)
		any |= key_starts_avx512(s, len, at, n, first, last, colon);
	if (any == 0)
		return false;
	for (size_t at = 0; at + n < len; at++)
		if (s[at + n] == ':' && memcmp(s + at, key, n) == 0)
			return true;
	return false;
}
#endif

#ifdef __SSE2__
static bool
key_colon_sse2(const char *s, size_t len, const char *key, size_t n)
{
	const __m128i first = _mm_set1_epi8(key[0]), last = _mm_set1_epi8(key[n - 2]), colon = _mm_set1_epi8(':');
	size_t stop = len - n - 16;

	for (size_t at = 0;; at = at + 16 < stop ? at + 16 : stop) {
		const char *p = s + at;
		__m128i a = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)p), first);
		__m128i b = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + n - 2)), last);
		__m128i c = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + n)), colon);

		for (unsigned m = (unsigned)_mm_movemask_epi8(_mm_and_si128(_mm_and_si128(a, b), c)); m != 0; m &= m - 1)
			if (memcmp(p + __builtin_ctz(m), key, n) == 0)
				return true;
		if (at == stop)
			return false;
	}
}
#endif

bool
has_key_colon(const char *s, size_t len, const char *key, size_t n)
{
#ifdef HAVE_AVX2_PATH
	if (cpu_has_avx512bw())
		return key_colon_avx512(s, len, key, n);
	if (len >= n + 32 && cpu_has_avx2())
		return key_colon_avx2(s, len, key, n);
#endif
#ifdef __SSE2__
	if (len >= n + 16)
		return key_colon_sse2(s, len, key, n);
#endif
	for (size_t at = 0; at + n < len; at++)
		if (s[at + n] == ':' && s[at] == key[0] && memcmp(s + at, key, n) == 0)
			return true;
	return false;
}

bool
has_rare(const char *s, size_t len, const char *needle, size_t n)
{
	const char *p = s, *end = s + len;

	while (p + n <= end && (p = memchr(p, needle[0], (size_t)(end - p) - n + 1)) != NULL) {
		if (memcmp(p, needle, n) == 0)
			return true;
		p++;
	}
	return false;
}

bool
has_key_colon_or_rare(const char *s, size_t len, const char *key, size_t n, const char *rare, size_t m)
{
#ifdef HAVE_AVX2_PATH
	if (len >= n + 32 && cpu_has_avx2())
		return key_colon_or_rare_avx2(s, len, key, n, rare, m);
#endif
	return has_rare(s, len, rare, m) || has_key_colon(s, len, key, n);
}

/* Three rows of the optimal string alignment table suffice: a
 * transposition looks two rows back. */
int
edit_distance(const char *a, const char *b, int limit)
{
	enum { WORD_MAX = 64 };
	int rows[3][WORD_MAX], *prev2 = rows[0], *prev = rows[1], *cur = rows[2], *t;
	size_t la = strlen(a), lb = strlen(b);

	if (la >= WORD_MAX || lb >= WORD_MAX)
		return limit + 1;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = (int)i;
		for (size_t j = 1; j <= lb; j++) {
			int cost = a[i - 1] != b[j - 1], best = prev[j - 1] + cost;

			if (prev[j] + 1 < best)
				best = prev[j] + 1;
			if (cur[j - 1] + 1 < best)
				best = cur[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    prev2[j - 2] + 1 < best)
				best = prev2[j - 2] + 1;
			cur[j] = best;
		}
		t = prev2, prev2 = prev, prev = cur, cur = t;
	}
	return prev[lb] > limit ? limit + 1 : prev[lb];
}
