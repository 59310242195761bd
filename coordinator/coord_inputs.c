#include "coord_inputs.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "numparse.h"

enum { KEY_MAX = 32 };

static const uint64_t FNV_START = 0xcbf29ce484222325ULL, FNV_PRIME = 0x100000001b3ULL;

static uint64_t fnv_text(uint64_t h, const char *s)
{
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * FNV_PRIME;
    return (h ^ 0xff) * FNV_PRIME; /* a separator: ("ab", "c") is not ("a", "bc") */
}

bool coord_inputs_file_hash(const char *path, uint64_t *hash)
{
    *hash = 0;
    if (!path[0])
        return true;
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    uint64_t h = FNV_START;
    unsigned char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        for (size_t i = 0; i < n; i++)
            h = (h ^ buf[i]) * FNV_PRIME;
    bool ok = !ferror(f);
    int e = errno;
    fclose(f);
    errno = e;
    *hash = h;
    return ok;
}

/* One line: a file input by its bytes. */
static bool file_line(StrBuf *out, const char *key, const char *path, CoordError *err)
{
    uint64_t h;
    if (!coord_inputs_file_hash(path, &h))
        return ERROR_SET(err, "%s %s: %s", key, path, strerror(errno));
    strbuf_printf(out, "%s %016" PRIx64 " %s\n", key, h, path);
    return true;
}

static bool inputs_text(const CoordConfig *c, bool weights_only, StrBuf *out, CoordError *err)
{
    if (!weights_only && c->openings[0] && !file_line(out, "--openings", c->openings, err))
        return false;
    for (int p = 0; p < c->engines && p < COORD_MAX_ENGINES; p++) {
        char buf[16], key[KEY_MAX], num[64];
        const char *sfx = coord_config_engine_suffix(p, buf);
        snprintf(key, sizeof key, "--weights-%s", sfx);
        if (c->weights[p][0] && !file_line(out, key, c->weights[p], err))
            return false;
        if (weights_only)
            continue;
        uint64_t h = FNV_START;
        const char *const text[] = {c->name[p], c->cmd[p],     c->proto[p],         c->options[p],
                                    c->dir[p],  c->weights[p], c->engine_tc[p].text};
        for (size_t k = 0; k < sizeof text / sizeof text[0]; k++)
            h = fnv_text(h, text[k]);
        snprintf(num, sizeof num, "%d %" PRIu64 " %d", c->engine_movetime[p], c->engine_nodes[p],
                 c->engine_depth[p]);
        h = fnv_text(h, num);
        strbuf_printf(out, "engine-%s %016" PRIx64 " settings\n", sfx, h);
    }
    return true;
}

