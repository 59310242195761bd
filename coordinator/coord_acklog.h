/*
 * The acknowledgement log (--ack-log FILE): an append-only record of what the
 * coordinator told its workers, for fault tests that check a run file against it.
 *
 * One JSON line per event, each written and flushed to the operating system before the
 * coordinator goes on, so that a SIGKILL never leaves out a line for an ACK that was
 * sent (the file is not fsynced: it survives a killed process, not a lost machine):
 *
 *   {"event":"open","pid":P,"run_id":"HEX","games":N}     a session starts, N games stored
 *   {"event":"ack","game_id":G,"pair_id":P,"game_in_pair":I,"status":"stored","worker":"..."}
 *   {"event":"close","games":N}                           a session ended cleanly
 *
 * An "ack" line is written after its game is durable in the run file and before the ACK
 * is sent; status is stored, duplicate (game_id is the row already holding it) or
 * rejected (game_id 0, nothing stored).
 */
#ifndef CHUHE_COORD_ACKLOG_H
#define CHUHE_COORD_ACKLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "contracts/protocol.h"

typedef struct AckLog AckLog;

/* Opens path for appending (before the run file exists, so that a log that cannot be
 * opened stops a start before anything is written); NULL with a message in err. */
AckLog *coord_acklog_open(const char *path, char *err, size_t size);

/* Writes the "open" line of a session of run run_id that starts with games stored. */
bool coord_acklog_begin(AckLog *l, uint64_t run_id, uint64_t games, char *err, size_t size);

/* Closes a log whose session never started, removing the file if coord_acklog_open made it. */
void coord_acklog_discard(AckLog **l);

/* Writes the line of one ACK sent to worker (a name for the log). False when the line
 * could not be written (err says why). */
bool coord_acklog_ack(AckLog *l, const ProtoAck *a, const char *worker, char *err, size_t size);

/* Closes; *l becomes NULL. With clean (the session ends well, every ACK logged), the
 * "close" line with the games stored goes first. False when a write failed. */
bool coord_acklog_close(AckLog **l, bool clean, uint64_t games, char *err, size_t size);

#endif
