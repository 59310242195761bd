/*
 * The weights file: the built-in weights parse, write/read round trips (through a FILE,
 * a path and engine/default.weights byte for byte), every kind of rejection (with the
 * line and the term named, and the destination untouched), comments and blank lines,
 * parameter names (unique, and each one reaching exactly its own parameter), and the
 * facade (a failed load keeps the evaluation; a heavier chariot moves it the right way).
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "engine.h"
#include "eval_terms.h"
#include "tests/support/scratch.h"
#include "weights.h"

#define DEFAULT_PATH "engine/default.weights"
#define SOURCE "test.weights"

/* ---- helpers ---------------------------------------------------------------------------- */

static char *write_text(const EvalParams *p)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_true(weights_write(f, p));
    assert_int_equal(fclose(f), 0);
    return buf;
}

static char *read_file(const char *path, size_t *len)
{
    char *buf = (char *)scratch_slurp(path, len);
    if (!buf)
        fail_msg("cannot read %s", path);
    return buf;
}

/* A path in the scratch folder; the last eight stay valid. */
static const char *temp_path(const char *name)
{
    static char path[8][256];
    static int next;
    char *p = path[next++ % 8];
    snprintf(p, sizeof path[0], "%s/%s", scratch_dir(), name);
    return p;
}

static void write_file(const char *path, const char *data, size_t len)
{
    if (!scratch_spit(path, (const unsigned char *)data, len))
        fail_msg("cannot write %s", path);
}

/* Parameters with every value different, spread over the whole allowed range. */
static void fill_params(EvalParams *p, uint32_t seed)
{
    Score *v = (Score *)p;
    for (int i = 0; i < EVAL_PARAM_NB; i++) {
        seed = seed * 1664525u + 1013904223u;
        int mg = (int)(seed >> 8) % 60001 - 30000;
        seed = seed * 1664525u + 1013904223u;
        int eg = (int)(seed >> 8) % 60001 - 30000;
        v[i] = S(mg, eg);
    }
    v[0] = S(30000, -30000); /* the extremes */
    v[EVAL_PARAM_NB - 1] = S(-30000, 30000);
}

/* The lines of a text, each without its newline; the array and text are one block. */
typedef struct {
    char *text;
    char **line;
    int count;
} Lines;

static Lines split_lines(const char *text)
{
    Lines l = {strdup(text), NULL, 0};
    assert_non_null(l.text);
    int cap = 0;
    for (char *p = l.text; *p;) {
        if (l.count == cap) {
            cap = cap ? 2 * cap : 1024;
            l.line = realloc(l.line, (size_t)cap * sizeof *l.line);
            assert_non_null(l.line);
        }
        l.line[l.count++] = p;
        char *nl = strchr(p, '\n');
        if (!nl)
            break;
        *nl = '\0';
        p = nl + 1;
    }
    return l;
}

static void free_lines(Lines *l)
{
    free(l->text);
    free(l->line);
}

/* Joins lines into a new text, line `skip` left out and line `at` replaced by `with`
 * (either index may be -1). */
static char *join_lines(const Lines *l, int skip, int at, const char *with)
{
    size_t len = 1 + (with ? strlen(with) + 1 : 0);
    for (int i = 0; i < l->count; i++)
        len += strlen(l->line[i]) + 1;
    char *out = malloc(len), *p = out;
    assert_non_null(out);
    for (int i = 0; i < l->count; i++) {
        if (i == skip)
            continue;
        const char *s = i == at ? with : l->line[i];
        size_t n = strlen(s);
        memcpy(p, s, n);
        p += n;
        *p++ = '\n';
    }
    *p = '\0';
    return out;
}

/* Index of the line whose first word is name; fails if there is not exactly one. */
static int line_of(const Lines *l, const char *name)
{
    int found = -1;
    size_t n = strlen(name);
    for (int i = 0; i < l->count; i++)
        if (!strncmp(l->line[i], name, n) && (l->line[i][n] == ' ' || l->line[i][n] == '\t')) {
            if (found >= 0)
                fail_msg("'%s' is written twice", name);
            found = i;
        }
    if (found < 0)
        fail_msg("'%s' is not written", name);
    return found;
}

