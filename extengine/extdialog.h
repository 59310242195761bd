/*
 * The protocol dialogues behind an ExtEngine, and what they share. Only extengine.c and
 * the dialogues (extuci.c, extxboard.c) include this header; everyone else uses
 * extengine.h.
 *
 * The interface is a table of functions, ExtDialog, one per protocol family, chosen in
 * one place (extengine.c) from the configured protocol:
 *
 *   extuci_dialog     uci, uci1 and ucci   handshake, setoption, position + go, bestmove
 *   extxboard_dialog  xboard (CECP 2)      features, option, setboard + moves, go, move
 *
 * extengine.c owns the process's life (spawn, stop, the restart after a crash or hang)
 * and the search's read loop; a dialogue owns the text that goes over the pipes and the
 * meaning of each line that comes back. A dialogue that needs to remember something
 * about the process (XBoard: its features and the game its board holds) declares
 * state_size: the engine then carries that many bytes at state, zeroed whenever the
 * process stops, so a restarted engine starts from a clean slate.
 */
#ifndef CHUHE_EXTDIALOG_H
#define CHUHE_EXTDIALOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "extengine.h"

typedef struct ExtDialog ExtDialog;

struct ExtEngine {
    ExtEngineConfig cfg;
    ExtProc proc;
    const ExtDialog *dialog;
    void *state;        /* dialog->state_size bytes, NULL when 0 */
    char last_move[24]; /* the move text of the last search's answer, as sent; "" none */
    ExtNoteFn note;     /* NULL: lines worth a log are dropped */
    void *note_ctx;
    ExtOptions options; /* announced at the last handshake */
};

struct ExtDialog {
    size_t state_size;
    /* Right after the spawn: the handshake, the configured options, a ready check.
     * False with the error set (extproc_fail) when the engine fails it. */
    bool (*handshake)(ExtEngine *e);
    /* Whether the next game needs a new process; NULL: never. */
    bool (*fresh_process)(const ExtEngine *e);
    /* Before each game, with the engine running; a failure shows at the next search. */
    void (*new_game)(ExtEngine *e);
    /* Ends whatever the engine does between searches (pondering); NULL: nothing. */
    void (*quiet)(ExtEngine *e);
    /* Sends the game (start_fen + moves) and the search command for side us; false
     * with the error set. */
    bool (*go)(ExtEngine *e, const char *start_fen, const char *const *moves, int nmoves,
               const SearchLimits *limits, Color us);
    /* One line of the engine's answer to go, read into out; true when the search has
     * ended, with its status in *st (a dialogue that stops the engine says so here). */
    bool (*answer)(ExtEngine *e, char *line, SearchResult *out, GameSearchStatus *st);
};

/* Ends the process (polite: "quit" first) and forgets its state. */
void extdialog_stop(ExtEngine *e, bool polite);

/* Hands a line worth a log to the engine's note hook (extengine_set_note). */
void extdialog_note(ExtEngine *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Reads lines until one starts with the words want, handing every other line to seen
 * (NULL: none); false (engine stopped) when none comes before deadline. */
bool extdialog_expect(ExtEngine *e, const char *want, int64_t deadline,
                      void (*seen)(ExtEngine *, const char *));

/* Notes an option the engine announced (past EXT_OPTIONS_MAX: options.cut). */
void extdialog_add_option(ExtEngine *e, const ExtOption *o);

/* Calls fn(e, name, value) for every Name=Value of the configured options; false at
 * the first that is malformed or that fn refuses. */
bool extdialog_each_option(ExtEngine *e, bool (*fn)(ExtEngine *, const char *, const char *));

/* The configured timeouts for the handshake and for a ready check (ms). */
int extdialog_startup_ms(const ExtEngine *e);
int extdialog_ready_ms(const ExtEngine *e);

/* Whether line starts with word, followed by a blank or the end. */
bool extdialog_starts_with(const char *line, const char *word);

/* The first word at p: blanks skipped, cut at the next blank. */
char *extdialog_first_word(char *p);

/* The engine's move text m as out->best (chuhe's text in mv); false when m is not a
 * move, which leaves MOVE_NONE: the game loop then scores an illegal move. */
bool extdialog_take_move(ExtEngine *e, const char *m, SearchResult *out, char mv[5]);

/* Both clocks are given (a game with a clock, not a move time or a depth). */
static inline bool extdialog_clocked(const SearchLimits *l)
{
    return l->time[RED] >= 0 && l->time[BLACK] >= 0;
}

/* Milliseconds as whole seconds, at least one (UCCI and XBoard clocks). */
static inline int64_t extdialog_seconds(int64_t ms)
{
    return ms / 1000 < 1 ? 1 : ms / 1000;
}

#endif
