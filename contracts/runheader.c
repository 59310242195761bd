#include "runheader.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"

enum {
    MSG_DATASPACE = 0x0001,
    MSG_LAYOUT = 0x0008,
    MSG_ATTRIBUTE = 0x000c,
    MSG_CONTINUATION = 0x0010,
    MSG_FLAG_SHARED = 0x02,
    LAYOUT_CHUNKED = 2,
    HEADER_BLOCKS_MAX = 64,     /* continuation blocks followed */
    HEADER_BLOCK_MAX = 1 << 20, /* bytes of one block */
};

static uint64_t le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* The dimensionality (the dataset's rank plus one, for the size of an element) of the
 * chunked layout message m (n bytes), or -1 when it is not one that parses; -2 when its
 * dimensions leave the message or one of them is 0. */
static int chunk_dims(const uint8_t *m, uint64_t n)
{
    uint64_t at, ndims, width = 4;
    if (n < 3)
        return -1;
    if (m[0] == 1 || m[0] == 2) { /* version, dimensionality, class, 5 reserved, address */
        if (m[2] != LAYOUT_CHUNKED)
            return -1;
        ndims = m[1], at = 16;
    } else if (m[0] == 3) { /* version, class, dimensionality, address */
        if (m[1] != LAYOUT_CHUNKED)
            return -1;
        ndims = m[2], at = 11;
    } else if (m[0] == 4 && n >= 5) { /* version, class, flags, dimensionality, width */
        if (m[1] != LAYOUT_CHUNKED)
            return -1;
        ndims = m[3], width = m[4], at = 5;
        if (width < 1 || width > 8)
            return -2;
    } else {
        return -1;
    }
    if (ndims == 0 || at + ndims * width > n)
        return -2;
    for (uint64_t d = 0; d < ndims; d++, at += width)
        if (le(m + at, (int)width) == 0)
            return -2;
    return (int)ndims;
}

/* Whether the attribute message m (n bytes) says its name, type and dataspace take more
 * bytes than it has (versions 1 to 3; libhdf5 decodes them past the message). */
static bool attribute_overrun(const uint8_t *m, uint64_t n)
{
    if (n < 8 || m[0] < 1 || m[0] > 3)
        return false;
    uint64_t name = le(m + 2, 2), type = le(m + 4, 2), space = le(m + 6, 2), need;
    if (m[0] == 1) /* each part padded to 8 bytes */
        need = 8 + ((name + 7) & ~7ull) + ((type + 7) & ~7ull) + ((space + 7) & ~7ull);
    else
        need = (m[0] == 3 ? 9 : 8) + name + type + space;
    return need > n;
}

/* Reads n bytes at offset off; false past the end of the file. */
static bool read_at(int fd, uint64_t off, uint8_t *buf, uint64_t n)
{
    return pread(fd, buf, n, (off_t)off) == (ssize_t)n;
}

/* Walks the messages of the version 1 object header at addr: NULL when it shows none of
 * the damage above, else what it shows. */
static const char *header_damage(int fd, uint64_t addr, uint8_t *block)
{
    uint8_t head[16];
    int rank = -1, ndims = -1;
    if (!read_at(fd, addr, head, sizeof head) || head[0] != 1)
        return NULL;
    uint64_t starts[HEADER_BLOCKS_MAX], sizes[HEADER_BLOCKS_MAX];
    int nblocks = 1;
    starts[0] = addr + 16; /* the 12-byte prefix, aligned to 8 */
    sizes[0] = le(head + 8, 4);
    for (int b = 0; b < nblocks; b++) {
        if (sizes[b] > HEADER_BLOCK_MAX || !read_at(fd, starts[b], block, sizes[b]))
            return NULL;
        for (uint64_t at = 0; at + 8 <= sizes[b];) {
            uint64_t type = le(block + at, 2), size = le(block + at + 2, 2);
            const uint8_t *m = block + at + 8;
            if (at + 8 + size > sizes[b])
                return NULL;
            if (type == MSG_DATASPACE && size >= 2 && (m[0] == 1 || m[0] == 2))
                rank = m[1];
            if (type == MSG_LAYOUT && (ndims = chunk_dims(m, size)) == -2)
                return "a chunk layout that leaves its message or has a dimension of 0";
            /* a shared message holds a reference, not the attribute */
            if (type == MSG_ATTRIBUTE && !(block[at + 4] & MSG_FLAG_SHARED) &&
                attribute_overrun(m, size))
                return "an attribute larger than its message";
            if (type == MSG_CONTINUATION && size >= 16 && nblocks < HEADER_BLOCKS_MAX) {
                starts[nblocks] = le(m, 8);
                sizes[nblocks++] = le(m + 8, 8);
            }
            at += 8 + size;
        }
    }
    if (ndims > 0 && rank >= 0 && ndims != rank + 1)
        return "a chunk layout of another rank than the dataset";
    return NULL;
}

bool runheader_check(hid_t file, const char *name, const char *path, RunError *err)
{
    H5O_info_t info;
    if (H5Oget_info_by_name2(file, name, &info, H5O_INFO_BASIC, H5P_DEFAULT) < 0) {
        H5Eclear2(H5E_DEFAULT);
        return true; /* opening the dataset says what is wrong */
    }
    uint8_t *block = malloc(HEADER_BLOCK_MAX);
    int fd = block ? open(path, O_RDONLY | O_CLOEXEC) : -1;
    const char *why = fd >= 0 ? header_damage(fd, (uint64_t)info.addr, block) : NULL;
    if (fd >= 0)
        close(fd);
    free(block);
    return !why || ERROR_SET(err, "%s: %s: %s (damaged)", path, name, why);
}
