/*
 * Perft suites in EPD form, as the tests read them from tests/data/: one position a
 * line, "FEN;D1 n;D2 n;..." with the leaf counts of depths 1, 2, ... in order. Blank
 * lines and lines starting with '#' are comments.
 */
#ifndef CHUHE_TESTS_EPD_H
#define CHUHE_TESTS_EPD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Paths relative to the repository root, where the tests run. */
#define EPD_PUBLIC_PATH "tests/data/perft.epd"
#define EPD_EXTRA_PATH "tests/data/perft-extra.epd"

enum { EPD_MAX_DEPTH = 12, EPD_FEN_SIZE = 128 };

typedef struct {
    char fen[EPD_FEN_SIZE];
    int line;                          /* line number in the file, for messages */
    int depths;                        /* counts known for depths 1..depths */
    uint64_t nodes[EPD_MAX_DEPTH + 1]; /* nodes[d] for 1 <= d <= depths */
} EpdEntry;

typedef struct {
    EpdEntry *entries;
    int count;
} EpdSuite;

/*
 * Reads a suite. On failure (missing file, bad line, depths out of order, no
 * positions) returns false with a message naming the file and line in err, and
 * leaves suite empty.
 */
bool epd_load(const char *path, EpdSuite *suite, char *err, size_t errsize);
void epd_free(EpdSuite *suite);

#endif
