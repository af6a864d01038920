/* classify_masks.c: a slice's bit masks, by vector where the CPU allows. */
#include <stdbool.h>
#include <string.h>

#include "cpu_features.h"
#include "classify_masks.h"
#include "textutil.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif
#ifdef HAVE_AVX2_PATH
#include <immintrin.h>
#endif

void
slice_bits_of_bytes(uint64_t *bits, char ch, const char *s, size_t len, size_t from, size_t to)
{
	for (size_t w = from; w < to; w++) {
		uint64_t b = 0;
		size_t m = len - w * 64 < 64 ? len - w * 64 : 64;

		for (size_t k = 0; k < m; k++)
			b |= (uint64_t)(s[w * 64 + k] == ch) << k;
		bits[w] = b;
	}
}

static bool
region_head(unsigned char ch)
{
	return ch != '\0' && strchr("rx{~`aRX[A<\r", ch) != NULL;
}

static bool
region_tail(unsigned char ch)
{
	return ch == '{' || ch == '[' || ch == '\t' || ch == '\r';
}

size_t
slice_region_masks_bytes(struct slice_bits *b, const char *s, size_t words)
{
	for (size_t w = 0; w < words; w++) {
		uint64_t nl = 0, blank = 0, head = 0, tail = 0;

		for (size_t k = 0; k < 64; k++) {
			unsigned char ch = (unsigned char)s[w * 64 + k];

			nl |= (uint64_t)(ch == '\n') << k;
			blank |= (uint64_t)(ch == ' ' || ch == '\t') << k;
			head |= (uint64_t)region_head(ch) << k;
			tail |= (uint64_t)region_tail(ch) << k;
		}
		b->nl[w] = nl;
		b->blank[w] = blank;
		b->head[w] = head;
		b->tail[w] = blank | tail;
	}
	return b->masked = words;
}

#ifdef HAVE_AVX2_PATH
/* The whole words from `from` on (where the CPU has AVX2); returns the
 * first word it did not do. */
__attribute__((target("avx2"))) static size_t
bits_of_avx2(uint64_t *bits, char ch, const char *s, size_t len, size_t from, size_t to)
{
	const __m256i x = _mm256_set1_epi8(ch);
	size_t w = from;

	for (; w < to && w * 64 + 64 <= len; w++) {
		const __m256i *at = (const __m256i *)(const void *)(s + w * 64);

		bits[w] = (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_loadu_si256(at), x)) |
		    (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_loadu_si256(at + 1), x)) << 32;
	}
	return w;
}

/* The same with AVX-512BW: one compare a word, its mask the word's bits. */
__attribute__((target("avx512f,avx512bw"))) static size_t
bits_of_avx512(uint64_t *bits, char ch, const char *s, size_t len, size_t from, size_t to)
{
	const __m512i x = _mm512_set1_epi8(ch);
	size_t w = from;

	for (; w < to && w * 64 + 64 <= len; w++)
		bits[w] = _cvtmask64_u64(_mm512_cmpeq_epi8_mask(_mm512_loadu_si512((const void *)(s + w * 64)), x));
	return w;
}

__attribute__((target("avx2"))) static inline uint64_t
mask_of(__m256i lo, __m256i hi)
{
	return (uint64_t)(uint32_t)_mm256_movemask_epi8(lo) | (uint64_t)(uint32_t)_mm256_movemask_epi8(hi) << 32;
}

/* Which region bits a byte has: a lookup by each nibble, ANDed.  Each bit
 * is a set of high nibbles times a set of low ones, so the AND is exact.
 * Head (bits 0 to 5): r x { ~, ` a, R X [, A, <, CR.  Tail (bits 6 and
 * 7): { [, TAB CR.  The same 16 bytes in every 128-bit lane. */
#define REGION_LO 2, 2 | 8, 1 | 4, 0, 0, 0, 0, 0, 1 | 4, -128, 0, 1 | 4 | 64, 16, 32 - 128, 1, 0
#define REGION_HI 32 - 128, 0, 0, 16, 8, 4 | 64, 2, 1 | 64, 0, 0, 0, 0, 0, 0, 0, 0
#define REGION_HEAD 63
#define REGION_TAIL (-64)

__attribute__((target("avx2"))) static inline __m256i
region_class(__m256i v)
{
	const __m256i lo = _mm256_setr_epi8(REGION_LO, REGION_LO), hi = _mm256_setr_epi8(REGION_HI, REGION_HI);
	const __m256i nibble = _mm256_set1_epi8(0x0f);

	return _mm256_and_si256(_mm256_shuffle_epi8(lo, _mm256_and_si256(v, nibble)),
	    _mm256_shuffle_epi8(hi, _mm256_and_si256(_mm256_srli_epi16(v, 4), nibble)));
}

