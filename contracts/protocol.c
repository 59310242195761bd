#include "protocol.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "error.h"
#include "numparse.h"
#include "search.h"
#include "score.h"

/* The longest frame: a GAME with a full record and the longest start FEN. */
enum {
    GAME_MAX_FRAME = PROTO_HEADER_SIZE + 8 + 8 + 1 + 4 + 2 + PROTO_FEN_MAX + 2 +
                     RECORD_MAX_PLIES * PROTO_PLY_SIZE + 1 + 1,
    MOVETIME_MAX_MS = 3600 * 1000,
    WAIT_MAX_MS = 3600 * 1000,
};
_Static_assert((int)GAME_MAX_FRAME <= (int)PROTO_MAX_MESSAGE, "PROTO_MAX_MESSAGE is too small");
/* The longest WORK: the longest opening and two players with every text and tuned
 * parameter at its longest. */
enum {
    PLAYER_MAX_BYTES = 25 + 2 + PROTO_WEIGHTS_MAX + 13 + 3 * (2 + PROTO_COMMAND_MAX) + 1 +
                       PROTO_TUNED_MAX * (2 + PROTO_TUNED_NAME_MAX + 8),
    WORK_MAX_FRAME = PROTO_HEADER_SIZE + 16 + 2 + PROTO_FEN_MAX + 2 + PROTO_OPENING_MAX * 2 +
                     2 * PLAYER_MAX_BYTES + 12,
};
_Static_assert((int)WORK_MAX_FRAME <= (int)PROTO_MAX_MESSAGE, "PROTO_MAX_MESSAGE is too small");
_Static_assert((int)RECORD_MAX_PLIES <= UINT16_MAX, "nplies is sent as a u16");

static const char *const TYPE_NAMES[PROTO_TYPE_NB] = {"unknown", "HELLO", "WORK_REQUEST", "WORK",
                                                      "GAME",    "ACK",   "HEARTBEAT",    "DONE",
                                                      "WAIT",    "ERROR"};

static const char *const KIND_NAMES[PROTO_ENGINE_KIND_NB] = {"builtin", "external"};
static const char *const EXT_NAMES[PROTO_EXT_NB] = {"uci", "uci1", "ucci", "xboard"};

const char *proto_ext_protocol_name(ProtoExtProtocol p)
{
    return (unsigned)p < PROTO_EXT_NB ? EXT_NAMES[p] : "unknown";
}

bool proto_ext_protocol_parse(const char *name, ProtoExtProtocol *out)
{
    if (!strcmp(name, "uci-ranks-1-10")) {
        *out = PROTO_EXT_UCI1;
        return true;
    }
    for (int p = 0; p < PROTO_EXT_NB; p++)
        if (!strcmp(name, EXT_NAMES[p])) {
            *out = (ProtoExtProtocol)p;
            return true;
        }
    return false;
}

const char *proto_type_name(ProtoType t)
{
    return t > 0 && t < PROTO_TYPE_NB ? TYPE_NAMES[t] : "unknown";
}

const char *proto_engine_kind_name(ProtoEngineKind k)
{
    return (unsigned)k < PROTO_ENGINE_KIND_NB ? KIND_NAMES[k] : "unknown";
}

void proto_init(ProtoMsg *m, ProtoType type)
{
    memset(m, 0, sizeof *m);
    m->type = type;
}

/* ------------------------------------------------------------------------------------
 * Range checks, shared by encoding and decoding
 * ------------------------------------------------------------------------------------ */

/* A text field must end inside its array and hold no control bytes. Bytes >= 0x80
 * pass (UTF-8 host names and paths); a FEN must be printable ASCII. */
static bool check_text(const char *s, size_t size, bool ascii, const char *what, ProtoError *err)
{
    size_t n = strnlen(s, size);
    if (n == size)
        return ERROR_SET(err, "%s: longer than %zu bytes", what, size - 1);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c == 0x7f || (ascii && c > 0x7e))
            return ERROR_SET(err, "%s: byte %zu is 0x%02x, not allowed in text", what, i, c);
    }
    return true;
}

/* A board move: two different points, no flag bits (MOVE_NONE and MOVE_NULL fail). */
static bool move_ok(Move m)
{
    return (m >> 14) == 0 && move_from(m) < SQUARE_NB && move_to(m) < SQUARE_NB &&
           move_from(m) != move_to(m);
}

