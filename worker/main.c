/*
 * chuhe-worker: an MPI program whose every rank plays self-play game pairs for a
 * chuhe-coordinator. MPI places the ranks and gives them their identity and a clean
 * collective start and end (with one throughput summary on rank 0); all the work flows
 * over ZeroMQ, one DEALER socket per rank, so ranks come and go without the others
 * noticing and the coordinator outlives any MPI job.
 */
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>
#include <zmq.h>

#include "cliopt.h"
#include "link.h"
#include "numparse.h"
#include "contracts/outpath.h"
#include "play.h"
#include "diag.h"
#include "timeman.h"

enum {
    MAX_UNACKED = 64,             /* games in flight before the rank waits for ACKs */
    REQUEST_RETRY_MS = 5000,      /* a WORK_REQUEST without an answer is sent again... */
    REQUEST_RETRY_MAX_MS = 30000, /* ...with the interval doubling up to this */
};

typedef struct {
    char endpoint[256];
    double timeout;
    bool quiet;
    char server_key_file[1024]; /* CURVE: the coordinator's public key; "" plain */
    char secret_file[1024];     /* CURVE: this worker's secret key */
    char server_key[KEYS_Z85_LEN + 1];
    KeyPair keys;
} Options;

typedef struct {
    Link *link;
    PlayEngines engines;
    ProtoMsg *in;   /* the last message for us */
    ProtoMsg *game; /* the GAME being played and sent */
    int rank;
    bool done, lost, failed;
    uint64_t games, positions, nodes;
    double play_s;
} Rank;

/* The options, once: the parser and --help read this table. */
#define FIELD(f) offsetof(Options, f), sizeof(((Options *)0)->f)
static const CliOpt OPTS[] = {
    {"--connect", NULL, CLIOPT_TEXT, FIELD(endpoint), 0, 0, 0, 0, "ENDPOINT",
     "the coordinator (default: $CHUHE_COORDINATOR)", NULL},
    {"--timeout", NULL, CLIOPT_DOUBLE, FIELD(timeout), 0.1, 86400, 0, 0, "S",
     "give up when the coordinator has not answered for S\nseconds (default 60)", NULL},
    {"--quiet", NULL, CLIOPT_FLAG, FIELD(quiet), 0, 0, 0, 0, NULL, "only warnings and the summary",
     NULL},
    {"--curve-server-key", NULL, CLIOPT_PATH, FIELD(server_key_file), 0, 0, 0, 0, "FILE",
     "CURVE: the coordinator's public key (its .pub)", NULL},
    {"--curve-secret", NULL, CLIOPT_PATH, FIELD(secret_file), 0, 0, 0, 0, "FILE",
     "CURVE: this worker's secret key (keygen's .key); its\npublic key must be in the "
     "coordinator's --allow-keys",
     NULL},
    {"--help", NULL, CLIOPT_HELP, 0, 0, 0, 0, 0, 0, NULL, "this text", NULL},
    {"--version", NULL, CLIOPT_VERSION, 0, 0, 0, 0, 0, 0, NULL, "the version", NULL},
};
#undef FIELD
enum { NOPTS = sizeof OPTS / sizeof OPTS[0], HELP_COLUMN = 19 };

/* A refused command line: said on rank 0 (talk); the exit status. */
static int refuse(bool talk, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int refuse(bool talk, const char *fmt, ...)
{
    if (talk) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, "chuhe-worker: ");
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
    }
    return 2;
}

/* Parses the options; 0 to go on, else the exit status (every rank parses the same, so
 * every rank stops alike; rank 0 says why). */
