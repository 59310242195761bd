#include "opening.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "error.h"
#include "movegen.h"
#include "notation.h"
#include "pgn_read.h"
#include "rng.h"
#include "rules.h"

/* Verdict before the first move, between moves and at the end: a game may neither
 * start nor pass through a finished position. */
static bool check_on(Opening *op, Position *pos, PosError *err)
{
    PosError fen_err;
    if (!memchr(op->fen, '\0', sizeof op->fen))
        return ERROR_SET(err, "FEN is not terminated");
    if (!pos_set_fen(pos, op->fen, &fen_err))
        return ERROR_SET(err, "%s", fen_err.msg);
    if (op->nmoves < 0 || op->nmoves > OPENING_MAX_MOVES)
        return ERROR_SET(err, "%d opening moves (at most %d)", op->nmoves, OPENING_MAX_MOVES);
    char fen[RECORD_FEN_MAX];
    pos_get_fen(pos, fen, sizeof fen);
    for (int i = 0;; i++) {
        Verdict v = rules_judge_game(pos);
        if (v.result != RESULT_NONE)
            return ERROR_SET(
                err, "the game is over after %d opening moves (%s for the side to move, %s)", i,
                rules_result_name(v.result), rules_reason_name(v.reason));
        if (i == op->nmoves)
            break;
        if (!move_is_legal(pos, op->moves[i])) {
            char text[5];
            move_to_text(op->moves[i], text);
            return ERROR_SET(err, "opening move %d (%s) is illegal", i + 1, text);
        }
        pos_do_move(pos, op->moves[i]);
    }
    memcpy(op->fen, fen, sizeof fen);
    return true;
}

bool opening_check(Opening *op, PosError *err)
{
    Position *pos = malloc(sizeof *pos);
    if (!pos)
        return ERROR_SET(err, "out of memory");
    bool ok = check_on(op, pos, err);
    free(pos);
    return ok;
}

/* ------------------------------------------------------------------------------------
 * One line of an opening file.
 * ------------------------------------------------------------------------------------ */

static const char *skip_space(const char *p)
{
    while (*p && isspace((unsigned char)*p))
        p++;
    return p;
}

static bool parse_number(const char *text, size_t len, long max, long *out)
{
    if (len == 0 || len > 9)
        return false;
    long v = 0;
    for (size_t i = 0; i < len; i++) {
        if (!isdigit((unsigned char)text[i]))
            return false;
        v = v * 10 + (text[i] - '0');
    }
    if (v > max)
        return false;
    *out = v;
    return true;
}

/* EPD operations: "opcode operand...;" repeated. Only hmvc and fmvn matter here; a
 * string operand may hold ';' inside its quotes. */
static bool parse_operations(const char *p, long *halfmove, long *fullmove, PosError *err)
{
    for (;;) {
        p = skip_space(p);
        if (!*p)
            return true;
        if (!isalpha((unsigned char)*p))
            return ERROR_SET(err, "EPD operation expected at '%.20s'", p);
        const char *op = p;
        while (isalnum((unsigned char)*p) || *p == '_')
            p++;
        size_t oplen = (size_t)(p - op);
        const char *args = skip_space(p);
        bool quoted = false;
        while (*p && (quoted || *p != ';')) {
            if (*p == '"')
                quoted = !quoted;
            p++;
        }
        if (quoted)
            return ERROR_SET(err, "EPD operation '%.*s' has an unterminated string", (int)oplen,
                             op);
        const char *end = p;
        while (end > args && isspace((unsigned char)end[-1]))
            end--;
        bool is_hmvc = oplen == 4 && !strncmp(op, "hmvc", 4);
        bool is_fmvn = oplen == 4 && !strncmp(op, "fmvn", 4);
        if (is_hmvc && !parse_number(args, (size_t)(end - args), 119, halfmove))
            return ERROR_SET(err, "EPD hmvc '%.*s' is not a number from 0 to 119",
                             (int)(end - args), args);
        if (is_fmvn &&
            (!parse_number(args, (size_t)(end - args), 100000, fullmove) || *fullmove < 1))
            return ERROR_SET(err, "EPD fmvn '%.*s' is not a positive number", (int)(end - args),
                             args);
        if (*p == ';')
            p++;
    }
}

