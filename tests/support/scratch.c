#include "scratch.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[64];

int scratch_create(const char *name)
{
    snprintf(dir, sizeof dir, "/tmp/chuhe-%.20s-XXXXXX", name);
    return mkdtemp(dir) ? 0 : -1;
}

const char *scratch_dir(void)
{
    return dir;
}

const char *scratch_path(const char *file)
{
    static char buf[4][320];
    static int next;
    char *p = buf[next++ & 3];
    snprintf(p, sizeof buf[0], "%s/%s", dir, file);
    return p;
}

unsigned char *scratch_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    long n = -1;
    if (f && fseek(f, 0, SEEK_END) == 0)
        n = ftell(f);
    unsigned char *buf = n >= 0 && fseek(f, 0, SEEK_SET) == 0 ? malloc((size_t)n + 1) : NULL;
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (f)
        fclose(f);
    if (buf) {
        buf[n] = 0;
        *len = (size_t)n;
    }
    return buf;
}

bool scratch_spit(const char *path, const unsigned char *buf, size_t len)
{
    FILE *f = fopen(path, "wb");
    bool ok = f && fwrite(buf, 1, len, f) == len;
    return f && fclose(f) == 0 && ok;
}

int scratch_remove(void)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            unlink(scratch_path(e->d_name));
    closedir(d);
    return rmdir(dir);
}
