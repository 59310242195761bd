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