/* ---- the built-in weights and round trips ---------------------------------------------- */

static void test_default_parses(void **state)
{
    (void)state;
    const EvalParams *d = weights_default();
    assert_non_null(d);
    assert_ptr_equal(d, weights_default());
    /* the compiled-in text is engine/default.weights */
    EvalParams p;
    WeightsError err = {{0}};
    if (!weights_load(DEFAULT_PATH, &p, &err))
        fail_msg("%s", err.msg);
    assert_memory_equal(&p, d, sizeof p);
    /* and the engine starts with them */
    Engine *e = engine_new();
    assert_non_null(e);
    assert_memory_equal(engine_weights(e), d, sizeof p);
    engine_free(&e);
}

static void test_round_trip(void **state)
{
    (void)state;
    for (int k = 0; k < 2; k++) {
        EvalParams p, q;
        if (k == 0)
            p = *weights_default();
        else
            fill_params(&p, 12345);
        WeightsError err = {{0}};

        /* through a FILE */
        FILE *f = tmpfile();
        assert_non_null(f);
        assert_true(weights_write(f, &p));
        long len = ftell(f);
        assert_true(len > 0);
        rewind(f);
        char *text = malloc((size_t)len + 1);
        assert_non_null(text);
        assert_int_equal(fread(text, 1, (size_t)len, f), (size_t)len);
        text[len] = '\0';
        fclose(f);
        memset(&q, 0x5a, sizeof q);
        if (!weights_parse(text, SOURCE, &q, &err))
            fail_msg("%s", err.msg);
        assert_memory_equal(&p, &q, sizeof p);

        /* through a path */
        const char *path = temp_path("round.weights");
        if (!weights_save(path, &p, &err))
            fail_msg("%s", err.msg);
        memset(&q, 0xa5, sizeof q);
        if (!weights_load(path, &q, &err))
            fail_msg("%s", err.msg);
        assert_memory_equal(&p, &q, sizeof p);
        size_t flen;
        char *saved = read_file(path, &flen);
        assert_int_equal(flen, (size_t)len);
        assert_memory_equal(saved, text, flen);
        assert_int_equal(access(temp_path("round.weights.tmp"), F_OK), -1);
        free(saved);
        free(text);
    }
}

static void test_default_file_byte_for_byte(void **state)
{
    (void)state;
    EvalParams p;
    WeightsError err = {{0}};
    if (!weights_load(DEFAULT_PATH, &p, &err))
        fail_msg("%s", err.msg);
    size_t len;
    char *file = read_file(DEFAULT_PATH, &len);
    char *written = write_text(&p);
    if (strlen(written) != len || memcmp(written, file, len)) {
        Lines a = split_lines(file), b = split_lines(written);
        int i = 0;
        while (i < a.count && i < b.count && !strcmp(a.line[i], b.line[i]))
            i++;
        fail_msg("%s differs from what the writer makes of it at line %d: '%s' / '%s'",
                 DEFAULT_PATH, i + 1, i < a.count ? a.line[i] : "(end)",
                 i < b.count ? b.line[i] : "(end)");
    }
    free(written);
    free(file);
}

/* ---- rejections --------------------------------------------------------------------------- */

/* Parses text into a destination full of a pattern: false, destination untouched, and
 * the message contains every one of the given words. */
static void expect_rejected_text(const char *text, const char *what, const char *word1,
                                 const char *word2)
{
    EvalParams dst, copy;
    fill_params(&dst, 777);
    copy = dst;
    WeightsError err = {{0}};
    if (weights_parse(text, SOURCE, &dst, &err))
        fail_msg("%s: accepted", what);
    assert_memory_equal(&dst, &copy, sizeof dst);
    if ((word1 && !strstr(err.msg, word1)) || (word2 && !strstr(err.msg, word2)))
        fail_msg("%s: message '%s' should name '%s' and '%s'", what, err.msg, word1,
                 word2 ? word2 : "");
}

