/*
 * Every evaluation term, declared once. Each entry is
 *     X(name, count, index kind, meaning)
 * and expands into the parameter storage (EvalParams), the tuner's trace, the
 * weights-file reader and writer, and the defaults. A term is an array of `count`
 * packed (midgame, endgame) scores from Red's point of view; Black's side is mirrored.
 *
 * Index kinds say how an entry is named in a weights file:
 *   IDX_ONE     "name"            a single value
 *   IDX_PIECE   "name[horse]"     by piece type, advisor (index 0) to soldier
 *   IDX_SQUARE  "name[e4]"        by point, as seen by Red
 *   IDX_COUNT   "name[3]"         by a count (mobility, attackers, ...)
 */
#ifndef CHUHE_EVAL_TERMS_H
#define CHUHE_EVAL_TERMS_H

#include <stddef.h>

#include "score.h"
#include "types.h"

typedef enum { IDX_ONE, IDX_PIECE, IDX_SQUARE, IDX_COUNT } EvalIndexKind;

#define EVAL_TERMS(X)                                                                          \
    X(material, PIECE_TYPE_NB - ADVISOR, IDX_PIECE, "value of each piece type")                \
    X(psqt_king, SQUARE_NB, IDX_SQUARE, "general placement")                                   \
    X(psqt_advisor, SQUARE_NB, IDX_SQUARE, "advisor placement")                                \
    X(psqt_elephant, SQUARE_NB, IDX_SQUARE, "elephant placement")                              \
    X(psqt_horse, SQUARE_NB, IDX_SQUARE, "horse placement")                                    \
    X(psqt_chariot, SQUARE_NB, IDX_SQUARE, "chariot placement")                                \
    X(psqt_cannon, SQUARE_NB, IDX_SQUARE, "cannon placement")                                  \
    X(psqt_soldier, SQUARE_NB, IDX_SQUARE, "soldier placement")                                \
    X(mobility_horse, 9, IDX_COUNT, "horse moves not blocked at the leg")                      \
    X(mobility_chariot, 18, IDX_COUNT, "chariot moves")                                        \
    X(mobility_cannon, 18, IDX_COUNT, "cannon quiet moves plus captures")                      \
    X(tempo, 1, IDX_ONE, "bonus for the side to move")                                         \
    X(advisor_pair, 1, IDX_ONE, "both advisors, guarding each other")                          \
    X(elephant_pair, 1, IDX_ONE, "both elephants, guarding each other")                        \
    X(central_cannon, 1, IDX_ONE, "cannon on the enemy general's file, with screens")          \
    X(cannon_open_head, 1, IDX_ONE, "cannon facing the enemy general with nothing between")    \
    X(cannon_pieces, 10, IDX_COUNT, "cannon by other pieces on the board, halved (screens)")   \
    X(horse_leg_own, 1, IDX_ONE, "horse leg blocked by an own piece")                          \
    X(chariot_open_file, 1, IDX_ONE, "chariot on a file with no soldiers")                     \
    X(chariot_half_open, 1, IDX_ONE, "chariot on a file with no own soldier")                  \
    X(king_danger, 16, IDX_COUNT, "attack units against the palace, less its guards")          \
    X(hanging, PIECE_TYPE_NB - ADVISOR, IDX_PIECE, "piece attacked and not defended")          \
    X(threat_by_lesser, PIECE_TYPE_NB - ADVISOR, IDX_PIECE, "piece attacked by a cheaper one") \
    X(king_exposed_file, 1, IDX_ONE, "general on a file with an enemy chariot or cannon")      \
    X(safe_check_chariot, 1, IDX_ONE, "chariot can check from a point we do not guard")        \
    X(safe_check_horse, 1, IDX_ONE, "horse can check from a point we do not guard")            \
    X(safe_check_cannon, 1, IDX_ONE, "cannon can check from a point we do not guard")          \
    X(pinned, PIECE_TYPE_NB - ADVISOR, IDX_PIECE, "piece shielding its general from a line")   \
    X(soldier_connected, 1, IDX_ONE, "crossed soldiers side by side, guarding each other")     \
    X(guards_vs_attack, 11, IDX_COUNT, "each advisor and elephant, by the enemy's attackers")  \
    X(palace_attack_kinds, 4, IDX_COUNT, "kinds of piece (chariot, horse, cannon) on the palace")

typedef struct {
#define X(name, count, kind, meaning) Score name[count];
    EVAL_TERMS(X)
#undef X
} EvalParams;

typedef struct {
    const char *name;
    int count;
    EvalIndexKind kind;
    const char *meaning;
    size_t offset; /* of the term's first Score inside EvalParams */
} EvalTermInfo;

enum {
#define X(name, count, kind, meaning) EVAL_TERM_##name,
    EVAL_TERMS(X)
#undef X
        EVAL_TERM_NB
};

extern const EvalTermInfo EVAL_TERM_INFO[EVAL_TERM_NB];

/* Number of scalar (mg, eg) pairs in EvalParams. */
enum { EVAL_PARAM_NB = sizeof(EvalParams) / sizeof(Score) };

#endif
