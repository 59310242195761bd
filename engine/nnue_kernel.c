#include "nnue_kernel.h"

#include <string.h>

#include "nnue.h"

/* AVX2, else SSE2, else plain C; NNUE_PORTABLE: plain C whatever the target (a test
 * compares them). */
#if defined(__AVX2__) && !defined(NNUE_PORTABLE)
#include <immintrin.h>

const char *const NNUE_KERNEL(nnue_kernel_name) = "avx2";

/* 64 lanes (4 registers) a tile when n allows, else 32. */
void NNUE_KERNEL(nnue_kernel_update)(int16_t *dst, const int16_t *src, const int16_t *const *add,
                                     int nadd, const int16_t *const *sub, int nsub, uint32_t n)
{
    uint32_t i = 0;
    for (; i + 64 <= n; i += 64) {
        __m256i r0 = _mm256_load_si256((const __m256i *)(src + i));
        __m256i r1 = _mm256_load_si256((const __m256i *)(src + i + 16));
        __m256i r2 = _mm256_load_si256((const __m256i *)(src + i + 32));
        __m256i r3 = _mm256_load_si256((const __m256i *)(src + i + 48));
        for (int a = 0; a < nadd; a++) {
            const int16_t *w = add[a] + i;
            r0 = _mm256_add_epi16(r0, _mm256_load_si256((const __m256i *)w));
            r1 = _mm256_add_epi16(r1, _mm256_load_si256((const __m256i *)(w + 16)));
            r2 = _mm256_add_epi16(r2, _mm256_load_si256((const __m256i *)(w + 32)));
            r3 = _mm256_add_epi16(r3, _mm256_load_si256((const __m256i *)(w + 48)));
        }
        for (int s = 0; s < nsub; s++) {
            const int16_t *w = sub[s] + i;
            r0 = _mm256_sub_epi16(r0, _mm256_load_si256((const __m256i *)w));
            r1 = _mm256_sub_epi16(r1, _mm256_load_si256((const __m256i *)(w + 16)));
            r2 = _mm256_sub_epi16(r2, _mm256_load_si256((const __m256i *)(w + 32)));
            r3 = _mm256_sub_epi16(r3, _mm256_load_si256((const __m256i *)(w + 48)));
        }
        _mm256_store_si256((__m256i *)(dst + i), r0);
        _mm256_store_si256((__m256i *)(dst + i + 16), r1);
        _mm256_store_si256((__m256i *)(dst + i + 32), r2);
        _mm256_store_si256((__m256i *)(dst + i + 48), r3);
    }
    for (; i < n; i += 32) {
        __m256i r0 = _mm256_load_si256((const __m256i *)(src + i));
        __m256i r1 = _mm256_load_si256((const __m256i *)(src + i + 16));
        for (int a = 0; a < nadd; a++) {
            r0 = _mm256_add_epi16(r0, _mm256_load_si256((const __m256i *)(add[a] + i)));
            r1 = _mm256_add_epi16(r1, _mm256_load_si256((const __m256i *)(add[a] + i + 16)));
        }
        for (int s = 0; s < nsub; s++) {
            r0 = _mm256_sub_epi16(r0, _mm256_load_si256((const __m256i *)(sub[s] + i)));
            r1 = _mm256_sub_epi16(r1, _mm256_load_si256((const __m256i *)(sub[s] + i + 16)));
        }
        _mm256_store_si256((__m256i *)(dst + i), r0);
        _mm256_store_si256((__m256i *)(dst + i + 16), r1);
    }
}

/* v * w fits int16 (|v| <= QA, |w| <= NNUE_W2_MAX), so mullo then madd with v gives
 * two exact terms per int32 lane; a half of at most 1024 lanes puts at most 64 terms
 * (|sum| < 2^31) in a lane before the int64 reduction. */
