/*
 * The network file: a 112-byte little-endian header, then the payload (W1, b1, W2,
 * b2), nothing after it. See nnue.h and docs/nnue.md for the layout.
 */
#include "nnue.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

/* Header offsets. */
enum {
    OFF_VERSION = 8,
    OFF_FEATURES = 12,
    OFF_HIDDEN = 16,
    OFF_BUCKETS = 20,
    OFF_ACTIVATION = 24,
    OFF_QA = 28,
    OFF_QB = 32,
    OFF_SCALE = 36,
    OFF_PAYLOAD_BYTES = 40,
    OFF_CHECKSUM = 44,
    OFF_DESCRIPTION = 48,
};

static uint32_t get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static int16_t get_i16(const uint8_t *p)
{
    return (int16_t)(uint16_t)((unsigned)p[0] | (unsigned)p[1] << 8);
}

static void put_i16(uint8_t *p, int16_t v)
{
    p[0] = (uint8_t)(uint16_t)v;
    p[1] = (uint8_t)((uint16_t)v >> 8);
}

uint32_t nnue_checksum(const void *bytes, size_t n)
{
    const uint8_t *p = bytes;
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 16777619u;
    }
    return h;
}

void nnue_weights_id(const NnueNet *net, char out[NNUE_WEIGHTS_ID_BYTES])
{
    size_t H = net->hidden, B = net->buckets;
    snprintf(out, NNUE_WEIGHTS_ID_BYTES, "%08x%08x%08x%08x",
             nnue_checksum(net->w1, NNUE_INPUTS * H * sizeof *net->w1),
             nnue_checksum(net->b1, H * sizeof *net->b1),
             nnue_checksum(net->w2, 2 * H * B * sizeof *net->w2),
             nnue_checksum(net->b2, B * sizeof *net->b2));
}

size_t nnue_payload_bytes(uint32_t hidden, uint32_t buckets)
{
    return (size_t)NNUE_INPUTS * hidden * 2 + (size_t)hidden * 2 +
           (size_t)buckets * 2 * hidden * 2 + (size_t)buckets * 4;
}

static bool sizes_ok(uint32_t hidden, uint32_t buckets, const char *who, char *err, size_t errlen)
{
    if (hidden < NNUE_HIDDEN_MIN || hidden > NNUE_HIDDEN_MAX || hidden % NNUE_HIDDEN_STEP)
        return error_set(err, errlen, "%s: hidden size %u is not a multiple of %d from %d to %d",
                         who, hidden, NNUE_HIDDEN_STEP, NNUE_HIDDEN_MIN, NNUE_HIDDEN_MAX);
    if (buckets < 1 || buckets > NNUE_BUCKETS_MAX)
        return error_set(err, errlen, "%s: %u output buckets, allowed 1 to %d", who, buckets,
                         NNUE_BUCKETS_MAX);
    return true;
}

static void *alloc_aligned(size_t bytes)
{
    size_t rounded = (bytes + 63) / 64 * 64;
    void *p = aligned_alloc(64, rounded);
    if (p)
        memset(p, 0, rounded);
    return p;
}

bool nnue_net_alloc(NnueNet *net, uint32_t hidden, uint32_t buckets, char *err, size_t errlen)
{
    memset(net, 0, sizeof *net);
    if (!sizes_ok(hidden, buckets, "network", err, errlen))
        return false;
    net->hidden = hidden;
    net->buckets = buckets;
    net->scale = NNUE_SCALE_DEFAULT;
    net->w1 = alloc_aligned((size_t)NNUE_INPUTS * hidden * sizeof(int16_t));
    net->b1 = alloc_aligned(hidden * sizeof(int16_t));
    net->w2 = alloc_aligned((size_t)buckets * 2 * hidden * sizeof(int16_t));
    net->b2 = alloc_aligned(buckets * sizeof(int32_t));
    if (!net->w1 || !net->b1 || !net->w2 || !net->b2) {
        nnue_net_free(net);
        return error_set(err, errlen, "network: out of memory for %u x %u", hidden, buckets);
    }
    return true;
}

void nnue_net_free(NnueNet *net)
{
    free(net->w1);
    free(net->b1);
    free(net->w2);
    free(net->b2);
    memset(net, 0, sizeof *net);
}

