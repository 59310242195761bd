/*
 * The engine facade: what the UCI front end, the worker and the tuner call. One
 * Engine holds one game (position and history); several can live in one process.
 */
#ifndef CHUHE_ENGINE_H
#define CHUHE_ENGINE_H

#include "perft.h"
#include "position.h"

typedef struct Engine Engine;

/* Initialises the global tables (idempotent) and returns a new engine at the start
 * position, or NULL when out of memory. */
Engine *engine_new(void);
void engine_free(Engine **e);

/* Forgets everything learnt in the previous game. */
void engine_new_game(Engine *e);

/*
 * Sets the position from a FEN (NULL for the start position) and plays the moves
 * (coordinate text). On any error the engine keeps its previous position, err says
 * what and where, and false is returned.
 */
bool engine_set_position(Engine *e, const char *fen, const char *const *moves, int nmoves,
                         PosError *err);

const Position *engine_position(const Engine *e);

uint64_t engine_perft(Engine *e, int depth, PerftDivideFn fn, void *ctx);

#endif