static int64_t half_avx2(const int16_t *a, const int16_t *w, uint32_t n)
{
    const __m256i zero = _mm256_setzero_si256(), qa = _mm256_set1_epi16(NNUE_QA);
    __m256i s0 = zero, s1 = zero;
    for (uint32_t i = 0; i < n; i += 32) {
        __m256i v0 = _mm256_min_epi16(
            _mm256_max_epi16(_mm256_load_si256((const __m256i *)(a + i)), zero), qa);
        __m256i v1 = _mm256_min_epi16(
            _mm256_max_epi16(_mm256_load_si256((const __m256i *)(a + i + 16)), zero), qa);
        __m256i t0 = _mm256_mullo_epi16(v0, _mm256_loadu_si256((const __m256i *)(w + i)));
        __m256i t1 = _mm256_mullo_epi16(v1, _mm256_loadu_si256((const __m256i *)(w + i + 16)));
        s0 = _mm256_add_epi32(s0, _mm256_madd_epi16(t0, v0));
        s1 = _mm256_add_epi32(s1, _mm256_madd_epi16(t1, v1));
    }
    __m256i wide =
        _mm256_add_epi64(_mm256_add_epi64(_mm256_cvtepi32_epi64(_mm256_castsi256_si128(s0)),
                                          _mm256_cvtepi32_epi64(_mm256_extracti128_si256(s0, 1))),
                         _mm256_add_epi64(_mm256_cvtepi32_epi64(_mm256_castsi256_si128(s1)),
                                          _mm256_cvtepi32_epi64(_mm256_extracti128_si256(s1, 1))));
    __m128i h = _mm_add_epi64(_mm256_castsi256_si128(wide), _mm256_extracti128_si256(wide, 1));
    return _mm_cvtsi128_si64(h) + _mm_extract_epi64(h, 1);
}

int64_t NNUE_KERNEL(nnue_kernel_output)(const int16_t *us, const int16_t *them, const int16_t *w,
                                        uint32_t n)
{
    return half_avx2(us, w, n) + half_avx2(them, w + n, n);
}

#elif defined(__SSE2__) && !defined(NNUE_PORTABLE)
#include <emmintrin.h>

/* SSE2 is in every x86-64 CPU: the default build (ARCH=x86-64-v2) gets it. */
const char *const NNUE_KERNEL(nnue_kernel_name) = "sse2";

/* 64 lanes (8 registers) a tile when n allows, else 32. */
void NNUE_KERNEL(nnue_kernel_update)(int16_t *dst, const int16_t *src, const int16_t *const *add,
                                     int nadd, const int16_t *const *sub, int nsub, uint32_t n)
{
    uint32_t i = 0;
    for (; i + 64 <= n; i += 64) {
        __m128i r[8];
        for (int k = 0; k < 8; k++)
            r[k] = _mm_load_si128((const __m128i *)(src + i) + k);
        for (int a = 0; a < nadd; a++)
            for (int k = 0; k < 8; k++)
                r[k] = _mm_add_epi16(r[k], _mm_load_si128((const __m128i *)(add[a] + i) + k));
        for (int b = 0; b < nsub; b++)
            for (int k = 0; k < 8; k++)
                r[k] = _mm_sub_epi16(r[k], _mm_load_si128((const __m128i *)(sub[b] + i) + k));
        for (int k = 0; k < 8; k++)
            _mm_store_si128((__m128i *)(dst + i) + k, r[k]);
    }
    for (; i < n; i += 32) {
        __m128i r[4];
        for (int k = 0; k < 4; k++)
            r[k] = _mm_load_si128((const __m128i *)(src + i) + k);
        for (int a = 0; a < nadd; a++)
            for (int k = 0; k < 4; k++)
                r[k] = _mm_add_epi16(r[k], _mm_load_si128((const __m128i *)(add[a] + i) + k));
        for (int b = 0; b < nsub; b++)
            for (int k = 0; k < 4; k++)
                r[k] = _mm_sub_epi16(r[k], _mm_load_si128((const __m128i *)(sub[b] + i) + k));
        for (int k = 0; k < 4; k++)
            _mm_store_si128((__m128i *)(dst + i) + k, r[k]);
    }
}