/* The description field: printable ASCII up to the first NUL, NULs after it. */
static bool description_ok(const uint8_t *d, size_t n, const char *who, char *err, size_t errlen)
{
    size_t i = 0;
    while (i < n && d[i])
        if (d[i] < 0x20 || d[i] > 0x7e)
            return error_set(err, errlen,
                             "%s: description byte %zu is 0x%02x, only printable ASCII is allowed",
                             who, i, d[i]);
        else
            i++;
    for (; i < n; i++)
        if (d[i])
            return error_set(err, errlen,
                             "%s: description byte %zu follows its end (a NUL) and is not NUL", who,
                             i);
    return true;
}

/* The bounds that keep every code path exact (nnue.h). */
static bool weights_ok(const NnueNet *net, const char *who, char *err, size_t errlen)
{
    uint32_t h = net->hidden;
    for (size_t i = 0; i < (size_t)NNUE_INPUTS * h; i++)
        if (net->w1[i] < -NNUE_W1_MAX || net->w1[i] > NNUE_W1_MAX)
            return error_set(err, errlen, "%s: W1[%zu][%zu] = %d is outside -%d..%d", who, i / h,
                             i % h, net->w1[i], NNUE_W1_MAX, NNUE_W1_MAX);
    for (uint32_t i = 0; i < h; i++)
        if (net->b1[i] < -NNUE_W1_MAX || net->b1[i] > NNUE_W1_MAX)
            return error_set(err, errlen, "%s: b1[%u] = %d is outside -%d..%d", who, i, net->b1[i],
                             NNUE_W1_MAX, NNUE_W1_MAX);
    for (size_t i = 0; i < (size_t)net->buckets * 2 * h; i++)
        if (net->w2[i] < -NNUE_W2_MAX || net->w2[i] > NNUE_W2_MAX)
            return error_set(err, errlen, "%s: W2[%zu][%zu] = %d is outside -%d..%d", who,
                             i / (2 * h), i % (2 * h), net->w2[i], NNUE_W2_MAX, NNUE_W2_MAX);
    return true;
}

/* Header fields in the order the reader checks them. */
static bool header_ok(const uint8_t *h, size_t n, const char *path, uint32_t *hidden,
                      uint32_t *buckets, int32_t *scale, char *err, size_t errlen)
{
    if (n < NNUE_MAGIC_BYTES)
        return error_set(err, errlen,
                         "%s: truncated: %zu bytes, too short for the network magic " NNUE_MAGIC,
                         path, n);
    if (memcmp(h, NNUE_MAGIC, NNUE_MAGIC_BYTES))
        return error_set(err, errlen, "%s: not a chuhe network file (it does not start with %s)",
                         path, NNUE_MAGIC);
    if (n >= OFF_VERSION + 4 && get_u32(h + OFF_VERSION) != NNUE_VERSION)
        return error_set(err, errlen, "%s: network format version %u, this engine reads version %d",
                         path, get_u32(h + OFF_VERSION), NNUE_VERSION);
    if (n < NNUE_HEADER_BYTES)
        return error_set(err, errlen, "%s: truncated: the header has %zu of %d bytes", path, n,
                         NNUE_HEADER_BYTES);
    uint32_t features = get_u32(h + OFF_FEATURES);
    if (features != NNUE_FEATURE_SET_PS1260)
        return error_set(err, errlen, "%s: unknown feature set %u (this engine knows 1, PS1260)",
                         path, features);
    *hidden = get_u32(h + OFF_HIDDEN);
    *buckets = get_u32(h + OFF_BUCKETS);
    if (!sizes_ok(*hidden, *buckets, path, err, errlen))
        return false;
    uint32_t activation = get_u32(h + OFF_ACTIVATION);
    if (activation != NNUE_ACTIVATION_SCRELU)
        return error_set(err, errlen, "%s: unknown activation %u (this engine knows 1, SCReLU)",
                         path, activation);
    int32_t qa = (int32_t)get_u32(h + OFF_QA), qb = (int32_t)get_u32(h + OFF_QB);
    if (qa != NNUE_QA || qb != NNUE_QB)
        return error_set(err, errlen,
                         "%s: quantisation QA=%d QB=%d, this engine computes with QA=%d QB=%d",
                         path, qa, qb, NNUE_QA, NNUE_QB);
    *scale = (int32_t)get_u32(h + OFF_SCALE);
    if (*scale < NNUE_SCALE_MIN || *scale > NNUE_SCALE_MAX)
        return error_set(err, errlen, "%s: SCALE %d is outside %d..%d", path, *scale,
                         NNUE_SCALE_MIN, NNUE_SCALE_MAX);
    uint32_t payload = get_u32(h + OFF_PAYLOAD_BYTES);
    if (payload != nnue_payload_bytes(*hidden, *buckets))
        return error_set(err, errlen,
                         "%s: payload size %u bytes in the header, H=%u B=%u needs %zu", path,
                         payload, *hidden, *buckets, nnue_payload_bytes(*hidden, *buckets));
    return description_ok(h + OFF_DESCRIPTION, NNUE_DESCRIPTION_BYTES, path, err, errlen);
}

