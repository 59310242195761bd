#include "position.h"

#include <assert.h>
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attacks.h"
#include "error.h"
#include "rng.h"

const char *const START_FEN =
    "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";

Key zobrist_psq[PIECE_NB][SQUARE_NB];
Key zobrist_side;

static const char PIECE_CHARS[] = " KABNRCP kabnrcp";
static const int PIECE_LIMIT[PIECE_TYPE_NB] = {0, 1, 2, 2, 2, 2, 2, 5};
static const char *const PIECE_NAMES[PIECE_TYPE_NB] = {"",      "general", "advisor", "elephant",
                                                       "horse", "chariot", "cannon",  "soldier"};

static void init_tables(void)
{
    attacks_init();
    uint64_t seed = 0x63687568652d7871ULL; /* fixed: keys are part of stored data */
    for (int p = 0; p < PIECE_NB; p++)
        for (Square s = 0; s < SQUARE_NB; s++)
            zobrist_psq[p][s] = piece_type((Piece)p) ? rng_next(&seed) : 0;
    zobrist_side = rng_next(&seed);
}

void position_init(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, init_tables);
}

/* Attackers of the general of `us`: the checkers. */
static inline Bitboard king_attackers(const Position *pos, Color us)
{
    return pos_attackers(pos, pos->king_sq[us], color_flip(us));
}

bool pos_gives_check(const Position *pos, Move m)
{
    /* Judged on the occupancy and pieces the move leaves, without making it: the mover
     * may check directly, open a line (chariot, general, horse leg) or become a cannon
     * screen or the cannon itself. Its old point is off the occupancy, so only its new
     * one need be added to its kind. */
    Color us = pos->side;
    Square from = move_from(m), to = move_to(m);
    Square ks = pos->king_sq[color_flip(us)];
    if (!bb_test(check_from_bb[ks], from) && !bb_test(check_to_bb[ks], to))
        return false;
    unsigned ro, fo;
    pos_lines_after(pos, ks, from, to, &ro, &fo);
    Bitboard occ = (pos->occupied ^ bb_square(from)) | bb_square(to);
    Bitboard pcs[PIECE_TYPE_NB];
    memcpy(pcs, &pos->by_piece[piece_make(us, NO_PIECE_TYPE)], sizeof pcs);
    pcs[piece_type(pos_piece_on(pos, from))] |= bb_square(to);
    return attacks_to(pcs, us, ks, occ, ro, fo, true) != 0;
}

Key pos_compute_key(const Position *pos)
{
    Key k = pos->side == BLACK ? zobrist_side : 0;
    for (Square s = 0; s < SQUARE_NB; s++)
        k ^= zobrist_psq[pos->board[s]][s];
    return k;
}

static void state_after(Position *pos, StateInfo *st, const StateInfo *prev, Piece captured,
                        Color us)
{
    st->checkers = king_attackers(pos, pos->side);
    st->captured = (uint8_t)captured;
    if (captured) {
        st->rule60 = 0;
        st->check10[RED] = st->check10[BLACK] = 0;
        st->since_capture = 0;
        return;
    }
    Color them = color_flip(us);
    st->rule60 = prev->rule60;
    st->check10[RED] = prev->check10[RED];
    st->check10[BLACK] = prev->check10[BLACK];
    st->since_capture = (uint16_t)(prev->since_capture + 1);
    /* Each side's first 10 checks since the last capture, and the replies to them, count
     * towards the 60-move rule; later checks and their replies do not. */
    if (st->checkers) {
        if (st->check10[us] < UINT8_MAX)
            st->check10[us]++;
        if (st->check10[us] > 10)
            return;
    }
    if (st->check10[them] > 10 && prev->checkers) {
        if (st->check10[them] < UINT8_MAX)
            st->check10[them]++;
        return;
    }
    if (st->rule60 < UINT8_MAX)
        st->rule60++;
}

void pos_do_move(Position *pos, Move m)
{
    assert(pos->hist_len < POS_HISTORY_MAX);
    Square from = move_from(m), to = move_to(m);
    Piece pc = (Piece)pos->board[from];
    Piece cap = (Piece)pos->board[to];
    Color us = pos->side;
    assert(pc != NO_PIECE && piece_color(pc) == us);
    assert(cap == NO_PIECE || (piece_color(cap) != us && piece_type(cap) != KING));

    const StateInfo *prev = &pos->hist[pos->hist_len - 1];
    StateInfo *st = &pos->hist[pos->hist_len++];
    Key k = prev->key ^ zobrist_side ^ zobrist_psq[pc][from] ^ zobrist_psq[pc][to];
    if (cap) {
        k ^= zobrist_psq[cap][to];
        pos_remove_piece(pos, to);
    }
    pos_move_piece(pos, from, to);
    pos->side = color_flip(us);
    pos->game_ply++;
    st->key = k;
    st->move = m;
    state_after(pos, st, prev, cap, us);
#ifdef CHUHE_DEBUG
    const char *why;
    assert(pos_is_ok(pos, &why));
#endif
}

