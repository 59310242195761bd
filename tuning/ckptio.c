#include "ckptio.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "error.h"

static const uint64_t FNV_OFFSET = 0xcbf29ce484222325ULL, FNV_PRIME = 0x100000001b3ULL;

bool ckptio_create(CkptOut *o, const char *path, char *err, size_t errsize)
{
    o->h = FNV_OFFSET;
    o->ok = true;
    o->f = NULL;
    if (snprintf(o->tmp, sizeof o->tmp, "%s.tmp", path) >= (int)sizeof o->tmp)
        return error_set(err, errsize, "%s: path too long", path);
    o->f = fopen(o->tmp, "wb");
    if (!o->f)
        return error_set(err, errsize, "%s: %s", o->tmp, strerror(errno));
    return true;
}

void ckptio_put(CkptOut *o, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        o->h = (o->h ^ b[i]) * FNV_PRIME;
    if (fwrite(p, 1, n, o->f) != n)
        o->ok = false;
}

bool ckptio_commit(CkptOut *o, const char *path, char *err, size_t errsize)
{
    uint64_t h = o->h;
    ckptio_put(o, &h, 8);
    bool ok = o->ok && fflush(o->f) == 0;
    ok = fclose(o->f) == 0 && ok;
    o->f = NULL;
    if (!ok) {
        remove(o->tmp);
        return error_set(err, errsize, "%s: write error", o->tmp);
    }
    if (rename(o->tmp, path) != 0) {
        remove(o->tmp);
        return error_set(err, errsize, "%s: %s", path, strerror(errno));
    }
    return true;
}

void ckptio_get(CkptIn *in, void *dst, size_t n)
{
    if (!in->ok || in->n - in->at < n) {
        in->ok = false;
        memset(dst, 0, n);
        return;
    }
    memcpy(dst, in->p + in->at, n);
    in->at += n;
}

unsigned char *ckptio_slurp(const char *path, size_t *len, char *err, size_t errsize)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        error_set(err, errsize, "%s: %s", path, strerror(errno));
        return NULL;
    }
    /* the whole file, in a buffer doubled from 1 MiB up to 1 GiB */
    size_t cap = 0, n = 0;
    unsigned char *buf = NULL;
    bool fits;
    while ((fits = n < ((size_t)1 << 30) &&
                   array_reserve((void **)&buf, &cap, n + 1, 1, (size_t)1 << 20))) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
    }
    bool bad = ferror(f);
    fclose(f);
    if (!fits || bad) {
        free(buf);
        error_set(err, errsize, "%s: %s", path, fits ? "read error" : "too large or out of memory");
        return NULL;
    }
    *len = n;
    return buf;
}

bool ckptio_hash_ok(const unsigned char *buf, size_t len)
{
    if (len < 8)
        return false;
    uint64_t h = FNV_OFFSET, stored;
    for (size_t i = 0; i < len - 8; i++)
        h = (h ^ buf[i]) * FNV_PRIME;
    memcpy(&stored, buf + len - 8, 8);
    return stored == h;
}

bool ckptio_is_checkpoint(const char *path, CkptMagicOk magic_ok, size_t head, char *err,
                          size_t errsize)
{
    unsigned char buf[64];
    FILE *f = fopen(path, "rb");
    if (!f)
        return error_set(err, errsize, "%s: %s", path, strerror(errno));
    size_t n = fread(buf, 1, head < sizeof buf ? head : sizeof buf, f);
    fclose(f);
    return magic_ok(path, buf, n, err, errsize);
}

unsigned char *ckptio_load(const char *path, CkptMagicOk magic_ok, size_t *len, char *err,
                           size_t errsize)
{
    unsigned char *buf = ckptio_slurp(path, len, err, errsize);
    if (buf && !magic_ok(path, buf, *len, err, errsize)) {
        free(buf);
        return NULL;
    }
    if (buf && !ckptio_hash_ok(buf, *len)) {
        error_set(err, errsize, "%s: checkpoint is damaged (checksum mismatch)", path);
        free(buf);
        return NULL;
    }
    return buf;
}

void ckptio_put_config(CkptOut *o, const char *config)
{
    uint32_t clen = (uint32_t)strlen(config);
    ckptio_put(o, &clen, 4);
    ckptio_put(o, config, clen);
}

bool ckptio_get_config(CkptIn *in, const char *path, const char *config, uint64_t stored_hash,
                       uint64_t data_hash, char *err, size_t errsize)
{
    uint32_t clen = 0;
    ckptio_get(in, &clen, 4);
    if (!in->ok || clen > in->n)
        return error_set(err, errsize, "%s: checkpoint is truncated", path);
    char *cfg = calloc(clen + 1, 1);
    if (!cfg)
        return error_set(err, errsize, "out of memory");
    ckptio_get(in, cfg, clen);
    bool ok = true;
    if (strcmp(cfg, config) != 0)
        ok = error_set(
            err, errsize,
            "%s: checkpoint made with other settings:\n  checkpoint: %s\n  now:        %s", path,
            cfg, config);
    else if (stored_hash != data_hash)
        ok = error_set(err, errsize,
                       "%s: checkpoint made on other positions (the files or the selection differ)",
                       path);
    free(cfg);
    return ok;
}
