#include "keys.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zmq.h>

#include "array.h"
#include "error.h"

bool keys_curve_available(void)
{
    return zmq_has("curve") != 0;
}

void keys_encode(const unsigned char bytes[32], char z85[KEYS_Z85_LEN + 1])
{
    if (!zmq_z85_encode(z85, bytes, 32))
        z85[0] = '\0'; /* cannot happen: 32 is a multiple of 4 */
}

/* Whether text is a key in canonical Z85: it decodes to 32 bytes that encode back to it. */
static bool is_key(const char *text)
{
    if (strlen(text) != KEYS_Z85_LEN)
        return false;
    unsigned char bytes[32];
    char again[KEYS_Z85_LEN + 1];
    if (!zmq_z85_decode(bytes, text))
        return false;
    keys_encode(bytes, again);
    return !strcmp(again, text);
}

typedef enum { LINE_EMPTY, LINE_KEY, LINE_BAD } LineKind;

/*
 * One line (without its newline): blank or a comment, or a key with an optional
 * "# name". Z85 has '#' among its characters (though a key never starts with one), so a
 * line is a key line when its first word is a key, and a name after a key follows a
 * blank. A bad line gets the reason in why.
 */
static LineKind parse_line(const char *line, char key[KEYS_Z85_LEN + 1],
                           char name[KEYS_NAME_MAX + 1], char *why, size_t size)
{
    const char *p = line;
    while (*p == ' ' || *p == '\t' || *p == '\r')
        p++;
    size_t n = strcspn(p, " \t\r");
    if (n == KEYS_Z85_LEN) {
        memcpy(key, p, n);
        key[n] = '\0';
    }
    if (n != KEYS_Z85_LEN || !is_key(key)) {
        if (!*p || *p == '#')
            return LINE_EMPTY;
        if (n != KEYS_Z85_LEN)
            snprintf(why, size, "'%.*s' is not a key: a key is %d characters of Z85",
                     (int)(n > 60 ? 60 : n), p, KEYS_Z85_LEN);
        else
            snprintf(why, size, "'%s' is not a key: not valid Z85", key);
        return LINE_BAD;
    }
    p += n;
    while (*p == ' ' || *p == '\t' || *p == '\r')
        p++;
    name[0] = '\0';
    if (!*p)
        return LINE_KEY;
    if (*p != '#') {
        snprintf(why, size, "text after the key (a name follows a blank and a '#')");
        return LINE_BAD;
    }
    p++;
    while (*p == ' ' || *p == '\t')
        p++;
    size_t len = strlen(p);
    while (len && (p[len - 1] == ' ' || p[len - 1] == '\t' || p[len - 1] == '\r'))
        len--;
    if (len > KEYS_NAME_MAX)
        len = KEYS_NAME_MAX;
    for (size_t i = 0; i < len; i++)
        name[i] = (unsigned char)p[i] < 0x20 || p[i] == 0x7f ? '?' : p[i];
    name[len] = '\0';
    return LINE_KEY;
}

/*
 * Calls on_key for every key line of an open file; stops at the first bad line with
 * "path:line: why". Returns the number of keys, or -1.
 */
typedef bool (*KeyFn)(void *ctx, const char *key, const char *name, int line, KeysError *err);

