/*
 * The game-ending rules (Asian rules in Pikafish's form): repetition judged over its
 * cycle (perpetual check, perpetual chase, draw), the 60-move rule, insufficient
 * material, checkmate and stalemate. One module for the search, the game loop and the
 * validator, so that all three judge a position the same way.
 *
 * Every verdict is for the side to move in the position judged. Functions take the
 * position with the history of the moves that led to it and leave it as they found it.
 */
#ifndef CHUHE_RULES_H
#define CHUHE_RULES_H

#include "position.h"

typedef enum { RESULT_NONE, RESULT_WIN, RESULT_DRAW, RESULT_LOSS, RESULT_NB } Result;

/*
 * Why a game ended. The names from rules_reason_name() are stored in files and PGN
 * Termination tags: never rename or renumber, only append.
 * REASON_PERPETUAL_CHECK and REASON_PERPETUAL_CHASE always come with a decisive result;
 * a repetition that ends drawn (mutual checks or chases included) is REASON_REPETITION.
 * The reasons after REASON_MATERIAL are never judged here; the game loop sets them.
 */
typedef enum {
    REASON_NONE,
    REASON_CHECKMATE,           /* "checkmate": no legal move while in check */
    REASON_STALEMATE,           /* "stalemate": no legal move, not in check (a loss) */
    REASON_PERPETUAL_CHECK,     /* "perpetual-check" */
    REASON_PERPETUAL_CHASE,     /* "perpetual-chase" */
    REASON_REPETITION,          /* "repetition": a drawn repetition */
    REASON_RULE60,              /* "60-move-rule" */
    REASON_MATERIAL,            /* "insufficient-material" */
    REASON_MOVE_LIMIT,          /* "move-limit": the runner's game-length cap */
    REASON_ILLEGAL_MOVE,        /* "illegal-move" */
    REASON_TIME_FORFEIT,        /* "time-forfeit" */
    REASON_ADJUDICATION_RESIGN, /* "adjudication-resign": both engines' scores agreed */
    REASON_ADJUDICATION_DRAW,   /* "adjudication-draw": both scores stayed near zero */
    REASON_ENGINE_CRASH,        /* "engine-crash": an external engine died or hung */
    REASON_RESIGN,              /* "resign": an external engine resigned */
    REASON_NB
} Reason;

typedef struct {
    Result result; /* for the side to move */
    Reason reason;
    int span; /* plies of the repetition cycle judged; 0 when not a repetition */
} Verdict;

/* What a search may assume when a repetition inside the tree is not final (rules.md 2). */
typedef enum {
    RULES_BOUND_NONE,
    RULES_BOUND_LOWER, /* the side to move would win the cycle: alpha >= draw */
    RULES_BOUND_UPPER  /* the side to move would lose the cycle: beta <= draw */
} RulesBound;

/* Insufficient material (rules.md 6). MATERIAL_MATE_DRAW is a draw unless the side to
 * move has no legal move (a loss) or can take away all the opponent's moves (play on). */
typedef enum { MATERIAL_PLAY_ON, MATERIAL_DRAW, MATERIAL_MATE_DRAW } MaterialLevel;

/*
 * The verdict of a played game at the current position: repetition (on the third
 * occurrence, judged from the earliest), 60-move rule, insufficient material, then
 * checkmate and stalemate. RESULT_NONE when play goes on.
 */
Verdict rules_judge_game(Position *pos);

/*
 * The search's test at a node `ply` plies below the root (rules.md 2): a repetition
 * whose whole loop lies below the root counts on its second occurrence (ply 0 judges as
 * a played game does). Cheap when nothing repeats: a scan of the keys 4, 6, 8, ... plies
 * back within the plies since the last capture. Returns true with *v set when the
 * node's value is final (*bound is then RULES_BOUND_NONE); otherwise *v is untouched and
 * *bound says whether a repetition bounds the window. Mate and stalemate are left to the
 * search, which finds no legal moves.
 */
bool rules_judge_search(Position *pos, int ply, Verdict *v, RulesBound *bound);

/* The material table alone (no move generation). */
MaterialLevel rules_material_level(const Position *pos);

/*
 * A(c, P) of rules.md 4.1 for the current position: the enemy pieces that side c
 * chase-attacks, as if c were to move. Diagnostics and tests; the repetition judge
 * tracks pieces by identity rather than by square.
 */
Bitboard rules_chased(const Position *pos, Color c);

/* Stable lowercase names ("perpetual-check"); "unknown" outside the enum. */
const char *rules_reason_name(Reason r);
/* Parses a stored name; false if it is none of them. */
bool rules_reason_parse(const char *name, Reason *out);
/* "win", "draw", "loss" or "none". */
const char *rules_result_name(Result r);

#endif
