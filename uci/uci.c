#define _GNU_SOURCE
#include "uci.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "movegen.h"
#include "notation.h"

#ifndef CHUHE_VERSION
#define CHUHE_VERSION "unknown"
#endif

enum { MAX_TOKENS = 4096 };

static void error_line(Uci *uci, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void error_line(Uci *uci, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("info string error: ", uci->out);
    vfprintf(uci->out, fmt, ap);
    fputc('\n', uci->out);
    va_end(ap);
}

/* Splits line in place on blanks; returns the number of tokens (at most max). */
static int tokenize(char *line, char **tok, int max)
{
    int n = 0;
    for (char *t = strtok(line, " \t\r\n"); t; t = strtok(NULL, " \t\r\n")) {
        if (n == max)
            return -1;
        tok[n++] = t;
    }
    return n;
}

static void cmd_position(Uci *uci, char **tok, int n)
{
    char fen[256] = "";
    int i = 1;
    if (i < n && !strcmp(tok[i], "startpos")) {
        i++;
    } else if (i < n && !strcmp(tok[i], "fen")) {
        size_t len = 0;
        for (i++; i < n && strcmp(tok[i], "moves"); i++) {
            size_t tl = strlen(tok[i]);
            if (len + tl + 2 > sizeof fen) {
                error_line(uci, "position: FEN is too long");
                return;
            }
            if (len)
                fen[len++] = ' ';
            memcpy(fen + len, tok[i], tl + 1);
            len += tl;
        }
        if (!len) {
            error_line(uci, "position: 'fen' needs a FEN");
            return;
        }
    } else {
        error_line(uci, "position: expected 'startpos' or 'fen', got '%s'", i < n ? tok[i] : "");
        return;
    }
    int nmoves = 0;
    if (i < n) {
        if (strcmp(tok[i], "moves")) {
            error_line(uci, "position: expected 'moves', got '%s'", tok[i]);
            return;
        }
        i++;
        nmoves = n - i;
    }
    PosError err;
    if (!engine_set_position(uci->engine, fen[0] ? fen : NULL, (const char *const *)tok + i,
                             nmoves, &err))
        error_line(uci, "position: %s", err.msg);
}

typedef struct {
    FILE *out;
} DivideCtx;

static void divide_line(void *ctx, Move m, uint64_t nodes)
{
    char mv[5];
    move_to_text(m, mv);
    fprintf(((DivideCtx *)ctx)->out, "%s: %" PRIu64 "\n", mv, nodes);
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void cmd_go(Uci *uci, char **tok, int n)
{
    if (n >= 2 && !strcmp(tok[1], "perft")) {
        char *end;
        long depth = n >= 3 ? strtol(tok[2], &end, 10) : -1;
        if (n != 3 || *end || depth < 1 || depth > 12) {
            error_line(uci, "go perft: expected a depth from 1 to 12");
            return;
        }
        DivideCtx ctx = {uci->out};
        double t0 = now_seconds();
        uint64_t total = engine_perft(uci->engine, (int)depth, divide_line, &ctx);
        double dt = now_seconds() - t0;
        fprintf(uci->out, "\nNodes searched: %" PRIu64 "\n", total);
        fprintf(uci->out, "info string perft time %.3f s, %.0f nodes/s\n", dt,
                dt > 0 ? (double)total / dt : 0.0);
        return;
    }
    error_line(uci, "go: only 'go perft N' is available in this build");
}

static void cmd_display(Uci *uci)
{
    const Position *pos = engine_position(uci->engine);
    static const char CH[] = ".KABNRCP.kabnrcp";
    FILE *o = uci->out;
    for (int r = RANK_NB - 1; r >= 0; r--) {
        fprintf(o, " %d ", r);
        for (int f = 0; f < FILE_NB; f++)
            fprintf(o, " %c", CH[pos_piece_on(pos, sq_make(f, r))]);
        fputc('\n', o);
        if (r == 5)
            fprintf(o, "    ~~~~~~~~~~~~~~~~~\n");
    }
    fprintf(o, "    a b c d e f g h i\n\n");
    char fen[160];
    pos_get_fen(pos, fen, sizeof fen);
    fprintf(o, "Fen: %s\nKey: %016" PRIX64 "\nCheckers:", fen, pos_key(pos));
    Bitboard c = pos_checkers(pos);
    while (c) {
        char sq[3];
        square_to_text(bb_pop(&c), sq);
        fprintf(o, " %s", sq);
    }
    fputc('\n', o);
}

void uci_command(Uci *uci, char *line)
{
    static char *tok[MAX_TOKENS];
    int n = tokenize(line, tok, MAX_TOKENS);
    if (n < 0) {
        error_line(uci, "command has more than %d words", MAX_TOKENS);
        return;
    }
    if (n == 0)
        return;
    const char *cmd = tok[0];
    if (!strcmp(cmd, "uci")) {
        fprintf(uci->out, "id name chuhe %s\nid author the chuhe developers\nuciok\n",
                CHUHE_VERSION);
    } else if (!strcmp(cmd, "isready")) {
        fprintf(uci->out, "readyok\n");
    } else if (!strcmp(cmd, "ucinewgame")) {
        engine_new_game(uci->engine);
    } else if (!strcmp(cmd, "position")) {
        cmd_position(uci, tok, n);
    } else if (!strcmp(cmd, "go")) {
        cmd_go(uci, tok, n);
    } else if (!strcmp(cmd, "d")) {
        cmd_display(uci);
    } else if (!strcmp(cmd, "quit")) {
        uci->quit = true;
    } else {
        error_line(uci, "unknown command '%.40s'", cmd);
    }
}

void uci_loop(Uci *uci, FILE *in)
{
    char *line = NULL;
    size_t cap = 0;
    while (!uci->quit && getline(&line, &cap, in) >= 0)
        uci_command(uci, line);
    free(line);
}