static int parse(int argc, char **argv, Options *o, bool talk)
{
    memset(o, 0, sizeof *o);
    o->timeout = 60;
    const char *env = getenv("CHUHE_COORDINATOR");
    if (env)
        snprintf(o->endpoint, sizeof o->endpoint, "%s", env);
    bool given[NOPTS] = {false};
    CliOptSpec spec = {
        .prog = "chuhe-worker", .opts = OPTS, .nopts = NOPTS, .dest = o, .given = given};
    char msg[400];
    CliOptStatus st = cliopt_parse(&spec, argc - 1, argv + 1, NULL, NULL, 0, msg, sizeof msg);
    if (st == CLIOPT_ASKED_HELP && talk) {
        printf("usage: mpirun -np N chuhe-worker --connect tcp://HOST:PORT [options]\n");
        cliopt_usage(stdout, &spec, HELP_COLUMN);
    } else if (st == CLIOPT_ASKED_VERSION && talk) {
        printf("chuhe-worker %s\n", CHUHE_VERSION);
    }
    if (st == CLIOPT_ASKED_HELP || st == CLIOPT_ASKED_VERSION)
        return -1;
    if (st == CLIOPT_ERROR)
        return refuse(talk, "%s", msg);
    if (!o->endpoint[0])
        return refuse(talk, "no coordinator: give --connect or set CHUHE_COORDINATOR");
    if (!link_endpoint_check(o->endpoint, msg, sizeof msg))
        return refuse(talk, "%s '%s': %s", given[0] ? "--connect" : "CHUHE_COORDINATOR",
                      o->endpoint, msg);
    if (!o->server_key_file[0] != !o->secret_file[0])
        return refuse(talk, "--curve-server-key and --curve-secret go together");
    return 0;
}

/* Reads the CURVE keys on every rank; the first rank to fail says why (rank 0 when every
 * rank fails, as when all read one file). 0 to go on, else the exit status. */