/* A payload of got bytes with extra bytes after it, where want are due. */
static bool payload_length_ok(size_t got, size_t extra, size_t want, const char *path, char *err,
                              size_t errlen)
{
    if (got < want)
        return error_set(err, errlen, "%s: truncated: the payload has %zu of %zu bytes", path, got,
                         want);
    if (extra)
        return error_set(err, errlen, "%s: %zu bytes follow the payload; nothing may", path, extra);
    return true;
}

/* Reads exactly want bytes of payload and makes sure nothing follows. */
static bool read_payload(FILE *f, uint8_t *buf, size_t want, const char *path, char *err,
                         size_t errlen)
{
    size_t got = fread(buf, 1, want, f);
    if (ferror(f))
        return error_set(err, errlen, "%s: read error: %s", path, strerror(errno));
    size_t extra = 0, n;
    uint8_t tail[4096];
    while (got == want && (n = fread(tail, 1, sizeof tail, f)) > 0)
        extra += n;
    if (ferror(f))
        return error_set(err, errlen, "%s: read error: %s", path, strerror(errno));
    return payload_length_ok(got, extra, want, path, err, errlen);
}

static void decode_payload(NnueNet *net, const uint8_t *p)
{
    size_t n1 = (size_t)NNUE_INPUTS * net->hidden, n2 = (size_t)net->buckets * 2 * net->hidden;
    for (size_t i = 0; i < n1; i++, p += 2)
        net->w1[i] = get_i16(p);
    for (uint32_t i = 0; i < net->hidden; i++, p += 2)
        net->b1[i] = get_i16(p);
    for (size_t i = 0; i < n2; i++, p += 2)
        net->w2[i] = get_i16(p);
    for (uint32_t i = 0; i < net->buckets; i++, p += 4)
        net->b2[i] = (int32_t)get_u32(p);
}

/* The network of header h and payload p (want bytes, all present): checksum, decode
 * and weight bounds; all or nothing. */
static bool build_net(NnueNet *net, const uint8_t *h, const uint8_t *p, size_t want,
                      uint32_t hidden, uint32_t buckets, int32_t scale, const char *path, char *err,
                      size_t errlen)
{
    if (nnue_checksum(p, want) != get_u32(h + OFF_CHECKSUM))
        return error_set(err, errlen, "%s: payload checksum %08x, the header says %08x", path,
                         nnue_checksum(p, want), get_u32(h + OFF_CHECKSUM));
    NnueNet tmp;
    if (!nnue_net_alloc(&tmp, hidden, buckets, err, errlen))
        return false;
    decode_payload(&tmp, p);
    tmp.scale = scale;
    memcpy(tmp.description, h + OFF_DESCRIPTION, NNUE_DESCRIPTION_BYTES);
    tmp.description[NNUE_DESCRIPTION_BYTES] = '\0';
    if (!weights_ok(&tmp, path, err, errlen)) {
        nnue_net_free(&tmp);
        return false;
    }
    *net = tmp;
    return true;
}

