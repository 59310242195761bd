#include "pgn_read.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "movegen.h"
#include "notation.h"
#include "wxf.h"

enum { TOKEN_MAX = 64 };

struct PgnReader {
    FILE *f;
    char *path;
    long line;       /* of the next character */
    bool line_start; /* the next character starts a line */
    int games;
    Position pos;
    /* the movetext tokens of the game being read, and their lines */
    int ntokens;
    char tokens[RECORD_MAX_PLIES + 1][TOKEN_MAX];
    long token_line[RECORD_MAX_PLIES + 1];
};

PgnReader *pgn_reader_open(const char *path, PgnError *err)
{
    PgnReader *r = calloc(1, sizeof *r);
    char *copy = strdup(path);
    if (!r || !copy) {
        free(r);
        free(copy);
        ERROR_SET(err, "%s: out of memory", path);
        return NULL;
    }
    r->f = fopen(path, "r");
    if (!r->f) {
        ERROR_SET(err, "%s: %s", path, strerror(errno));
        free(copy);
        free(r);
        return NULL;
    }
    r->path = copy;
    r->line = 1;
    r->line_start = true;
    return r;
}

void pgn_reader_close(PgnReader **r)
{
    if (!*r)
        return;
    fclose((*r)->f);
    free((*r)->path);
    free(*r);
    *r = NULL;
}

/* ---- characters ---- */

static int rd(PgnReader *r)
{
    int c = getc(r->f);
    r->line_start = c == '\n';
    if (c == '\n')
        r->line++;
    return c;
}

static void unrd(PgnReader *r, int c)
{
    if (c == EOF)
        return;
    if (c == '\n')
        r->line--;
    ungetc(c, r->f);
}

static void skip_line(PgnReader *r)
{
    int c;
    while ((c = rd(r)) != EOF && c != '\n') {
    }
}

/* Skips to the '}' of a comment; false at the end of the file. */
static bool skip_comment(PgnReader *r)
{
    int c;
    while ((c = rd(r)) != EOF && c != '}') {
    }
    return c == '}';
}

/* Skips a variation after its '(' (nested ones and comments inside it too). */
static bool skip_variation(PgnReader *r)
{
    int depth = 1, c;
    while (depth > 0 && (c = rd(r)) != EOF) {
        if (c == '(')
            depth++;
        else if (c == ')')
            depth--;
        else if (c == '{' && !skip_comment(r))
            return false;
        else if (c == ';')
            skip_line(r);
    }
    return depth == 0;
}

/* A tag after its '['; copies the value of FEN into fen. False on a malformed tag (the
 * rest of it is skipped). */
static bool read_tag(PgnReader *r, char *fen, size_t fen_size)
{
    char name[32];
    size_t n = 0;
    int c;
    while ((c = rd(r)) == ' ' || c == '\t') {
    }
    while (c != EOF && (isalnum(c) || c == '_')) {
        if (n + 1 < sizeof name)
            name[n++] = (char)c;
        c = rd(r);
    }
    name[n] = '\0';
    while (c == ' ' || c == '\t')
        c = rd(r);
    if (!n || c != '"') {
        while (c != EOF && c != ']' && c != '\n')
            c = rd(r);
        return false;
    }
    char value[RECORD_FEN_MAX * 2];
    size_t v = 0;
    while ((c = rd(r)) != EOF && c != '"' && c != '\n') {
        if (c == '\\')
            c = rd(r);
        if (c == EOF)
            break;
        if (v + 1 < sizeof value)
            value[v++] = (char)c;
    }
    value[v] = '\0';
    bool closed = c == '"';
    while (c != EOF && c != ']' && c != '\n')
        c = rd(r);
    if (!closed || c != ']')
        return false;
    if (!strcmp(name, "FEN")) {
        if (v >= fen_size)
            return false;
        memcpy(fen, value, v + 1);
    }
    return true;
}

static bool is_result(const char *t)
{
    return !strcmp(t, "1-0") || !strcmp(t, "0-1") || !strcmp(t, "1/2-1/2") || !strcmp(t, "*");
}

/* "12." or "12...": a move number alone. */
static bool is_move_number(const char *t)
{
    const char *p = t;
    while (isdigit((unsigned char)*p))
        p++;
    if (p == t || *p != '.')
        return false;
    while (*p == '.')
        p++;
    return *p == '\0';
}

/* ---- moves ---- */

static bool coordinate_form(const char *t)
{
    return t[0] >= 'a' && t[0] <= 'i' && isdigit((unsigned char)t[1]) && t[2] >= 'a' &&
           t[2] <= 'i' && isdigit((unsigned char)t[3]) && !t[4];
}

/* SAN names pieces in capitals only: a small letter is a file. */
static PieceType san_piece(char c)
{
    return isupper((unsigned char)c) ? wxf_piece_type(c) : NO_PIECE_TYPE;
}

