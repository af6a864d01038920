/* cpu_features.c: which vector paths this CPU runs (cpu_features.h). */
#include "cpu_features.h"

#ifdef HAVE_AVX2_PATH
#include <cpuid.h>
#endif

static unsigned cpu_allowed = CPU_AVX2 | CPU_AVX512BW;

void
cpu_features_cap(unsigned features)
{
	cpu_allowed = features;
}

#ifdef HAVE_AVX2_PATH
/*
 * What the CPU runs and the kernel saves (XCR0), asked with cpuid when a
 * vector path is first wanted.  Not __builtin_cpu_supports(): it brings
 * libgcc's constructor, which asks cpuid a few dozen times at every start,
 * and in a virtual machine each cpuid traps to the host (64 us a process
 * here, for `rlwrap -- true` that never classifies a byte).
 */
static int
cpu_features(void)
{
	static int features = -1;   /* a race only writes the same answer twice */
	unsigned a, b, c, d, xcr0_lo, xcr0_hi;
	int f = 0;

	if (features >= 0)
		return features;
	if (__get_cpuid_max(0, NULL) >= 7 && __get_cpuid(1, &a, &b, &c, &d) &&
	    (c & bit_OSXSAVE) != 0 && (c & bit_AVX) != 0) {
		__asm__ volatile ("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
		__cpuid_count(7, 0, a, b, c, d);
		if ((xcr0_lo & 0x6) == 0x6 && (b & bit_AVX2) != 0)   /* XMM and YMM state */
			f |= CPU_AVX2;
		if ((xcr0_lo & 0xe6) == 0xe6 && (b & bit_AVX512F) != 0 && (b & bit_AVX512BW) != 0)
			f |= CPU_AVX512BW;   /* and the opmask and ZMM state */
		(void)xcr0_hi;
	}
	return features = f;
}
#endif

bool
cpu_has_avx2(void)
{
#ifdef HAVE_AVX2_PATH
	return (cpu_features() & cpu_allowed & CPU_AVX2) != 0;
#else
	return false;
#endif
}

bool
cpu_has_avx512bw(void)
{
#ifdef HAVE_AVX2_PATH
	return (cpu_features() & cpu_allowed & CPU_AVX512BW) != 0;
#else
	return false;
#endif
}
