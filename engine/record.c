#include "record.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "movegen.h"
#include "notation.h"

/* FEN letters by Piece code; 0 and 8 are no piece. */
static const char FEN_LETTERS[PIECE_NB] = " KABNRCP?kabnrcp";

void record_pack(const Position *pos, PackedPos *out)
{
    /* two points a byte, the even one low: SQUARE_NB is even */
    for (int i = 0; i < SQUARE_NB / 2; i++)
        out->b[i] = (uint8_t)(pos->board[2 * i] | pos->board[2 * i + 1] << 4);
    out->b[PACKED_SIDE] = (uint8_t)pos->side;
    out->b[PACKED_RULE60] = pos_state(pos)->rule60;
    out->b[PACKED_RESERVED] = 0;
}

/* Unpacking goes through a FEN so that a packed position passes exactly the checks a
 * FEN does (palaces, piece counts, general safety), with one implementation of them. */
bool record_unpack(const PackedPos *in, Position *pos, PosError *err)
{
    if (in->b[PACKED_SIDE] > 1)
        return ERROR_SET(err, "packed position: side to move byte is %d, not 0 or 1",
                         in->b[PACKED_SIDE]);
    if (in->b[PACKED_RESERVED] != 0)
        return ERROR_SET(err, "packed position: reserved byte is %d, not 0",
                         in->b[PACKED_RESERVED]);
    /* Stored positions come before a move, so never after a 60-move verdict (120 plies),
     * although a FEN may give such a position. */
    if (in->b[PACKED_RULE60] >= 120)
        return ERROR_SET(err, "packed position: 60-move counter %d is past the 60-move rule",
                         in->b[PACKED_RULE60]);
    char fen[RECORD_FEN_MAX];
    int n = 0;
    for (int rank = RANK_NB - 1; rank >= 0; rank--) {
        int empty = 0;
        for (int file = 0; file < FILE_NB; file++) {
            Square s = sq_make(file, rank);
            int code = (in->b[s / 2] >> (s & 1 ? 4 : 0)) & 15;
            if (code == 0) {
                empty++;
                continue;
            }
            if (code == 8) {
                char name[3];
                square_to_text(s, name);
                return ERROR_SET(err, "packed position: point %s holds code 8, which is no piece",
                                 name);
            }
            if (empty)
                fen[n++] = (char)('0' + empty);
            empty = 0;
            fen[n++] = FEN_LETTERS[code];
        }
        if (empty)
            fen[n++] = (char)('0' + empty);
        if (rank)
            fen[n++] = '/';
    }
    snprintf(fen + n, sizeof fen - (size_t)n, " %c - - %d 1", in->b[PACKED_SIDE] ? 'b' : 'w',
             in->b[PACKED_RULE60]);
    PosError fen_err;
    if (!pos_set_fen(pos, fen, &fen_err))
        return ERROR_SET(err, "packed position: %s", fen_err.msg);
    return true;
}

void record_init(GameRecord *r, uint64_t game_id, const char *start_fen)
{
    r->game_id = game_id;
    snprintf(r->start_fen, sizeof r->start_fen, "%s", start_fen ? start_fen : START_FEN);
    r->nplies = 0;
    r->outcome = OUTCOME_NONE;
    r->reason = REASON_NONE;
}

bool record_push(GameRecord *r, const RecordPly *ply)
{
    if (r->nplies < 0 || r->nplies >= RECORD_MAX_PLIES)
        return false;
    r->plies[r->nplies++] = *ply;
    return true;
}

uint8_t record_move_flags(const Position *pos, Move m)
{
    uint8_t flags = 0;
    if (pos_in_check(pos))
        flags |= RECORD_FLAG_IN_CHECK;
    if (pos_is_capture(pos, m))
        flags |= RECORD_FLAG_CAPTURE;
    if (pos_gives_check(pos, m))
        flags |= RECORD_FLAG_GIVES_CHECK;
    return flags;
}