static bool check_hello(const ProtoHello *h, ProtoError *err)
{
    if (h->world_size < 1 || h->rank >= h->world_size)
        return ERROR_SET(err, "HELLO: rank %u outside world size %u", h->rank, h->world_size);
    if (h->pid == 0)
        return ERROR_SET(err, "HELLO: pid is 0");
    return check_text(h->hostname, sizeof h->hostname, false, "HELLO hostname", err) &&
           check_text(h->version, sizeof h->version, false, "HELLO version", err);
}

/* The tuned parameters: names that can go into an option list, finite values. */
static bool check_tuned(const ProtoPlayer *p, int i, ProtoError *err)
{
    if (p->ntuned > PROTO_TUNED_MAX)
        return ERROR_SET(err, "WORK player %d: %u tuned parameters exceed %d", i, p->ntuned,
                         PROTO_TUNED_MAX);
    for (int k = 0; k < p->ntuned; k++) {
        const ProtoTuned *t = &p->tuned[k];
        if (!check_text(t->name, sizeof t->name, true, "WORK tuned parameter name", err))
            return false;
        if (!t->name[0] || strpbrk(t->name, "=;"))
            return ERROR_SET(err, "WORK player %d: tuned parameter %d: empty name, or '=' or ';'",
                             i, k);
        if (!isfinite(t->value) || fabs(t->value) > 1e15)
            return ERROR_SET(err, "WORK player %d: tuned parameter %s is not a finite number", i,
                             t->name);
    }
    return true;
}

bool proto_builtin_options(const char *options, int *threads, char *msg, size_t size)
{
    int n = 1;
    for (const char *p = options; *p;) {
        size_t len = strcspn(p, ";");
        char item[PROTO_COMMAND_MAX + 1];
        snprintf(item, sizeof item, "%.*s", (int)len, p);
        char *eq = strchr(item, '=');
        if (eq)
            *eq = '\0';
        if (!eq || strcasecmp(item, "Threads"))
            return error_set(msg, size,
                             "option.%s: the built-in engine takes option.Threads=N only", item);
        long long v;
        if (!numparse_int("option.Threads", eq + 1, 1, SEARCH_THREADS_MAX, &v, msg, size))
            return false;
        n = (int)v;
        p += len + (p[len] == ';');
    }
    *threads = n;
    return true;
}

static bool check_player(const ProtoPlayer *p, int i, ProtoError *err)
{
    if (p->kind >= PROTO_ENGINE_KIND_NB)
        return ERROR_SET(err, "WORK player %d: unknown engine kind %u", i, p->kind);
    if (p->depth > MAX_PLY)
        return ERROR_SET(err, "WORK player %d: depth %u exceeds %d", i, p->depth, MAX_PLY);
    if (p->movetime_ms > MOVETIME_MAX_MS)
        return ERROR_SET(err, "WORK player %d: movetime %u ms exceeds %d", i, p->movetime_ms,
                         MOVETIME_MAX_MS);
    if (!p->nodes && !p->depth && !p->movetime_ms && !p->tc_base_ms)
        return ERROR_SET(err, "WORK player %d: no nodes, depth, movetime or clock limit", i);
    if (p->tc_base_ms > 24u * 3600 * 1000 || p->tc_inc_ms > MOVETIME_MAX_MS || p->margin_ms > 60000)
        return ERROR_SET(err, "WORK player %d: clock, increment or margin out of range", i);
    if (!p->tc_base_ms && p->tc_inc_ms)
        return ERROR_SET(err, "WORK player %d: an increment without a clock", i);
    if (p->protocol >= PROTO_EXT_NB)
        return ERROR_SET(err, "WORK player %d: unknown engine protocol %u", i, p->protocol);
    bool external = p->kind == PROTO_ENGINE_EXTERNAL;
    if (external && (!p->command[0] || p->weights[0]))
        return ERROR_SET(err, "WORK player %d: an external engine needs a command and no weights",
                         i);
    if (!external && (p->command[0] || p->dir[0] || p->protocol))
        return ERROR_SET(
            err, "WORK player %d: a built-in engine has no command, directory or protocol", i);
    int threads;
    if (!external &&
        !proto_builtin_options(p->options, &threads, err ? err->msg : NULL, sizeof err->msg))
        return false;
    return check_text(p->weights, sizeof p->weights, false,
                      i ? "WORK player 1 weights" : "WORK player 0 weights", err) &&
           check_text(p->command, sizeof p->command, false, "WORK player command", err) &&
           check_text(p->options, sizeof p->options, false, "WORK player options", err) &&
           check_text(p->dir, sizeof p->dir, false, "WORK player dir", err) &&
           check_tuned(p, i, err);
}