static int each_key(FILE *f, const char *path, KeyFn on_key, void *ctx, KeysError *err)
{
    char *line = NULL;
    size_t cap = 0;
    int lineno = 0, keys = 0;
    ssize_t len;
    errno = 0;
    while ((len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        if (len && line[len - 1] == '\n')
            line[--len] = '\0';
        char key[KEYS_Z85_LEN + 1], name[KEYS_NAME_MAX + 1], why[200];
        LineKind k = LINE_BAD;
        if (len > KEYS_LINE_MAX)
            snprintf(why, sizeof why, "longer than %d bytes", KEYS_LINE_MAX);
        else if (strlen(line) != (size_t)len)
            snprintf(why, sizeof why, "a NUL byte");
        else
            k = parse_line(line, key, name, why, sizeof why);
        if (k == LINE_BAD) {
            free(line);
            return ERROR_SET(err, "%s:%d: %s", path, lineno, why), -1;
        }
        if (k == LINE_KEY) {
            if (!on_key(ctx, key, name, lineno, err)) {
                free(line);
                return -1;
            }
            keys++;
        }
    }
    free(line);
    if (ferror(f))
        return ERROR_SET(err, "%s: %s", path, strerror(errno ? errno : EIO)), -1;
    return keys;
}

/* Opens a key file: a regular file; with secret, private to its owner. */
static FILE *open_key_file(const char *path, bool secret, KeysError *err)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        ERROR_SET(err, "%s: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        ERROR_SET(err, "%s: not a regular file", path);
        fclose(f);
        return NULL;
    }
    if (secret && (st.st_mode & 077)) {
        ERROR_SET(
            err,
            "%s: a secret key must be private to its owner, but its mode is %04o (chmod 600 %s)",
            path, (unsigned)(st.st_mode & 07777), path);
        fclose(f);
        return NULL;
    }
    return f;
}

typedef struct {
    const char *path;
    char key[KEYS_Z85_LEN + 1];
    int line;
} OneKey;

static bool keep_one(void *ctx, const char *key, const char *name, int line, KeysError *err)
{
    (void)name;
    OneKey *o = ctx;
    if (o->line)
        return ERROR_SET(err, "%s:%d: a second key (the first is on line %d); a key file holds one",
                         o->path, line, o->line);
    snprintf(o->key, sizeof o->key, "%s", key);
    o->line = line;
    return true;
}

/* The one key of a key file. */
static bool read_one(const char *path, bool secret, char z85[KEYS_Z85_LEN + 1], KeysError *err)
{
    FILE *f = open_key_file(path, secret, err);
    if (!f)
        return false;
    OneKey o = {path, "", 0};
    int n = each_key(f, path, keep_one, &o, err);
    fclose(f);
    if (n < 0)
        return false;
    if (n == 0)
        return ERROR_SET(err, "%s: no key in the file", path);
    snprintf(z85, KEYS_Z85_LEN + 1, "%s", o.key);
    return true;
}

bool keys_read_secret(const char *path, KeyPair *out, KeysError *err)
{
    if (!read_one(path, true, out->secret_z85, err))
        return false;
    if (zmq_curve_public(out->public_z85, out->secret_z85) != 0)
        return ERROR_SET(err, "%s: cannot derive the public key: %s", path,
                         zmq_strerror(zmq_errno()));
    return true;
}

bool keys_read_public(const char *path, char z85[KEYS_Z85_LEN + 1], KeysError *err)
{
    return read_one(path, false, z85, err);
}

/* ---- key pairs ---- */

/* Creates path (never over an existing file) with the text; false with err set. */
static bool write_new(const char *path, mode_t mode, const char *text, KeysError *err)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (fd < 0)
        return ERROR_SET(err, "%s: %s", path,
                         errno == EEXIST ? "exists (a key file is never overwritten)"
                                         : strerror(errno));
    size_t len = strlen(text), done = 0;
    bool ok = fchmod(fd, mode) == 0;
    while (ok && done < len) {
        ssize_t n = write(fd, text + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        ok = n > 0;
        if (ok)
            done += (size_t)n;
    }
    ok = ok && fsync(fd) == 0;
    int e = errno;
    if (close(fd) != 0 && ok) {
        ok = false;
        e = errno;
    }
    if (!ok) {
        unlink(path);
        return ERROR_SET(err, "%s: %s", path, strerror(e));
    }
    return true;
}

