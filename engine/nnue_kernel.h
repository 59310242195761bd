/*
 * The NNUE inner loops, inside the engine only: an AVX2 version when the build enables
 * AVX2 (ARCH=avx2 or native), SSE2 on other x86-64 builds, a portable one otherwise,
 * with the same results to the bit (nnue.h).
 *
 * A test build may compile nnue_kernel.c again with NNUE_KERNEL_SUFFIX set (and its own
 * flags): its functions then end in _<suffix>, so that both versions live in one
 * program and can be compared.
 */
#ifndef CHUHE_NNUE_KERNEL_H
#define CHUHE_NNUE_KERNEL_H

#include <stdint.h>

#define NNUE_KERNEL_CAT2(a, b) a##_##b
#define NNUE_KERNEL_CAT(a, b) NNUE_KERNEL_CAT2(a, b)
#ifdef NNUE_KERNEL_SUFFIX
#define NNUE_KERNEL(name) NNUE_KERNEL_CAT(name, NNUE_KERNEL_SUFFIX)
#else
#define NNUE_KERNEL(name) name
#endif

/* Which version this build of the kernels is: "avx2", "sse2" or "portable". */
extern const char *const NNUE_KERNEL(nnue_kernel_name);

/* dst = src + the rows add[0..nadd) - the rows sub[0..nsub), n int16 lanes (n a multiple
 * of 32; dst, src and the rows 32-byte aligned). dst may be src. */
void NNUE_KERNEL(nnue_kernel_update)(int16_t *dst, const int16_t *src, const int16_t *const *add,
                                     int nadd, const int16_t *const *sub, int nsub, uint32_t n);

/* The exact sum over i < n of (v * w[i]) * v, v = clamp(us[i], 0, QA), plus the same
 * over them[i] and w[n + i]. */
int64_t NNUE_KERNEL(nnue_kernel_output)(const int16_t *us, const int16_t *them, const int16_t *w,
                                        uint32_t n);

#endif
