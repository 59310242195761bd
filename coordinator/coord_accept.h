/*
 * Whether a GAME from a worker may enter the run file. A game is taken only if it
 * belongs to this run and to a pair the schedule handed out (or may adopt), starts
 * from that pair's opening and plays its moves first, respects the run's move limit
 * and adjudication settings, and replays under record_validate: every move legal and
 * the claimed result the rules' own. A game already stored is a duplicate (a resend),
 * acknowledged but not stored again.
 */
#ifndef CHUHE_COORD_ACCEPT_H
#define CHUHE_COORD_ACCEPT_H

#include <stddef.h>
#include <stdint.h>

#include "coord_config.h"
#include "coord_sched.h"
#include "contracts/protocol.h"
#include "contracts/runfile.h"

typedef enum { ACCEPT_STORE, ACCEPT_ADOPT, ACCEPT_DUPLICATE, ACCEPT_REJECT } AcceptVerdict;

/* What judging a game found, handed on so that storing and counting it look nothing up
 * again: the run file's duplicate lookup, the pair's engines and the move-list key are
 * each made once a game. */
typedef struct {
    uint64_t game_id; /* ACCEPT_DUPLICATE: the id the game is stored as */
    int red, black;   /* the engines playing Red and Black (coord_sched_pair_engines) */
    uint64_t key;     /* runfile_record_key of its record: which games it repeats */
} CoordAccepted;

/*
 * Judges g. ACCEPT_STORE: store it; ACCEPT_ADOPT: store it and adopt its pair
 * (coord_sched_adopt) first; ACCEPT_DUPLICATE: stored before as out->game_id;
 * ACCEPT_REJECT: why says why. Generates the pair's opening when needed. A game to store
 * leaves its engines and key in *out and the position before each of its plies in boards
 * (g->rec.nplies entries), packed by the replay that validated it, for
 * runfile_append_validated. g is a decoded GAME (proto_decode): its fields are in range.
 */
AcceptVerdict coord_accept_game(const CoordConfig *cfg, RunFile *rf, Schedule *sched,
                                const ProtoGame *g, PackedPos *boards, CoordAccepted *out,
                                char *why, size_t size);

#endif
