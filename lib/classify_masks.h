/*
 * classify_masks.h: the classifier's whole-chunk pass (classify_lines.c)
 * as bit masks, one bit per byte and 64 bytes a word: where a byte equals
 * a given one, and the masks a region of plain lines is skipped by.  Each
 * has a dispatcher that takes the widest vector path the CPU has
 * (cpu_has_avx512bw(), cpu_has_avx2(): cpu_features.h) and a byte loop, the
 * reference the tests hold every path to.
 *
 * Ownership: nothing here allocates; the caller owns the bytes and the
 * struct slice_bits it fills.
 */
#ifndef RLWRAP_CLASSIFY_MASKS_H
#define RLWRAP_CLASSIFY_MASKS_H

#include <stddef.h>
#include <stdint.h>

/* A slice of a chunk, read a slice at a time (its masks stay in the L1
 * and L2 caches); slices shorter than SCAN_SLICE_MIN go line by line. */
#define SCAN_SLICE 65536
#define SCAN_SLICE_MIN 4096
#define SCAN_WORDS (SCAN_SLICE / 64)

struct slice_bits {
	uint64_t nl[SCAN_WORDS];
	/* The region's masks are read before the colons and spaces are
	 * marked (past the region), so they share their words: a slice's
	 * masks are stack pages touched by every classifier. */
	union {
		/* The region's masks (slice_region_masks): a blank (' ', '\t'); a
		 * first non-blank that asks for a closer look (r x { ~ ` a R X [ A
		 * < CR); a last byte that does (blank, { [ TAB CR). */
		struct {
			uint64_t blank[SCAN_WORDS];
			uint64_t head[SCAN_WORDS];
			uint64_t tail[SCAN_WORDS];
		};
		struct {
			uint64_t colon[SCAN_WORDS];
			uint64_t space[SCAN_WORDS];
		};
	};
	size_t masked;   /* the whole words those masks (and nl) cover */
};

/* One bit per byte of s (len bytes) equal to ch, for the 64-byte words
 * [from, to); the last word's bits past len are 0. */
void slice_bits_of(uint64_t *bits, char ch, const char *s, size_t len, size_t from, size_t to);
void slice_bits_of_bytes(uint64_t *bits, char ch, const char *s, size_t len, size_t from, size_t to);

/* nl, blank, head and tail for the first words whole words of s, in one
 * pass; sets and returns b->masked: words, or 0 where the CPU has no
 * vector path (the region is then read line by line, which is faster
 * than a byte loop). */
size_t slice_region_masks(struct slice_bits *b, const char *s, size_t words);
/* The same one byte at a time (always words). */
size_t slice_region_masks_bytes(struct slice_bits *b, const char *s, size_t words);

#endif
