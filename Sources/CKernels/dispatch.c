#include "ckernels.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

/* XCR0 through the raw instruction: _xgetbv itself needs the xsave target feature. */
static unsigned long long read_xcr0(void) {
    unsigned int low, high;
    __asm__ volatile("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
    return ((unsigned long long)high << 32) | low;
}

int wb_kernel_level(void) {
    unsigned int eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
    const unsigned int fma = 1u << 12, osxsave = 1u << 27, avx = 1u << 28;
    if ((ecx & fma) == 0 || (ecx & osxsave) == 0 || (ecx & avx) == 0) return 0;
    /* The OS must save the SSE and AVX register state (XCR0 bits 1 and 2). */
    const unsigned long long xcr0 = read_xcr0();
    if ((xcr0 & 0x6) != 0x6) return 0;
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return 0;
    const unsigned int avx2 = 1u << 5, avx512f = 1u << 16;
    if ((ebx & avx2) == 0) return 0;
    /* AVX-512 also needs the OS to save the opmask and upper zmm state (XCR0 bits 5 to 7). */
    if ((ebx & avx512f) != 0 && (xcr0 & 0xE0) == 0xE0) return 2;
    return 1;
}
#else
int wb_kernel_level(void) { return 0; }
#endif
