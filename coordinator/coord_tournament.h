/*
 * Who plays whom: the pairings of a match, a round robin or a gauntlet, and which
 * pairing each game pair (by its id) belongs to. Pure arithmetic, so that the pair id
 * alone tells a restarted coordinator the engines of a stored game.
 *
 * A cycle holds every pairing of the tournament once; pair ids run through cycle 0,
 * then cycle 1, and so on, so -rounds N plays N cycles.
 *   match       two engines: the pairing (0, 1), engine 0 first in every pair.
 *   round robin every two engines once per cycle, ordered by the circle method (Berger
 *               tables): the cycle is split into rounds in which each engine plays at
 *               most once, so partial results stay balanced; with an odd number of
 *               engines one sits out each round.
 *   gauntlet    engine 0 against engines 1, 2, ... in turn.
 * "First" is the engine with Red in game 0 of the pair (it has Black in game 1). With
 * more than two engines the first and second swap in every odd cycle, so each engine
 * leads its pairs as often as it follows.
 */
#ifndef CHUHE_COORD_TOURNAMENT_H
#define CHUHE_COORD_TOURNAMENT_H

#include <stdbool.h>
#include <stdint.h>

typedef enum { TOUR_ROUNDROBIN, TOUR_GAUNTLET, TOUR_KIND_NB } TourKind;

enum { TOUR_MAX_ENGINES = 32 };

/* "roundrobin" (also "round-robin") or "gauntlet"; false for anything else. */
bool coord_tournament_kind_parse(const char *name, TourKind *out);
const char *coord_tournament_kind_name(TourKind k); /* "roundrobin", "gauntlet"; "unknown" */

/* Pairings in one cycle: 1 for two engines, n(n-1)/2 for a round robin, n-1 for a
 * gauntlet; 0 unless 2 <= engines <= TOUR_MAX_ENGINES. */
uint64_t coord_tournament_pairings(TourKind kind, int engines);

/* The engines of pair id: first (Red in game 0) and second. */
void coord_tournament_pair_engines(TourKind kind, int engines, uint64_t pair_id, int *first,
                                   int *second);

#endif