__attribute__((target("avx2"))) static size_t
region_masks_avx2(struct slice_bits *b, const char *s, size_t words)
{
	const __m256i nl = _mm256_set1_epi8('\n'), sp = _mm256_set1_epi8(' '), tab = _mm256_set1_epi8('\t');
	const __m256i head = _mm256_set1_epi8(REGION_HEAD), tail = _mm256_set1_epi8(REGION_TAIL);
	const __m256i zero = _mm256_setzero_si256();

	for (size_t w = 0; w < words; w++) {
		const __m256i *at = (const __m256i *)(const void *)(s + w * 64);
		__m256i x = _mm256_loadu_si256(at), y = _mm256_loadu_si256(at + 1);
		__m256i cx = region_class(x), cy = region_class(y);

		b->nl[w] = mask_of(_mm256_cmpeq_epi8(x, nl), _mm256_cmpeq_epi8(y, nl));
		b->blank[w] = mask_of(_mm256_or_si256(_mm256_cmpeq_epi8(x, sp), _mm256_cmpeq_epi8(x, tab)),
		    _mm256_or_si256(_mm256_cmpeq_epi8(y, sp), _mm256_cmpeq_epi8(y, tab)));
		b->head[w] = ~mask_of(_mm256_cmpeq_epi8(_mm256_and_si256(cx, head), zero),
		    _mm256_cmpeq_epi8(_mm256_and_si256(cy, head), zero));
		b->tail[w] = b->blank[w] | ~mask_of(_mm256_cmpeq_epi8(_mm256_and_si256(cx, tail), zero),
		    _mm256_cmpeq_epi8(_mm256_and_si256(cy, tail), zero));
	}
	return b->masked = words;
}

/* The same, a word a vector, the compares straight into masks. */
__attribute__((target("avx512f,avx512bw"))) static size_t
region_masks_avx512(struct slice_bits *b, const char *s, size_t words)
{
	const __m512i lo = _mm512_broadcast_i32x4(_mm_setr_epi8(REGION_LO));
	const __m512i hi = _mm512_broadcast_i32x4(_mm_setr_epi8(REGION_HI));
	const __m512i nibble = _mm512_set1_epi8(0x0f), nl = _mm512_set1_epi8('\n');
	const __m512i sp = _mm512_set1_epi8(' '), tab = _mm512_set1_epi8('\t');
	const __m512i head = _mm512_set1_epi8(REGION_HEAD), tail = _mm512_set1_epi8(REGION_TAIL);

	for (size_t w = 0; w < words; w++) {
		__m512i x = _mm512_loadu_si512((const void *)(s + w * 64));
		__m512i cx = _mm512_and_si512(_mm512_shuffle_epi8(lo, _mm512_and_si512(x, nibble)),
		    _mm512_shuffle_epi8(hi, _mm512_and_si512(_mm512_srli_epi16(x, 4), nibble)));
		uint64_t blank = _cvtmask64_u64(_kor_mask64(_mm512_cmpeq_epi8_mask(x, sp), _mm512_cmpeq_epi8_mask(x, tab)));

		b->nl[w] = _cvtmask64_u64(_mm512_cmpeq_epi8_mask(x, nl));
		b->blank[w] = blank;
		b->head[w] = _cvtmask64_u64(_mm512_test_epi8_mask(cx, head));
		b->tail[w] = blank | _cvtmask64_u64(_mm512_test_epi8_mask(cx, tail));
	}
	return b->masked = words;
}
#endif

size_t
slice_region_masks(struct slice_bits *b, const char *s, size_t words)
{
#ifdef HAVE_AVX2_PATH
	if (cpu_has_avx512bw())
		return region_masks_avx512(b, s, words);
	if (cpu_has_avx2())
		return region_masks_avx2(b, s, words);
#else
	(void)s;
	(void)words;
#endif
	return b->masked = 0;
}

void
slice_bits_of(uint64_t *bits, char ch, const char *s, size_t len, size_t from, size_t to)
{
	size_t w = from;

#ifdef HAVE_AVX2_PATH
	if (cpu_has_avx512bw())
		w = bits_of_avx512(bits, ch, s, len, from, to);
	else if (cpu_has_avx2())
		w = bits_of_avx2(bits, ch, s, len, from, to);
#endif
#ifdef __SSE2__
	const __m128i x = _mm_set1_epi8(ch);

	for (; w < to && w * 64 + 64 <= len; w++) {
		const __m128i *at = (const __m128i *)(const void *)(s + w * 64);

		bits[w] = (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128(at), x)) |
		    (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128(at + 1), x)) << 16 |
		    (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128(at + 2), x)) << 32 |
		    (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128(at + 3), x)) << 48;
	}
#endif
	slice_bits_of_bytes(bits, ch, s, len, w, to);
}
