/*
 * The load generator of scripts/bench-ingest: the complete pairs of a run file played
 * back to a coordinator by simulated workers, as fast as it acknowledges them, and what
 * it stores measured.
 *
 *   ingest_load [options] ENDPOINT SOURCE.h5
 *     --workers M        simulated workers, each its own DEALER socket (default 32)
 *     --procs P          processes the workers are spread over (default 2)
 *     --inflight N       pairs a worker holds unacknowledged before it asks for no more
 *                        (default 2; the coordinator's --max-inflight must allow it)
 *     --coordinator PID  the coordinator's process, whose CPU time is reported
 *     --wait S           give up when a process has heard nothing for S seconds (30)
 *
 * A worker speaks the protocol as chuhe-worker does: HELLO, WORK_REQUEST, and for each
 * WORK the two games of a source pair that played the same opening, with the WORK's
 * run id and pair id and its own rank; then it asks for the next pair at once, unless N
 * pairs wait for their ACKs. It stops at DONE. The coordinator must run with the
 * source run's settings (openings, move limit, adjudication), so that its pairs play
 * openings the source played and its games pass every check.
 *
 * Output: games and positions stored, games/s and positions/s (first GAME sent to last
 * ACK), the ACK latency (GAME sent to its ACK) p50/p99/max, the CPU time of the
 * coordinator and of the generator; the last line "ingest: N positions/s, ...". Exit
 * status 0 when every game sent was stored, 1 otherwise, 2 on a usage or set-up error.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <zmq.h>

#include "array.h"
#include "cliopt.h"
#include "tests/tools/toolargs.h"
#include "contracts/protocol.h"
#include "contracts/runfile.h"
#include "position.h"

enum { PROCS_MAX = 64, WORKERS_MAX = 4096, INFLIGHT_MAX = 64 };

typedef struct {
    const char *endpoint, *source;
    int workers, procs, inflight;
    int coordinator; /* its pid; 0: none */
    double wait_s;
} Options;

/* A complete pair of the source, filed under the hash of its opening. */
typedef struct {
    uint64_t key;
    const GameRecord *game[2];
    uint32_t uses;
} SourcePair;

typedef struct {
    SourcePair *pairs;
    size_t n;
} Source;

/* A pair sent and not yet acknowledged in full. */
typedef struct {
    uint64_t pair_id;
    double sent;
    uint8_t acked; /* bit g: game g acknowledged */
    int positions[2];
} Flight;

typedef struct {
    void *sock;
    uint32_t rank;
    Flight flight[INFLIGHT_MAX];
    int nflight;
    bool asking; /* a WORK_REQUEST is unanswered */
    bool done;
    double ask_at; /* after a WAIT: when to ask again (0: not waiting) */
} SimWorker;

/* What a process reports to the parent, then nlat latencies (float, ms). */
typedef struct {
    uint64_t stored, positions, duplicates, rejected, errors;
    double first_send, last_ack;
    uint64_t nlat;
} Report;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *fmt, const char *what)
{
    fprintf(stderr, "ingest_load: ");
    fprintf(stderr, fmt, what);
    fprintf(stderr, "\n");
    exit(2);
}

/* FNV-1a over the start FEN and the opening moves: the opening a pair plays. */
static uint64_t opening_key(const char *fen, const Move *moves, int n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (const char *c = fen; *c; c++)
        h = (h ^ (uint8_t)*c) * 0x100000001b3ULL;
    for (int i = 0; i < n; i++) {
        h = (h ^ (moves[i] & 0xff)) * 0x100000001b3ULL;
        h = (h ^ (moves[i] >> 8)) * 0x100000001b3ULL;
    }
    return h;
}

static uint64_t record_key(const GameRecord *r)
{
    Move moves[RECORD_MAX_PLIES];
    int n = 0;
    while (n < r->nplies && (r->plies[n].flags & RECORD_FLAG_OPENING)) {
        moves[n] = r->plies[n].move;
        n++;
    }
    return opening_key(r->start_fen, moves, n);
}

static int by_key(const void *a, const void *b)
{
    uint64_t x = ((const SourcePair *)a)->key, y = ((const SourcePair *)b)->key;
    return x < y ? -1 : x > y;
}

