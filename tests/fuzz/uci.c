/*
 * Fuzz harness for the UCI/UCCI command reader (uci/uci.c).
 *
 * Input: command lines separated by newlines, fed one at a time to uci_command of a Uci
 * in its starting state (answers go to /dev/null), until "quit" or the end of the input.
 * Every command the reader knows is exercised, but so that each input runs in
 * milliseconds and touches no file, some lines are changed or left out first:
 *   - "go" (a search): the words "infinite" and "ponder" become "draw" (a word "go"
 *     accepts and ignores) and "depth 1 nodes 50" is appended, so the search is tiny and
 *     ends by itself; the harness then waits for it, so runs are deterministic;
 *   - "go perft N" with N over 2 is skipped (perft 3 alone is 80 000 leaves);
 *   - "bench" is skipped (a fixed search of many seconds);
 *   - "weights <path>" is skipped (writes a file at any path);
 *   - a "setoption" line naming EvalFile (any case) is skipped unless its value is
 *     <builtin>: it would read any path, a FIFO or /dev/zero included;
 *   - a "setoption" line holding a number over 16 is skipped: Hash takes up to 64 GB.
 * Every other line reaches the reader as it was typed.
 */
#define _GNU_SOURCE /* strcasestr */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "uci/uci.h"

enum { LINE_MAX_WORDS = 4096, HASH_MAX_MB = 16, PERFT_MAX = 2 };

static const char *const SEPARATORS = " \t\r\n";

static FILE *devnull;

/* Whether text is a whole number as strtol reads it (the reader's way), and its value. */
static bool number(const char *text, long *value)
{
    char *end;
    long v = strtol(text, &end, 10);
    if (end == text || *end)
        return false;
    *value = v;
    return true;
}

/* The line as the harness passes it on: NULL to skip it, else a string in out. */
static const char *filter(const char *line, char *out, size_t size)
{
    static char copy[65536];
    static char *words[LINE_MAX_WORDS];
    snprintf(copy, sizeof copy, "%s", line);
    int n = 0;
    char *save;
    for (char *w = strtok_r(copy, SEPARATORS, &save); w && n < LINE_MAX_WORDS;
         w = strtok_r(NULL, SEPARATORS, &save))
        words[n++] = w;
    if (n == 0)
        return line;
    const char *cmd = words[0];
    long v;
    if (!strcmp(cmd, "bench") || !strcmp(cmd, "weights"))
        return NULL;
    if (!strcmp(cmd, "setoption")) {
        if (strcasestr(line, "evalfile") && strcmp(words[n - 1], "<builtin>"))
            return NULL;
        for (int i = 1; i < n; i++)
            if (number(words[i], &v) && v > HASH_MAX_MB)
                return NULL;
        return line;
    }
    if (strcmp(cmd, "go"))
        return line;
    if (n >= 2 && !strcmp(words[1], "perft"))
        return n >= 3 && number(words[2], &v) && v > PERFT_MAX ? NULL : line;
    size_t len = 0;
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        const char *w = words[i];
        if (!strcmp(w, "infinite") || !strcmp(w, "ponder"))
            w = "draw";
        len += (size_t)snprintf(out + len, size - len, "%s ", w);
        if (len >= size)
            return NULL;
    }
    snprintf(out + len, size - len, "depth 1 nodes 50");
    return out;
}

/* One Uci for the process, brought back to the state uci_init leaves (but for a 1 MB
 * hash) before each input: a 16 MB table allocated and cleared per input would take
 * most of the time. Nothing else survives an input: the options the filter lets through
 * are all reset here. */
static Uci *fresh_uci(void)
{
    static Uci uci;
    static bool ready;
    if (!ready) {
        if (!(devnull = fopen("/dev/null", "w")) || !uci_init(&uci, devnull)) {
            fprintf(stderr, "fuzz-uci: cannot set up\n");
            abort();
        }
        ready = true;
    }
    PosError err;
    if ((engine_hash_mb(uci.engine) != 1 && !engine_set_hash(uci.engine, 1)) ||
        !engine_set_position(uci.engine, NULL, NULL, 0, &err)) {
        fprintf(stderr, "fuzz-uci: cannot reset the engine\n");
        abort();
    }
    engine_new_game(uci.engine);
    engine_set_move_overhead(uci.engine, 10);
    uci.dialect = DIALECT_UCI;
    uci.quit = false;
    return &uci;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char line[65536], go[65536 + 32];
    Uci *uci = fresh_uci();
    size_t at = 0;
    while (at < size && !uci->quit) {
        size_t n = 0;
        while (at < size && data[at] != '\n') {
            if (n + 1 < sizeof line)
                line[n++] = (char)data[at];
            at++;
        }
        at++;
        line[n] = '\0';
        const char *pass = filter(line, go, sizeof go);
        if (!pass)
            continue;
        if (pass != go)
            snprintf(go, sizeof go, "%s", pass);
        uci_command(uci, go);
        /* let the search end by itself (it is limited above), as a GUI waiting for
         * bestmove would */
        if (uci->searching) {
            pthread_join(uci->thread, NULL);
            uci->searching = false;
        }
    }
    return 0;
}