/* A rank at p, numbered from first (1: ranks 1-10, one or two digits; 0: ranks 0-9);
 * its 0-9 index, or -1. *len gets the digits. */
static int san_rank(const char *p, int first, int *len)
{
    if (first == 0) {
        *len = p[0] >= '0' && p[0] <= '9';
        return *len ? p[0] - '0' : -1;
    }
    if (p[0] == '1' && p[1] == '0') {
        *len = 2;
        return 9;
    }
    if (p[0] >= '1' && p[0] <= '9') {
        *len = 1;
        return p[0] - '1';
    }
    *len = 0;
    return -1;
}

/* Algebraic text with ranks numbered from first (1 or 0). */
static Move san_to_move(const Position *pos, const char *text, int first, char *why, size_t size)
{
    char t[TOKEN_MAX];
    size_t n = 0;
    for (const char *p = text; *p && n + 1 < sizeof t; p++)
        if (*p != 'x' && *p != ':' && *p != '-' && *p != '+')
            t[n++] = *p;
    t[n] = '\0';
    const char *p = t;
    PieceType type = san_piece(*p);
    if (type != NO_PIECE_TYPE)
        p++;
    else
        type = SOLDIER;
    /* the destination is the last square: a file letter and a rank 1-10 */
    size_t len = strlen(p);
    int to_file = -1, to_rank = -1, dlen = 0;
    const char *dest = NULL;
    for (size_t back = 2; back <= 3 && back <= len; back++) {
        const char *d = p + len - back;
        int rl;
        int rank = san_rank(d + 1, first, &rl);
        if (*d >= 'a' && *d <= 'i' && rank >= 0 && (size_t)rl + 1 == back) {
            to_file = *d - 'a';
            to_rank = rank;
            dest = d;
        }
    }
    if (!dest) {
        snprintf(why, size, "no destination point (algebraic, ranks %s)", first ? "1-10" : "0-9");
        return MOVE_NONE;
    }
    /* disambiguation: a file, a rank, or both */
    int from_file = -1, from_rank = -1;
    const char *q = p;
    if (q < dest && *q >= 'a' && *q <= 'i')
        from_file = *q++ - 'a';
    if (q < dest) {
        from_rank = san_rank(q, first, &dlen);
        q += dlen;
    }
    if (q != dest || (from_rank < 0 && dlen)) {
        snprintf(why, size, "unreadable algebraic move");
        return MOVE_NONE;
    }
    Square to = sq_make(to_file, to_rank);
    MoveList list;
    int count = gen_legal(pos, &list), found = 0;
    Move m = MOVE_NONE;
    for (int i = 0; i < count; i++) {
        Move x = list.moves[i];
        Square from = move_from(x);
        if (move_to(x) != to || piece_type(pos_piece_on(pos, from)) != type)
            continue;
        if ((from_file >= 0 && sq_file(from) != from_file) ||
            (from_rank >= 0 && sq_rank(from) != from_rank))
            continue;
        m = x;
        found++;
    }
    if (found == 1)
        return m;
    snprintf(why, size, found ? "ambiguous" : "no such legal move");
    return MOVE_NONE;
}

/* pgn_parse_move with algebraic ranks numbered from first. */
static Move parse_move(const Position *pos, const char *token, int first, PgnError *err)
{
    char t[TOKEN_MAX];
    snprintf(t, sizeof t, "%s", token);
    size_t n = strlen(t);
    while (n > 0 && (t[n - 1] == '!' || t[n - 1] == '?' || t[n - 1] == '#'))
        t[--n] = '\0';
    char coord[5] = "";
    if (n == 5 && t[2] == '-')
        snprintf(coord, sizeof coord, "%.2s%.2s", t, t + 3);
    else if (n == 4)
        memcpy(coord, t, sizeof coord); /* four characters and the NUL */
    if (coordinate_form(coord)) {
        Move m = move_parse_legal(pos, coord);
        if (m != MOVE_NONE)
            return m;
    }
    WxfError werr;
    Move m = wxf_to_move(pos, t, &werr);
    if (m != MOVE_NONE)
        return m;
    char why[96];
    m = san_to_move(pos, t, first, why, sizeof why);
    if (m != MOVE_NONE)
        return m;
    /* the reason of the notation the text looks like */
    bool wxf_like = n == 4 && san_piece(t[0]) != NO_PIECE_TYPE &&
                    (isdigit((unsigned char)t[1]) || t[1] == '+' || t[1] == '-');
    if (coordinate_form(coord))
        ERROR_SET(err, "'%s' is not a legal move here", token);
    else
        ERROR_SET(err, "'%s': %s", token, wxf_like ? werr.msg : why);
    return MOVE_NONE;
}

Move pgn_parse_move(const Position *pos, const char *token, PgnError *err)
{
    return parse_move(pos, token, 1, err);
}