static int read_keys(Options *o, int rank)
{
    if (!o->secret_file[0])
        return 0;
    KeysError err;
    const char *why = NULL;
    if (!keys_curve_available())
        why = "this libzmq has no CURVE (zmq_has(\"curve\") is false)";
    else if (!keys_read_public(o->server_key_file, o->server_key, &err) ||
             !keys_read_secret(o->secret_file, &o->keys, &err))
        why = err.msg;
    int ok = why == NULL, ok0 = ok, all = 0;
    WORKER_MPI(MPI_Bcast(&ok0, 1, MPI_INT, 0, MPI_COMM_WORLD));
    if (!ok && (rank == 0 || ok0))
        fprintf(stderr, "chuhe-worker: rank %d: %s\n", rank, why);
    WORKER_MPI(MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
    return all ? 0 : 2;
}

static void send_error_text(Rank *r, const char *text)
{
    ProtoMsg m;
    proto_init(&m, PROTO_ERROR);
    snprintf(m.error.text, sizeof m.error.text, "rank %d: %.230s", r->rank, text);
    for (char *p = m.error.text; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = ' ';
    link_send(r->link, &m);
}

/* A message for us outside a wait for work: DONE ends the rank, the rest is noted. */
static void on_message(Rank *r)
{
    if (r->in->type == PROTO_DONE)
        r->done = true;
    else if (r->in->type == PROTO_ERROR)
        diag_warn("coordinator: %s", r->in->error.text);
}

/* Keeps the link alive (heartbeats, ACKs, resends) without waiting; also called while
 * an external engine thinks, so a long move never silences the rank. */
static void keep_alive(void *ctx)
{
    Rank *r = ctx;
    while (!r->lost) {
        LinkEvent ev = link_poll(r->link, 0, r->in);
        if (ev == LINK_NONE)
            break;
        if (ev == LINK_LOST)
            r->lost = true;
        else
            on_message(r);
    }
}

/* The game loop's per-ply hook: stops the game when the run is over or the
 * coordinator is lost. */
static bool on_ply(void *ctx, const GameRecord *rec)
{
    (void)rec;
    Rank *r = ctx;
    keep_alive(r);
    return !r->lost && !r->done;
}

/* Game g of the pair. Twins (play.h) play a game again, on the next stream of node
 * counts, while it repeats the pair's first game move for move. */
static GameStatus play_game(Rank *r, const ProtoWork *work, GamePlayer players[2],
                            const Opening *op, const GameSettings *gs, int g, GameRecord *rec,
                            GameError *gerr)
{
    PlayEngines *pe = &r->engines;
    GameStatus st = GAME_OK;
    for (int attempt = 0; attempt < PLAY_TWIN_ATTEMPTS; attempt++) {
        if (pe->twins)
            play_twin_game(pe, work->pair_id, g, attempt);
        int64_t t0 = time_now_ms();
        st = game_play(&players[g], &players[1 - g], op, gs, work->pair_id * 2 + (uint64_t)g, rec,
                       gerr);
        r->play_s += (double)(time_now_ms() - t0) / 1000.0;
        if (st != GAME_OK || !pe->twins)
            return st;
        if (g == 0) {
            play_remember_first(pe, rec);
            return st;
        }
        if (!play_repeats(pe, rec))
            return st;
        diag_info("pair %llu: game 1 repeats game 0; played again",
                  (unsigned long long)work->pair_id);
    }
    return st;
}

/* A game lost by an illegal move: which engine, what it played and where, in the log
 * (the game record keeps neither the move nor, by name, the position). */
static void log_illegal(const Rank *r, const ProtoWork *work, int g, const GameRecord *rec)
{
    Position *pos = malloc(sizeof *pos);
    if (!pos)
        return;
    PosError perr;
    char fen[RECORD_FEN_MAX] = "?", move[64];
    if (pos_set_fen(pos, rec->start_fen, &perr)) {
        for (int i = 0; i < rec->nplies; i++) {
            if (pos_history_full(pos))
                pos_trim_history(pos);
            pos_do_move(pos, rec->plies[i].move);
        }
        pos_get_fen(pos, fen, sizeof fen);
    }
    /* player g is Red in game g; the loser is the side to move */
    int loser = rec->outcome == OUTCOME_BLACK_WIN ? g : 1 - g;
    const ProtoPlayer *pl = &work->players[loser];
    play_last_move(&r->engines, loser, move, sizeof move);
    diag_warn("pair %llu game %d: player %u (%s, %s) played %s in %s and loses the game",
              (unsigned long long)work->pair_id, g, pl->player_id,
              pl->command[0] ? pl->command : "built-in", loser == g ? "Red" : "Black", move, fen);
    free(pos);
}

static void play_pair(Rank *r, const ProtoWork *work)
{
    GamePlayer players[2];
    char err[400];
    if (!play_prepare(&r->engines, work, players, err, sizeof err)) {
        diag_warn("cannot play pair %llu: %s", (unsigned long long)work->pair_id, err);
        send_error_text(r, err);
        r->failed = true;
        return;
    }
    Opening op;
    GameSettings gs;
    play_opening(work, &op);
    play_settings(work, &gs);
    gs.on_ply = on_ply;
    gs.ctx = r;
    for (int g = 0; g < 2; g++) {
        proto_init(r->game, PROTO_GAME);
        ProtoGame *pg = &r->game->game;
        pg->run_id = work->run_id;
        pg->pair_id = work->pair_id;
        pg->game_in_pair = (uint8_t)g;
        pg->worker_rank = (uint32_t)r->rank;
        GameError gerr;
        GameStatus st = play_game(r, work, players, &op, &gs, g, &pg->rec, &gerr);
        if (st == GAME_STOPPED)
            return;
        if (st != GAME_OK) {
            snprintf(err, sizeof err, "pair %llu game %d: %s", (unsigned long long)work->pair_id, g,
                     gerr.msg);
            diag_warn("%s", err);
            send_error_text(r, err);
            r->failed = true;
            return;
        }
        if (pg->rec.reason == REASON_ILLEGAL_MOVE)
            log_illegal(r, work, g, &pg->rec);
        r->games++;
        r->positions += (uint64_t)pg->rec.nplies;
        for (int i = 0; i < pg->rec.nplies; i++)
            r->nodes += pg->rec.plies[i].nodes;
        link_set_progress(r->link, r->games, r->nodes);
        link_send_game(r->link, r->game);
    }
}

static void request_work(Rank *r)
{
    ProtoMsg m;
    proto_init(&m, PROTO_WORK_REQUEST);
    link_send(r->link, &m);
}

/* Polls for ms, handling what comes; used while the coordinator says WAIT and while
 * too many games are unacknowledged. */
static void idle(Rank *r, int ms)
{
    int64_t end = time_now_ms() + ms;
    while (!r->done && !r->lost) {
        int64_t left = end - time_now_ms();
        if (left <= 0)
            return;
        LinkEvent ev = link_poll(r->link, (int)left, r->in);
        if (ev == LINK_LOST)
            r->lost = true;
        else if (ev == LINK_MSG)
            on_message(r);
    }
}

/* Asks for work until a WORK, DONE or the loss of the coordinator. */
static void work_loop(Rank *r)
{
    while (!r->done && !r->lost && !r->failed) {
        while (link_unacked(r->link) > MAX_UNACKED && !r->done && !r->lost)
            idle(r, 500);
        if (r->done || r->lost)
            break;
        request_work(r);
        int64_t asked = time_now_ms();
        int64_t retry = REQUEST_RETRY_MS;
        bool answered = false;
        while (!answered && !r->done && !r->lost) {
            LinkEvent ev = link_poll(r->link, 500, r->in);
            if (ev == LINK_LOST) {
                r->lost = true;
            } else if (ev == LINK_MSG && r->in->type == PROTO_WORK) {
                answered = true;
                ProtoWork work = r->in->work;
                play_pair(r, &work);
            } else if (ev == LINK_MSG && r->in->type == PROTO_WAIT) {
                answered = true;
                idle(r, (int)r->in->wait.retry_ms);
            } else if (ev == LINK_MSG) {
                on_message(r);
            } else if (time_now_ms() - asked > retry) {
                request_work(r);
                asked = time_now_ms();
                retry = retry * 2 > REQUEST_RETRY_MAX_MS ? REQUEST_RETRY_MAX_MS : retry * 2;
            }
        }
    }
}

/* Waits for the other ranks without the busy polling of a blocking MPI call, which would
 * take a core from ranks still playing. */
static void gentle_barrier(void)
{
    MPI_Request req;
    WORKER_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &req));
    int flag = 0;
    while (!flag) {
        WORKER_MPI(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
        if (!flag)
            nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);
    }
}