bool opening_parse_line(Opening *op, const char *line, PosError *err)
{
    /* Position fields end at white space or at the ';' of EPD operations, as in the
     * perft suites' "FEN;D1 44". */
    char fields[4][100];
    int nf = 0;
    const char *p = line;
    for (; nf < 4; nf++) {
        p = skip_space(p);
        size_t n = strcspn(p, " \t\r\n\v\f;");
        if (n == 0)
            break;
        if (n >= sizeof fields[nf])
            return ERROR_SET(err, "position field %d is too long", nf + 1);
        memcpy(fields[nf], p, n);
        fields[nf][n] = '\0';
        p += n;
    }
    if (nf < 2)
        return ERROR_SET(err, "a position needs at least a board and a side to move");

    long halfmove = 0, fullmove = 1;
    p = skip_space(p);
    if (isdigit((unsigned char)*p)) {
        /* FEN clocks: two numbers, then optionally ';' and EPD operations. */
        const char *h = p;
        while (isdigit((unsigned char)*p))
            p++;
        size_t hl = (size_t)(p - h);
        const char *f = skip_space(p);
        p = f;
        while (isdigit((unsigned char)*p))
            p++;
        size_t fl = (size_t)(p - f);
        if (nf != 4 || !parse_number(h, hl, 119, &halfmove))
            return ERROR_SET(err,
                             "half-move clock '%.*s' is not a number from 0 to 119 after "
                             "four position fields",
                             (int)hl, h);
        if (!parse_number(f, fl, 100000, &fullmove) || fullmove < 1)
            return ERROR_SET(err, "move number '%.*s' is not a positive number", (int)fl, f);
        p = skip_space(p);
        if (*p == ';')
            p++;
        else if (*p)
            return ERROR_SET(err, "unexpected '%.20s' after the move number", p);
    } else if (*p == ';') {
        p++;
    }
    if (!parse_operations(p, &halfmove, &fullmove, err))
        return false;

    Opening tmp;
    memset(&tmp, 0, sizeof tmp);
    int len = snprintf(tmp.fen, sizeof tmp.fen, "%s %s %s %s %ld %ld", fields[0], fields[1],
                       nf > 2 ? fields[2] : "-", nf > 3 ? fields[3] : "-", halfmove, fullmove);
    if (len < 0 || (size_t)len >= sizeof tmp.fen)
        return ERROR_SET(err, "position is too long for a FEN");
    if (!opening_check(&tmp, err))
        return false;
    *op = tmp;
    return true;
}

/* ------------------------------------------------------------------------------------
 * Opening lists and files.
 * ------------------------------------------------------------------------------------ */

void opening_list_init(OpeningList *list)
{
    list->items = NULL;
    list->count = 0;
    list->capacity = 0;
}

void opening_list_free(OpeningList *list)
{
    free(list->items);
    opening_list_init(list);
}

/* Appends a copy of op; false when out of memory. */
static bool opening_list_add(OpeningList *list, const Opening *op)
{
    if (!array_reserve((void **)&list->items, &list->capacity, (size_t)list->count + 1,
                       sizeof *list->items, 64))
        return false;
    list->items[list->count++] = *op;
    return true;
}

int opening_list_load(OpeningList *list, const char *path, OpeningErrorFn on_error, void *ctx,
                      OpeningError *err)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        ERROR_SET(err, "%s: %s", path, strerror(errno));
        return -1;
    }
    int before = list->count, bad = 0;
    long lineno = 0;
    char *line = NULL;
    size_t cap = 0;
    bool failed = false;
    while (getline(&line, &cap, f) != -1) {
        lineno++;
        const char *p = skip_space(line);
        if (!*p || *p == '#')
            continue;
        Opening op;
        PosError perr;
        if (!opening_parse_line(&op, p, &perr)) {
            bad++;
            if (on_error) {
                char msg[sizeof perr.msg + 300];
                snprintf(msg, sizeof msg, "%s:%ld: %s", path, lineno, perr.msg);
                on_error(ctx, msg);
            }
            continue;
        }
        if (!opening_list_add(list, &op)) {
            ERROR_SET(err, "%s:%ld: out of memory", path, lineno);
            failed = true;
            break;
        }
    }
    if (!failed && ferror(f)) {
        ERROR_SET(err, "%s: read error after line %ld", path, lineno);
        failed = true;
    }
    free(line);
    fclose(f);
    if (failed) {
        list->count = before;
        return -1;
    }
    return bad;
}

/* The opening of a PGN game: its start and moves, the start moved up so that at most
 * OPENING_MAX_MOVES moves remain. */
static bool opening_from_game(Opening *op, const PgnGame *g, Position *pos, PosError *err)
{
    memset(op, 0, sizeof *op);
    if (!pos_set_fen(pos, g->fen[0] ? g->fen : START_FEN, err))
        return false;
    int skip = g->nmoves > OPENING_MAX_MOVES ? g->nmoves - OPENING_MAX_MOVES : 0;
    for (int i = 0; i < skip; i++) {
        if (pos_history_full(pos))
            pos_trim_history(pos);
        pos_do_move(pos, g->moves[i]);
    }
    pos_get_fen(pos, op->fen, sizeof op->fen);
    op->nmoves = g->nmoves - skip;
    memcpy(op->moves, g->moves + skip, (size_t)op->nmoves * sizeof op->moves[0]);
    return opening_check(op, err);
}

