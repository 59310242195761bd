#include "weights.h"

#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "array.h"
#include "error.h"
#include "notation.h"

const EvalTermInfo EVAL_TERM_INFO[EVAL_TERM_NB] = {
#define X(name, count, kind, meaning) {#name, count, kind, meaning, offsetof(EvalParams, name)},
    EVAL_TERMS(X)
#undef X
};

static const char DEFAULT_TEXT[] =
#include "default_weights.inc"
    ;

static const char *const PIECE_WORDS[PIECE_TYPE_NB] = {"none",  "king",    "advisor", "elephant",
                                                       "horse", "chariot", "cannon",  "soldier"};

static void index_name(EvalIndexKind kind, int idx, char *buf, size_t size)
{
    switch (kind) {
    case IDX_ONE:
        buf[0] = '\0';
        break;
    case IDX_PIECE:
        snprintf(buf, size, "[%s]", PIECE_WORDS[idx + ADVISOR]);
        break;
    case IDX_SQUARE: {
        char sq[3];
        square_to_text(idx, sq);
        snprintf(buf, size, "[%s]", sq);
        break;
    }
    case IDX_COUNT:
        snprintf(buf, size, "[%d]", idx);
        break;
    }
}

void weights_param_name(int param, char *buf, size_t size)
{
    for (int t = 0; t < EVAL_TERM_NB; t++) {
        const EvalTermInfo *ti = &EVAL_TERM_INFO[t];
        int first = (int)(ti->offset / sizeof(Score));
        if (param >= first && param < first + ti->count) {
            char idx[16];
            index_name(ti->kind, param - first, idx, sizeof idx);
            snprintf(buf, size, "%s%s", ti->name, idx);
            return;
        }
    }
    snprintf(buf, size, "?");
}

/* Finds the parameter a "name[index]" token stands for; -1 if none. */
static int param_lookup(const char *tok)
{
    const char *br = strchr(tok, '[');
    size_t nlen = br ? (size_t)(br - tok) : strlen(tok);
    for (int t = 0; t < EVAL_TERM_NB; t++) {
        const EvalTermInfo *ti = &EVAL_TERM_INFO[t];
        if (strlen(ti->name) != nlen || strncmp(ti->name, tok, nlen))
            continue;
        int first = (int)(ti->offset / sizeof(Score));
        if (ti->kind == IDX_ONE)
            return br ? -1 : first;
        char idx[16];
        size_t ilen = br ? strlen(br + 1) : 0;
        if (ilen < 2 || ilen > sizeof idx || br[ilen] != ']')
            return -1;
        memcpy(idx, br + 1, ilen - 1);
        idx[ilen - 1] = '\0';
        int i = -1;
        if (ti->kind == IDX_PIECE) {
            for (int k = ADVISOR; k < PIECE_TYPE_NB; k++)
                if (!strcmp(idx, PIECE_WORDS[k]))
                    i = k - ADVISOR;
        } else if (ti->kind == IDX_SQUARE) {
            i = strlen(idx) == 2 ? square_from_text(idx) : -1;
        } else {
            /* digits only, as weights_param_name writes them: no sign, blank or leading
             * zero, which would give one parameter several names (and strtol would let
             * 4294967299 wrap to 3) */
            size_t nd = strspn(idx, "0123456789");
            if (nd > 0 && nd == strlen(idx) && nd <= 4 && (idx[0] != '0' || nd == 1))
                i = atoi(idx);
        }
        return i >= 0 && i < ti->count ? first + i : -1;
    }
    return -1;
}

static bool parse_int16(const char *s, int *out)
{
    if (!s)
        return false;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < -30000 || v > 30000)
        return false;
    *out = (int)v;
    return true;
}

