/*
 * The text front end of bin/chuhe-engine. It speaks UCI as Pikafish does (coordinate
 * moves, ranks 0-9) and, after the command "ucci", the UCCI dialect. Searches run on a
 * second thread so that "stop" and "isready" are answered while thinking. Bad input is
 * answered with one "info string error: ..." line and the previous state is kept.
 */
#ifndef CHUHE_UCI_H
#define CHUHE_UCI_H

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>

#include "engine.h"

typedef enum { DIALECT_UCI, DIALECT_UCCI } Dialect;

typedef struct {
    Engine *engine;
    FILE *out;
    pthread_mutex_t out_lock;
    pthread_t thread;
    bool searching;
    SearchLimits limits; /* of the search running on `thread` */
    Dialect dialect;
    bool quit;
    int multipv; /* the MultiPV option */
    /* UCCI's banmoves: root moves the searches of the current position leave out */
    int nbanned;
    Move banned[SEARCHMOVES_MAX];
} Uci;

/* What a command came to. A command given on chuhe-engine's command line makes the
 * program's exit status: 0, 1 when it could not be carried out (a file that cannot be
 * read or written, memory), 2 when it was malformed (unknown, bad arguments). */
typedef enum { UCI_OK = 0, UCI_FAILED = 1, UCI_USAGE = 2 } UciStatus;

/* Returns false when out of memory. */
bool uci_init(Uci *uci, FILE *out);
/* Joins a running search (stopping it first unless wait is set), frees the engine. */
void uci_finish(Uci *uci, bool wait);
/* Handles one command line; sets uci->quit on "quit". A refused command is answered
 * with one "info string error: ..." line and changes nothing. */
UciStatus uci_command(Uci *uci, char *line);
/* Reads commands from in until "quit" or end of input; a line holding a NUL byte is
 * refused whole. */
void uci_loop(Uci *uci, FILE *in);

#endif
