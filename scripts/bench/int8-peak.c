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
#include <string.h>
#include <time.h>

static double seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec + now.tv_nsec * 1e-9;
}

// Ten independent accumulators: enough to hide every path's latency behind its throughput.
#define TEN(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9)
enum { Rounds = 50000000 };

__attribute__((target("avx2,fma"))) static double fp32(void) {
    __m256 x = _mm256_set1_ps(0.5f), y = _mm256_set1_ps(0.25f);
#define DECLARE(i) __m256 a##i = _mm256_set1_ps((i) * 0.1f);
    TEN(DECLARE)
#undef DECLARE
    double start = seconds();
    for (long n = 0; n < Rounds; n++) {
#define STEP(i) a##i = _mm256_fmadd_ps(a##i, x, y);
        TEN(STEP)
#undef STEP
    }
    double elapsed = seconds() - start;
    __m256 sum = _mm256_setzero_ps();
#define ADD(i) sum = _mm256_add_ps(sum, a##i);
    TEN(ADD)
#undef ADD
    volatile float sink = _mm256_cvtss_f32(sum);
    (void)sink;
    return Rounds * 10.0 * 8 / elapsed;
}

__attribute__((target("avx2"))) static double exact16(void) {
    __m256i p = _mm256_set1_epi16(3), q = _mm256_set1_epi16(5);
#define DECLARE(i) __m256i a##i = _mm256_set1_epi32(i);
    TEN(DECLARE)
#undef DECLARE
    double start = seconds();
    for (long n = 0; n < Rounds; n++) {
        p = _mm256_add_epi16(p, q);
#define STEP(i) a##i = _mm256_add_epi32(a##i, _mm256_madd_epi16(p, _mm256_set1_epi16((i) + 1)));
        TEN(STEP)
#undef STEP
    }
    double elapsed = seconds() - start;
    __m256i sum = _mm256_setzero_si256();
#define ADD(i) sum = _mm256_add_epi32(sum, a##i);
    TEN(ADD)
#undef ADD
    volatile int sink = _mm256_cvtsi256_si32(sum);
    (void)sink;
    return Rounds * 10.0 * 16 / elapsed;
}

__attribute__((target("avx2"))) static double saturating8(void) {
    __m256i u = _mm256_set1_epi8(3), ones = _mm256_set1_epi16(1);
#define DECLARE(i) __m256i a##i = _mm256_set1_epi32(i);
    TEN(DECLARE)
#undef DECLARE
    double start = seconds();
    for (long n = 0; n < Rounds; n++) {
        u = _mm256_add_epi8(u, ones);
#define STEP(i) a##i = _mm256_add_epi32(a##i, _mm256_madd_epi16(_mm256_maddubs_epi16(u, _mm256_set1_epi8((i) + 1)), ones));
        TEN(STEP)
#undef STEP
    }
    double elapsed = seconds() - start;
    __m256i sum = _mm256_setzero_si256();
#define ADD(i) sum = _mm256_add_epi32(sum, a##i);
    TEN(ADD)
#undef ADD
    volatile int sink = _mm256_cvtsi256_si32(sum);
    (void)sink;
    return Rounds * 10.0 * 32 / elapsed;
}

__attribute__((target("avx2,avxvnni"))) static double vnni256(void) {
    __m256i u = _mm256_set1_epi8(3), w = _mm256_set1_epi8(5);
#define DECLARE(i) __m256i a##i = _mm256_set1_epi32(i);
    TEN(DECLARE)
#undef DECLARE
    double start = seconds();
    for (long n = 0; n < Rounds; n++) {
#define STEP(i) a##i = _mm256_dpbusd_avx_epi32(a##i, u, w);
        TEN(STEP)
#undef STEP
    }
    double elapsed = seconds() - start;
    __m256i sum = _mm256_setzero_si256();
#define ADD(i) sum = _mm256_add_epi32(sum, a##i);
    TEN(ADD)
#undef ADD
    volatile int sink = _mm256_cvtsi256_si32(sum);
    (void)sink;
    return Rounds * 10.0 * 32 / elapsed;
}

__attribute__((target("avx512f,avx512vnni"))) static double vnni512(void) {
    __m512i u = _mm512_set1_epi8(3), w = _mm512_set1_epi8(5);
#define DECLARE(i) __m512i a##i = _mm512_set1_epi32(i);
    TEN(DECLARE)
#undef DECLARE
    double start = seconds();
    for (long n = 0; n < Rounds; n++) {
#define STEP(i) a##i = _mm512_dpbusd_epi32(a##i, u, w);
        TEN(STEP)
#undef STEP
    }
    double elapsed = seconds() - start;
    __m512i sum = _mm512_setzero_si512();
#define ADD(i) sum = _mm512_add_epi32(sum, a##i);
    TEN(ADD)
#undef ADD
    volatile int sink = _mm512_reduce_add_epi32(sum);
    (void)sink;
    return Rounds * 10.0 * 64 / elapsed;
}

int main(void) {
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
        printf("int8-peak: this CPU has no AVX2 and FMA; nothing to compare\n");
        return 1;
    }
    // Best of three, to ride over other work on a shared machine.
    double reference = 0;
    for (int round = 0; round < 3; round++) { double rate = fp32(); if (rate > reference) reference = rate; }
    printf("%-9s %-44s %8.1f G MAC/s  1.00x\n", "fp32", "vfmadd231ps ymm", reference / 1e9);
    struct { const char *name, *what; double (*run)(void); int present; } paths[] = {
        {"exact16", "vpmaddwd + vpaddd ymm (exact)", exact16, 1},
        {"sat8", "vpmaddubsw + vpmaddwd + vpaddd (saturates)", saturating8, 1},
        {"vnni256", "vpdpbusd ymm, AVX-VNNI (exact)", vnni256, __builtin_cpu_supports("avxvnni")},
        {"vnni512", "vpdpbusd zmm, AVX-512 VNNI (exact)", vnni512, __builtin_cpu_supports("avx512vnni")},
    };
    for (unsigned index = 0; index < sizeof paths / sizeof paths[0]; index++) {
        if (!paths[index].present) { printf("%-9s %-44s   (not on this CPU)\n", paths[index].name, paths[index].what); continue; }
        double best = 0;
        for (int round = 0; round < 3; round++) { double rate = paths[index].run(); if (rate > best) best = rate; }
        printf("%-9s %-44s %8.1f G MAC/s  %.2fx\n", paths[index].name, paths[index].what, best / 1e9, best / reference);
    }
    return 0;
}
