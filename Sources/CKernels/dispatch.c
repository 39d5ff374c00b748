#include "ckernels.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

/* XCR0 through the raw instruction: _xgetbv itself needs the xsave target feature. */
static unsigned long long read_xcr0(void) {
    unsigned int low, high;
    __asm__ volatile("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
    return ((unsigned long long)high << 32) | low;
}

int wb_kernels_available(void) {
    unsigned int eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
    const unsigned int fma = 1u << 12, osxsave = 1u << 27, avx = 1u << 28;
    if ((ecx & fma) == 0 || (ecx & osxsave) == 0 || (ecx & avx) == 0) return 0;
    /* The OS must save the SSE and AVX register state (XCR0 bits 1 and 2). */
    if ((read_xcr0() & 0x6) != 0x6) return 0;
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return 0;
    const unsigned int avx2 = 1u << 5;
    return (ebx & avx2) != 0;
}
#else
int wb_kernels_available(void) { return 0; }
#endif
