/*
 * Text from files, peers and command lines shown as data, never as code: the one
 * spelling of a foreign string in a terminal line, a message, a report label and a
 * gnuplot script. Run files are written by other people's programs (h5py can put any
 * byte in a player name), so every output that quotes one goes through here or through
 * its own format's escaper (jsontext for JSON, the tag writer of pgn.c for PGN, the
 * HTML writer of the report page).
 *
 * Base layer of the engine library (docs/architecture.md, "The base"): error, array,
 * numparse, rng and textesc are the helpers every program uses; they know nothing of
 * xiangqi and include no module outside the base.
 */
#ifndef CHUHE_TEXTESC_H
#define CHUHE_TEXTESC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Whether s holds no control byte (below 0x20, or DEL): one line of visible text. */
bool textesc_plain(const char *s);

/*
 * s with each control byte and DEL written as \xNN (so "a\nb" becomes the six
 * characters a\x0ab), every other byte as it is. Works like snprintf: writes at most
 * cap bytes, NUL-terminated when cap > 0, and returns the length the whole text needs.
 */
size_t textesc_printable(char *buf, size_t cap, const char *s);

/*
 * s as a gnuplot single-quoted string, quotes included: its printable form (above), a
 * quote doubled. gnuplot expands neither backquotes nor macros inside single quotes,
 * and with no newline left the text cannot end the command it is part of.
 */
void textesc_gnuplot(FILE *g, const char *s);

#endif