static bool check_settings(const ProtoGameSettings *s, ProtoError *err)
{
    if (s->max_plies < 1 || s->max_plies > RECORD_MAX_PLIES)
        return ERROR_SET(err, "WORK: max_plies %u outside 1..%d", s->max_plies, RECORD_MAX_PLIES);
    if (s->resign_moves > RECORD_MAX_PLIES || s->draw_moves > RECORD_MAX_PLIES ||
        s->draw_after > RECORD_MAX_PLIES)
        return ERROR_SET(err, "WORK: adjudication move counts exceed %d", RECORD_MAX_PLIES);
    if (s->resign_moves && (s->resign_score < 1 || s->resign_score > VALUE_MATE))
        return ERROR_SET(err, "WORK: resign_score %u outside 1..%d", s->resign_score, VALUE_MATE);
    if (s->resign_score > VALUE_MATE || s->draw_score > VALUE_MATE)
        return ERROR_SET(err, "WORK: adjudication scores exceed %d", VALUE_MATE);
    return true;
}

static bool check_work(const ProtoWork *w, ProtoError *err)
{
    if (!check_text(w->opening_fen, sizeof w->opening_fen, true, "WORK opening_fen", err))
        return false;
    if (w->nmoves > PROTO_OPENING_MAX)
        return ERROR_SET(err, "WORK: %u opening moves exceed %d", w->nmoves, PROTO_OPENING_MAX);
    for (int i = 0; i < w->nmoves; i++)
        if (!move_ok(w->moves[i]))
            return ERROR_SET(err, "WORK: opening move %d (0x%04x) is not a move", i, w->moves[i]);
    for (int i = 0; i < 2; i++)
        if (!check_player(&w->players[i], i, err))
            return false;
    return check_settings(&w->settings, err);
}

static bool check_game(const ProtoGame *g, ProtoError *err)
{
    const GameRecord *r = &g->rec;
    if (g->game_in_pair > 1)
        return ERROR_SET(err, "GAME: game_in_pair %u is not 0 or 1", g->game_in_pair);
    if (!check_text(r->start_fen, sizeof r->start_fen, true, "GAME start_fen", err))
        return false;
    if (!r->start_fen[0])
        return ERROR_SET(err, "GAME: empty start_fen");
    if (r->nplies < 0 || r->nplies > RECORD_MAX_PLIES)
        return ERROR_SET(err, "GAME: %d plies outside 0..%d", r->nplies, RECORD_MAX_PLIES);
    for (int i = 0; i < r->nplies; i++) {
        const RecordPly *p = &r->plies[i];
        if (!move_ok(p->move))
            return ERROR_SET(err, "GAME: ply %d: move 0x%04x is not a move", i, p->move);
        if (p->best != MOVE_NONE && !move_ok(p->best))
            return ERROR_SET(err, "GAME: ply %d: best move 0x%04x is not a move", i, p->best);
        if (p->score < -VALUE_MATE || p->score > VALUE_MATE)
            return ERROR_SET(err, "GAME: ply %d: score %d outside +-%d", i, p->score, VALUE_MATE);
        if (p->flags & ~RECORD_FLAGS_ALL)
            return ERROR_SET(err, "GAME: ply %d: unknown flags 0x%02x", i, p->flags);
    }
    if (r->outcome <= OUTCOME_NONE || r->outcome > OUTCOME_BLACK_WIN)
        return ERROR_SET(err, "GAME: outcome %d is not a finished game's", (int)r->outcome);
    if ((unsigned)r->reason >= REASON_NB)
        return ERROR_SET(err, "GAME: unknown reason %d", (int)r->reason);
    return true;
}

