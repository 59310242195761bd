/*
 * The coordinator's server loop: one ZeroMQ ROUTER socket that worker ranks (DEALER)
 * talk to, and the GAME -> validate -> store -> flush -> ACK path.
 *
 * One thread. Each turn of the loop polls the socket and a self-pipe that the SIGINT,
 * SIGTERM and SIGHUP handler writes to, and drains every waiting message: each passes
 * its worker's limits and key (coord_workers), is decoded, and goes to its handler
 * (coord_work for WORK_REQUEST, coord_store for GAME). Stored games are committed in
 * groups, and no ACK ever precedes durability (coord_outbox: a flush once 32 games wait
 * or the oldest has waited two seconds, before any DONE and on the way out). Workers
 * silent for longer than the heartbeat timeout lose their pair to the queue.
 *
 * Who may connect is coord_auth's business (CURVE and its ZAP handler, polled in the same
 * loop; SIGHUP reads the allow-list again when keys are on, and stops the coordinator
 * otherwise). Every message first passes its worker's limits (coord_quota.h: a rate limit,
 * and no new pair for a worker holding --max-inflight pairs unacknowledged).
 *
 * A flush that fails (a full disk, a quota, a file size limit) stalls the server instead
 * of ending it: the ACKs of the games waiting for that flush are held, no work goes out
 * (WAIT) and no game is taken (the workers send theirs again later), heartbeats are
 * answered, and the flush is tried again every 5 s; once it succeeds everything goes on.
 * A write that failed part-way (runfile_broken) stalls until SIGTERM: the file keeps every
 * acknowledged game, and a restarted coordinator goes on from it.
 */
#ifndef CHUHE_COORD_SERVER_H
#define CHUHE_COORD_SERVER_H

#include <stdint.h>

#include "coord_config.h"
#include "coord_live.h"
#include "coord_pgnout.h"
#include "coord_sched.h"
#include "coord_runstats.h"
#include "contracts/runfile.h"

typedef struct Spsa Spsa;

typedef struct {
    const CoordConfig *cfg;
    RunFile *rf;
    Schedule *sched;
    RunStats *stats;
    uint16_t players[COORD_MAX_ENGINES]; /* run file player id of each engine */
    CoordLive *live; /* the live page's snapshot, published with each progress line; NULL: none */
    Spsa *spsa;      /* an SPSA run's state (coord_spsa.h); NULL for others */
    CoordPgnOut *pgnout; /* -pgnout, appended after each flush; NULL: none */
} CoordRun;

typedef enum {
    SERVE_COMPLETE,    /* the target is reached */
    SERVE_INTERRUPTED, /* a signal; *signo says which */
    SERVE_FAILED,      /* the socket or the keys failed (logged) */
} ServeStatus;

typedef struct CoordHub CoordHub;

/* Everything of serving that can fail before a run file is made: the signal handlers,
 * the ack log opened, the socket bound (with CURVE's handler). NULL, with the reason
 * logged and nothing left behind, when any of it fails. */
CoordHub *coord_server_open(const CoordConfig *cfg);

/* Serves run on a server from coord_server_open: prints the endpoint on stdout
 * ("listening ENDPOINT run_id HEX", or a JSON line) and serves until the run is
 * complete and the workers are told, or a signal; then closes the server (*h becomes
 * NULL). The run file is left open (flushed) for the caller to close. *workers gets the
 * number of workers ever seen. */
ServeStatus coord_server_run(CoordHub **h, CoordRun *run, int *signo, int *workers);

/* Closes a server that never served (the run file could not be made or opened): an ack
 * log it created is removed. *h becomes NULL. */
void coord_server_abandon(CoordHub **h);

/* The schedule's share of the statistics. */
void coord_server_stats_context(const CoordRun *run, int live_workers, RunStatsContext *cx);

#endif