void pos_undo_move(Position *pos)
{
    assert(pos->hist_len > 1);
    const StateInfo *st = &pos->hist[pos->hist_len - 1];
    Move m = st->move;
    Square from = move_from(m), to = move_to(m);
    pos_move_piece(pos, to, from);
    if (st->captured)
        pos_put_piece(pos, (Piece)st->captured, to);
    pos->side = color_flip(pos->side);
    pos->game_ply--;
    pos->hist_len--;
#ifdef CHUHE_DEBUG
    const char *why;
    assert(pos_is_ok(pos, &why));
#endif
}

void pos_do_null(Position *pos)
{
    assert(pos->hist_len < POS_HISTORY_MAX && !pos_in_check(pos));
    const StateInfo *prev = &pos->hist[pos->hist_len - 1];
    StateInfo *st = &pos->hist[pos->hist_len++];
    *st = *prev;
    st->key ^= zobrist_side;
    st->move = MOVE_NULL;
    st->captured = NO_PIECE;
    st->checkers = 0;
    st->since_capture = 0; /* repetition scans never cross a null move */
    pos->side = color_flip(pos->side);
    pos->game_ply++;
}

void pos_undo_null(Position *pos)
{
    assert(pos->hist_len > 1 && pos_state(pos)->move == MOVE_NULL);
    pos->hist_len--;
    pos->side = color_flip(pos->side);
    pos->game_ply--;
}

bool pos_history_full(const Position *pos)
{
    return pos->hist_len >= POS_HISTORY_MAX - 1;
}

void pos_trim_history(Position *pos)
{
    int keep = pos_state(pos)->since_capture + 1;
    if (keep > pos->hist_len)
        keep = pos->hist_len;
    if (keep >= POS_HISTORY_MAX - 1) /* no capture for very long: keep the newest half */
        keep = POS_HISTORY_MAX / 2;
    memmove(pos->hist, pos->hist + pos->hist_len - keep, (size_t)keep * sizeof(StateInfo));
    pos->hist_len = keep;
    pos->hist[0].move = MOVE_NONE;
    pos->hist[0].captured = NO_PIECE;
}

void pos_copy(Position *dst, const Position *src)
{
    memcpy(dst, src, offsetof(Position, hist) + (size_t)src->hist_len * sizeof(StateInfo));
}

static const char *color_name(Color c)
{
    return c == RED ? "red" : "black";
}

static void sq_name(Square s, char out[3])
{
    out[0] = (char)('a' + sq_file(s));
    out[1] = (char)('0' + sq_rank(s));
    out[2] = '\0';
}

/* Where each kind of piece may stand at all, whatever the moves that led there. */
static bool placement_ok(Piece pc, Square s, PosError *err)
{
    Color c = piece_color(pc);
    PieceType t = piece_type(pc);
    char name[3];
    sq_name(s, name);
    switch (t) {
    case KING:
        if (!bb_test(palace_bb[c], s))
            return ERROR_SET(err, "%s general on %s is outside its palace", color_name(c), name);
        break;
    case ADVISOR:
        if (!bb_test(advisor_home_bb[c], s))
            return ERROR_SET(err, "%s advisor on %s is off its five palace points", color_name(c),
                             name);
        break;
    case ELEPHANT:
        if (!bb_test(elephant_home_bb[c], s))
            return ERROR_SET(err, "%s elephant on %s is off its seven points", color_name(c), name);
        break;
    case SOLDIER: {
        int rr = rank_relative(c, sq_rank(s));
        if (rr < 3)
            return ERROR_SET(err, "%s soldier on %s is behind its starting rank", color_name(c),
                             name);
        if (rr <= 4 && sq_file(s) % 2 != 0)
            return ERROR_SET(err, "%s soldier on %s is off its starting files before the river",
                             color_name(c), name);
        break;
    }
    default:
        break;
    }
    return true;
}

static int piece_from_char(char ch)
{
    switch (ch) {
    case 'E':
        ch = 'B';
        break;
    case 'H':
        ch = 'N';
        break;
    case 'e':
        ch = 'b';
        break;
    case 'h':
        ch = 'n';
        break;
    default:
        break;
    }
    const char *p = ch && ch != ' ' ? strchr(PIECE_CHARS, ch) : NULL;
    return p ? (int)(p - PIECE_CHARS) : -1;
}