/* One line on rank 0. Engine speed is per rank that played (a rank that never got a
 * pair has none). */
static void summary(const Rank *r, int size, double wall_s)
{
    bool played = r->play_s > 0;
    uint64_t mine[5] = {r->games, r->positions, r->nodes, r->failed || r->lost, played};
    uint64_t sum[5] = {0, 0, 0, 0, 0};
    double nps = played ? (double)r->nodes / r->play_s : 0;
    double lo = played ? nps : DBL_MAX;
    double nps_min = 0, nps_max = 0, nps_sum = 0, wall_max = 0;
    gentle_barrier();
    WORKER_MPI(MPI_Reduce(mine, sum, 5, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD));
    WORKER_MPI(MPI_Reduce(&lo, &nps_min, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD));
    WORKER_MPI(MPI_Reduce(&nps, &nps_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD));
    WORKER_MPI(MPI_Reduce(&nps, &nps_sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD));
    WORKER_MPI(MPI_Reduce(&wall_s, &wall_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD));
    if (r->rank != 0)
        return;
    uint64_t active = sum[4];
    printf("chuhe-worker: %d ranks, %" PRIu64 " games, %" PRIu64 " positions, %" PRIu64
           " engine nodes in %.1f s (%.2f games/s); engine nodes/s %.0f total, per rank "
           "min %.0f avg %.0f max %.0f (%" PRIu64 " ranks played); %" PRIu64 " ranks failed\n",
           size, sum[0], sum[1], sum[2], wall_max, wall_max > 0 ? (double)sum[0] / wall_max : 0,
           nps_sum, active ? nps_min : 0, active ? nps_sum / (double)active : 0, nps_max, active,
           sum[3]);
    fflush(stdout);
}

/* Closes the link (with deliver, what is queued gets its second to go out) and ZeroMQ,
 * and frees the rank's engines: before MPI_Finalize, as ZeroMQ lives inside MPI. */
static void close_zmq(Rank *r, void *ctx, bool deliver)
{
    link_close(&r->link, deliver);
    while (zmq_ctx_term(ctx) != 0) {
        if (zmq_errno() != EINTR)
            WORKER_FATAL("zmq_ctx_term: %s", zmq_strerror(zmq_errno()));
    }
    play_engines_free(&r->engines);
    free(r->in);
    free(r->game);
}

/* The exit status after MPI_Finalize: status, or 1 when the standard output (the
 * summary, --help) could not be written. */
