/*
 * A GAME from a worker: judged (coord_accept), stored in the run file, counted in the
 * statistics and the schedule, and acknowledged: stored, duplicate (a resend of a game
 * already stored) or rejected. The ACK of a stored game waits for the flush that makes
 * it durable (coord_outbox).
 *
 * While the run file cannot be written no game is taken and none is acknowledged: the
 * worker sends it again later. A decided SPRT stops the schedule: no new pairs, the
 * workers finish the games they play.
 */
#ifndef CHUHE_COORD_STORE_H
#define CHUHE_COORD_STORE_H

#include <stddef.h>
#include <stdint.h>

typedef struct CoordHub CoordHub;

/* A game appended to the run file and not yet flushed: it enters the statistics (and
 * may decide the SPRT) only once it is durable, so that every count shown, live or in
 * the summary, is one of games in the file. It keeps what the statistics need of its
 * record, so that nothing is read back from the file. */
typedef struct {
    uint64_t id, nodes;
    uint64_t key; /* runfile_record_key: whether it repeats an earlier game */
    int worker;
} CoordUnflushedGame;

typedef struct {
    CoordUnflushedGame *items;
    size_t count, cap;
} CoordUnflushed;

/* Handles worker i's GAME (h->msg). */
void coord_store_game(CoordHub *h, int i);

/* Pairs complete in the schedule whose last game still waits for the flush: in the
 * counts shown they are still out, not done. */
uint64_t coord_store_pairs_waiting(const CoordHub *h);

/* The run file was flushed: counts the games that waited for it. */
void coord_store_flushed(CoordHub *h);

/*
 * The server stops with games the run file could not take (a full disk): they leave
 * the run file's handle and the schedule and are never counted, so that nothing writes
 * them after the summary and the ack log's close line. None was acknowledged: their
 * workers send them again to the next session. Returns how many.
 */
uint64_t coord_store_drop_unflushed(CoordHub *h);

void coord_store_free(CoordUnflushed *u);

#endif
