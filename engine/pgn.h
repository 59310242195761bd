/*
 * PGN export of game records, for GUIs, databases and people.
 *
 * Tags: the seven-tag roster (Event, Site, Date, Round, White, Black, Result) with the
 * players also as Red and Black, as xiangqi tools expect, then Variant "xiangqi",
 * SetUp "1" and FEN when the game does not start from the standard position, Format
 * "WXF", Termination (the rules_reason_name of the record's reason) and PlyCount.
 * Movetext: WXF moves (wxf.h) with move numbers counted from the start FEN, "N..."
 * before a Black move that does not follow a Red one on the same number (a Black
 * start, or after a comment), and optional comments: "{+0.35/12}" is a search score
 * in soldiers with its depth, "{+M3}" / "{-M3}" a mate in that many moves, "{book}"
 * an opening move. A game lost by an illegal move ends with "{Red played an illegal
 * move}" (or Black), the move itself not being in the record. Movetext lines are at
 * most PGN_LINE_MAX characters; tag lines are as long as their values need.
 */
#ifndef CHUHE_PGN_H
#define CHUHE_PGN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "record.h"

enum { PGN_LINE_MAX = 80 };

/* Tag values; NULL gives "?" ("????.??.??" for the date). Quotes and backslashes are
 * escaped and control characters replaced by spaces. */
typedef struct {
    const char *event;
    const char *site;
    const char *date; /* "YYYY.MM.DD" */
    const char *round;
    const char *red; /* player names */
    const char *black;
    bool comments; /* score/depth and book comments after the moves */
} PgnTags;

typedef struct {
    char msg[200];
} PgnError;

/*
 * Writes the game as PGN text, ending with a blank line, into buf the way snprintf
 * does: at most size bytes including the NUL, and returns the length of the whole
 * text. Returns -1 with the reason in err when the record does not replay (a bad start
 * FEN or an illegal move) or memory runs out. tags may be NULL.
 */
long pgn_write(const GameRecord *r, const PgnTags *tags, char *buf, size_t size, PgnError *err);

/* The same text written to f; false on a bad record or a write error. */
bool pgn_write_file(FILE *f, const GameRecord *r, const PgnTags *tags, PgnError *err);

#endif