static void expect_rejected_file(const char *path, const char *what)
{
    EvalParams dst, copy;
    fill_params(&dst, 778);
    copy = dst;
    WeightsError err = {{0}};
    if (weights_load(path, &dst, &err))
        fail_msg("%s: accepted", what);
    assert_memory_equal(&dst, &copy, sizeof dst);
    if (!strstr(err.msg, path))
        fail_msg("%s: message '%s' should name %s", what, err.msg, path);
}

/* Replaces the line of parameter `name` by `with` and expects a rejection naming the
 * line number and `term`. */
static void reject_line(const Lines *l, const char *name, const char *with, const char *term)
{
    int at = line_of(l, name);
    char *text = join_lines(l, -1, at, with);
    char where[64];
    snprintf(where, sizeof where, SOURCE ":%d:", at + 1);
    expect_rejected_text(text, with, where, term);
    free(text);
}

static void test_rejections(void **state)
{
    (void)state;
    char *text = write_text(weights_default());
    Lines l = split_lines(text);

    reject_line(&l, "material[horse]", "materiel[horse] 400 450", "materiel[horse]");
    reject_line(&l, "tempo", "tempi 10 10", "tempi");
    reject_line(&l, "psqt_horse[e4]", "psqt_horse[j4] 1 2", "psqt_horse[j4]");
    reject_line(&l, "psqt_horse[e4]", "psqt_horse[x] 1 2", "psqt_horse[x]");
    reject_line(&l, "psqt_horse[e4]", "psqt_horse[e10] 1 2", "psqt_horse[e10]");
    reject_line(&l, "psqt_horse[e4]", "psqt_horse 1 2", "psqt_horse");
    reject_line(&l, "material[horse]", "material[king] 1 2", "material[king]");
    reject_line(&l, "mobility_horse[3]", "mobility_horse[99] 1 2", "mobility_horse[99]");
    reject_line(&l, "mobility_horse[3]", "mobility_horse[-1] 1 2", "mobility_horse[-1]");
    reject_line(&l, "mobility_horse[3]", "mobility_horse[] 1 2", "mobility_horse[]");
    /* one spelling per parameter: no leading zero, sign or blank, no wrap-around */
    reject_line(&l, "mobility_horse[3]", "mobility_horse[03] 1 2", "mobility_horse[03]");
    reject_line(&l, "mobility_horse[8]", "mobility_horse[08] 1 2", "mobility_horse[08]");
    reject_line(&l, "mobility_horse[3]", "mobility_horse[+3] 1 2", "mobility_horse[+3]");
    reject_line(&l, "mobility_horse[3]", "mobility_horse[\v3] 1 2", "mobility_horse[");
    reject_line(&l, "mobility_horse[3]", "mobility_horse[4294967299] 1 2",
                "mobility_horse[4294967299]");
    reject_line(&l, "tempo", "tempo[0] 1 2", "tempo[0]");
    /* a duplicate is named on its second line */
    reject_line(&l, "material[cannon]", "material[horse] 400 450", "material[horse]");
    reject_line(&l, "material[horse]", "material[horse] 400", "material[horse]");
    reject_line(&l, "material[horse]", "material[horse]", "material[horse]");
    reject_line(&l, "material[horse]", "material[horse] 400 450 7", "material[horse]");
    reject_line(&l, "material[horse]", "material[horse] 4OO 450", "material[horse]");
    reject_line(&l, "material[horse]", "material[horse] 400 45x", "material[horse]");
    reject_line(&l, "material[horse]", "material[horse] 40000 450", "material[horse]");
    reject_line(&l, "material[horse]", "material[horse] 400 -40000", "material[horse]");
    reject_line(&l, "material[horse]", "material[horse] 99999999999999999999 1", "material[horse]");

    /* a missing parameter is named */
    int at = line_of(&l, "king_exposed_file");
    char *dropped = join_lines(&l, at, -1, NULL);
    expect_rejected_text(dropped, "king_exposed_file dropped", "king_exposed_file", NULL);
    free(dropped);
    at = line_of(&l, "psqt_cannon[i9]");
    dropped = join_lines(&l, at, -1, NULL);
    expect_rejected_text(dropped, "psqt_cannon[i9] dropped", "psqt_cannon[i9]", NULL);
    free(dropped);
    expect_rejected_text("", "an empty text", "material", NULL);
    expect_rejected_text("# only a comment\n\n", "comments only", "material", NULL);

    /* files */
    expect_rejected_file("/nonexistent/chuhe.weights", "a missing file");
    expect_rejected_file(scratch_dir(), "a directory");
    size_t len = strlen(text);
    char *binary = malloc(len + 1);
    assert_non_null(binary);
    memcpy(binary, text, len);
    binary[len / 2] = '\0';
    const char *bin_path = temp_path("binary.weights");
    write_file(bin_path, binary, len);
    expect_rejected_file(bin_path, "a file with a NUL byte");
    free(binary);
    char *bad = join_lines(&l, -1, line_of(&l, "tempo"), "tempo x y");
    const char *bad_path = temp_path("bad.weights");
    write_file(bad_path, bad, strlen(bad));
    expect_rejected_file(bad_path, "a file with a bad line");
    free(bad);

    free_lines(&l);
    free(text);
}

