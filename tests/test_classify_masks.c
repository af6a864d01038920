/* Unit tests for lib/classify_masks.c: every vector path (AVX-512, AVX2,
 * none) gives the byte loop's masks, at every length and alignment, and
 * reads no byte past the slice (every buffer is allocated to its length,
 * so ASan catches a read). */
#include "unit.h"

#include <stdbool.h>
#include <stdint.h>

#include "classify_masks.h"
#include "cpu_features.h"
#include "textutil.h"

/* Bytes that matter to the masks, and others, in a seeded mix. */
static char *
mixed(size_t len, unsigned seed)
{
	static const char alphabet[] = "\n\n :: \t\trx{~`aRX[A<\r{[]}bcqz\"019\x80\xff";
	char *p = malloc(len > 0 ? len : 1);

	assert_non_null(p);
	for (size_t i = 0; i < len; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = alphabet[(seed >> 16) % (sizeof(alphabet) - 1)];
	}
	return p;
}

static void
expect_bits_of(const char *s, size_t len, size_t from, const char *path)
{
	static const char chars[] = { '\n', ':', ' ', '\t', '{' };
	uint64_t got[SCAN_WORDS], want[SCAN_WORDS];
	size_t words = (len + 63) / 64;

	for (size_t c = 0; c < sizeof(chars); c++) {
		memset(got, 0xa5, sizeof(got));
		slice_bits_of(got, chars[c], s, len, from, words);
		slice_bits_of_bytes(want, chars[c], s, len, from, words);
		for (size_t w = from; w < words; w++)
			if (got[w] != want[w])
				fail_msg("%s: bits of %#x, len %zu from %zu, word %zu: %#llx, want %#llx", path,
				    chars[c], len, from, w, (unsigned long long)got[w], (unsigned long long)want[w]);
	}
}

static void
expect_region_masks(const char *s, size_t len, const char *path, bool vector)
{
	static struct slice_bits got, want;
	size_t words = len / 64;

	if (slice_region_masks(&got, s, words) != (vector ? words : 0))
		fail_msg("%s: region masks over %zu words: covered %zu", path, words, got.masked);
	assert_int_equal(slice_region_masks_bytes(&want, s, words), words);
	for (size_t w = 0; vector && w < words; w++)
		if (got.nl[w] != want.nl[w] || got.blank[w] != want.blank[w] || got.head[w] != want.head[w] ||
		    got.tail[w] != want.tail[w])
			fail_msg("%s: region masks, len %zu, word %zu differ", path, len, w);
}

/* Every length up to a few words, at every start word, and a whole slice. */
static void
run_mask_checks(unsigned features, const char *path, bool vector)
{
	cpu_features_cap(features);
	for (size_t len = 0; len <= 64 * 5 + 1; len++) {
		char *s = mixed(len, (unsigned)len);

		for (size_t from = 0; from <= (len + 63) / 64; from++)
			expect_bits_of(s, len, from, path);
		expect_region_masks(s, len, path, vector);
		free(s);
	}
	for (unsigned seed = 1; seed <= 4; seed++) {
		char *s = mixed(SCAN_SLICE, seed);

		expect_bits_of(s, SCAN_SLICE, 0, path);
		expect_bits_of(s, SCAN_SLICE - 17, 3, path);
		expect_region_masks(s, SCAN_SLICE, path, vector);
		free(s);
	}
	cpu_features_cap(CPU_AVX2 | CPU_AVX512BW);
}

/* Every byte value, each alone in a word of another byte: the head and tail
 * sets exactly as the header states them. */
static void
test_reference_sets(void **state)
{
	static struct slice_bits b;
	char word[64];

	(void)state;
	for (int ch = 0; ch < 256; ch++) {
		memset(word, 'q', sizeof(word));
		word[5] = (char)ch;
		slice_region_masks_bytes(&b, word, 1);
		assert_int_equal(b.head[0] == (1ULL << 5), ch != 0 && strchr("rx{~`aRX[A<\r", ch) != NULL);
		assert_int_equal(b.tail[0] == (1ULL << 5), strchr(" \t{[\r", ch) != NULL && ch != 0);
		assert_int_equal(b.nl[0] == (1ULL << 5), ch == '\n');
		assert_int_equal(b.blank[0] == (1ULL << 5), ch == ' ' || ch == '\t');
	}
}

static void
test_masks_on_the_avx512_path(void **state)
{
	(void)state;
	if (!cpu_has_avx512bw())
		skip();   /* this CPU has no AVX-512BW: the path cannot run here */
	run_mask_checks(CPU_AVX2 | CPU_AVX512BW, "avx512", true);
}

static void
test_masks_on_the_avx2_path(void **state)
{
	(void)state;
	if (!cpu_has_avx2())
		skip();
	run_mask_checks(CPU_AVX2, "avx2", true);
}

static void
test_masks_without_vector_paths(void **state)
{
	(void)state;
	run_mask_checks(0, "bytes", false);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reference_sets),
		cmocka_unit_test(test_masks_on_the_avx512_path),
		cmocka_unit_test(test_masks_on_the_avx2_path),
		cmocka_unit_test(test_masks_without_vector_paths),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
