/*
 * The coordinator's settings: the command line, and the run's own settings as stored
 * in the run file's run_config attribute.
 *
 * Two kinds of option. Run settings (limits, openings, weights, adjudication, the game
 * target) shape the games; they are written to run_config as one flat JSON object when
 * a run starts, and a restarted coordinator takes them from there, so
 * `chuhe-coordinator --out run.h5` alone continues a run. On a restart a run setting
 * given again must have its stored value, except --games, which may change. Session
 * settings (where to bind, output format, timeouts) belong to one process and are
 * never stored.
 *
 * Here: the settings, the checks that judge them together, and the entry points. The
 * option table and its parser are coord_options.h; the stored form is coord_runconfig.h.
 */
#ifndef CHUHE_COORD_CONFIG_H
#define CHUHE_COORD_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cliopt.h"
#include "contracts/protocol.h"
#include "contracts/stats.h"

enum {
    COORD_PATH_MAX = 1024,
    COORD_MAX_INFLIGHT_CAP = 64,     /* the highest --max-inflight */
    COORD_DEFAULT_MAX_INFLIGHT = 8,  /* pairs a worker may hold unacknowledged */
    COORD_DEFAULT_RATE_LIMIT = 1000, /* messages a second per worker */
    COORD_ENDPOINT_MAX = 256,
    COORD_DEFAULT_NODES = 10000, /* when no --nodes, --depth or --movetime is given */
    COORD_DEFAULT_RANDOM_PLIES = 8,
    COORD_DEFAULT_MAX_PLIES = 400,
    COORD_DEFAULT_GAMES = 1000,
    COORD_MAX_ENGINES = 32, /* engines of one run (a match has two) */
    COORD_OPTS_MAX = 512,   /* entries of the option table */
};

/* The highest game target, node limit and move time (ms) an option takes. */
#define COORD_GAMES_MAX 1e12
#define COORD_NODES_MAX 4e9
#define COORD_MOVETIME_MAX 3600000

/* Without keys and --open-network only loopback endpoints may be bound. */
#define COORD_DEFAULT_BIND_OPEN "tcp://*:5555"
#define COORD_DEFAULT_BIND_LOCAL "tcp://127.0.0.1:5555"
#define COORD_CONFIG_FORMAT "chuhe-coordinator run config 1"

typedef struct {
    /* Run settings. */
    uint64_t games;                /* target; rounded up to whole pairs */
    uint64_t nodes;                /* per move; 0: none */
    int depth;                     /* per move; 0: none */
    int movetime;                  /* ms per move; 0: none */
    int hash_mb;                   /* per engine */
    char openings[COORD_PATH_MAX]; /* EPD/FEN file; "" for random openings */
    int random_plies;              /* random openings: plies from the start position */
    uint64_t seed;                 /* random openings: pair p uses a seed derived from it */
    int opening_max_score;         /* random openings: keep |score| <= this; 0: any */
    /* Engines, indexed 0..engines-1 (options --X-red, --X-black, then --X-2, --X-3...).
     * A command makes the engine external. */
    int engines;         /* 2..COORD_MAX_ENGINES */
    char tournament[16]; /* more than two engines: "roundrobin" or "gauntlet" */
    char weights[COORD_MAX_ENGINES][PROTO_WEIGHTS_MAX + 1]; /* "" for the built-in weights */
    char name[COORD_MAX_ENGINES][64];                       /* "" for a name from weights or cmd */
    char cmd[COORD_MAX_ENGINES][PROTO_COMMAND_MAX + 1];     /* program and arguments */
    char proto[COORD_MAX_ENGINES][16];                      /* uci (default), uci1, ucci, xboard */
    char options[COORD_MAX_ENGINES][PROTO_COMMAND_MAX + 1]; /* "Name=Value;Name=Value" */
    char dir[COORD_MAX_ENGINES][PROTO_COMMAND_MAX + 1];     /* working directory */
    /* Per-engine limits (time odds): a nonzero node or depth limit replaces the run's
     * one for that engine; a clock or move time replaces both of the run's time
     * settings (see coord_engine_limits). */
    CliTimeControl engine_tc[COORD_MAX_ENGINES];
    int engine_movetime[COORD_MAX_ENGINES];
    uint64_t engine_nodes[COORD_MAX_ENGINES];
    int engine_depth[COORD_MAX_ENGINES];
    /* Opening files: "epd" or "pgn" ("" by the file name), "sequential" or "random"
     * order (shuffled by the seed), the 1-based first opening, PGN plies kept. The
     * policy (file or random openings): "pair" ("" too) gives every pair its own
     * opening, "round" one opening to every pairing of a tournament round. */
    char opening_format[8];
    char opening_order[16];
    char opening_policy[8];
    int opening_start;
    int opening_plies;
    CliTimeControl tc;               /* "BASE+INC" seconds, read once; "" for none */
    int timemargin;                  /* ms of overrun before a time forfeit */
    char sprt[128];                  /* "elo0=X elo1=Y [alpha=A] [beta=B] [model=M]"; "" none */
    char spsa[COORD_PATH_MAX + 256]; /* "params=FILE pairs=N A=.. ..." (coord_spsa.h); "" none */
    int max_plies;
    int resign_moves, resign_score;
    int draw_after, draw_moves, draw_score;

    /* Session settings. */
    /* The game target as rounds (cutechess -rounds, -games): every pairing of the run's
     * engines plays rounds rounds of round_games games; 0: not given (1 round, 2 games).
     * coord_config_finish_new and coord_config_resume turn them into games, with the
     * engines and tournament of the run (on a resume, the stored ones). */
    uint64_t rounds, round_games;
    char bind[COORD_ENDPOINT_MAX];
    char out[COORD_PATH_MAX];
    bool accept_changed_inputs;   /* resume although a weights or openings file changed */
    bool json;                    /* JSON lines on stdout */
    double heartbeat_timeout;     /* s without a message before a worker's pair is re-queued */
    double drain_timeout;         /* s to wait for workers after the target is reached */
    double progress_interval;     /* s between progress lines */
    char pgnout[COORD_PATH_MAX];  /* PGN of every stored game, written at the end; "" none */
    int rating_interval;          /* games between logged rating lines; 0: none */
    char ack_log[COORD_PATH_MAX]; /* a JSON line per ACK sent (coord_acklog.h); "" none */
    /* The live page (coord_http.h): ADDR:PORT, "" for none; a non-loopback one only with
     * http_open. */
    char http[COORD_ENDPOINT_MAX];
    bool http_open;
    char spsa_out[COORD_PATH_MAX], spsa_plot[COORD_PATH_MAX]; /* SPSA's final values, PNG */

    /* Security and limits (session settings too). */
    char curve_secret[COORD_PATH_MAX]; /* the coordinator's secret key; "" plain */
    char allow_keys[COORD_PATH_MAX];   /* the workers' public keys */
    bool open_network;                 /* plain mode on a non-loopback endpoint */
    int max_message;                   /* bytes of a worker's message (ZMQ_MAXMSGSIZE) */
    int max_inflight;                  /* pairs a worker holds unacknowledged */
    double rate_limit;                 /* messages a second per worker; 0: no limit */
    double rate_burst;                 /* messages at once; 0: two seconds' worth */
} CoordConfig;

