/*
 * The network built into the binary: engine/default.nnue, assembled in byte for byte
 * (.incbin, from the project root where make runs) and decoded on first use.
 */
#include <pthread.h>
#include <stdint.h>

#include "nnue.h"

__asm__(".pushsection .rodata\n"
        ".balign 64\n"
        ".globl chuhe_default_nnue\n"
        "chuhe_default_nnue:\n"
        ".incbin \"engine/default.nnue\"\n"
        ".globl chuhe_default_nnue_end\n"
        "chuhe_default_nnue_end:\n"
        ".popsection\n");

extern const uint8_t chuhe_default_nnue[], chuhe_default_nnue_end[];

static NnueNet g_net;
static const NnueNet *g_default;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void decode(void)
{
    char err[256];
    size_t n = (size_t)(chuhe_default_nnue_end - chuhe_default_nnue);
    if (nnue_net_read_memory(&g_net, chuhe_default_nnue, n, "engine/default.nnue", err, sizeof err))
        g_default = &g_net;
}

const NnueNet *nnue_default(void)
{
    pthread_once(&g_once, decode);
    return g_default;
}
