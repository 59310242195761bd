/*
 * The UCI front end of bin/chuhe-engine: reads commands line by line, answers on
 * the output stream. Bad input is answered with one "info string error: ..." line and
 * the previous state is kept.
 */
#ifndef CHUHE_UCI_H
#define CHUHE_UCI_H

#include <stdbool.h>
#include <stdio.h>

#include "engine.h"

typedef struct {
    Engine *engine;
    FILE *out;
    bool quit;
} Uci;

/* Handles one command line; sets uci->quit on "quit". */
void uci_command(Uci *uci, char *line);
/* Reads commands from in until "quit" or end of input. */
void uci_loop(Uci *uci, FILE *in);

#endif