bool proto_check(const ProtoMsg *m, ProtoError *err)
{
    switch (m->type) {
    case PROTO_HELLO:
        return check_hello(&m->hello, err);
    case PROTO_WORK:
        return check_work(&m->work, err);
    case PROTO_GAME:
        return check_game(&m->game, err);
    case PROTO_ACK:
        if (m->ack.game_in_pair > 1)
            return ERROR_SET(err, "ACK: game_in_pair %u is not 0 or 1", m->ack.game_in_pair);
        if (m->ack.status >= PROTO_ACK_STATUS_NB)
            return ERROR_SET(err, "ACK: unknown status %u", m->ack.status);
        return true;
    case PROTO_WAIT:
        if (m->wait.retry_ms < 1 || m->wait.retry_ms > WAIT_MAX_MS)
            return ERROR_SET(err, "WAIT: retry_ms %u outside 1..%d", m->wait.retry_ms, WAIT_MAX_MS);
        return true;
    case PROTO_ERROR:
        return check_text(m->error.text, sizeof m->error.text, false, "ERROR text", err);
    case PROTO_WORK_REQUEST:
    case PROTO_HEARTBEAT:
    case PROTO_DONE:
        return true;
    default:
        return ERROR_SET(err, "unknown message type %d", (int)m->type);
    }
}

/* ------------------------------------------------------------------------------------
 * Encoding
 * ------------------------------------------------------------------------------------ */

typedef struct {
    uint8_t *buf;
    size_t cap, len;
    bool overflow;
} Writer;

static void put_bytes(Writer *w, const void *p, size_t n)
{
    if (w->overflow || n > w->cap - w->len) {
        w->overflow = true;
        return;
    }
    if (n)
        memcpy(w->buf + w->len, p, n);
    w->len += n;
}

static void put_le(Writer *w, uint64_t v, int n)
{
    uint8_t b[8];
    for (int i = 0; i < n; i++)
        b[i] = (uint8_t)(v >> (8 * i));
    put_bytes(w, b, (size_t)n);
}

static void put_u8(Writer *w, unsigned v)
{
    put_le(w, v, 1);
}
static void put_u16(Writer *w, unsigned v)
{
    put_le(w, v, 2);
}
static void put_u32(Writer *w, uint32_t v)
{
    put_le(w, v, 4);
}
static void put_u64(Writer *w, uint64_t v)
{
    put_le(w, v, 8);
}

/* Checked already: the string fits its field, so its length fits a u16. */
static void put_str(Writer *w, const char *s)
{
    size_t n = strlen(s);
    put_u16(w, (unsigned)n);
    put_bytes(w, s, n);
}

static void put_player(Writer *w, const ProtoPlayer *p)
{
    put_u16(w, p->player_id);
    put_u8(w, p->kind);
    put_u32(w, p->hash_mb);
    put_u64(w, p->nodes);
    put_u16(w, p->depth);
    put_u32(w, p->movetime_ms);
    put_str(w, p->weights);
    put_u8(w, p->protocol);
    put_u32(w, p->tc_base_ms);
    put_u32(w, p->tc_inc_ms);
    put_u32(w, p->margin_ms);
    put_str(w, p->command);
    put_str(w, p->options);
    put_str(w, p->dir);
    put_u8(w, p->ntuned);
    for (int k = 0; k < p->ntuned; k++) {
        uint64_t bits;
        memcpy(&bits, &p->tuned[k].value, sizeof bits);
        put_str(w, p->tuned[k].name);
        put_u64(w, bits);
    }
}