bool weights_parse(const char *text, const char *source, EvalParams *out, WeightsError *err)
{
    EvalParams tmp;
    bool seen[EVAL_PARAM_NB] = {false};
    Score *vals = (Score *)&tmp;
    int line_no = 0, found = 0;
    const char *p = text;
    while (*p) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        line_no++;
        /* a comment may be as long as it likes: only the part before it is kept */
        const char *hash = memchr(p, '#', len);
        size_t keep = hash ? (size_t)(hash - p) : len;
        char line[256];
        if (keep >= sizeof line)
            return ERROR_SET(err, "%s:%d: line too long", source, line_no);
        memcpy(line, p, keep);
        line[keep] = '\0';
        p += len + (eol ? 1 : 0);
        char *save, *name = strtok_r(line, " \t\r", &save);
        if (!name)
            continue;
        char *mg = strtok_r(NULL, " \t\r", &save), *eg = strtok_r(NULL, " \t\r", &save);
        char *extra = strtok_r(NULL, " \t\r", &save);
        int param = param_lookup(name), vmg, veg;
        if (param < 0)
            return ERROR_SET(err, "%s:%d: unknown term '%.60s'", source, line_no, name);
        if (!parse_int16(mg, &vmg) || !parse_int16(eg, &veg) || extra)
            return ERROR_SET(err,
                             "%s:%d: '%.60s' needs two integers (midgame endgame) within +-30000",
                             source, line_no, name);
        if (seen[param])
            return ERROR_SET(err, "%s:%d: '%.60s' is given twice", source, line_no, name);
        seen[param] = true;
        vals[param] = S(vmg, veg);
        found++;
    }
    if (found != EVAL_PARAM_NB) {
        for (int i = 0; i < EVAL_PARAM_NB; i++)
            if (!seen[i]) {
                char nm[48];
                weights_param_name(i, nm, sizeof nm);
                return ERROR_SET(err, "%s: missing '%s' (%d of %d terms given)", source, nm, found,
                                 EVAL_PARAM_NB);
            }
    }
    *out = tmp;
    return true;
}

bool weights_load(const char *path, EvalParams *out, WeightsError *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return ERROR_SET(err, "%s: %s", path, strerror(errno));
    char *text = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 4096 + 1 > (64u << 20)) {
            free(text);
            fclose(f);
            return ERROR_SET(err, "%s: file is too large for a weights file", path);
        }
        if (!array_reserve((void **)&text, &cap, len + 4096 + 1, 1, 65536)) {
            free(text);
            fclose(f);
            return ERROR_SET(err, "%s: out of memory", path);
        }
        size_t got = fread(text + len, 1, 4096, f);
        len += got;
        if (got < 4096)
            break;
    }
    bool ioerr = ferror(f);
    fclose(f);
    if (ioerr) {
        free(text);
        return ERROR_SET(err, "%s: read error", path);
    }
    text[len] = '\0';
    if (strlen(text) != len) {
        free(text);
        return ERROR_SET(err, "%s: not a text file (contains a NUL byte)", path);
    }
    bool ok = weights_parse(text, path, out, err);
    free(text);
    return ok;
}

bool weights_write(FILE *f, const EvalParams *p)
{
    const Score *vals = (const Score *)p;
    if (fprintf(f, "# chuhe weights 1\n# name[index] midgame endgame\n") < 0)
        return false;
    for (int t = 0; t < EVAL_TERM_NB; t++) {
        const EvalTermInfo *ti = &EVAL_TERM_INFO[t];
        int first = (int)(ti->offset / sizeof(Score));
        if (fprintf(f, "\n# %s\n", ti->meaning) < 0)
            return false;
        for (int i = 0; i < ti->count; i++) {
            char nm[48];
            weights_param_name(first + i, nm, sizeof nm);
            Score s = vals[first + i];
            if (fprintf(f, "%s %d %d\n", nm, score_mg(s), score_eg(s)) < 0)
                return false;
        }
    }
    return true;
}

bool weights_save(const char *path, const EvalParams *p, WeightsError *err)
{
    /* a path that is not a regular file (a link such as /dev/stdout, a terminal, a pipe)
     * is written straight to: a rename would put a file in the place of the link */
    struct stat st;
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        FILE *out = fopen(path, "w");
        if (!out)
            return ERROR_SET(err, "%s: %s", path, strerror(errno));
        bool ok = weights_write(out, p);
        ok = (fclose(out) == 0) && ok;
        return ok || ERROR_SET(err, "%s: write error", path);
    }
    /* write a sibling file and rename it, so a failed write never leaves half a file */
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp)
        return ERROR_SET(err, "%s: path too long", path);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return ERROR_SET(err, "%s: %s", tmp, strerror(errno));
    bool ok = weights_write(f, p);
    ok = (fclose(f) == 0) && ok;
    if (!ok) {
        remove(tmp);
        return ERROR_SET(err, "%s: write error", tmp);
    }
    if (rename(tmp, path) != 0) {
        remove(tmp);
        return ERROR_SET(err, "%s: %s", path, strerror(errno));
    }
    return true;
}

const EvalParams *weights_default(void)
{
    static EvalParams params;
    static bool done;
    if (!done) {
        WeightsError err;
        if (!weights_parse(DEFAULT_TEXT, "engine/default.weights", &params, &err)) {
            /* the build embeds a file the tests parse (test_weights): a bug, not an input */
            assert(!"the built-in weights are broken");
            abort();
        }
        done = true;
    }
    return &params;
}
