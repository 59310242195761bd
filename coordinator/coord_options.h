/*
 * The coordinator's long options, each once in one table: the command-line parser, the
 * --help text, the stored run settings (coord_runconfig) and the resume check all read
 * it (engine/cliopt.h reads it). An option sets one field of CoordConfig, parsed by its
 * kind and range-checked.
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

#include "cliopt.h"
#include "coord_config.h"

/* The owner's bits of a row's flags (engine/cliopt.h). */
enum {
    COORD_OPT_RUN = CLIOPT_OWNER,            /* a run setting, stored in run_config */
    COORD_OPT_RESUMABLE = CLIOPT_OWNER << 1, /* may change when a run is resumed */
    COORD_OPT_BOTH = CLIOPT_OWNER << 2, /* --weights: sets both players' weights; never stored */
    COORD_OPT_ENGINE_SHIFT = 16,        /* the engine N >= 2 of an option "--X-N", above */
};

typedef CliOpt CoordOpt;

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

/* The table as the parser reads it: into c, marking given (when not NULL). The parse
 * state (what --weights needs) is held in p, which must outlive the spec. */
typedef struct {
    CoordConfig *c;
    CoordGiven *given;
} CoordOptParse;
CliOptSpec coord_options_spec(CoordOptParse *p);

/* Sets option o of c from its text (a stored run setting); the message names the
 * option. */
bool coord_options_set(CoordConfig *c, const CoordOpt *o, const char *text, CoordError *err);

/* Sets the option named name of c from its text, as the user wrote it as said ("-each
 * nodes"): marked given, named so in messages. */
bool coord_options_set_said(CoordConfig *c, CoordGiven *given, const char *name, const char *said,
                            const char *text, CoordError *err);

/* The same with a value already read, of the option's type (a uint64_t for --nodes, a
 * CliTimeControl for --tc...). */
void coord_options_put(CoordConfig *c, CoordGiven *given, const char *name, const char *said,
                       const void *value, size_t size);

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