static void put_payload(Writer *w, const ProtoMsg *m)
{
    switch (m->type) {
    case PROTO_HELLO:
        put_u32(w, m->hello.rank);
        put_u32(w, m->hello.world_size);
        put_u32(w, m->hello.pid);
        put_str(w, m->hello.hostname);
        put_str(w, m->hello.version);
        break;
    case PROTO_WORK: {
        const ProtoWork *k = &m->work;
        put_u64(w, k->run_id);
        put_u64(w, k->pair_id);
        put_str(w, k->opening_fen);
        put_u16(w, k->nmoves);
        for (int i = 0; i < k->nmoves; i++)
            put_u16(w, k->moves[i]);
        put_player(w, &k->players[0]);
        put_player(w, &k->players[1]);
        put_u16(w, k->settings.max_plies);
        put_u16(w, k->settings.resign_moves);
        put_u16(w, k->settings.resign_score);
        put_u16(w, k->settings.draw_after);
        put_u16(w, k->settings.draw_moves);
        put_u16(w, k->settings.draw_score);
        break;
    }
    case PROTO_GAME: {
        const ProtoGame *g = &m->game;
        put_u64(w, g->run_id);
        put_u64(w, g->pair_id);
        put_u8(w, g->game_in_pair);
        put_u32(w, g->worker_rank);
        put_str(w, g->rec.start_fen);
        put_u16(w, (unsigned)g->rec.nplies);
        for (int i = 0; i < g->rec.nplies; i++) {
            const RecordPly *p = &g->rec.plies[i];
            put_u16(w, p->move);
            put_u16(w, p->best);
            put_u16(w, (uint16_t)p->score);
            put_u8(w, p->depth);
            put_u8(w, p->flags);
            put_u32(w, p->nodes);
        }
        put_u8(w, (unsigned)g->rec.outcome);
        put_u8(w, (unsigned)g->rec.reason);
        break;
    }
    case PROTO_ACK:
        put_u64(w, m->ack.run_id);
        put_u64(w, m->ack.pair_id);
        put_u8(w, m->ack.game_in_pair);
        put_u8(w, m->ack.status);
        put_u64(w, m->ack.game_id);
        break;
    case PROTO_HEARTBEAT:
        put_u32(w, m->heartbeat.rank);
        put_u64(w, m->heartbeat.games_done);
        put_u64(w, m->heartbeat.nodes);
        break;
    case PROTO_WAIT:
        put_u32(w, m->wait.retry_ms);
        break;
    case PROTO_ERROR:
        put_str(w, m->error.text);
        break;
    default: /* WORK_REQUEST, DONE: no payload */
        break;
    }
}

size_t proto_encode(const ProtoMsg *m, uint8_t *buf, size_t cap, ProtoError *err)
{
    if (!proto_check(m, err))
        return 0;
    Writer w = {buf, cap, 0, false};
    put_u32(&w, PROTO_MAGIC);
    put_u16(&w, PROTO_VERSION);
    put_u16(&w, (unsigned)m->type);
    put_u32(&w, 0); /* payload length, patched below */
    put_payload(&w, m);
    if (w.overflow) {
        ERROR_SET(err, "%s: does not fit in %zu bytes", proto_type_name(m->type), cap);
        return 0;
    }
    uint32_t n = (uint32_t)(w.len - PROTO_HEADER_SIZE);
    for (int i = 0; i < 4; i++)
        buf[8 + i] = (uint8_t)(n >> (8 * i));
    return w.len;
}

/* ------------------------------------------------------------------------------------
 * Decoding: a cursor that stops at the first shortfall and remembers which field it was
 * ------------------------------------------------------------------------------------ */

typedef struct {
    const uint8_t *buf;
    size_t len, pos;
    const char *type;
    ProtoError *err;
    bool failed;
} Reader;

static bool need(Reader *r, size_t n, const char *field)
{
    if (r->failed)
        return false;
    if (n > r->len - r->pos) {
        r->failed = true;
        ERROR_SET(r->err, "%s: truncated at %s (offset %zu: %zu bytes needed, %zu left)", r->type,
                  field, PROTO_HEADER_SIZE + r->pos, n, r->len - r->pos);
        return false;
    }
    return true;
}

static uint64_t get_le(Reader *r, int n, const char *field)
{
    if (!need(r, (size_t)n, field))
        return 0;
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v |= (uint64_t)r->buf[r->pos + (size_t)i] << (8 * i);
    r->pos += (size_t)n;
    return v;
}

static uint8_t get_u8(Reader *r, const char *f)
{
    return (uint8_t)get_le(r, 1, f);
}
static uint16_t get_u16(Reader *r, const char *f)
{
    return (uint16_t)get_le(r, 2, f);
}
static uint32_t get_u32(Reader *r, const char *f)
{
    return (uint32_t)get_le(r, 4, f);
}
static uint64_t get_u64(Reader *r, const char *f)
{
    return get_le(r, 8, f);
}