/* Reads every game of the source and keeps the complete pairs, sorted by opening. */
static void source_load(const char *path, Source *src)
{
    RunError err;
    RunFile *rf = runfile_open_read(path, &err);
    if (!rf)
        die("%s", err.msg);
    uint64_t n = runfile_game_count(rf), slots = 2 * runfile_next_pair_id(rf);
    GameRecord **byslot = calloc(slots + 2, sizeof *byslot);
    if (!byslot)
        die("%s", "out of memory");
    size_t cap = 0;
    src->pairs = NULL;
    src->n = 0;
    for (uint64_t id = 0; id < n; id++) {
        const RunGame *g = runfile_game(rf, id);
        GameRecord *r = malloc(sizeof *r);
        if (!r)
            die("%s", "out of memory");
        if (!runfile_read_game(rf, id, r, &err))
            die("%s", err.msg);
        byslot[2 * g->pair_id + g->game_in_pair] = r;
        GameRecord **pair = &byslot[2 * g->pair_id];
        if (!pair[0] || !pair[1])
            continue;
        if (!array_reserve((void **)&src->pairs, &cap, src->n + 1, sizeof *src->pairs, 256))
            die("%s", "out of memory");
        src->pairs[src->n++] = (SourcePair){record_key(pair[0]), {pair[0], pair[1]}, 0};
    }
    for (uint64_t k = 0; k < slots; k += 2) /* the halves of incomplete pairs */
        if (!byslot[k] || !byslot[k + 1]) {
            free(byslot[k]);
            free(byslot[k + 1]);
        }
    free(byslot);
    runfile_close(&rf, NULL);
    if (!src->n)
        die("%s: no complete pair to play back", path);
    qsort(src->pairs, src->n, sizeof *src->pairs, by_key);
}

static void source_free(Source *src)
{
    for (size_t i = 0; i < src->n; i++) {
        free((GameRecord *)src->pairs[i].game[0]);
        free((GameRecord *)src->pairs[i].game[1]);
    }
    free(src->pairs);
}