/* As half_avx2, 4 int32 lanes a register: a half of at most 1024 lanes puts at most
 * 128 terms in an int32 lane (255 * 127 * 255 * 128 < 2^31). */
static int64_t half_sse2(const int16_t *a, const int16_t *w, uint32_t n)
{
    const __m128i zero = _mm_setzero_si128(), qa = _mm_set1_epi16(NNUE_QA);
    __m128i s0 = zero, s1 = zero;
    for (uint32_t i = 0; i < n; i += 16) {
        __m128i v0 =
            _mm_min_epi16(_mm_max_epi16(_mm_load_si128((const __m128i *)(a + i)), zero), qa);
        __m128i v1 =
            _mm_min_epi16(_mm_max_epi16(_mm_load_si128((const __m128i *)(a + i + 8)), zero), qa);
        __m128i t0 = _mm_mullo_epi16(v0, _mm_loadu_si128((const __m128i *)(w + i)));
        __m128i t1 = _mm_mullo_epi16(v1, _mm_loadu_si128((const __m128i *)(w + i + 8)));
        s0 = _mm_add_epi32(s0, _mm_madd_epi16(t0, v0));
        s1 = _mm_add_epi32(s1, _mm_madd_epi16(t1, v1));
    }
    int32_t lanes[8];
    _mm_storeu_si128((__m128i *)lanes, s0);
    _mm_storeu_si128((__m128i *)lanes + 1, s1);
    int64_t total = 0;
    for (int k = 0; k < 8; k++)
        total += lanes[k];
    return total;
}

int64_t NNUE_KERNEL(nnue_kernel_output)(const int16_t *us, const int16_t *them, const int16_t *w,
                                        uint32_t n)
{
    return half_sse2(us, w, n) + half_sse2(them, w + n, n);
}

#else

const char *const NNUE_KERNEL(nnue_kernel_name) = "portable";

/* Plain C in tiles of 32 lanes that the compiler vectorises with what the target has. */
enum { TILE = 32 };

void NNUE_KERNEL(nnue_kernel_update)(int16_t *dst, const int16_t *src, const int16_t *const *add,
                                     int nadd, const int16_t *const *sub, int nsub, uint32_t n)
{
    for (uint32_t i = 0; i < n; i += TILE) {
        int16_t r[TILE];
        memcpy(r, src + i, sizeof r);
        for (int a = 0; a < nadd; a++)
            for (int j = 0; j < TILE; j++)
                r[j] = (int16_t)(uint16_t)((uint16_t)r[j] + (uint16_t)add[a][i + j]);
        for (int s = 0; s < nsub; s++)
            for (int j = 0; j < TILE; j++)
                r[j] = (int16_t)(uint16_t)((uint16_t)r[j] - (uint16_t)sub[s][i + j]);
        memcpy(dst + i, r, sizeof r);
    }
}

/* Each tile's terms summed in int32 (32 terms), the tiles in int64. */
static int64_t half_portable(const int16_t *a, const int16_t *w, uint32_t n)
{
    int64_t total = 0;
    for (uint32_t i = 0; i < n; i += TILE) {
        int32_t sum = 0;
        for (int j = 0; j < TILE; j++) {
            int32_t v = a[i + j] < 0 ? 0 : a[i + j] > NNUE_QA ? NNUE_QA : a[i + j];
            sum += v * w[i + j] * v;
        }
        total += sum;
    }
    return total;
}

int64_t NNUE_KERNEL(nnue_kernel_output)(const int16_t *us, const int16_t *them, const int16_t *w,
                                        uint32_t n)
{
    return half_portable(us, w, n) + half_portable(them, w + n, n);
}

#endif
