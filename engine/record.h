/*
 * Game records and the compact position encoding: what workers send, what the
 * coordinator validates and stores, and what exports and the tuner read back.
 *
 * PackedPos, 48 bytes:
 *   bytes 0-44   one nibble per point: point s in byte s/2, low nibble for even s;
 *                nibble = Piece code (0 empty, 1-7 red K A B N R C P, 9-15 black)
 *   byte  45     side to move (0 red, 1 black)
 *   byte  46     60-move counter (rule60) of the position, below 120
 *   byte  47     0 (reserved)
 */
#ifndef CHUHE_RECORD_H
#define CHUHE_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "position.h"
#include "rules.h"
#include "score.h"

enum { PACKED_POS_SIZE = 48, RECORD_FEN_MAX = 128, RECORD_MAX_PLIES = 1024 };
enum { PACKED_SIDE = 45, PACKED_RULE60 = 46, PACKED_RESERVED = 47 }; /* bytes of PackedPos */

typedef struct {
    uint8_t b[PACKED_POS_SIZE];
} PackedPos;

/* The side to move and the piece on point s, read without unpacking (readers that
 * filter many stored positions). Only meaningful for a position record_unpack accepts. */
static inline int packed_side(const PackedPos *p)
{
    return p->b[PACKED_SIDE];
}
static inline Piece packed_piece(const PackedPos *p, Square s)
{
    return (Piece)((p->b[s / 2] >> (s & 1 ? 4 : 0)) & 15);
}

void record_pack(const Position *pos, PackedPos *out);
/* Rebuilds a position (no history) and validates it like a FEN. */
bool record_unpack(const PackedPos *in, Position *pos, PosError *err);

/* Game outcome from Red's point of view. */
typedef enum { OUTCOME_NONE, OUTCOME_RED_WIN, OUTCOME_DRAW, OUTCOME_BLACK_WIN } Outcome;

/* One move of a game as the mover's engine played it. */
typedef struct {
    Move move;
    Move best;      /* the engine's best move (equals move unless the move was forced
                       by an opening or chosen at random); MOVE_NONE for an opening move */
    int16_t score;  /* search score, mover's view, centi-soldiers; mates as +-(32000 - ply),
                       clamped to +-VALUE_MATE; 0 for an opening move */
    uint8_t depth;  /* completed search depth; 0 for a book/opening move */
    uint8_t flags;  /* RECORD_FLAG_* of the position before the move */
    uint32_t nodes; /* nodes searched for this move */
} RecordPly;

/* IN_CHECK, CAPTURE and GIVES_CHECK follow from the moves, and record_validate checks
 * them, so readers of stored games may trust them. */
enum {
    RECORD_FLAG_IN_CHECK = 1, /* the mover was in check */
    RECORD_FLAG_CAPTURE = 2,  /* the move captured */
    RECORD_FLAG_GIVES_CHECK = 4,
    RECORD_FLAG_OPENING = 8, /* the move came from the opening, not a search */
    RECORD_FLAGS_ALL = 15
};

typedef struct {
    uint64_t game_id;
    char start_fen[RECORD_FEN_MAX];
    int nplies;
    RecordPly plies[RECORD_MAX_PLIES];
    Outcome outcome;
    Reason reason;
} GameRecord;

/* An empty record from start_fen (NULL: the start position), stored as given; an
 * overlong FEN is cut and then fails validation. */
void record_init(GameRecord *r, uint64_t game_id, const char *start_fen);
/* Appends a ply; false when the record is full. */
bool record_push(GameRecord *r, const RecordPly *ply);
/* The flags IN_CHECK, CAPTURE and GIVES_CHECK of legal move m in pos. */
uint8_t record_move_flags(const Position *pos, Move m);

/*
 * Replays the record from its start FEN: every move must be legal, and the claimed
 * outcome and reason must equal what the rules say at the end (for rule verdicts:
 * checkmate, stalemate, repetition, perpetual check/chase, 60-move rule, material) or
 * be a result the runner may declare (move limit, adjudication, forfeit) that the
 * rules do not contradict: a game cannot be adjudicated past a rule verdict. On
 * failure, err names the ply and the problem.
 *
 * In detail: the game may not go on past a rules verdict. Runner results are allowed
 * only where the rules have none: move limit and draw adjudication with a draw; resign
 * adjudication with a win for either side; an illegal move with a loss for the side to
 * move (the illegal move itself is not recorded); time forfeit with a loss for the side
 * to move, or a draw. Each ply's best move must be MOVE_NONE or legal, and its flags
 * must match record_move_flags(). Messages number plies from 1.
 *
 * The record's fields are in range (0..RECORD_MAX_PLIES plies, a terminated start FEN,
 * a known outcome and reason), as the wire's decoder, the run file's reader and the game
 * loop make them: asserted, not checked again.
 */
bool record_validate(const GameRecord *r, PosError *err);

/*
 * record_validate, packing on the way the position before each ply into boards, one a
 * ply (boards may be NULL): the rows the run file stores (runfile_append_validated), so
 * that a game is replayed once between the wire and the file. On failure the boards
 * are unspecified.
 */
bool record_validate_boards(const GameRecord *r, PackedPos *boards, PosError *err);

/* Outcome from Red's view for a rules verdict given for the side to move. */
Outcome record_outcome_from(Color side_to_move, Result result);
/* The result for side c of a game that ended with outcome o (RESULT_NONE for none). */
Result record_result_for(Outcome o, Color c);
const char *record_outcome_pgn(Outcome o); /* "1-0", "1/2-1/2", "0-1", "*" */

#endif
