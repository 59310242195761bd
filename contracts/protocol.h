/*
 * The wire protocol between worker ranks (ZeroMQ DEALER) and the coordinator (ROUTER):
 * message layouts, encoding and validating decoding. No sockets here: one message is
 * one ZeroMQ frame, built by proto_encode() and read by proto_decode().
 *
 * Conversation:
 *   worker                          coordinator
 *   HELLO ------------------------>
 *   WORK_REQUEST ----------------->
 *                 <---------------- WORK (a pair) | WAIT (retry later) | DONE (exit)
 *   GAME (game 0 of the pair) ---->
 *                 <---------------- ACK (after the game is durably in the run file)
 *   GAME (game 1) ---------------->
 *                 <---------------- ACK
 *   HEARTBEAT (every few seconds) ->
 *                 <---------------- ERROR (text) whenever a message is refused
 *
 * Every integer is little-endian, whatever the host. Every message is a 12-byte
 * header and a payload:
 *
 *    0        4        6        8                12
 *   +--------+--------+--------+----------------+------------------------+
 *   | magic  |version | type   | payload length | payload (length bytes) |
 *   | "CHUH" |  u16   |  u16   |      u32       |                        |
 *   +--------+--------+--------+----------------+------------------------+
 *
 * The frame must be exactly 12 + payload length bytes long, and the payload must be
 * consumed exactly by its layout. Payload building blocks:
 *   str     u16 byte count n, then n bytes (no terminating NUL; no control bytes)
 *   move    u16 Move: bits 0-6 from square, bits 7-13 to square (types.h)
 *   f64     IEEE 754 binary64, sent as the u64 of its bits
 *   limits  u16 player_id, u8 engine kind, u32 hash_mb, u64 nodes, u16 depth,
 *           u32 movetime_ms, str weights path, u8 ext protocol, u32 tc_base_ms,
 *           u32 tc_inc_ms, u32 margin_ms, str command, str options, str dir,
 *           u8 ntuned, ntuned x (str name, f64 value)
 *
 * Payloads by type (fields in order):
 *   HELLO         u32 rank, u32 world_size, u32 pid, str hostname, str version
 *   WORK_REQUEST  (empty)
 *   WORK          u64 run_id, u64 pair_id, str opening_fen, u16 nmoves, nmoves x move,
 *                 2 x limits, u16 max_plies, u16 resign_moves, u16 resign_score,
 *                 u16 draw_after, u16 draw_moves, u16 draw_score
 *   GAME          u64 run_id, u64 pair_id, u8 game_in_pair, u32 worker_rank,
 *                 str start_fen, u16 nplies, nplies x ply, u8 outcome, u8 reason
 *                   ply (12 bytes):  0      2      4       6      7      8        12
 *                                    | move | best | score | depth| flags| nodes  |
 *                                    | u16  | u16  | i16   | u8   | u8   | u32    |
 *   ACK           u64 run_id, u64 pair_id, u8 game_in_pair, u8 status, u64 game_id
 *   HEARTBEAT     u32 rank, u64 games_done, u64 nodes
 *   DONE          (empty)
 *   WAIT          u32 retry_ms
 *   ERROR         str text
 *
 * Decoding trusts nothing: it never reads past the frame, checks the header and every
 * length before using it, and applies the same range checks as encoding (proto_check).
 * It does not judge chess: whether the moves are legal and the result right is
 * record_validate()'s job, and whether an opening can be played is the worker's.
 */
#ifndef CHUHE_PROTOCOL_H
#define CHUHE_PROTOCOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record.h"

enum {
    PROTO_MAGIC = 0x48554843, /* the bytes "CHUH" read as a little-endian u32 */
    /* 2: external engines and clocks in the player limits; 3: tuned parameters */
    PROTO_VERSION = 3,
    PROTO_HEADER_SIZE = 12,
    PROTO_MAX_MESSAGE = 16384, /* no valid frame is longer (a full GAME is ~12.5 KB) */
    PROTO_PLY_SIZE = 12,
};

/* Text limits in bytes, terminating NUL excluded. */
enum {
    PROTO_HOST_MAX = 64,
    PROTO_VERSION_MAX = 64,
    PROTO_FEN_MAX = RECORD_FEN_MAX - 1,
    PROTO_WEIGHTS_MAX = 255,
    PROTO_TEXT_MAX = 255,
    PROTO_OPENING_MAX = 128,   /* opening moves in a WORK message */
    PROTO_COMMAND_MAX = 511,   /* an external engine's command line, options, directory */
    PROTO_TUNED_MAX = 64,      /* tuned parameters of one player */
    PROTO_TUNED_NAME_MAX = 63, /* a tuned parameter's name */
};