static void test_comments_and_blanks(void **state)
{
    (void)state;
    const EvalParams *d = weights_default();
    char *text = write_text(d);
    Lines l = split_lines(text);
    size_t cap = strlen(text) * 2 + 4096;
    char *out = malloc(cap), *p = out;
    assert_non_null(out);
    p += sprintf(p, "\n   \n# leading comment\n\t\n");
    /* a comment may be longer than any parameter line */
    p += sprintf(p, "# %0400d\n", 0);
    for (int i = 0; i < l.count; i++) {
        if (l.line[i][0] == '#' || !l.line[i][0]) {
            p += sprintf(p, "%s\n", l.line[i]);
            continue;
        }
        /* vary the spacing, add trailing comments and CRLF endings */
        char name[64];
        int mg, eg;
        assert_int_equal(sscanf(l.line[i], "%63s %d %d", name, &mg, &eg), 3);
        switch (i % 3) {
        case 0:
            p += sprintf(p, "%s %d %d # trailing comment\n", name, mg, eg);
            break;
        case 1:
            p += sprintf(p, "  %s\t%d   %d\r\n", name, mg, eg);
            break;
        default:
            p += sprintf(p, "%s %d %d#no space\n\n", name, mg, eg);
        }
    }
    p += sprintf(p, "# no newline at the end");
    EvalParams q;
    WeightsError err = {{0}};
    if (!weights_parse(out, SOURCE, &q, &err))
        fail_msg("%s", err.msg);
    assert_memory_equal(&q, d, sizeof q);
    free(out);
    free_lines(&l);
    free(text);
}