/* A source pair that played the WORK's opening, taking turns among several. */
static SourcePair *source_find(Source *src, const ProtoWork *w)
{
    const char *fen = w->opening_fen[0] ? w->opening_fen : START_FEN;
    uint64_t key = opening_key(fen, w->moves, w->nmoves);
    size_t lo = 0, hi = src->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (src->pairs[mid].key < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t end = lo;
    while (end < src->n && src->pairs[end].key == key)
        end++;
    if (lo == end || strcmp(src->pairs[lo].game[0]->start_fen, fen))
        return NULL;
    SourcePair *first = &src->pairs[lo];
    return &src->pairs[lo + first->uses++ % (end - lo)];
}

/* ------------------------------------------------------------------------------------
 * One process: its workers and their conversations.
 * ------------------------------------------------------------------------------------ */

typedef struct {
    Source *src;
    const Options *o;
    SimWorker *w;
    int n;
    Report rep;
    float *lat;
    size_t latcap;
    uint8_t buf[PROTO_MAX_MESSAGE];
    ProtoMsg in, out;
} Proc;

static void send_msg(Proc *p, SimWorker *w, const ProtoMsg *m)
{
    ProtoError err;
    size_t len = proto_encode(m, p->buf, sizeof p->buf, &err);
    if (!len)
        die("encode: %s", err.msg);
    if (zmq_send(w->sock, p->buf, len, 0) < 0)
        die("zmq_send: %s", zmq_strerror(zmq_errno()));
}

static void ask(Proc *p, SimWorker *w)
{
    ProtoMsg m;
    proto_init(&m, PROTO_WORK_REQUEST);
    send_msg(p, w, &m);
    w->asking = true;
    w->ask_at = 0;
}

static void hello(Proc *p, SimWorker *w)
{
    ProtoMsg m;
    proto_init(&m, PROTO_HELLO);
    m.hello.rank = w->rank;
    m.hello.world_size = (uint32_t)p->o->workers;
    m.hello.pid = (uint32_t)getpid();
    if (gethostname(m.hello.hostname, sizeof m.hello.hostname) != 0)
        snprintf(m.hello.hostname, sizeof m.hello.hostname, "localhost");
    m.hello.hostname[PROTO_HOST_MAX] = '\0';
    snprintf(m.hello.version, sizeof m.hello.version, "%s", CHUHE_VERSION);
    send_msg(p, w, &m);
}

/* Sends both games of a source pair for the WORK's pair, then asks for more when the
 * worker may hold another pair. */
static void on_work(Proc *p, SimWorker *w, const ProtoWork *work)
{
    w->asking = false;
    SourcePair *sp = source_find(p->src, work);
    if (!sp) {
        fprintf(stderr, "ingest_load: pair %" PRIu64 ": no source pair played its opening\n",
                work->pair_id);
        p->rep.errors++;
        w->done = true;
        return;
    }
    Flight *f = &w->flight[w->nflight++];
    f->pair_id = work->pair_id;
    f->acked = 0;
    f->sent = now_s();
    if (!p->rep.first_send)
        p->rep.first_send = f->sent;
    for (int g = 0; g < 2; g++) {
        proto_init(&p->out, PROTO_GAME);
        ProtoGame *pg = &p->out.game;
        pg->run_id = work->run_id;
        pg->pair_id = work->pair_id;
        pg->game_in_pair = (uint8_t)g;
        pg->worker_rank = w->rank;
        pg->rec = *sp->game[g];
        f->positions[g] = pg->rec.nplies;
        send_msg(p, w, &p->out);
    }
    if (w->nflight < p->o->inflight)
        ask(p, w);
}

static void on_ack(Proc *p, SimWorker *w, const ProtoAck *a)
{
    int k = 0;
    while (k < w->nflight && w->flight[k].pair_id != a->pair_id)
        k++;
    if (k == w->nflight || a->game_in_pair > 1 || (w->flight[k].acked >> a->game_in_pair & 1))
        return; /* an ACK of a game already acknowledged */
    Flight *f = &w->flight[k];
    double now = now_s();
    f->acked |= (uint8_t)(1u << a->game_in_pair);
    p->rep.last_ack = now;
    if (a->status == PROTO_ACK_STORED) {
        p->rep.stored++;
        p->rep.positions += (uint64_t)f->positions[a->game_in_pair];
    } else if (a->status == PROTO_ACK_DUPLICATE) {
        p->rep.duplicates++;
    } else {
        p->rep.rejected++;
        fprintf(stderr, "ingest_load: game %u of pair %" PRIu64 " rejected (see the log)\n",
                a->game_in_pair, a->pair_id);
    }
    if (!array_reserve((void **)&p->lat, &p->latcap, p->rep.nlat + 1, sizeof *p->lat, 4096))
        die("%s", "out of memory");
    p->lat[p->rep.nlat++] = (float)((now - f->sent) * 1000);
    if (f->acked == 3)
        *f = w->flight[--w->nflight];
    if (!w->asking && !w->done && !w->ask_at && w->nflight < p->o->inflight)
        ask(p, w);
}

/* Handles worker w's waiting messages; true when there was one. */
static bool receive(Proc *p, SimWorker *w)
{
    bool any = false;
    for (;;) {
        int len = zmq_recv(w->sock, p->buf, sizeof p->buf, ZMQ_DONTWAIT);
        if (len < 0) {
            if (zmq_errno() == EAGAIN || zmq_errno() == EINTR)
                return any;
            die("zmq_recv: %s", zmq_strerror(zmq_errno()));
        }
        any = true;
        ProtoError err;
        if (!proto_decode(p->buf, (size_t)len, &p->in, &err)) {
            fprintf(stderr, "ingest_load: undecodable reply: %s\n", err.msg);
            p->rep.errors++;
            continue;
        }
        switch (p->in.type) {
        case PROTO_WORK:
            on_work(p, w, &p->in.work);
            break;
        case PROTO_ACK:
            on_ack(p, w, &p->in.ack);
            break;
        case PROTO_WAIT:
            w->asking = false;
            w->ask_at = now_s() + p->in.wait.retry_ms / 1000.0;
            break;
        case PROTO_DONE:
            w->asking = false;
            w->done = true;
            break;
        case PROTO_ERROR:
            fprintf(stderr, "ingest_load: rank %u: ERROR %s\n", w->rank, p->in.error.text);
            p->rep.errors++;
            break;
        default:
            break;
        }
    }
}

/* Plays until every worker is told DONE, or nothing came for --wait seconds. */
static void proc_loop(Proc *p)
{
    zmq_pollitem_t *items = calloc((size_t)p->n, sizeof *items);
    if (!items)
        die("%s", "out of memory");
    for (int i = 0; i < p->n; i++)
        items[i] = (zmq_pollitem_t){p->w[i].sock, 0, ZMQ_POLLIN, 0};
    double heard = now_s();
    for (;;) {
        double now = now_s(), next = heard + p->o->wait_s;
        int live = 0;
        for (int i = 0; i < p->n; i++) {
            SimWorker *w = &p->w[i];
            live += !w->done;
            if (w->ask_at && w->ask_at <= now && !w->done)
                ask(p, w);
            else if (w->ask_at && w->ask_at < next)
                next = w->ask_at;
        }
        if (!live)
            break;
        if (now >= heard + p->o->wait_s) {
            fprintf(stderr, "ingest_load: nothing heard for %.0f s; %d workers not done\n",
                    p->o->wait_s, live);
            p->rep.errors++;
            break;
        }
        long ms = (long)((next - now) * 1000) + 1;
        if (zmq_poll(items, p->n, ms) < 0 && zmq_errno() != EINTR)
            die("zmq_poll: %s", zmq_strerror(zmq_errno()));
        for (int i = 0; i < p->n; i++)
            if ((items[i].revents & ZMQ_POLLIN) && receive(p, &p->w[i]))
                heard = now_s();
    }
    free(items);
}

static void write_all(int fd, const void *data, size_t n)
{
    const char *c = data;
    while (n) {
        ssize_t k = write(fd, c, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            die("write to the parent: %s", strerror(errno));
        c += k;
        n -= (size_t)k;
    }
}

static bool read_all(int fd, void *data, size_t n)
{
    char *c = data;
    while (n) {
        ssize_t k = read(fd, c, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return false;
        c += k;
        n -= (size_t)k;
    }
    return true;
}

/* The child process of workers [lo, hi): connects them, says it is ready on fd, starts
 * when go_fd closes, reports on fd. */
static int proc_run(Source *src, const Options *o, int lo, int hi, int fd, int go_fd)
{
    Proc *p = calloc(1, sizeof *p);
    void *ctx = zmq_ctx_new();
    if (!p || !ctx)
        die("%s", "out of memory");
    p->src = src;
    p->o = o;
    p->n = hi - lo;
    p->w = calloc((size_t)p->n, sizeof *p->w);
    if (!p->w)
        die("%s", "out of memory");
    for (int i = 0; i < p->n; i++) {
        SimWorker *w = &p->w[i];
        w->rank = (uint32_t)(lo + i);
        char id[32];
        snprintf(id, sizeof id, "ingest-load-%u", w->rank);
        int linger = 0;
        if (!(w->sock = zmq_socket(ctx, ZMQ_DEALER)) ||
            zmq_setsockopt(w->sock, ZMQ_LINGER, &linger, sizeof linger) != 0 ||
            zmq_setsockopt(w->sock, ZMQ_ROUTING_ID, id, strlen(id)) != 0 ||
            zmq_connect(w->sock, o->endpoint) != 0)
            die("socket: %s", zmq_strerror(zmq_errno()));
        hello(p, w);
    }
    char c = 'r';
    write_all(fd, &c, 1);
    read_all(go_fd, &c, 1); /* returns at EOF: the parent closed it */
    for (int i = 0; i < p->n; i++)
        ask(p, &p->w[i]);
    proc_loop(p);
    for (int i = 0; i < p->n; i++)
        zmq_close(p->w[i].sock);
    zmq_ctx_term(ctx);
    write_all(fd, &p->rep, sizeof p->rep);
    write_all(fd, p->lat, p->rep.nlat * sizeof *p->lat);
    return 0;
}

/* ------------------------------------------------------------------------------------
 * The parent: options, the source, the processes, the figures.
 * ------------------------------------------------------------------------------------ */

/* The CPU seconds (user + system) of process pid so far; -1 when unknown. */
static double proc_cpu(long pid)
{
    if (pid <= 0)
        return -1;
    char path[64], text[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    char *c = strrchr(text, ')'); /* the command name may hold blanks */
    char state;
    unsigned long long ut, st;
    if (!c ||
        sscanf(c + 1, " %c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &state, &ut, &st) !=
            3 ||
        state == 'Z') /* an ended process counts its threads no more */
        return -1;
    return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

static int by_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

static double percentile(const float *v, uint64_t n, double q)
{
    if (!n)
        return 0;
    uint64_t k = (uint64_t)(q * (double)(n - 1) + 0.5);
    return v[k];
}

#define AT(f) offsetof(Options, f), sizeof(((Options *)0)->f)
static const CliOpt OPTS[] = {
    {"--workers", NULL, CLIOPT_INT, AT(workers), 1, WORKERS_MAX, 0, 0, "M", "simulated ranks",
     NULL},
    {"--procs", NULL, CLIOPT_INT, AT(procs), 1, PROCS_MAX, 0, 0, "P", "processes", NULL},
    {"--inflight", NULL, CLIOPT_INT, AT(inflight), 1, INFLIGHT_MAX, 0, 0, "N",
     "pairs a rank holds unacknowledged", NULL},
    {"--coordinator", NULL, CLIOPT_INT, AT(coordinator), 1, 1 << 30, 0, 0, "PID",
     "whose CPU time to sample", NULL},
    {"--wait", NULL, CLIOPT_DOUBLE, AT(wait_s), 0.001, 86400, 0, 0, "S",
     "how long to wait for answers", NULL},
};
#undef AT

static void parse(int argc, char **argv, Options *o)
{
    *o = (Options){.workers = 32, .procs = 2, .inflight = 2, .wait_s = 30};
    CliOptSpec spec = {
        .prog = "ingest_load", .opts = OPTS, .nopts = sizeof OPTS / sizeof OPTS[0], .dest = o};
    char *words[2];
    toolargs_parse(&spec, argc, argv, words, 2, "give ENDPOINT and SOURCE.h5",
                   "ingest_load [--workers M] [--procs P] [--inflight N] [--coordinator PID] "
                   "[--wait S] ENDPOINT SOURCE.h5");
    if (o->procs > o->workers)
        o->procs = o->workers;
    o->endpoint = words[0];
    o->source = words[1];
}

/* Reads each process's report as it comes, and samples the coordinator's CPU time every
 * 100 ms meanwhile: *cpu is the last sample taken while it ran, for it may end as soon
 * as its workers are told DONE. */
static bool collect(const int *fds, int n, long coordinator, Report *sum, float **lat, double *cpu)
{
    struct pollfd pf[PROCS_MAX];
    for (int k = 0; k < n; k++)
        pf[k] = (struct pollfd){fds[k], POLLIN, 0};
    size_t latcap = 0;
    bool ok = true;
    for (int left = n; left > 0;) {
        if (poll(pf, (nfds_t)n, 100) < 0 && errno != EINTR)
            die("poll: %s", strerror(errno));
        double c = proc_cpu(coordinator);
        if (c >= 0)
            *cpu = c;
        for (int k = 0; k < n; k++) {
            if (pf[k].fd < 0 || !pf[k].revents)
                continue;
            Report r;
            if (!read_all(pf[k].fd, &r, sizeof r) ||
                !array_reserve((void **)lat, &latcap, sum->nlat + r.nlat + 1, sizeof **lat, 4096) ||
                !read_all(pf[k].fd, *lat + sum->nlat, r.nlat * sizeof **lat)) {
                fprintf(stderr, "ingest_load: load process %d sent no report\n", k);
                ok = false;
            } else {
                sum->stored += r.stored;
                sum->positions += r.positions;
                sum->duplicates += r.duplicates;
                sum->rejected += r.rejected;
                sum->errors += r.errors;
                sum->nlat += r.nlat;
                if (r.first_send && (!sum->first_send || r.first_send < sum->first_send))
                    sum->first_send = r.first_send;
                if (r.last_ack > sum->last_ack)
                    sum->last_ack = r.last_ack;
            }
            close(pf[k].fd);
            pf[k].fd = -1;
            left--;
        }
    }
    return ok;
}

static void print_figures(const Options *o, const Report *sum, float *lat, double cpu, double wall,
                          double gen_cpu)
{
    double span = sum->last_ack > sum->first_send ? sum->last_ack - sum->first_send : 0;
    double pps = span > 0 ? (double)sum->positions / span : 0;
    double gps = span > 0 ? (double)sum->stored / span : 0;
    qsort(lat, sum->nlat, sizeof *lat, by_float);
    double p50 = percentile(lat, sum->nlat, 0.50), p99 = percentile(lat, sum->nlat, 0.99);
    printf("load: %d workers in %d processes, up to %d pairs in flight each\n", o->workers,
           o->procs, o->inflight);
    printf("stored: %" PRIu64 " games, %" PRIu64 " positions in %.2f s (%" PRIu64
           " duplicates, %" PRIu64 " rejected)\n",
           sum->stored, sum->positions, span, sum->duplicates, sum->rejected);
    printf("rate: %.0f games/s, %.0f positions/s\n", gps, pps);
    printf("ACK latency: p50 %.1f ms, p99 %.1f ms, max %.1f ms\n", p50, p99,
           sum->nlat ? (double)lat[sum->nlat - 1] : 0.0);
    /* CPU shares over the time games were stored: the coordinator idles before and after */
    char core[96] = "";
    if (cpu >= 0 && span > 0) {
        printf("coordinator CPU: %.2f s (%.0f%% of a core while storing), %.0f positions per "
               "CPU second\n",
               cpu, 100 * cpu / span, cpu > 0 ? (double)sum->positions / cpu : 0);
        snprintf(core, sizeof core, ", coordinator %.0f%% of a core", 100 * cpu / span);
    }
    printf("load generator CPU: %.2f s (%.0f%% of a core), %.1f s in all\n", gen_cpu,
           span > 0 ? 100 * gen_cpu / span : 0, wall);
    printf("ingest: %.0f positions/s, %.0f games/s, ACK p50 %.1f ms p99 %.1f ms%s\n", pps, gps, p50,
           p99, core);
}

int main(int argc, char **argv)
{
    Options o;
    parse(argc, argv, &o);
    position_init();
    Source src;
    source_load(o.source, &src);
    uint64_t games = 0, positions = 0;
    for (size_t i = 0; i < src.n; i++)
        for (int g = 0; g < 2; g++, games++)
            positions += (uint64_t)src.pairs[i].game[g]->nplies;
    printf("source: %zu pairs (%" PRIu64 " games, %" PRIu64 " positions) from %s\n", src.n, games,
           positions, o.source);
    fflush(stdout);

    int go[2], fds[PROCS_MAX];
    pid_t pids[PROCS_MAX];
    if (pipe(go) != 0)
        die("pipe: %s", strerror(errno));
    for (int k = 0; k < o.procs; k++) {
        int fd[2];
        if (pipe(fd) != 0)
            die("pipe: %s", strerror(errno));
        int lo = o.workers * k / o.procs, hi = o.workers * (k + 1) / o.procs;
        pids[k] = fork();
        if (pids[k] < 0)
            die("fork: %s", strerror(errno));
        if (pids[k] == 0) {
            close(fd[0]);
            close(go[1]);
            _exit(proc_run(&src, &o, lo, hi, fd[1], go[0]));
        }
        close(fd[1]);
        fds[k] = fd[0];
    }
    close(go[0]);
    char c;
    for (int k = 0; k < o.procs; k++)
        if (!read_all(fds[k], &c, 1))
            die("%s", "a load process failed to start");
    double cpu0 = proc_cpu(o.coordinator), t0 = now_s();
    close(go[1]);

    Report sum = {0};
    float *lat = NULL;
    double cpu1 = cpu0;
    bool ok = collect(fds, o.procs, o.coordinator, &sum, &lat, &cpu1);
    for (int k = 0; k < o.procs; k++) {
        int status;
        if (waitpid(pids[k], &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
            ok = false;
    }
    double wall = now_s() - t0;
    struct rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);
    double gen_cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
                     (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
    print_figures(&o, &sum, lat, cpu0 >= 0 && cpu1 >= 0 ? cpu1 - cpu0 : -1, wall, gen_cpu);
    free(lat);
    source_free(&src);
    return ok && !sum.rejected && !sum.errors && sum.stored ? 0 : 1;
}
