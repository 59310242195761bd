/*
 * The game loop: two engines play one game from an opening and the result is a
 * GameRecord that record_validate() accepts. The worker's unit of work is a pair of
 * games from one opening with the colours swapped (game_play_pair).
 *
 * Before every search the mover's engine is given the start position and the whole
 * move list, so it sees the repetitions the rules will judge. The rules are consulted
 * after every move; the runner's own endings (move cap, adjudication) apply only while
 * the rules let the game go on. With node or depth limits a game is a function of the
 * engines' weights, the opening and the settings: replaying it gives the same record.
 */
#ifndef CHUHE_GAME_H
#define CHUHE_GAME_H

#include "engine.h"
#include "opening.h"
#include "record.h"

/* What an out-of-process player's search reported. */
typedef enum {
    GAME_SEARCH_OK,      /* a move (maybe MOVE_NONE or illegal: the loop judges it) */
    GAME_SEARCH_CRASH,   /* the engine died, or hung without a clock to lose on */
    GAME_SEARCH_TIMEOUT, /* no move before the deadline */
    GAME_SEARCH_RESIGN,  /* the engine resigned instead of moving */
} GameSearchStatus;

/*
 * A player's search: the game so far as start FEN + moves (coordinate text), the
 * limits with the clocks filled in, and a deadline (ms of time_now_ms(); 0 none) after
 * which it must give up with GAME_SEARCH_TIMEOUT. Fills best, score, depth, nodes.
 */
typedef GameSearchStatus (*GameSearchFn)(void *ctx, const char *start_fen, const char *const *moves,
                                         int nmoves, const SearchLimits *limits,
                                         int64_t deadline_ms, SearchResult *out);

/*
 * One side's player: either an in-process engine (engine set, search NULL) or a search
 * callback (an external engine). Clocks are kept by the game loop, wall time measured
 * around each search: with clock_base_ms > 0 the player starts every game with that
 * much time and gains clock_inc_ms after each move; a move that leaves the clock below
 * -margin_ms, or (without a clock) takes longer than limits.movetime + margin_ms, loses
 * on time. Node and depth limits are never timed.
 */
typedef struct {
    Engine *engine;      /* both players may share one engine */
    SearchLimits limits; /* per move: nodes, depth and/or movetime; time[]/inc[] are set by
                            the loop from the clocks */
    GameSearchFn search; /* NULL: search with engine */
    void (*new_game)(void *search_ctx); /* called before each game; may be NULL */
    void *search_ctx;
    int64_t clock_base_ms, clock_inc_ms; /* base 0: no clock */
    int64_t margin_ms;
    int64_t hang_ms; /* without a clock or movetime: a search this long is a crash (0: 60 s) */
} GamePlayer;

/*
 * Adjudication in the manner of cutechess-cli, counted over searched moves only
 * (opening moves neither count nor break a run):
 *   resign  side X loses once its last resign_moves scores were all <= -resign_score
 *           and the opponent's last resign_moves scores were all >= resign_score;
 *   draw    the game is drawn once the last draw_moves scores of each side were all
 *           within [-draw_score, draw_score], counting only moves at record ply
 *           draw_after or later (plies numbered from 0 at the start position, opening
 *           moves included; "after move K" of a Red start is ply 2K).
 * A moves count of 0 turns the rule off. Scores are each mover's own. The fields and
 * their meaning are those of a WORK message's settings (ProtoGameSettings in
 * contracts/protocol.h), which the worker copies here.
 */
typedef struct {
    int max_plies; /* plies before the game is a draw by move limit; 0 or more than
                      RECORD_MAX_PLIES means RECORD_MAX_PLIES */
    int resign_moves;
    int resign_score;
    int draw_after;
    int draw_moves;
    int draw_score;
    /* Called after every ply with the record so far (its outcome not yet set);
     * returning false stops the game (GAME_STOPPED). May be NULL. */
    bool (*on_ply)(void *ctx, const GameRecord *r);
    void *ctx;
} GameSettings;

typedef enum {
    GAME_OK,      /* the record holds a finished game */
    GAME_ERROR,   /* bad opening or settings, or out of memory: err says which */
    GAME_STOPPED, /* on_ply asked to stop; the record holds the unfinished game */
} GameStatus;

typedef struct {
    char msg[256];
} GameError;

/* No adjudication and the full record length. */
void game_settings_default(GameSettings *s);

/*
 * Plays one game from op: its forced moves first (recorded with RECORD_FLAG_OPENING),
 * then red searches Red's moves and black Black's. Both engines start with
 * engine_new_game(), so nothing is carried over from an earlier game. An engine that
 * returns no move or an illegal one loses by REASON_ILLEGAL_MOVE, one out of time by
 * REASON_TIME_FORFEIT, an external one that crashed or hung by REASON_ENGINE_CRASH, one that
 * resigned by REASON_RESIGN. settings may be NULL
 * (game_settings_default). On GAME_OK, out holds a record that record_validate accepts.
 */
GameStatus game_play(GamePlayer *red, GamePlayer *black, const Opening *op,
                     const GameSettings *settings, uint64_t game_id, GameRecord *out,
                     GameError *err);

/*
 * The two games of a pair from op: out[0] with first as Red and id first_id, out[1]
 * with first as Black and id first_id + 1. Stops at the first game that does not end
 * with GAME_OK and returns its status.
 */
GameStatus game_play_pair(GamePlayer *first, GamePlayer *second, const Opening *op,
                          const GameSettings *settings, uint64_t first_id, GameRecord out[2],
                          GameError *err);

#endif