/* Message types: never renumber, only append. 0 is never a valid type. */
typedef enum {
    PROTO_HELLO = 1,
    PROTO_WORK_REQUEST,
    PROTO_WORK,
    PROTO_GAME,
    PROTO_ACK,
    PROTO_HEARTBEAT,
    PROTO_DONE,
    PROTO_WAIT,
    PROTO_ERROR,
    PROTO_TYPE_NB
} ProtoType;

/* What plays a side: the built-in engine, or an external engine subprocess. */
typedef enum { PROTO_ENGINE_BUILTIN, PROTO_ENGINE_EXTERNAL, PROTO_ENGINE_KIND_NB } ProtoEngineKind;

/* How the worker speaks to an external engine: UCI with ranks 0-9 (Pikafish), UCI
 * with ranks 1-10 (Fairy-Stockfish), UCCI, XBoard/CECP protocol 2 (Sjaak II). */
typedef enum {
    PROTO_EXT_UCI,
    PROTO_EXT_UCI1,
    PROTO_EXT_UCCI,
    PROTO_EXT_XBOARD,
    PROTO_EXT_NB
} ProtoExtProtocol;

/* What the coordinator did with a GAME. Every status ends the worker's duty to resend. */
typedef enum {
    PROTO_ACK_STORED,    /* validated and durably stored as game_id */
    PROTO_ACK_DUPLICATE, /* (pair_id, game_in_pair) was already stored as game_id */
    PROTO_ACK_REJECTED,  /* failed validation; not stored, game_id is 0 */
    PROTO_ACK_STATUS_NB
} ProtoAckStatus;

typedef struct {
    uint32_t rank;
    uint32_t world_size; /* >= 1, > rank */
    uint32_t pid;        /* > 0 */
    char hostname[PROTO_HOST_MAX + 1];
    char version[PROTO_VERSION_MAX + 1]; /* the worker's build, e.g. CHUHE_VERSION */
} ProtoHello;

/* A parameter an SPSA run sets for one pair: a search constant of the built-in engine
 * (spsa_params.h), or an option of an external engine, set after its own options. The
 * name is printable ASCII without '=' or ';'; the value is finite. */
typedef struct {
    char name[PROTO_TUNED_NAME_MAX + 1];
    double value;
} ProtoTuned;

/* One player's engine and its per-move limits. At least one limit (nodes, depth,
 * movetime or a clock) is set; a search stops at the first one reached. An external
 * player (kind PROTO_ENGINE_EXTERNAL) has a command and no weights; a built-in one has
 * no command, options or directory. */
typedef struct {
    uint16_t player_id;                  /* row in the run file's /players */
    uint8_t kind;                        /* ProtoEngineKind */
    uint32_t hash_mb;                    /* 0: the engine's default */
    uint64_t nodes;                      /* 0: no node limit */
    uint16_t depth;                      /* 0: no depth limit; at most MAX_PLY */
    uint32_t movetime_ms;                /* 0: no time limit; at most one hour */
    char weights[PROTO_WEIGHTS_MAX + 1]; /* "" for the built-in weights */
    uint8_t protocol;                    /* ProtoExtProtocol; 0 for the built-in engine */
    uint32_t tc_base_ms;                 /* clock per game; 0: no clock; at most 24 h */
    uint32_t tc_inc_ms;                  /* added after each move; at most one hour */
    uint32_t margin_ms;                  /* overrun allowed before a time forfeit; <= 1 min */
    char command[PROTO_COMMAND_MAX + 1]; /* program and arguments, blank-separated */
    char options[PROTO_COMMAND_MAX + 1]; /* "Name=Value;Name=Value" */
    char dir[PROTO_COMMAND_MAX + 1];     /* working directory; "" none */
    uint8_t ntuned;                      /* 0..PROTO_TUNED_MAX */
    ProtoTuned tuned[PROTO_TUNED_MAX];
} ProtoPlayer;

