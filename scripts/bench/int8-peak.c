// Peak multiply-accumulate rates of one core, from registers only (no memory traffic): fp32 FMA against the integer
// dot products an int8 network could use on this CPU. The ratio bounds what int8 kernels can gain over fp32 ones
// where arithmetic, not memory, limits them (the 1x1 convolutions). Built and run by bench-int8-bound.sh.
//
// Paths (each run only where the CPU has it):
//   fp32      vfmadd231ps ymm                       8 MACs an instruction
//   exact16   vpmaddwd + vpaddd ymm                 16 MACs: int8 widened to int16, exact 32-bit sums (AVX2)
//   sat8      vpmaddubsw + vpmaddwd + vpaddd ymm    32 MACs, but u8 x s8 pairs saturate at 16 bits (not exact)
//   vnni256   vpdpbusd ymm (AVX-VNNI)               32 MACs, exact
//   vnni512   vpdpbusd zmm (AVX-512 VNNI)           64 MACs, exact
#include <immintrin.h>
#include <stdio.h>
#include <time.h>

static double seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec + now.tv_nsec * 1e-9;
}

enum { Rounds = 50000000 };

// One path: ten independent accumulators (enough to hide every path's latency behind its throughput), each updated
// once a round (DECLARE_, STEP_ and SUM_ + the path's name), then a sum the compiler cannot drop. `touch` runs each
// round: an empty asm that claims to change the multiplied register, so a product that does not depend on the
// accumulator is not hoisted out of the loop (it costs no instruction). Returns MACs per second.
#define TEN(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9)
#define PEAK_PATH(name, isa, Vector, prepare, touch, first, macs)                 \
    __attribute__((target(isa))) static double name(void) {                                \
        prepare;                                                                              \
        _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wunused-variable\"") \
        TEN(DECLARE_##name)                                                                   \
        _Pragma("GCC diagnostic pop")                                                         \
        double began = seconds();                                                             \
        for (long n = 0; n < Rounds; n++) { touch; TEN(STEP_##name) }                         \
        double elapsed = seconds() - began;                                                   \
        Vector sum = a0;                                                                      \
        TEN(SUM_##name)                                                                       \
        volatile double sink = (double)first(sum);                                            \
        (void)sink;                                                                           \
        return Rounds * 10.0 * (macs) / elapsed;                                              \
    }

#define DECLARE_fp32(i) __m256 a##i = _mm256_set1_ps((i) * 0.1f);
#define STEP_fp32(i) a##i = _mm256_fmadd_ps(a##i, x, y);
#define SUM_fp32(i) sum = _mm256_add_ps(sum, a##i);
PEAK_PATH(fp32, "avx2,fma", __m256, __m256 x = _mm256_set1_ps(0.5f); __m256 y = _mm256_set1_ps(0.25f), (void)0,
          _mm256_cvtss_f32, 8)

#define DECLARE_exact16(i) __m256i a##i = _mm256_set1_epi32(i); __m256i w##i = _mm256_set1_epi16((i) + 1);
#define STEP_exact16(i) a##i = _mm256_add_epi32(a##i, _mm256_madd_epi16(p, w##i));
#define SUM_exact16(i) sum = _mm256_add_epi32(sum, a##i);
PEAK_PATH(exact16, "avx2", __m256i, __m256i p = _mm256_set1_epi16(3), __asm__ volatile("" : "+x"(p)),
          _mm256_cvtsi256_si32, 16)

#define DECLARE_saturating8(i) __m256i a##i = _mm256_set1_epi32(i); __m256i w##i = _mm256_set1_epi8((i) + 1);
#define STEP_saturating8(i) a##i = _mm256_add_epi32(a##i, _mm256_madd_epi16(_mm256_maddubs_epi16(u, w##i), ones));
#define SUM_saturating8(i) sum = _mm256_add_epi32(sum, a##i);
PEAK_PATH(saturating8, "avx2", __m256i, __m256i u = _mm256_set1_epi8(3); __m256i ones = _mm256_set1_epi16(1),
          __asm__ volatile("" : "+x"(u)),
          _mm256_cvtsi256_si32, 32)

#define DECLARE_vnni256(i) __m256i a##i = _mm256_set1_epi32(i);
#define STEP_vnni256(i) a##i = _mm256_dpbusd_avx_epi32(a##i, u, w);
#define SUM_vnni256(i) sum = _mm256_add_epi32(sum, a##i);
PEAK_PATH(vnni256, "avx2,avxvnni", __m256i, __m256i u = _mm256_set1_epi8(3); __m256i w = _mm256_set1_epi8(5), (void)0,
          _mm256_cvtsi256_si32, 32)

#define DECLARE_vnni512(i) __m512i a##i = _mm512_set1_epi32(i);
#define STEP_vnni512(i) a##i = _mm512_dpbusd_epi32(a##i, u, w);
#define SUM_vnni512(i) sum = _mm512_add_epi32(sum, a##i);
PEAK_PATH(vnni512, "avx512f,avx512vnni", __m512i, __m512i u = _mm512_set1_epi8(3); __m512i w = _mm512_set1_epi8(5), (void)0,
          _mm512_reduce_add_epi32, 64)

/// The best of three runs, to ride over other work on a shared machine.
static double best(double (*run)(void)) {
    double top = 0;
    for (int round = 0; round < 3; round++) { double rate = run(); if (rate > top) top = rate; }
    return top;
}

int main(void) {
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
        printf("int8-peak: this CPU has no AVX2 and FMA; nothing to compare\n");
        return 1;
    }
    double reference = best(fp32);
    printf("%-9s %-44s %8.1f G MAC/s  1.00x\n", "fp32", "vfmadd231ps ymm", reference / 1e9);
    struct { const char *name, *what; double (*run)(void); int present; } paths[] = {
        {"exact16", "vpmaddwd + vpaddd ymm (exact)", exact16, 1},
        {"sat8", "vpmaddubsw + vpmaddwd + vpaddd (saturates)", saturating8, 1},
        {"vnni256", "vpdpbusd ymm, AVX-VNNI (exact)", vnni256, __builtin_cpu_supports("avxvnni")},
        {"vnni512", "vpdpbusd zmm, AVX-512 VNNI (exact)", vnni512, __builtin_cpu_supports("avx512vnni")},
    };
    for (unsigned index = 0; index < sizeof paths / sizeof paths[0]; index++) {
        if (!paths[index].present) { printf("%-9s %-44s   (not on this CPU)\n", paths[index].name, paths[index].what); continue; }
        double rate = best(paths[index].run);
        printf("%-9s %-44s %8.1f G MAC/s  %.2fx\n", paths[index].name, paths[index].what, rate / 1e9, rate / reference);
    }
    return 0;
}