bool keys_generate(const char *basename, KeyPair *out, KeysError *err)
{
    if (!keys_curve_available())
        return ERROR_SET(err, "this libzmq has no CURVE support (zmq_has(\"curve\") is false)");
    char secret_path[4096], public_path[4096];
    if (!basename[0] ||
        snprintf(secret_path, sizeof secret_path, "%s.key", basename) >= (int)sizeof secret_path)
        return ERROR_SET(err, "keygen: '%s' is not a usable base name", basename);
    snprintf(public_path, sizeof public_path, "%s.pub", basename);
    const char *paths[2] = {secret_path, public_path};
    for (int i = 0; i < 2; i++)
        if (access(paths[i], F_OK) == 0)
            return ERROR_SET(err, "%s exists (a key file is never overwritten)", paths[i]);
    if (zmq_curve_keypair(out->public_z85, out->secret_z85) != 0)
        return ERROR_SET(err, "zmq_curve_keypair: %s", zmq_strerror(zmq_errno()));
    const char *slash = strrchr(basename, '/');
    const char *name = slash ? slash + 1 : basename;
    char text[KEYS_LINE_MAX * 2];
    snprintf(text, sizeof text,
             "# chuhe CURVE secret key %.*s; its public key is in %.*s.pub. Keep it private.\n%s\n",
             KEYS_NAME_MAX, name, KEYS_NAME_MAX, name, out->secret_z85);
    if (!write_new(secret_path, 0600, text, err))
        return false;
    snprintf(text, sizeof text, "%s # %.*s\n", out->public_z85, KEYS_NAME_MAX, name);
    for (char *p = text + KEYS_Z85_LEN; *p && *p != '\n'; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    if (!write_new(public_path, 0644, text, err)) {
        unlink(secret_path);
        return false;
    }
    return true;
}

/* ---- allow-lists ---- */

typedef struct {
    AllowList *list;
    size_t cap;
} Loader;

static bool add_key(void *ctx, const char *key, const char *name, int line, KeysError *err)
{
    Loader *ld = ctx;
    AllowList *l = ld->list;
    if (!array_reserve((void **)&l->keys, &ld->cap, (size_t)l->count + 1, sizeof *l->keys, 64))
        return ERROR_SET(err, "out of memory for %d keys", l->count + 1);
    AllowedKey *k = &l->keys[l->count++];
    snprintf(k->z85, sizeof k->z85, "%s", key);
    snprintf(k->name, sizeof k->name, "%s", name);
    k->line = line;
    return true;
}

static int by_key(const void *a, const void *b)
{
    const AllowedKey *x = a, *y = b;
    int c = strcmp(x->z85, y->z85);
    return c ? c : (x->line > y->line) - (x->line < y->line);
}

bool keys_allow_load(const char *path, AllowList *out, KeysError *err)
{
    out->keys = NULL;
    out->count = 0;
    FILE *f = open_key_file(path, false, err);
    if (!f)
        return false;
    Loader ld = {out, 0};
    int n = each_key(f, path, add_key, &ld, err);
    fclose(f);
    bool ok =
        n > 0 || (n == 0 && ERROR_SET(err, "%s: no keys (one Z85 public key per line)", path));
    if (ok) {
        qsort(out->keys, (size_t)out->count, sizeof *out->keys, by_key);
        for (int i = 1; i < out->count && ok; i++)
            if (!strcmp(out->keys[i].z85, out->keys[i - 1].z85))
                ok = ERROR_SET(err, "%s:%d: the same key as line %d", path, out->keys[i].line,
                               out->keys[i - 1].line);
    }
    if (!ok)
        keys_allow_free(out);
    return ok;
}

const AllowedKey *keys_allow_find(const AllowList *list, const char *z85)
{
    AllowedKey probe;
    snprintf(probe.z85, sizeof probe.z85, "%s", z85);
    int lo = 0, hi = list->count - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        int c = strcmp(list->keys[mid].z85, probe.z85);
        if (!c)
            return &list->keys[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return NULL;
}

void keys_allow_free(AllowList *list)
{
    free(list->keys);
    list->keys = NULL;
    list->count = 0;
}
