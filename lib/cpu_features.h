/*
 * cpu_features.h: which of the vector paths (AVX2, AVX-512BW) the CPU
 * runs, asked once, and a cap the tests use to run each path on a CPU
 * that has them all.
 *
 * Ownership: nothing here allocates; the answer is a process-wide static.
 */
#ifndef RLWRAP_CPU_FEATURES_H
#define RLWRAP_CPU_FEATURES_H

#include <stdbool.h>

/* Does the CPU run AVX2 (asked once)?  False where it cannot be asked.
 * HAVE_AVX2_PATH: the compiler builds AVX2 functions (target attribute)
 * for the callers to choose at run time. */
bool cpu_has_avx2(void);
/* And AVX-512BW, with functions from the same path. */
bool cpu_has_avx512bw(void);
/* Makes the two above answer false for what features leaves out (the
 * tests run each path on a CPU that has them all).  Not thread-safe:
 * call it before any classifier runs. */
#define CPU_AVX2 1u
#define CPU_AVX512BW 2u
void cpu_features_cap(unsigned features);
#if defined(__x86_64__) && defined(__GNUC__)
#define HAVE_AVX2_PATH 1
#endif

#endif