/* The 16 hexadecimal digits of a stored hash at p. */
static bool hex16(const char *p, uint64_t *out)
{
    uint64_t h = 0;
    for (int i = 0; i < 16; i++) {
        char c = p[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (d < 0)
            return false;
        h = h << 4 | (uint64_t)d;
    }
    *out = h;
    return true;
}

/* The line of key in text: its hash and what it names; false when it has none. */
static bool find(const char *text, const char *key, uint64_t *hash, char *what, size_t size)
{
    size_t klen = strlen(key);
    for (const char *l = text; *l;) {
        size_t len = strcspn(l, "\n");
        /* "KEY 0123456789abcdef WHAT", as inputs_text writes it */
        if (len >= klen + 18 && !strncmp(l, key, klen) && l[klen] == ' ' && l[klen + 17] == ' ' &&
            hex16(l + klen + 1, hash)) {
            snprintf(what, size, "%.*s", (int)(len - klen - 18), l + klen + 18);
            return true;
        }
        l += len + (l[len] == '\n');
    }
    return false;
}

/* The first input of a whose line in b is missing or differs: its key, hashes and what. */
static bool first_change(const char *a, const char *b, char key[KEY_MAX], uint64_t *ha,
                         uint64_t *hb, bool *in_b, char *what, size_t size)
{
    for (const char *l = a; *l;) {
        size_t len = strcspn(l, "\n"), klen = strcspn(l, " \n");
        char whatb[COORD_PATH_MAX];
        if (klen > 0 && klen < KEY_MAX) {
            snprintf(key, KEY_MAX, "%.*s", (int)klen, l);
            if (find(a, key, ha, what, size)) {
                *in_b = find(b, key, hb, whatb, sizeof whatb);
                if (!*in_b || *ha != *hb)
                    return true;
            }
        }
        l += len + (l[len] == '\n');
    }
    return false;
}

/* An input in words: "the openings file /data/book.epd", "the weights file /w of player
 * 0 (--weights-red)", "the settings of player 2". */
static void label(const char *key, const char *what, char *buf, size_t size)
{
    const char *sfx = strrchr(key, '-') + 1;
    long long player = !strcmp(sfx, "red") ? 0 : 1;
    if (strcmp(sfx, "red") && strcmp(sfx, "black"))
        numparse_int(key, sfx, 2, COORD_MAX_ENGINES - 1, &player, NULL, 0);
    if (!strcmp(key, "--openings"))
        snprintf(buf, size, "the openings file %s", what);
    else if (!strncmp(key, "--weights-", 10))
        snprintf(buf, size, "the weights file %s of player %lld (%s)", what, player, key);
    else
        snprintf(buf, size, "the settings of player %lld (%s)", player, key);
}

/* Holds the inputs now against the stored ones (both as text): see coord_inputs_check. */
static bool compare(const char *stored, const char *now, bool accept, char *note, size_t size,
                    CoordError *err)
{
    char key[KEY_MAX], what[COORD_PATH_MAX], name[COORD_PATH_MAX + 64];
    char change[COORD_PATH_MAX + 200];
    uint64_t then = 0, current = 0;
    bool there;
    note[0] = '\0';
    if (first_change(now, stored, key, &current, &then, &there, what, sizeof what)) {
        label(key, what, name, sizeof name);
        if (there)
            snprintf(change, sizeof change,
                     "%s changed since the run began (hash %016" PRIx64 " then, %016" PRIx64
                     " now)",
                     name, then, current);
        else
            snprintf(change, sizeof change, "%s was no input when the run began", name);
    } else if (first_change(stored, now, key, &then, &current, &there, what, sizeof what)) {
        label(key, what, name, sizeof name);
        snprintf(change, sizeof change, "%s, an input when the run began, is none now", name);
    } else {
        return true;
    }
    if (accept) {
        snprintf(note, size, "%s: going on with it (--accept-changed-inputs)", change);
        return true;
    }
    return ERROR_SET(err,
                     "%s: a run keeps its inputs; restore it, start a new --out file, or give "
                     "--accept-changed-inputs to go on with it",
                     change);
}

bool coord_inputs_store(const CoordConfig *c, RunFile *rf, CoordError *err)
{
    StrBuf text;
    strbuf_init(&text);
    RunError rerr;
    bool ok = inputs_text(c, false, &text, err);
    if (ok && !(ok = runfile_inputs_set(rf, strbuf_text(&text), &rerr)))
        ERROR_SET(err, "%s", rerr.msg);
    strbuf_free(&text);
    return ok;
}

/* A file from before the inputs were stored: its players' weights_hash still tells
 * whether a built-in engine's weights file changed. */
static void inputs_of_players(const CoordConfig *c, RunFile *rf, StrBuf *out)
{
    for (int p = 0; p < c->engines && p < COORD_MAX_ENGINES; p++) {
        const RunPlayer *pl = runfile_player(rf, (uint16_t)p);
        char sfx[16];
        if (pl && !c->cmd[p][0] && c->weights[p][0])
            strbuf_printf(out, "--weights-%s %016" PRIx64 " %s\n",
                          coord_config_engine_suffix(p, sfx), pl->weights_hash, c->weights[p]);
    }
}

bool coord_inputs_check(const CoordConfig *c, RunFile *rf, char *note, size_t size, CoordError *err)
{
    note[0] = '\0';
    char *stored = NULL;
    RunError rerr;
    if (!runfile_inputs_get(rf, &stored, &rerr)) {
        free(stored);
        return ERROR_SET(err, "%s", rerr.msg);
    }
    bool before = !stored;
    StrBuf now, old;
    strbuf_init(&now);
    strbuf_init(&old);
    if (before)
        inputs_of_players(c, rf, &old);
    bool ok = inputs_text(c, before, &now, err) &&
              compare(before ? strbuf_text(&old) : stored, strbuf_text(&now),
                      c->accept_changed_inputs, note, size, err);
    free(stored);
    strbuf_free(&now);
    strbuf_free(&old);
    if (ok && before) {
        size_t n = strlen(note);
        snprintf(note + n, size - n,
                 "%sa run file from before input hashes: its weights files were held against "
                 "/players' weights_hash, its openings and engine settings could not be; their "
                 "hashes are stored now",
                 n ? "; " : "");
    }
    return ok && (!note[0] || coord_inputs_store(c, rf, err));
}
