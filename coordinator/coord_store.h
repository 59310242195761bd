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

typedef struct CoordHub CoordHub;

/* Handles worker i's GAME (h->msg). */
void coord_store_game(CoordHub *h, int i);

#endif