/* Reads a str into a char array of `size` bytes; a longer string fails here, before
 * anything is copied. Embedded NULs and control bytes are caught by proto_check. */
static void get_str(Reader *r, char *dst, size_t size, const char *field)
{
    dst[0] = '\0';
    size_t n = get_u16(r, field);
    if (r->failed)
        return;
    if (n >= size) {
        r->failed = true;
        ERROR_SET(r->err, "%s: %s of %zu bytes exceeds %zu", r->type, field, n, size - 1);
        return;
    }
    if (!need(r, n, field))
        return;
    memcpy(dst, r->buf + r->pos, n);
    dst[n] = '\0';
    if (strlen(dst) != n) {
        r->failed = true;
        ERROR_SET(r->err, "%s: %s holds a NUL byte", r->type, field);
        return;
    }
    r->pos += n;
}

static void get_player(Reader *r, ProtoPlayer *p)
{
    p->player_id = get_u16(r, "player_id");
    p->kind = get_u8(r, "engine kind");
    p->hash_mb = get_u32(r, "hash_mb");
    p->nodes = get_u64(r, "nodes");
    p->depth = get_u16(r, "depth");
    p->movetime_ms = get_u32(r, "movetime_ms");
    get_str(r, p->weights, sizeof p->weights, "weights");
    p->protocol = get_u8(r, "protocol");
    p->tc_base_ms = get_u32(r, "tc_base_ms");
    p->tc_inc_ms = get_u32(r, "tc_inc_ms");
    p->margin_ms = get_u32(r, "margin_ms");
    get_str(r, p->command, sizeof p->command, "command");
    get_str(r, p->options, sizeof p->options, "options");
    get_str(r, p->dir, sizeof p->dir, "dir");
    p->ntuned = get_u8(r, "ntuned");
    if (!r->failed && p->ntuned > PROTO_TUNED_MAX) {
        r->failed = true;
        ERROR_SET(r->err, "WORK: %u tuned parameters exceed %d", p->ntuned, PROTO_TUNED_MAX);
        return;
    }
    for (int k = 0; k < p->ntuned && !r->failed; k++) {
        get_str(r, p->tuned[k].name, sizeof p->tuned[k].name, "tuned parameter name");
        uint64_t bits = get_u64(r, "tuned parameter value");
        memcpy(&p->tuned[k].value, &bits, sizeof bits);
    }
}

static void get_work(Reader *r, ProtoWork *k)
{
    k->run_id = get_u64(r, "run_id");
    k->pair_id = get_u64(r, "pair_id");
    get_str(r, k->opening_fen, sizeof k->opening_fen, "opening_fen");
    k->nmoves = get_u16(r, "nmoves");
    if (!r->failed && k->nmoves > PROTO_OPENING_MAX) {
        r->failed = true;
        ERROR_SET(r->err, "WORK: %u opening moves exceed %d", k->nmoves, PROTO_OPENING_MAX);
        return;
    }
    for (int i = 0; i < k->nmoves && !r->failed; i++)
        k->moves[i] = get_u16(r, "opening moves");
    get_player(r, &k->players[0]);
    get_player(r, &k->players[1]);
    k->settings.max_plies = get_u16(r, "max_plies");
    k->settings.resign_moves = get_u16(r, "resign_moves");
    k->settings.resign_score = get_u16(r, "resign_score");
    k->settings.draw_after = get_u16(r, "draw_after");
    k->settings.draw_moves = get_u16(r, "draw_moves");
    k->settings.draw_score = get_u16(r, "draw_score");
}