Outcome record_outcome_from(Color side_to_move, Result result)
{
    switch (result) {
    case RESULT_WIN:
        return side_to_move == RED ? OUTCOME_RED_WIN : OUTCOME_BLACK_WIN;
    case RESULT_LOSS:
        return side_to_move == RED ? OUTCOME_BLACK_WIN : OUTCOME_RED_WIN;
    case RESULT_DRAW:
        return OUTCOME_DRAW;
    default:
        return OUTCOME_NONE;
    }
}

Result record_result_for(Outcome o, Color c)
{
    switch (o) {
    case OUTCOME_RED_WIN:
        return c == RED ? RESULT_WIN : RESULT_LOSS;
    case OUTCOME_BLACK_WIN:
        return c == BLACK ? RESULT_WIN : RESULT_LOSS;
    case OUTCOME_DRAW:
        return RESULT_DRAW;
    default:
        return RESULT_NONE;
    }
}

const char *record_outcome_pgn(Outcome o)
{
    switch (o) {
    case OUTCOME_RED_WIN:
        return "1-0";
    case OUTCOME_DRAW:
        return "1/2-1/2";
    case OUTCOME_BLACK_WIN:
        return "0-1";
    default:
        return "*";
    }
}

static const char *outcome_name(Outcome o)
{
    switch (o) {
    case OUTCOME_RED_WIN:
        return "red wins";
    case OUTCOME_DRAW:
        return "draw";
    case OUTCOME_BLACK_WIN:
        return "black wins";
    default:
        return "no result";
    }
}

/* Whether the runner may end a game that the rules let go on with this reason and
 * outcome; side_to_move was to play when the game stopped. */
static bool runner_result_ok(Reason reason, Outcome o, Color side_to_move)
{
    Outcome loss = side_to_move == RED ? OUTCOME_BLACK_WIN : OUTCOME_RED_WIN;
    bool decisive = o == OUTCOME_RED_WIN || o == OUTCOME_BLACK_WIN;
    if (reason == REASON_MOVE_LIMIT && o == OUTCOME_DRAW)
        return true;
    if (reason == REASON_ADJUDICATION_DRAW && o == OUTCOME_DRAW)
        return true;
    if (reason == REASON_ADJUDICATION_RESIGN && decisive)
        return true;
    if ((reason == REASON_ILLEGAL_MOVE || reason == REASON_ENGINE_CRASH ||
         reason == REASON_RESIGN) &&
        o == loss)
        return true;
    if (reason == REASON_TIME_FORFEIT && (o == loss || o == OUTCOME_DRAW))
        return true;
    return false;
}

/* Coordinate text of m in buf, for error messages only: a valid replay writes none. */
static const char *move_text(Move m, char buf[5])
{
    move_to_text(m, buf);
    return buf;
}

/*
 * The rules' verdict before a ply. A legal move to play means the side to move is
 * neither mated nor stalemated, so then only repetition, the 60-move rule and material
 * are judged (rules_judge_search at the root: rules_judge_game without its move count);
 * otherwise the full verdict, so that a move after the end is reported as such.
 */
static Verdict judge_before(Position *pos, bool has_move)
{
    if (!has_move)
        return rules_judge_game(pos);
    Verdict v = {RESULT_NONE, REASON_NONE, 0};
    RulesBound bound;
    if (!rules_judge_search(pos, 0, &v, &bound))
        v.result = RESULT_NONE;
    return v;
}