/* ---- games ---- */

/* Plays token as the next mainline move of g; false with the reason in why. */
static bool play_token(PgnReader *r, PgnGame *g, const char *tok, int first, char *why, size_t size)
{
    if (g->nmoves >= RECORD_MAX_PLIES) {
        snprintf(why, size, "more than %d plies", RECORD_MAX_PLIES);
        return false;
    }
    PgnError perr;
    Move m = parse_move(&r->pos, tok, first, &perr);
    if (m == MOVE_NONE) {
        /* "12.C2.5": a move number glued to the move */
        const char *p = tok;
        while (isdigit((unsigned char)*p))
            p++;
        if (p > tok && *p == '.') {
            while (*p == '.')
                p++;
            if (*p)
                m = parse_move(&r->pos, p, first, NULL);
        }
    }
    if (m == MOVE_NONE) {
        snprintf(why, size, "ply %d: %.150s", g->nmoves + 1, perr.msg);
        return false;
    }
    g->moves[g->nmoves++] = m;
    if (pos_history_full(&r->pos))
        pos_trim_history(&r->pos);
    pos_do_move(&r->pos, m);
    return true;
}

/*
 * Replays the game's move tokens from its start position, algebraic ranks numbered
 * from first; false with the reason in why and the token's line in *line.
 */
static bool replay(PgnReader *r, PgnGame *g, int first, char *why, size_t size, long *line)
{
    PosError perr;
    g->nmoves = 0;
    if (!pos_set_fen(&r->pos, g->fen[0] ? g->fen : START_FEN, &perr)) {
        snprintf(why, size, "FEN tag: %s", perr.msg);
        *line = g->line;
        return false;
    }
    for (int i = 0; i < r->ntokens; i++)
        if (!play_token(r, g, r->tokens[i], first, why, size)) {
            *line = r->token_line[i];
            return false;
        }
    return true;
}

int pgn_reader_next(PgnReader *r, PgnGame *g, int max_plies, PgnError *err)
{
    memset(g, 0, sizeof *g);
    r->ntokens = 0;
    bool in_game = false, movetext = false, bad = false;
    char why[sizeof err->msg];
    long bad_line = 0;
    int keep = max_plies > 0 && max_plies <= RECORD_MAX_PLIES ? max_plies : RECORD_MAX_PLIES + 1;
    for (;;) {
        bool line_start = r->line_start;
        long line = r->line;
        int c = rd(r);
        if (c == EOF)
            break;
        if (isspace(c))
            continue;
        if (!in_game && c != '%') {
            in_game = true;
            g->number = ++r->games;
            g->line = line;
        }
        const char *lexical = NULL;
        if (c == '%' && line_start) {
            skip_line(r);
        } else if (c == '[') {
            if (movetext) {
                unrd(r, c); /* the next game's tags: this one had no result */
                break;
            }
            if (!read_tag(r, g->fen, sizeof g->fen))
                lexical = "malformed tag";
        } else if (c == '{') {
            if (!skip_comment(r))
                lexical = "unterminated comment";
        } else if (c == ';') {
            skip_line(r);
        } else if (c == '(') {
            if (!skip_variation(r))
                lexical = "unterminated variation";
        } else if (c == ')' || c == ']') {
            continue;
        } else if (c == '$') {
            while (isdigit(c = rd(r))) {
            }
            unrd(r, c);
        } else {
            char tok[TOKEN_MAX];
            size_t n = 0;
            while (c != EOF && !isspace(c) && !strchr("[]{}();", c)) {
                if (n + 1 < sizeof tok)
                    tok[n++] = (char)c;
                c = rd(r);
            }
            unrd(r, c);
            tok[n] = '\0';
            movetext = true;
            if (is_result(tok))
                break;
            if (!is_move_number(tok) && r->ntokens < keep) {
                memcpy(r->tokens[r->ntokens], tok, n + 1);
                r->token_line[r->ntokens++] = line;
            }
        }
        if (lexical && !bad) {
            bad = true;
            bad_line = line;
            snprintf(why, sizeof why, "%s", lexical);
        }
    }
    if (ferror(r->f)) {
        ERROR_SET(err, "%s: read error near line %ld", r->path, r->line);
        return -2;
    }
    if (!in_game)
        return 0;
    /* algebraic moves are read with ranks 1-10 (cutechess, Fairy-Stockfish), else 0-9
     * (XBoard): whichever reads the whole game */
    char why0[sizeof why];
    long line0;
    if (!bad && !replay(r, g, 1, why, sizeof why, &bad_line) &&
        !replay(r, g, 0, why0, sizeof why0, &line0))
        bad = true;
    if (bad) {
        ERROR_SET(err, "%s: game %d (line %ld): %s", r->path, g->number, bad_line, why);
        return -1;
    }
    return 1;
}
