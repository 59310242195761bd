/*
 * The coordinator's long options, each once in one table: the command-line parser, the
 * --help text, the stored run settings (coord_runconfig) and the resume check all read
 * it. An option sets one field of CoordConfig, parsed by its kind and range-checked.
 *
 * The per-engine options exist for every engine: "--X-red" and "--X-black" for engines
 * 0 and 1, "--X-N" for engine N >= 2 (--name, --cmd, --proto, --options, --dir,
 * --weights, --tc, --movetime, --nodes, --depth). A run setting's JSON key is its option
 * name without the dashes, '_' for '-': "--random-plies" is "random_plies".
 */
#ifndef CHUHE_COORD_OPTIONS_H
#define CHUHE_COORD_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "coord_config.h"

typedef enum {
    COORD_OPT_U64,
    COORD_OPT_INT,
    COORD_OPT_DOUBLE,
    COORD_OPT_PATH,
    COORD_OPT_TEXT,
    COORD_OPT_FLAG,
} CoordOptKind;

enum {
    COORD_OPT_RUN = 1,       /* a run setting, stored in run_config */
    COORD_OPT_RESUMABLE = 2, /* may change when a run is resumed */
    COORD_OPT_BOTH = 4,      /* --weights: sets both players' weights; never stored */
};

typedef struct {
    const char *name;
    CoordOptKind kind;
    size_t offset, size; /* the field in CoordConfig */
    double min, max;
    unsigned flags;
    const char *arg;
    const char *help; /* NULL for the options of engines 2 and up, named "--X-N" */
} CoordOpt;

/* The table: entries 0..coord_options_count()-1, in --help order. */
int coord_options_count(void);
const CoordOpt *coord_options_at(int i);

/* The option named name (exactly); NULL for none. */
const CoordOpt *coord_options_find(const char *name);

/* The engine N of an option "--X-N" (N >= 2); 0 for the other options. */
int coord_options_engine(const CoordOpt *o);

/* The JSON key of a run setting: "--random-plies" -> "random_plies". */
void coord_options_json_key(const CoordOpt *o, char *buf, size_t size);

/* The option's field in c. */
void *coord_options_field(CoordConfig *c, const CoordOpt *o);
const void *coord_options_cfield(const CoordConfig *c, const CoordOpt *o);

/* A number option's value. */
typedef union {
    uint64_t u64;
    int i;
    double d;
} CoordNumber;

/* Reads the text of number option o (engine/numparse.h: the whole text, in the option's
 * range); the message names label (the option as the user wrote it), the text and the
 * range. */
bool coord_options_number(const CoordOpt *o, const char *label, const char *text, CoordNumber *out,
                          CoordError *err);

/* Sets option o of c from its text; the message names the option. */
bool coord_options_set(CoordConfig *c, const CoordOpt *o, const char *text, CoordError *err);

/* Parses argv[0..argc-1] ("--name value" or "--name=value") into c, and which options
 * were given into given. "--help" and "--version" are not options here. */
bool coord_options_parse(CoordConfig *c, CoordGiven *given, int argc, char **argv, CoordError *err);

/* Whether the option named name was given. */
bool coord_options_given(const CoordGiven *given, const char *name);

/* Records that the user wrote option name as said ("-each nodes"), for messages. */
void coord_options_said(CoordGiven *given, const char *name, const char *said);

/* Rewrites a message so that it names options as the user wrote them: each option
 * name that given->said renames, as a whole word, becomes what the user typed. */
void coord_options_say(const CoordGiven *given, char *msg, size_t size);

/* The option list for --help. */
void coord_options_usage(FILE *f);

#endif