/* Which options the command line gave (indexed by the option table, opaque), and for
 * those that the user wrote otherwise (--weights for --weights-red, "-engine name (engine
 * 2)" for --name-black) what to call them in messages; "" for the option's own name. */
typedef struct {
    bool given[COORD_OPTS_MAX];
    char said[COORD_OPTS_MAX][48];
} CoordGiven;

/* One engine's effective limits: its own where it has them, else the run's. */
typedef struct {
    uint64_t nodes;
    int depth;
    int movetime;                   /* ms per move */
    uint32_t tc_base_ms, tc_inc_ms; /* clock; base 0: none */
} CoordLimits;

typedef struct {
    char msg[1200];
} CoordError;

void coord_config_defaults(CoordConfig *c);

/* Parses options argv[0..argc-1] into c (coord_options_parse). "--help" and "--version"
 * are not options here. */
bool coord_config_parse(CoordConfig *c, CoordGiven *given, int argc, char **argv, CoordError *err);

/* Completes the settings of a new run: the default limit, a random seed when none was
 * given, absolute paths, and the range checks. */
bool coord_config_finish_new(CoordConfig *c, const CoordGiven *given, CoordError *err);

/* The run settings of a stored run_config alone (on the defaults), checked as a resumed
 * run's are: what `verify` holds a run file to. */
bool coord_config_stored(CoordConfig *c, const char *json, CoordError *err);

/* Takes the run settings from a stored run_config, checks that the command line agrees
 * with them (only --games may differ), and keeps the command line's session settings. */
bool coord_config_resume(CoordConfig *c, const CoordGiven *given, const char *json,
                         CoordError *err);

/* The run settings as one flat JSON object (coord_runconfig_write); false if buf is too
 * small. */
bool coord_config_to_json(const CoordConfig *c, char *buf, size_t size);

/* Parses the --sprt text into p; *has is false for "". */
bool coord_config_parse_sprt(const char *text, SprtParams *p, bool *has, CoordError *err);

/* The output paths of a run whose settings are complete, checked before anything is
 * written (contracts/outpath.h): --out is a run file to resume or a new file, never one
 * of the run's inputs (openings, weights, key files); -pgnout is appended to only if it
 * is PGN, --ack-log only if it is text, neither ever the run file or an input. */
bool coord_config_check_outputs(const CoordConfig *c, CoordError *err);

/* Engine e's limits (the clock as checked by coord_config_finish_new). */
void coord_engine_limits(const CoordConfig *c, int e, CoordLimits *out);

/* The option suffix of engine e: "red", "black", then "2", "3"... */
const char *coord_config_engine_suffix(int e, char buf[16]);

/* The coordinator's network rule, checked before any file is touched: CURVE needs both
 * key options; only tcp:// and ipc:// endpoints (workers are other processes); without
 * keys only a loopback endpoint may be bound (127.0.0.0/8, ::1, localhost, ipc://)
 * unless --open-network is given. Fills in the default endpoint of the mode when --bind
 * is not given, and binds tcp://localhost:PORT as tcp://127.0.0.1:PORT (ZeroMQ binds no
 * host name). */
bool coord_config_check_network(CoordConfig *c, CoordError *err);

/* Whether a ZeroMQ endpoint is reachable from this machine only. */
bool coord_endpoint_is_local(const char *endpoint);

/* The longest message a worker sends in a run with this move limit (a GAME of max_plies
 * plies with the longest FEN, or an ERROR). */
int coord_worker_message_max(int max_plies);

#endif
