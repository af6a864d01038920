/* linescan.c: a line's end and a rare needle's places, in one pass. */
#include <stdint.h>
#include <string.h>

#include "cpu_features.h"
#include "linescan.h"
#include "textutil.h"

#ifdef HAVE_AVX2_PATH
#include <immintrin.h>
#endif

static void
mark(struct line_marks *m, size_t at)
{
	if (m->first < 0)
		m->first = (long)at;
	m->last = (long)at;
}

/* memchr for the end, then the needle's starts before it. */
size_t
line_scan_bytes(const char *p, size_t avail, const char *needle, size_t n, struct line_marks *m)
{
	const char *nl = memchr(p, '\n', avail), *q = p;
	size_t end = nl != NULL ? (size_t)(nl - p) : avail;

	m->first = m->last = -1;
	while (end >= n && (size_t)(q - p) <= end - n &&
	    (q = memchr(q, needle[0], end - n + 1 - (size_t)(q - p))) != NULL) {
		if (memcmp(q, needle, n) == 0)
			mark(m, (size_t)(q - p));
		q++;
	}
	return end;
}

#ifdef HAVE_AVX2_PATH
/* memcmp(a, b, n) == 0 without a call: a call in the vector loops would
 * make the compiler keep their vectors in memory. */
static inline bool
same_bytes(const char *a, const char *b, size_t n)
{
	size_t i = 0;

	while (i < n && a[i] == b[i])
		i++;
	return i == n;
}

/*
 * The bits of hits (newlines and needle[0]s at base + bit) in order: true
 * and *end at the first newline.  A needle holds no newline, so one that
 * starts before the newline ends before it too.
 */
static inline bool
marks_in(const char *p, size_t avail, size_t base, uint64_t hits, const char *needle, size_t n,
    struct line_marks *m, size_t *end)
{
	for (; hits != 0; hits &= hits - 1) {
		size_t at = base + (size_t)__builtin_ctzll(hits);

		if (p[at] == '\n') {
			*end = at;
			return true;
		}
		if (avail - at >= n && same_bytes(p + at, needle, n))
			mark(m, at);
	}
	return false;
}

/* The newlines and needle[0]s among 32 bytes at p. */
__attribute__((target("avx2"), always_inline)) static inline __m256i
hits_avx2(const char *p, __m256i nl, __m256i rare)
{
	__m256i v = _mm256_loadu_si256((const __m256i *)(const void *)p);

	return _mm256_or_si256(_mm256_cmpeq_epi8(v, nl), _mm256_cmpeq_epi8(v, rare));
}

__attribute__((target("avx2"), always_inline)) static inline uint64_t
mask64_avx2(__m256i lo, __m256i hi)
{
	return (uint64_t)(uint32_t)_mm256_movemask_epi8(lo) | (uint64_t)(uint32_t)_mm256_movemask_epi8(hi) << 32;
}

/* The same, 32 bytes a vector, where AVX-512 is missing; the last bytes
 * one at a time. */
__attribute__((target("avx2"))) static size_t
line_scan_avx2(const char *p, size_t avail, const char *needle, size_t n, struct line_marks *m)
{
	const __m256i nl = _mm256_set1_epi8('\n'), rare = _mm256_set1_epi8(needle[0]);
	size_t i = 0, end;

	for (; i + 128 <= avail; i += 128) {
		__m256i a = hits_avx2(p + i, nl, rare), b = hits_avx2(p + i + 32, nl, rare);
		__m256i c = hits_avx2(p + i + 64, nl, rare), d = hits_avx2(p + i + 96, nl, rare);
		__m256i any = _mm256_or_si256(_mm256_or_si256(a, b), _mm256_or_si256(c, d));

		if (_mm256_testz_si256(any, any))
			continue;
		if (marks_in(p, avail, i, mask64_avx2(a, b), needle, n, m, &end) ||
		    marks_in(p, avail, i + 64, mask64_avx2(c, d), needle, n, m, &end))
			return end;
	}
	for (; i < avail; i++) {
		if (p[i] == '\n')
			return i;
		if (p[i] == needle[0] && avail - i >= n && memcmp(p + i, needle, n) == 0)
			mark(m, i);
	}
	return avail;
}

/* One compare each for the two bytes, 128 bytes a turn, one branch for
 * both halves; the last bytes by masked loads, so nothing past avail is
 * read. */
__attribute__((target("avx512f,avx512bw"))) static size_t
line_scan_avx512(const char *p, size_t avail, const char *needle, size_t n, struct line_marks *m)
{
	const __m512i nl = _mm512_set1_epi8('\n'), rare = _mm512_set1_epi8(needle[0]);
	size_t i = 0, end;

	for (; i + 128 <= avail; i += 128) {
		__m512i a = _mm512_loadu_si512((const void *)(p + i));
		__m512i b = _mm512_loadu_si512((const void *)(p + i + 64));
		__mmask64 ha = _kor_mask64(_mm512_cmpeq_epi8_mask(a, nl), _mm512_cmpeq_epi8_mask(a, rare));
		__mmask64 hb = _kor_mask64(_mm512_cmpeq_epi8_mask(b, nl), _mm512_cmpeq_epi8_mask(b, rare));

		if (_kortestz_mask64_u8(ha, hb))
			continue;
		if (marks_in(p, avail, i, _cvtmask64_u64(ha), needle, n, m, &end) ||
		    marks_in(p, avail, i + 64, _cvtmask64_u64(hb), needle, n, m, &end))
			return end;
	}
	for (; i < avail; i += 64) {
		__mmask64 in = avail - i >= 64 ? ~0ULL : (1ULL << (avail - i)) - 1;
		__m512i a = _mm512_maskz_loadu_epi8(in, p + i);
		__mmask64 ha = _kor_mask64(_mm512_mask_cmpeq_epi8_mask(in, a, nl), _mm512_mask_cmpeq_epi8_mask(in, a, rare));

		if (marks_in(p, avail, i, _cvtmask64_u64(ha), needle, n, m, &end))
			return end;
	}
	return avail;
}
#endif

size_t
line_scan(const char *p, size_t avail, const char *needle, size_t n, struct line_marks *marks)
{
#ifdef HAVE_AVX2_PATH
	marks->first = marks->last = -1;
	if (cpu_has_avx512bw())
		return line_scan_avx512(p, avail, needle, n, marks);
	if (cpu_has_avx2())
		return line_scan_avx2(p, avail, needle, n, marks);
#endif
	return line_scan_bytes(p, avail, needle, n, marks);
}