/* ---- parameter names ---------------------------------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void test_param_names(void **state)
{
    (void)state;
    /* the writer writes one line per parameter, in order, named by weights_param_name */
    char *text = write_text(weights_default());
    Lines l = split_lines(text);
    int params = 0;
    for (int i = 0; i < l.count; i++) {
        const char *s = l.line[i];
        while (*s == ' ' || *s == '\t')
            s++;
        if (*s && *s != '#') {
            char name[48];
            if (params < EVAL_PARAM_NB) {
                weights_param_name(params, name, sizeof name);
                size_t n = strlen(name);
                if (strncmp(s, name, n) || s[n] != ' ')
                    fail_msg("line %d '%s' is not parameter %d (%s)", i + 1, s, params, name);
            }
            params++;
        }
    }
    assert_int_equal(params, EVAL_PARAM_NB);

    /* names are unique */
    char(*names)[48] = calloc(EVAL_PARAM_NB, sizeof *names);
    const char **sorted = calloc(EVAL_PARAM_NB, sizeof *sorted);
    assert_non_null(names);
    assert_non_null(sorted);
    for (int i = 0; i < EVAL_PARAM_NB; i++) {
        weights_param_name(i, names[i], sizeof names[i]);
        assert_true(strlen(names[i]) > 0 && strcmp(names[i], "?"));
        assert_null(strchr(names[i], ' '));
        sorted[i] = names[i];
    }
    qsort(sorted, EVAL_PARAM_NB, sizeof *sorted, cmp_str);
    for (int i = 1; i < EVAL_PARAM_NB; i++)
        if (!strcmp(sorted[i - 1], sorted[i]))
            fail_msg("two parameters are named %s", sorted[i]);
    /* out of range has no name */
    char nm[48];
    weights_param_name(EVAL_PARAM_NB, nm, sizeof nm);
    assert_string_equal(nm, "?");
    weights_param_name(-1, nm, sizeof nm);
    assert_string_equal(nm, "?");

    /* each name reaches its own parameter: change only that line, only it changes */
    const EvalParams *d = weights_default();
    const Score *dv = (const Score *)d;
    for (int i = 0; i < EVAL_PARAM_NB; i++) {
        int mg = score_mg(dv[i]), eg = score_eg(dv[i]);
        int nmg = mg < 30000 ? mg + 1 : mg - 1, neg = eg > -30000 ? eg - 3 : eg + 3;
        char with[96];
        snprintf(with, sizeof with, "%s %d %d", names[i], nmg, neg);
        char *changed = join_lines(&l, -1, line_of(&l, names[i]), with);
        EvalParams q;
        WeightsError err = {{0}};
        if (!weights_parse(changed, SOURCE, &q, &err))
            fail_msg("%s: %s", names[i], err.msg);
        const Score *qv = (const Score *)&q;
        for (int j = 0; j < EVAL_PARAM_NB; j++) {
            Score want = j == i ? S(nmg, neg) : dv[j];
            if (qv[j] != want)
                fail_msg("changing %s changed parameter %d (%s)", names[i], j, names[j]);
        }
        free(changed);
    }
    free(sorted);
    free(names);
    free_lines(&l);
    free(text);
}

/* ---- through the facade ------------------------------------------------------------------- */

static void test_engine_weights(void **state)
{
    (void)state;
    Engine *e = engine_new();
    assert_non_null(e);
    /* Red has a chariot more than Black, everything else as at the start */
    const char *fen[2] = {"1nbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
                          "1nbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 0 1"};
    Value before[2];
    for (int s = 0; s < 2; s++) {
        PosError perr;
        assert_true(engine_set_position(e, fen[s], NULL, 0, &perr));
        before[s] = engine_eval(e);
    }
    assert_true(before[0] > 0 && before[1] < 0);

    /* failed loads keep the weights and the evaluation */
    EvalParams kept = *engine_weights(e);
    WeightsError err = {{0}};
    assert_false(engine_load_weights(e, "/nonexistent/chuhe.weights", &err));
    assert_true(strlen(err.msg) > 0);
    char *text = write_text(&kept);
    Lines l = split_lines(text);
    char *bad = join_lines(&l, -1, line_of(&l, "material[chariot]"), "material[chariot] 1e3 9");
    const char *bad_path = temp_path("engine-bad.weights");
    write_file(bad_path, bad, strlen(bad));
    assert_false(engine_load_weights(e, bad_path, &err));
    assert_non_null(strstr(err.msg, "material[chariot]"));
    assert_memory_equal(engine_weights(e), &kept, sizeof kept);
    assert_int_equal(engine_eval(e), before[1]);

    /* a heavier chariot: Red's extra chariot is worth more, from both sides' view */
    int at = line_of(&l, "material[chariot]");
    int mg, eg;
    assert_int_equal(sscanf(l.line[at], "material[chariot] %d %d", &mg, &eg), 2);
    char with[96];
    snprintf(with, sizeof with, "material[chariot] %d %d", mg + 200, eg + 200);
    char *heavier = join_lines(&l, -1, at, with);
    const char *path = temp_path("engine-heavier.weights");
    write_file(path, heavier, strlen(heavier));
    if (!engine_load_weights(e, path, &err))
        fail_msg("%s", err.msg);
    for (int s = 0; s < 2; s++) {
        PosError perr;
        assert_true(engine_set_position(e, fen[s], NULL, 0, &perr));
        Value v = engine_eval(e);
        if (s == 0 ? v <= before[0] : v >= before[1])
            fail_msg("%s: eval %d with a heavier chariot, %d before", fen[s], v, before[s]);
    }
    /* saving writes back exactly what was loaded */
    const char *saved = temp_path("engine-saved.weights");
    assert_true(engine_save_weights(e, saved, &err));
    size_t len;
    char *back = read_file(saved, &len);
    assert_int_equal(len, strlen(heavier));
    assert_memory_equal(back, heavier, len);

    free(back);
    free(heavier);
    free(bad);
    free_lines(&l);
    free(text);
    engine_free(&e);
}