static int finalize(int status)
{
    WORKER_MPI(MPI_Finalize());
    char msg[160];
    status = outpath_finish_stdout(status, msg, sizeof msg);
    if (msg[0])
        diag_warn("%s", msg);
    return status;
}

int main(int argc, char **argv)
{
    int provided = 0;
    if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "chuhe-worker: fatal: %s:%d: MPI_Init_thread failed\n", __FILE__, __LINE__);
        return 3;
    }
    WORKER_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int rank = 0, size = 1;
    WORKER_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    WORKER_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
    char host[PROTO_HOST_MAX + 1] = "unknown";
    if (gethostname(host, sizeof host) != 0)
        snprintf(host, sizeof host, "unknown");
    host[PROTO_HOST_MAX] = '\0';
    if (provided < MPI_THREAD_FUNNELED)
        WORKER_FATAL("MPI provides thread level %d, FUNNELED needed", provided);

    Options opt;
    int status = parse(argc, argv, &opt, rank == 0);
    if (status == 0)
        status = read_keys(&opt, rank);
    if (status != 0)
        return finalize(status < 0 ? 0 : status);
    diag_init(rank, host, opt.quiet);

    Rank r;
    memset(&r, 0, sizeof r);
    r.rank = rank;
    r.in = malloc(sizeof *r.in);
    r.game = malloc(sizeof *r.game);
    if (!r.in || !r.game)
        WORKER_FATAL("out of memory");
    play_engines_init(&r.engines);
    play_engines_set_idle(&r.engines, keep_alive, &r);

    /* ZeroMQ lives strictly between MPI_Init and MPI_Finalize. */
    void *ctx = zmq_ctx_new();
    if (!ctx)
        WORKER_FATAL("zmq_ctx_new: %s", zmq_strerror(zmq_errno()));
    char identity[PROTO_HOST_MAX + 48];
    snprintf(identity, sizeof identity, "r%d@%s:%ld", rank, host, (long)getpid());
    char why[400];
    r.link = link_open(ctx, opt.endpoint, identity, (uint32_t)rank, opt.timeout,
                       opt.secret_file[0] ? opt.server_key : NULL, &opt.keys, why, sizeof why);
    memset(&opt.keys, 0, sizeof opt.keys);
    /* every rank stops alike when any cannot connect (as after a bad option) */
    int linked = r.link != NULL, all = 0;
    WORKER_MPI(MPI_Allreduce(&linked, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
    if (!all) {
        if (!linked)
            fprintf(stderr, "chuhe-worker: rank %d: %s\n", rank, why);
        close_zmq(&r, ctx, false);
        return finalize(2);
    }
    diag_info("rank %d of %d, pid %ld, connecting to %s%s", rank, size, (long)getpid(),
              opt.endpoint, opt.secret_file[0] ? " with CURVE" : "");

    ProtoMsg hello;
    proto_init(&hello, PROTO_HELLO);
    hello.hello.rank = (uint32_t)rank;
    hello.hello.world_size = (uint32_t)size;
    hello.hello.pid = (uint32_t)getpid();
    snprintf(hello.hello.hostname, sizeof hello.hello.hostname, "%s", host);
    snprintf(hello.hello.version, sizeof hello.hello.version, "%s", CHUHE_VERSION);
    if (!link_send(r.link, &hello))
        WORKER_FATAL("cannot queue HELLO");

    int64_t start = time_now_ms();
    work_loop(&r);
    double wall = (double)(time_now_ms() - start) / 1000.0;
    if (r.lost && link_refusal(r.link)[0])
        diag_warn("%s; giving up with %d games unacknowledged", link_refusal(r.link),
                  link_unacked(r.link));
    else if (r.lost)
        diag_warn("coordinator %s has not answered for %.0f s: giving up with %d games "
                  "unacknowledged",
                  opt.endpoint, opt.timeout, link_unacked(r.link));
    else if (r.done)
        diag_info("done: %" PRIu64 " games played, %" PRIu64 " rejected", r.games,
                  link_rejected(r.link));

    close_zmq(&r, ctx, !r.lost);
    summary(&r, size, wall);
    return finalize(r.failed || r.lost ? 1 : 0);
}
