/*
 * Handing out work: a worker's WORK_REQUEST answered with the next pair of the schedule
 * (a WORK message: the opening, both players with their limits, the adjudication
 * settings), a WAIT, or DONE once the run needs no more games.
 *
 * A worker holds at most one pair it is playing; a repeated request for a pair it has
 * sent nothing for yet (the WORK was lost) gets the same pair again, otherwise what it
 * held and did not finish goes back to the queue. A worker holding --max-inflight pairs
 * not yet acknowledged gets WAIT, and so does every worker while the run file cannot be
 * written.
 */
#ifndef CHUHE_COORD_DISPATCH_H
#define CHUHE_COORD_DISPATCH_H

typedef struct CoordHub CoordHub;

/* Answers worker i's WORK_REQUEST. */
void coord_dispatch_request(CoordHub *h, int i);

#endif
