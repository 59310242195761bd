/*
 * Coordinate move text, as UCI engines for xiangqi speak it: files a-i from Red's
 * left, ranks 0-9 from Red's side, e.g. "h2e2". (WXF text lives in wxf.h.)
 */
#ifndef CHUHE_NOTATION_H
#define CHUHE_NOTATION_H

#include <stddef.h>

#include "position.h"

/* Writes "h2e2" (or "0000" for MOVE_NONE / MOVE_NULL); buf needs 5 bytes. */
void move_to_text(Move m, char buf[5]);
/* Parses coordinate text; MOVE_NONE if it is not of the form [a-i][0-9][a-i][0-9]. */
Move move_from_text(const char *text);
/* Parses coordinate text and checks it is legal in pos; MOVE_NONE otherwise. */
Move move_parse_legal(const Position *pos, const char *text);

/* Square names "a0".."i9": SQ_NONE when the text is not one. */
Square square_from_text(const char *text);
void square_to_text(Square s, char buf[3]);

#endif
