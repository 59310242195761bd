/*
 * Binary checkpoint files of chuhe-tune and chuhe-train: written to PATH.tmp with a
 * running FNV-1a 64 of every byte, the hash appended, then renamed over PATH (a crash
 * never leaves half a checkpoint); read back whole and checked against the hash.
 * Numbers are little-endian as this machine writes them.
 */
#ifndef CHUHE_CKPTIO_H
#define CHUHE_CKPTIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct {
    FILE *f;
    uint64_t h;
    bool ok;
    char tmp[4096];
} CkptOut;

/* Opens PATH.tmp; false with the reason in err. */
bool ckptio_create(CkptOut *o, const char *path, char *err, size_t errsize);
void ckptio_put(CkptOut *o, const void *p, size_t n);
/* Appends the hash, closes and renames over path; false (PATH.tmp removed) with the
 * reason in err. */
bool ckptio_commit(CkptOut *o, const char *path, char *err, size_t errsize);

typedef struct {
    const unsigned char *p;
    size_t n, at;
    bool ok; /* false once a read ran past the end: every later read gives zeros */
} CkptIn;

void ckptio_get(CkptIn *in, void *dst, size_t n);

/* The whole file (malloc'd, at most 1 GiB) and its length; NULL with the reason in err. */
unsigned char *ckptio_slurp(const char *path, size_t *len, char *err, size_t errsize);

/* Whether the last 8 bytes of buf[len] are the FNV-1a 64 of the bytes before them. */
bool ckptio_hash_ok(const unsigned char *buf, size_t len);

/* A trainer's check of a checkpoint's first len bytes (its mark); false with the reason. */
typedef bool (*CkptMagicOk)(const char *path, const unsigned char *head, size_t len, char *err,
                            size_t errsize);

/* Whether the file at path opens with what magic_ok wants (checked before any data is
 * loaded); false with the reason in err. */
bool ckptio_is_checkpoint(const char *path, CkptMagicOk magic_ok, size_t head, char *err,
                          size_t errsize);

/* The whole checkpoint (ckptio_slurp), its mark (magic_ok) and its hash checked; NULL
 * with the reason in err. */
unsigned char *ckptio_load(const char *path, CkptMagicOk magic_ok, size_t *len, char *err,
                           size_t errsize);

/* The settings text that a resumed run must share: u32 length and bytes. */
void ckptio_put_config(CkptOut *o, const char *config);

/* Reads the settings text and holds it against config, and the stored data hash against
 * data_hash; false naming the difference (or a truncated file) in err. */
bool ckptio_get_config(CkptIn *in, const char *path, const char *config, uint64_t stored_hash,
                       uint64_t data_hash, char *err, size_t errsize);

#endif