/* The largest weights a file may hold never wrap the evaluation's sums: two chariots
 * against none at +30000 each are a win for their side, below the mate scores, from
 * either side's view, and every parameter at +-30000 still evaluates within them. */
static void test_engine_heavy_weights(void **state)
{
    (void)state;
    Engine *e = engine_new();
    assert_non_null(e);
    char *text = write_text(weights_default());
    Lines l = split_lines(text);
    char *heavy =
        join_lines(&l, -1, line_of(&l, "material[chariot]"), "material[chariot] 30000 30000");
    const char *path = temp_path("engine-heavy.weights");
    write_file(path, heavy, strlen(heavy));
    WeightsError err = {{0}};
    if (!engine_load_weights(e, path, &err))
        fail_msg("%s", err.msg);
    /* Red has both chariots, Black none */
    const char *fen[2] = {"1nbakabn1/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
                          "1nbakabn1/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 0 1"};
    for (int s = 0; s < 2; s++) {
        PosError perr;
        assert_true(engine_set_position(e, fen[s], NULL, 0, &perr));
        Value v = engine_eval(e);
        Value red = s == 0 ? v : -v;
        if (red <= 30000 || red >= VALUE_MATE_IN_MAX_PLY)
            fail_msg("%s: eval %d (Red's view %d): two chariots up at 30000 each should be "
                     "above 30000 and below the mate scores (%d)",
                     fen[s], v, red, VALUE_MATE_IN_MAX_PLY);
    }
    /* every parameter at the bounds, of either sign: the sum stays within the mate scores
     * and its sign follows the weights */
    static const int EXTREME[2] = {30000, -30000};
    for (int k = 0; k < 2; k++) {
        EvalParams p;
        Score *v = (Score *)&p;
        for (int i = 0; i < EVAL_PARAM_NB; i++)
            v[i] = S(EXTREME[k], EXTREME[k]);
        const char *all = temp_path("engine-extreme.weights");
        FILE *f = fopen(all, "w");
        assert_non_null(f);
        assert_true(weights_write(f, &p));
        assert_int_equal(fclose(f), 0);
        if (!engine_load_weights(e, all, &err))
            fail_msg("%s", err.msg);
        PosError perr;
        assert_true(engine_set_position(e, fen[0], NULL, 0, &perr));
        Value got = engine_eval(e);
        if (k == 0 ? got <= 0 : got >= 0)
            fail_msg("every weight %d: Red, more pieces and to move, evaluates to %d", EXTREME[k],
                     got);
        assert_true(got > -VALUE_MATE_IN_MAX_PLY && got < VALUE_MATE_IN_MAX_PLY);
    }
    free(heavy);
    free_lines(&l);
    free(text);
    engine_free(&e);
}

/* ---- setup -------------------------------------------------------------------------------- */

static int make_dir(void **state)
{
    (void)state;
    return scratch_create("weights");
}

static int remove_dir(void **state)
{
    (void)state;
    return scratch_remove();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_parses),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_default_file_byte_for_byte),
        cmocka_unit_test(test_rejections),
        cmocka_unit_test(test_comments_and_blanks),
        cmocka_unit_test(test_param_names),
        cmocka_unit_test(test_engine_weights),
        cmocka_unit_test(test_engine_heavy_weights),
    };
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