/* Reads a non-negative decimal field; false on anything else. */
static bool parse_count(const char *s, long max, long *out)
{
    if (!*s)
        return false;
    char *end;
    long v = strtol(s, &end, 10);
    if (*end || v < 0 || v > max || !isdigit((unsigned char)s[0]))
        return false;
    *out = v;
    return true;
}

/* The board field into pos (empty on entry): nine files a rank, ten ranks, pieces where
 * they may stand and no more of a kind than the game has, both generals. */
static bool parse_board(Position *pos, const char *board, PosError *err)
{
    int counts[PIECE_NB] = {0};
    int rank = RANK_NB - 1, file = 0;
    for (const char *p = board;; p++) {
        char ch = *p;
        if (ch == '/' || ch == '\0') {
            if (file != FILE_NB)
                return ERROR_SET(err, "FEN rank %d has %d files, not 9", rank, file);
            if (ch == '\0')
                break;
            if (--rank < 0)
                return ERROR_SET(err, "FEN board has more than 10 ranks");
            file = 0;
        } else if (ch >= '1' && ch <= '9') {
            file += ch - '0';
            if (file > FILE_NB)
                return ERROR_SET(err, "FEN rank %d has more than 9 files", rank);
        } else {
            int pc = piece_from_char(ch);
            if (pc < 0)
                return ERROR_SET(err, "FEN has an unknown piece letter '%c'", ch);
            if (file >= FILE_NB)
                return ERROR_SET(err, "FEN rank %d has more than 9 files", rank);
            Square s = sq_make(file, rank);
            if (!placement_ok((Piece)pc, s, err))
                return false;
            if (++counts[pc] > PIECE_LIMIT[piece_type((Piece)pc)])
                return ERROR_SET(
                    err, "FEN has too many %s %ss (at most %d)", color_name(piece_color((Piece)pc)),
                    PIECE_NAMES[piece_type((Piece)pc)], PIECE_LIMIT[piece_type((Piece)pc)]);
            pos_put_piece(pos, (Piece)pc, s);
            if (piece_type((Piece)pc) == KING)
                pos->king_sq[piece_color((Piece)pc)] = s;
            file++;
        }
    }
    if (rank != 0)
        return ERROR_SET(err, "FEN board has %d ranks, not 10", RANK_NB - rank);
    for (Color c = RED; c < COLOR_NB; c++)
        if (!counts[piece_make(c, KING)])
            return ERROR_SET(err, "FEN has no %s general", color_name(c));
    return true;
}

/* The fields after the board (nf of them in all): the side to move, two '-', the
 * half-move clock into *rule60 and the move number into pos->game_ply; the side not to
 * move may not be in check. */
static bool parse_state(Position *pos, char *const *fields, int nf, long *rule60, PosError *err)
{
    const char *stm = fields[1];
    if (!strcmp(stm, "w") || !strcmp(stm, "r"))
        pos->side = RED;
    else if (!strcmp(stm, "b"))
        pos->side = BLACK;
    else
        return ERROR_SET(err, "FEN side to move is '%s', not 'w' or 'b'", stm);

    /* The clock takes every value the position keeps (from 120 on the game is a 60-move
     * draw, which is the rules' verdict, not the reader's), so that every FEN that
     * pos_get_fen writes reads back. */
    long fullmove = 1;
    *rule60 = 0;
    if (nf >= 5 && !parse_count(fields[4], UINT8_MAX, rule60))
        return ERROR_SET(err, "FEN half-move clock '%s' is not a number from 0 to %d", fields[4],
                         UINT8_MAX);
    if (nf >= 6 && (!parse_count(fields[5], FEN_MOVE_NUMBER_MAX, &fullmove) || fullmove < 1))
        return ERROR_SET(err, "FEN move number '%s' is not a positive number", fields[5]);
    for (int i = 2; i < nf && i < 4; i++)
        if (strcmp(fields[i], "-"))
            return ERROR_SET(err, "FEN field %d is '%s', expected '-'", i + 1, fields[i]);

    Color them = color_flip(pos->side);
    if (king_attackers(pos, them))
        return ERROR_SET(err, "side not to move (%s) is in check", color_name(them));
    pos->game_ply = (int)(fullmove - 1) * 2 + (pos->side == BLACK);
    return true;
}

