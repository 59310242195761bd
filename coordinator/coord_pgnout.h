/*
 * -pgnout: every game of the run in a PGN file, appended as the games become durable,
 * as cutechess-cli appends each game.
 *
 * After each flush of the run file the games it made durable are appended in one
 * write() and the file is fsync'ed, before their ACKs go out; so a killed coordinator
 * leaves a PGN holding at most the games of its file. On opening, the file's games of
 * this run (their Event tag, "chuhe run <run id>") are counted, an incomplete last game
 * of this run (a write cut short by a kill) is cut off, and the games the run file
 * holds beyond that count are appended first: a resumed run's PGN neither loses nor
 * repeats a game, and a PGN given only to a later session gets the run's earlier games.
 * The games of this run are assumed to be in the file in game order (as this module
 * writes them); games of other runs in the file are left alone.
 */
#ifndef CHUHE_COORD_PGNOUT_H
#define CHUHE_COORD_PGNOUT_H

#include <stdbool.h>
#include <stdint.h>

#include "coord_config.h"
#include "contracts/runfile.h"

typedef struct CoordPgnOut CoordPgnOut;

/* Opens path (created when missing) and counts this run's games in it; NULL with the
 * reason in err. */
CoordPgnOut *coord_pgnout_open(const char *path, RunFile *rf, CoordError *err);

/* Appends the run file's flushed games that the PGN lacks, then fsyncs. False when they
 * could not be written (logged once until a write succeeds; the file is left as it was,
 * and the next call tries again). */
bool coord_pgnout_sync(CoordPgnOut *p, RunFile *rf);

/* The games of this run in the PGN. */
uint64_t coord_pgnout_games(const CoordPgnOut *p);

/* Closes; *p becomes NULL. */
void coord_pgnout_close(CoordPgnOut **p);

#endif