static void get_game(Reader *r, ProtoGame *g)
{
    GameRecord *rec = &g->rec;
    g->run_id = get_u64(r, "run_id");
    g->pair_id = get_u64(r, "pair_id");
    g->game_in_pair = get_u8(r, "game_in_pair");
    g->worker_rank = get_u32(r, "worker_rank");
    rec->game_id = 0;
    get_str(r, rec->start_fen, sizeof rec->start_fen, "start_fen");
    unsigned n = get_u16(r, "nplies");
    if (!r->failed && n > RECORD_MAX_PLIES) {
        r->failed = true;
        ERROR_SET(r->err, "GAME: %u plies exceed %d", n, RECORD_MAX_PLIES);
        return;
    }
    rec->nplies = (int)n;
    /* Check the whole ply array's length once, then read it without further tests. */
    if (!need(r, (size_t)n * PROTO_PLY_SIZE, "plies"))
        return;
    for (unsigned i = 0; i < n; i++) {
        RecordPly *p = &rec->plies[i];
        p->move = get_u16(r, "move");
        p->best = get_u16(r, "best");
        p->score = (int16_t)get_u16(r, "score");
        p->depth = get_u8(r, "depth");
        p->flags = get_u8(r, "flags");
        p->nodes = get_u32(r, "nodes");
    }
    rec->outcome = (Outcome)get_u8(r, "outcome");
    rec->reason = (Reason)get_u8(r, "reason");
}

static void get_payload(Reader *r, ProtoMsg *m)
{
    switch (m->type) {
    case PROTO_HELLO:
        m->hello.rank = get_u32(r, "rank");
        m->hello.world_size = get_u32(r, "world_size");
        m->hello.pid = get_u32(r, "pid");
        get_str(r, m->hello.hostname, sizeof m->hello.hostname, "hostname");
        get_str(r, m->hello.version, sizeof m->hello.version, "version");
        break;
    case PROTO_WORK:
        get_work(r, &m->work);
        break;
    case PROTO_GAME:
        get_game(r, &m->game);
        break;
    case PROTO_ACK:
        m->ack.run_id = get_u64(r, "run_id");
        m->ack.pair_id = get_u64(r, "pair_id");
        m->ack.game_in_pair = get_u8(r, "game_in_pair");
        m->ack.status = get_u8(r, "status");
        m->ack.game_id = get_u64(r, "game_id");
        break;
    case PROTO_HEARTBEAT:
        m->heartbeat.rank = get_u32(r, "rank");
        m->heartbeat.games_done = get_u64(r, "games_done");
        m->heartbeat.nodes = get_u64(r, "nodes");
        break;
    case PROTO_WAIT:
        m->wait.retry_ms = get_u32(r, "retry_ms");
        break;
    case PROTO_ERROR:
        get_str(r, m->error.text, sizeof m->error.text, "text");
        break;
    default:
        break;
    }
}

bool proto_decode(const uint8_t *buf, size_t len, ProtoMsg *out, ProtoError *err)
{
    if (!buf || len < PROTO_HEADER_SIZE)
        return ERROR_SET(err, "frame of %zu bytes is shorter than the %d-byte header",
                         buf ? len : 0, PROTO_HEADER_SIZE);
    if (len > PROTO_MAX_MESSAGE)
        return ERROR_SET(err, "frame of %zu bytes exceeds %d", len, PROTO_MAX_MESSAGE);
    uint32_t magic = 0, payload = 0;
    for (int i = 0; i < 4; i++) {
        magic |= (uint32_t)buf[i] << (8 * i);
        payload |= (uint32_t)buf[8 + i] << (8 * i);
    }
    unsigned version = buf[4] | (unsigned)buf[5] << 8;
    unsigned type = buf[6] | (unsigned)buf[7] << 8;
    if (magic != PROTO_MAGIC)
        return ERROR_SET(err, "bad magic 0x%08x (not a chuhe message)", magic);
    if (version != PROTO_VERSION)
        return ERROR_SET(err, "protocol version %u, expected %d", version, PROTO_VERSION);
    if (type < 1 || type >= PROTO_TYPE_NB)
        return ERROR_SET(err, "unknown message type %u", type);
    if (payload != len - PROTO_HEADER_SIZE)
        return ERROR_SET(err, "%s: header says %u payload bytes, frame has %zu", TYPE_NAMES[type],
                         payload, len - PROTO_HEADER_SIZE);

    proto_init(out, (ProtoType)type);
    Reader r = {buf + PROTO_HEADER_SIZE, payload, 0, TYPE_NAMES[type], err, false};
    get_payload(&r, out);
    if (r.failed)
        return false;
    if (r.pos != r.len)
        return ERROR_SET(err, "%s: %zu unexpected bytes after the payload", TYPE_NAMES[type],
                         r.len - r.pos);
    return proto_check(out, err);
}