bool pos_set_fen(Position *out, const char *fen, PosError *err)
{
    position_init(); /* every position starts here: the tables are ready before use */
    if (!fen)
        return ERROR_SET(err, "empty FEN");
    char buf[256];
    if (strlen(fen) >= sizeof buf)
        return ERROR_SET(err, "FEN is too long (%zu characters)", strlen(fen));
    strcpy(buf, fen);

    char *fields[7];
    int nf = 0;
    for (char *tok = strtok(buf, " \t\r\n"); tok; tok = strtok(NULL, " \t\r\n")) {
        if (nf == 6)
            return ERROR_SET(err, "FEN has more than six fields");
        fields[nf++] = tok;
    }
    if (nf < 2)
        return ERROR_SET(err, "FEN needs at least a board and a side to move");

    Position *pos = malloc(sizeof *pos);
    if (!pos)
        return ERROR_SET(err, "out of memory");
    memset(pos, 0, offsetof(Position, hist) + sizeof(StateInfo));
    long rule60;
    bool ok = parse_board(pos, fields[0], err) && parse_state(pos, fields, nf, &rule60, err);
    if (ok) {
        pos->hist_len = 1;
        StateInfo *st = &pos->hist[0];
        st->key = pos_compute_key(pos);
        st->checkers = king_attackers(pos, pos->side);
        st->move = MOVE_NONE;
        st->captured = NO_PIECE;
        st->rule60 = (uint8_t)rule60;
        st->since_capture = 0;
        pos_copy(out, pos);
    }
    free(pos);
    return ok;
}

void pos_get_fen(const Position *pos, char *buf, size_t size)
{
    char tmp[128];
    int n = 0;
    for (int r = RANK_NB - 1; r >= 0; r--) {
        int empty = 0;
        for (int f = 0; f < FILE_NB; f++) {
            Piece pc = pos_piece_on(pos, sq_make(f, r));
            if (!pc) {
                empty++;
                continue;
            }
            if (empty)
                tmp[n++] = (char)('0' + empty);
            empty = 0;
            tmp[n++] = PIECE_CHARS[pc];
        }
        if (empty)
            tmp[n++] = (char)('0' + empty);
        if (r)
            tmp[n++] = '/';
    }
    tmp[n] = '\0';
    /* capped so that a game played on from the largest move number still reads back */
    int number = pos->game_ply / 2 + 1;
    snprintf(buf, size, "%s %c - - %d %d", tmp, pos->side == RED ? 'w' : 'b',
             pos_state(pos)->rule60, number < FEN_MOVE_NUMBER_MAX ? number : FEN_MOVE_NUMBER_MAX);
}

bool pos_is_ok(const Position *pos, const char **why)
{
    Bitboard occ = 0, bycol[COLOR_NB] = {0};
    uint16_t ro[RANK_NB] = {0}, fo[FILE_NB] = {0};
    *why = NULL;
    for (Square s = 0; s < SQUARE_NB; s++) {
        Piece pc = pos_piece_on(pos, s);
        if (!pc)
            continue;
        if (!piece_type(pc) || pc >= PIECE_NB || !bb_test(pos->by_piece[pc], s)) {
            *why = "board and piece bitboards disagree";
            return false;
        }
        occ |= bb_square(s);
        bycol[piece_color(pc)] |= bb_square(s);
        ro[sq_rank(s)] |= (uint16_t)(1u << sq_file(s));
        fo[sq_file(s)] |= (uint16_t)(1u << sq_rank(s));
    }
    Bitboard all = 0;
    for (int p = 0; p < PIECE_NB; p++)
        all ^= pos->by_piece[p];
    if (occ != pos->occupied || all != occ || bycol[RED] != pos->by_color[RED] ||
        bycol[BLACK] != pos->by_color[BLACK]) {
        *why = "occupancy bitboards disagree with the board";
        return false;
    }
    if (memcmp(ro, pos->rank_occ, sizeof ro) || memcmp(fo, pos->file_occ, sizeof fo)) {
        *why = "line occupancies disagree with the board";
        return false;
    }
    for (Color c = RED; c < COLOR_NB; c++)
        if (pos->board[pos->king_sq[c]] != piece_make(c, KING) ||
            bb_count(pos_pieces(pos, c, KING)) != 1) {
            *why = "general square is wrong";
            return false;
        }
    if (pos_compute_key(pos) != pos_key(pos)) {
        *why = "incremental key differs from a full recompute";
        return false;
    }
    if (king_attackers(pos, pos->side) != pos_checkers(pos)) {
        *why = "stored checkers are wrong";
        return false;
    }
    if (king_attackers(pos, color_flip(pos->side))) {
        *why = "side not to move is in check";
        return false;
    }
    return true;
}
