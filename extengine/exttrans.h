/*
 * The text of the external engine protocols, translated to and from chuhe's forms:
 * moves, positions, search reports and the options an engine announces. Pure functions
 * on strings, so every dialect's quirks are tested without a process.
 *
 *   protocol  moves                               FEN letters       search report
 *   uci       files a-i, ranks 0-9 ("h2e2")       chuhe's (n, b)    info ... score cp|mate
 *   uci1      files a-i, ranks 1-10 ("h3e3")      chuhe's           info ... score cp|mate
 *   ucci      files a-i, ranks 0-9                chuhe's           info ... score X
 *   xboard    files a-i, ranks 0-9 (XBoard counts  h horse, e        "ply score time nodes pv"
 *             from 0 on boards of ten ranks)        elephant
 */
#ifndef CHUHE_EXTTRANS_H
#define CHUHE_EXTTRANS_H

#include <stdbool.h>
#include <stddef.h>

#include "contracts/protocol.h"
#include "search.h"

enum { EXT_OPTION_NAME_MAX = 128 };

/* One option an engine announced. type is the protocol's word (spin, check, combo,
 * button, string, ...; XBoard's without its dash); a spin (XBoard: spin or slider) that
 * gives both bounds is ranged, with them in min and max. */
typedef struct {
    char name[EXT_OPTION_NAME_MAX];
    char type[16];
    bool ranged;
    double min, max;
} ExtOption;

/* chuhe's move text ("h2e2") in protocol p's form; false (buf "") when m is not a
 * move text or buf is too small (8 bytes are always enough). */
bool exttrans_move_out(ProtoExtProtocol p, const char *m, char *buf, size_t size);

/* Protocol p's move text, which must end at its last character, as chuhe's "h2e2";
 * false when it is not a move of that form. */
bool exttrans_move_in(ProtoExtProtocol p, const char *text, char out[5]);

/* A chuhe FEN in protocol p's letters (the board field only changes); false when buf
 * is too small. */
bool exttrans_fen_out(ProtoExtProtocol p, const char *fen, char *buf, size_t size);

/*
 * A UCI or UCCI "info" line: depth, nodes and score (UCI "score cp X" / "score mate N",
 * UCCI "score X") update *out; fields not present keep their value. False (out
 * untouched) when the line is not an info line or a value is malformed.
 */
bool exttrans_parse_info(const char *line, SearchResult *out);

/*
 * An XBoard thinking line "PLY SCORE TIME NODES PV...": depth, score and nodes into
 * *out. Scores of 100000 + N and -100000 - N are mate in N moves and mated in N moves.
 * False (out untouched) when the line does not start with four numbers.
 */
bool exttrans_parse_thinking(const char *line, SearchResult *out);

/*
 * The next NAME=VALUE of an XBoard "feature" line: *cursor starts after the word
 * "feature" and advances past the pair. VALUE may be "quoted" (the quotes are
 * dropped). False at the end of the line or when the text is malformed (*cursor then
 * points at the bad text); a name or value longer than its buffer is malformed.
 */
bool exttrans_next_feature(const char **cursor, char *name, size_t nsize, char *value,
                           size_t vsize);

/*
 * A UCI option line "option name NAME type T [default D] [min A] [max B] [var V]..."
 * (UCCI, p == PROTO_EXT_UCCI: "option NAME type T [min A] [max B] [default D]"). NAME may
 * hold blanks. False when the line is not an option of that form, or its name or type
 * does not fit.
 */
bool exttrans_parse_option(ProtoExtProtocol p, const char *line, ExtOption *out);

/* The value of an XBoard option feature, "NAME -TYPE ..." ("NAME -spin DEF MIN MAX",
 * "NAME -slider DEF MIN MAX"); false when it has no " -TYPE" part or the name does not
 * fit. */
bool exttrans_xboard_option(const char *value, ExtOption *out);

/* Whether the comma-separated XBoard variants list holds name. */
bool exttrans_has_variant(const char *list, const char *name);

#endif