static bool validate_on(const GameRecord *r, Position *pos, PackedPos *boards, PosError *err)
{
    /* the ranges its sources guarantee: the wire's decoder (proto_decode), the run file's
     * reader and the game loop */
    assert(r->nplies >= 0 && r->nplies <= RECORD_MAX_PLIES);
    assert(memchr(r->start_fen, '\0', sizeof r->start_fen));
    assert((unsigned)r->outcome <= OUTCOME_BLACK_WIN && (unsigned)r->reason < REASON_NB);
    PosError fen_err;
    if (!pos_set_fen(pos, r->start_fen, &fen_err))
        return ERROR_SET(err, "start FEN: %s", fen_err.msg);

    char text[5];
    for (int i = 0; i < r->nplies; i++) {
        const RecordPly *p = &r->plies[i];
        /* Repetitions reach back at most to the last capture, which trimming keeps. */
        if (pos_history_full(pos))
            pos_trim_history(pos);
        if (pos_history_full(pos))
            return ERROR_SET(err, "ply %d: more than %d plies without a capture", i + 1,
                             POS_HISTORY_MAX - 1);
        bool legal = move_is_legal(pos, p->move);
        Verdict v = judge_before(pos, legal);
        if (v.result != RESULT_NONE)
            return ERROR_SET(err, "ply %d (%s): the game was already over (%s, %s)", i + 1,
                             move_text(p->move, text),
                             outcome_name(record_outcome_from(pos->side, v.result)),
                             rules_reason_name(v.reason));
        if (!legal)
            return ERROR_SET(err, "ply %d: move %s is illegal", i + 1, move_text(p->move, text));
        if (p->best != MOVE_NONE && p->best != p->move && !move_is_legal(pos, p->best)) {
            char best[5];
            return ERROR_SET(err, "ply %d (%s): best move %s is illegal", i + 1,
                             move_text(p->move, text), move_text(p->best, best));
        }
        /* record_move_flags, with GIVES_CHECK read from the position the move makes */
        uint8_t expect = (uint8_t)((pos_in_check(pos) ? RECORD_FLAG_IN_CHECK : 0) |
                                   (pos_is_capture(pos, p->move) ? RECORD_FLAG_CAPTURE : 0));
        if (boards)
            record_pack(pos, &boards[i]);
        pos_do_move(pos, p->move);
        if (pos_in_check(pos))
            expect |= RECORD_FLAG_GIVES_CHECK;
        if ((p->flags & ~RECORD_FLAG_OPENING) != expect)
            return ERROR_SET(err, "ply %d (%s): flags 0x%02x, but the move has 0x%02x", i + 1,
                             move_text(p->move, text), p->flags & ~RECORD_FLAG_OPENING, expect);
    }

    if (pos_history_full(pos))
        pos_trim_history(pos);
    Verdict v = rules_judge_game(pos);
    if (v.result != RESULT_NONE) {
        Outcome o = record_outcome_from(pos->side, v.result);
        if (r->outcome != o || r->reason != v.reason)
            return ERROR_SET(err, "after ply %d the rules say %s (%s), the record claims %s (%s)",
                             r->nplies, outcome_name(o), rules_reason_name(v.reason),
                             outcome_name(r->outcome), rules_reason_name(r->reason));
        return true;
    }
    if (r->reason == REASON_NONE || r->outcome == OUTCOME_NONE)
        return ERROR_SET(err, "after ply %d the game is unfinished (%s, %s)", r->nplies,
                         outcome_name(r->outcome), rules_reason_name(r->reason));
    if (!runner_result_ok(r->reason, r->outcome, pos->side))
        return ERROR_SET(err, "after ply %d the rules give no verdict; %s (%s) cannot end the game",
                         r->nplies, outcome_name(r->outcome), rules_reason_name(r->reason));
    return true;
}

bool record_validate_boards(const GameRecord *r, PackedPos *boards, PosError *err)
{
    /* A Position carries its whole history: too large for the stack of a worker thread. */
    Position *pos = malloc(sizeof *pos);
    if (!pos)
        return ERROR_SET(err, "out of memory");
    bool ok = validate_on(r, pos, boards, err);
    free(pos);
    return ok;
}

bool record_validate(const GameRecord *r, PosError *err)
{
    return record_validate_boards(r, NULL, err);
}