int opening_list_load_pgn(OpeningList *list, const char *path, int max_plies,
                          OpeningErrorFn on_error, void *ctx, OpeningError *err)
{
    PgnError perr;
    PgnReader *r = pgn_reader_open(path, &perr);
    PgnGame *g = malloc(sizeof *g);
    Position *pos = malloc(sizeof *pos);
    if (!r || !g || !pos) {
        ERROR_SET(err, "%s", r ? "out of memory" : perr.msg);
        pgn_reader_close(&r);
        free(g);
        free(pos);
        return -1;
    }
    int before = list->count, bad = 0, got;
    bool failed = false;
    while ((got = pgn_reader_next(r, g, max_plies, &perr)) != 0) {
        char msg[sizeof perr.msg + 300];
        Opening op;
        PosError operr;
        if (got < -1) {
            ERROR_SET(err, "%s", perr.msg);
            failed = true;
            break;
        }
        if (got < 0) {
            snprintf(msg, sizeof msg, "%s", perr.msg);
        } else if (!opening_from_game(&op, g, pos, &operr)) {
            snprintf(msg, sizeof msg, "%s: game %d (line %ld): %s", path, g->number, g->line,
                     operr.msg);
        } else {
            if (!opening_list_add(list, &op)) {
                ERROR_SET(err, "%s: game %d: out of memory", path, g->number);
                failed = true;
                break;
            }
            continue;
        }
        bad++;
        if (on_error)
            on_error(ctx, msg);
    }
    pgn_reader_close(&r);
    free(g);
    free(pos);
    if (failed) {
        list->count = before;
        return -1;
    }
    return bad;
}

/* ------------------------------------------------------------------------------------
 * Random openings.
 * ------------------------------------------------------------------------------------ */

/* One attempt: random plies from pos, none reaching a verdict. */
static bool random_line(Position *pos, Opening *out, int plies, uint64_t seed)
{
    uint64_t rng = seed;
    for (int i = 0; i < plies; i++) {
        MoveList list;
        int n = gen_legal(pos, &list);
        if (n == 0)
            return false;
        Move m = list.moves[rng_below32(&rng, (uint32_t)n)];
        out->moves[out->nmoves++] = m;
        pos_do_move(pos, m);
        if (rules_judge_game(pos).result != RESULT_NONE)
            return false;
    }
    return true;
}

static bool search_score(Engine *e, const Opening *op, uint64_t nodes, int *score,
                         OpeningError *err)
{
    char text[OPENING_MAX_MOVES][5];
    const char *moves[OPENING_MAX_MOVES];
    for (int i = 0; i < op->nmoves; i++) {
        move_to_text(op->moves[i], text[i]);
        moves[i] = text[i];
    }
    PosError perr;
    engine_new_game(e);
    if (!engine_set_position(e, op->fen, moves, op->nmoves, &perr))
        return ERROR_SET(err, "engine refused the opening: %s", perr.msg);
    SearchLimits limits;
    time_limits_clear(&limits);
    limits.nodes = nodes;
    SearchResult res = engine_search(e, &limits, NULL);
    *score = res.score;
    return true;
}

static bool random_on(Position *pos, Opening *out, const RandomOpeningSpec *spec, uint64_t seed,
                      RandomOpeningInfo *info, OpeningError *err)
{
    const char *fen = spec->fen ? spec->fen : START_FEN;
    if (spec->plies < 0 || spec->plies > OPENING_MAX_MOVES)
        return ERROR_SET(err, "%d random plies (0 to %d)", spec->plies, OPENING_MAX_MOVES);
    Opening start;
    memset(&start, 0, sizeof start);
    snprintf(start.fen, sizeof start.fen, "%s", fen);
    PosError perr;
    if (!check_on(&start, pos, &perr))
        return ERROR_SET(err, "start position: %s", perr.msg);
    int attempts = spec->max_attempts > 0 ? spec->max_attempts : OPENING_DEFAULT_ATTEMPTS;
    uint64_t nodes = spec->nodes ? spec->nodes : OPENING_DEFAULT_NODES;
    uint64_t derivations = seed;
    int out_of_bound = 0, dead_ends = 0;
    for (int k = 0; k < attempts; k++) {
        uint64_t attempt_seed = rng_next(&derivations);
        Opening op = start;
        if (!pos_set_fen(pos, op.fen, &perr))
            return ERROR_SET(err, "start position: %s", perr.msg);
        if (info) {
            info->attempts = k + 1;
            info->score = 0;
        }
        if (!random_line(pos, &op, spec->plies, attempt_seed)) {
            dead_ends++;
            continue;
        }
        if (spec->engine) {
            int score;
            if (!search_score(spec->engine, &op, nodes, &score, err))
                return false;
            if (info)
                info->score = score;
            if (score > spec->max_score || score < -spec->max_score) {
                out_of_bound++;
                continue;
            }
        }
        *out = op;
        return true;
    }
    return ERROR_SET(err,
                     "no random opening in %d attempts (%d reached a verdict, %d out of the "
                     "score bound %d)",
                     attempts, dead_ends, out_of_bound, spec->max_score);
}

bool opening_random(Opening *out, const RandomOpeningSpec *spec, uint64_t seed,
                    RandomOpeningInfo *info, OpeningError *err)
{
    Position *pos = malloc(sizeof *pos);
    if (!pos)
        return ERROR_SET(err, "out of memory");
    bool ok = random_on(pos, out, spec, seed, info, err);
    free(pos);
    return ok;
}