/*
 * Adjudication, in the manner of cutechess-cli. A *_moves of 0 turns that rule off.
 * Resign: the game is lost for a side once its score has been <= -resign_score for
 * resign_moves of its consecutive moves and the opponent's >= resign_score for as many.
 * Draw: from game ply draw_after on, once both sides' |score| <= draw_score for
 * draw_moves consecutive moves each.
 */
typedef struct {
    uint16_t max_plies; /* 1..RECORD_MAX_PLIES: the game is drawn by REASON_MOVE_LIMIT */
    uint16_t resign_moves;
    uint16_t resign_score; /* centi-soldiers, 1..VALUE_MATE when resign_moves > 0 */
    uint16_t draw_after;
    uint16_t draw_moves;
    uint16_t draw_score; /* centi-soldiers, <= VALUE_MATE */
} ProtoGameSettings;

/*
 * A work unit: one opening played twice with colours swapped. players[0] is Red in
 * game 0 and Black in game 1. The opening is opening_fen ("" for the standard start
 * position) followed by the opening moves, which both games play first.
 */
typedef struct {
    uint64_t run_id;
    uint64_t pair_id;
    char opening_fen[PROTO_FEN_MAX + 1];
    uint16_t nmoves;
    Move moves[PROTO_OPENING_MAX];
    ProtoPlayer players[2];
    ProtoGameSettings settings;
} ProtoWork;

/* A finished game. rec.game_id is not sent (the run file assigns game ids; decoding
 * sets it to 0); a game is named by (run_id, pair_id, game_in_pair). */
typedef struct {
    uint64_t run_id;
    uint64_t pair_id;
    uint8_t game_in_pair; /* 0 or 1 */
    uint32_t worker_rank;
    GameRecord rec; /* outcome != OUTCOME_NONE, reason < REASON_NB */
} ProtoGame;

typedef struct {
    uint64_t run_id;
    uint64_t pair_id;
    uint8_t game_in_pair;
    uint8_t status; /* ProtoAckStatus */
    uint64_t game_id;
} ProtoAck;

typedef struct {
    uint32_t rank;
    uint64_t games_done;
    uint64_t nodes;
} ProtoHeartbeat;

typedef struct {
    uint32_t retry_ms; /* 1..3600000 */
} ProtoWait;

typedef struct {
    char text[PROTO_TEXT_MAX + 1];
} ProtoErrorText;

/* One decoded message. Large (a GAME holds a whole GameRecord, ~16 KB): keep one per
 * loop rather than on a small stack. */
typedef struct {
    ProtoType type;
    union {
        ProtoHello hello;
        ProtoWork work;
        ProtoGame game;
        ProtoAck ack;
        ProtoHeartbeat heartbeat;
        ProtoWait wait;
        ProtoErrorText error;
    };
} ProtoMsg;

typedef struct {
    char msg[160];
} ProtoError;

/* Clears *m and sets its type. */
void proto_init(ProtoMsg *m, ProtoType type);

/* The options of a built-in player ("Name=Value;..."): only Threads=N, N in
 * 1..SEARCH_THREADS_MAX (the name in any case; the hash has a field of its own). *threads
 * is the last one given, 1 for none. False with one line in msg naming the option. */
bool proto_builtin_options(const char *options, int *threads, char *msg, size_t size);

/* Range-checks every field of a message, as both encoding and decoding do. */
bool proto_check(const ProtoMsg *m, ProtoError *err);

/* Encodes into buf (PROTO_MAX_MESSAGE bytes are always enough). Returns the frame length,
 * or 0 with err set when a field is out of range or cap is too small. */
size_t proto_encode(const ProtoMsg *m, uint8_t *buf, size_t cap, ProtoError *err);

/* Decodes one whole frame. On failure returns false with err set; *out is then
 * unspecified. */
bool proto_decode(const uint8_t *buf, size_t len, ProtoMsg *out, ProtoError *err);

/* "HELLO", "WORK_REQUEST", ...; "unknown" outside the enum. */
const char *proto_type_name(ProtoType t);
/* "builtin", "external"; "unknown" outside the enum. The run file's /players kind uses
 * these names. */
const char *proto_engine_kind_name(ProtoEngineKind k);
/* "uci", "uci1", "ucci", "xboard"; "unknown" outside the enum. */
const char *proto_ext_protocol_name(ProtoExtProtocol p);
/* The inverse ("uci-ranks-1-10" is also uci1); false when unknown. */
bool proto_ext_protocol_parse(const char *name, ProtoExtProtocol *out);

#endif