bool nnue_net_read(NnueNet *net, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return error_set(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    uint8_t h[NNUE_HEADER_BYTES];
    size_t n = fread(h, 1, sizeof h, f);
    uint32_t hidden = 0, buckets = 0;
    int32_t scale = 0;
    if (ferror(f)) {
        fclose(f);
        return error_set(err, errlen, "%s: read error: %s", path, strerror(errno));
    }
    if (!header_ok(h, n, path, &hidden, &buckets, &scale, err, errlen)) {
        fclose(f);
        return false;
    }
    size_t want = nnue_payload_bytes(hidden, buckets);
    uint8_t *buf = malloc(want);
    bool ok = buf != NULL;
    if (!buf)
        error_set(err, errlen, "%s: out of memory for a %zu-byte payload", path, want);
    ok = ok && read_payload(f, buf, want, path, err, errlen);
    fclose(f);
    ok = ok && build_net(net, h, buf, want, hidden, buckets, scale, path, err, errlen);
    free(buf);
    return ok;
}

bool nnue_net_read_memory(NnueNet *net, const void *data, size_t n, const char *name, char *err,
                          size_t errlen)
{
    const uint8_t *h = data;
    uint32_t hidden = 0, buckets = 0;
    int32_t scale = 0;
    if (!header_ok(h, n < NNUE_HEADER_BYTES ? n : NNUE_HEADER_BYTES, name, &hidden, &buckets,
                   &scale, err, errlen))
        return false;
    size_t want = nnue_payload_bytes(hidden, buckets), got = n - NNUE_HEADER_BYTES;
    if (!payload_length_ok(got, got > want ? got - want : 0, want, name, err, errlen))
        return false;
    return build_net(net, h, h + NNUE_HEADER_BYTES, want, hidden, buckets, scale, name, err,
                     errlen);
}

bool nnue_net_write(const NnueNet *net, const char *path, char *err, size_t errlen)
{
    if (!sizes_ok(net->hidden, net->buckets, path, err, errlen))
        return false;
    if (net->scale < NNUE_SCALE_MIN || net->scale > NNUE_SCALE_MAX)
        return error_set(err, errlen, "%s: SCALE %d is outside %d..%d", path, net->scale,
                         NNUE_SCALE_MIN, NNUE_SCALE_MAX);
    size_t dlen = strnlen(net->description, sizeof net->description);
    if (dlen > NNUE_DESCRIPTION_BYTES)
        return error_set(err, errlen, "%s: the description is longer than %d characters", path,
                         NNUE_DESCRIPTION_BYTES);
    if (!description_ok((const uint8_t *)net->description, dlen, path, err, errlen) ||
        !weights_ok(net, path, err, errlen))
        return false;

    size_t payload = nnue_payload_bytes(net->hidden, net->buckets);
    uint8_t *buf = calloc(1, NNUE_HEADER_BYTES + payload);
    if (!buf)
        return error_set(err, errlen, "%s: out of memory for a %zu-byte network", path, payload);
    uint8_t *p = buf + NNUE_HEADER_BYTES;
    size_t n1 = (size_t)NNUE_INPUTS * net->hidden, n2 = (size_t)net->buckets * 2 * net->hidden;
    for (size_t i = 0; i < n1; i++, p += 2)
        put_i16(p, net->w1[i]);
    for (uint32_t i = 0; i < net->hidden; i++, p += 2)
        put_i16(p, net->b1[i]);
    for (size_t i = 0; i < n2; i++, p += 2)
        put_i16(p, net->w2[i]);
    for (uint32_t i = 0; i < net->buckets; i++, p += 4)
        put_u32(p, (uint32_t)net->b2[i]);

    memcpy(buf, NNUE_MAGIC, NNUE_MAGIC_BYTES);
    put_u32(buf + OFF_VERSION, NNUE_VERSION);
    put_u32(buf + OFF_FEATURES, NNUE_FEATURE_SET_PS1260);
    put_u32(buf + OFF_HIDDEN, net->hidden);
    put_u32(buf + OFF_BUCKETS, net->buckets);
    put_u32(buf + OFF_ACTIVATION, NNUE_ACTIVATION_SCRELU);
    put_u32(buf + OFF_QA, NNUE_QA);
    put_u32(buf + OFF_QB, NNUE_QB);
    put_u32(buf + OFF_SCALE, (uint32_t)net->scale);
    put_u32(buf + OFF_PAYLOAD_BYTES, (uint32_t)payload);
    put_u32(buf + OFF_CHECKSUM, nnue_checksum(buf + NNUE_HEADER_BYTES, payload));
    memcpy(buf + OFF_DESCRIPTION, net->description, dlen);

    FILE *f = fopen(path, "wb");
    if (!f) {
        free(buf);
        return error_set(err, errlen, "%s: cannot create: %s", path, strerror(errno));
    }
    bool ok = fwrite(buf, 1, NNUE_HEADER_BYTES + payload, f) == NNUE_HEADER_BYTES + payload;
    int saved = errno;
    if (fclose(f) != 0 && ok) {
        ok = false;
        saved = errno;
    }
    free(buf);
    if (!ok)
        return error_set(err, errlen, "%s: write error: %s", path, strerror(saved));
    return true;
}

/* A file cut inside the magic still counts as a network, so that it gets the
 * network reader's "truncated" rather than a weights parse error. */
bool nnue_file_is_net(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    char magic[NNUE_MAGIC_BYTES];
    size_t n = fread(magic, 1, sizeof magic, f);
    fclose(f);
    return n > 0 && !memcmp(magic, NNUE_MAGIC, n);
}
