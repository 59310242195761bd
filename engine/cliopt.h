/*
 * Command lines: the one option parser of every program and subcommand.
 *
 * A program declares its options once, in a table of CliOpt rows: the name as the user
 * types it ("--games", "-engine"), an optional second name ("-o"), the kind of value
 * and where it goes (a field at an offset of the destination struct), its range or
 * choices, the value's name and the help line. The parser reads argv against the table
 * and fills each field once, in its type: a number in its range (engine/numparse.h), a
 * time control in milliseconds (CliTimeControl), a text of bounded length, one word of
 * a list. The same table prints --help (cliopt_usage).
 *
 * The command line, word by word:
 *   --name VALUE, --name=VALUE, -n VALUE    an option with a value: the next word is the
 *                                            value unless it is itself an option of the
 *                                            table ("-5" is a value)
 *   --flag                                   an option without a value
 *   -engine k=v k=v ...                      CLIOPT_WORDS: every word up to the next one
 *                                            that starts with '-' and is no number
 *   WORD, -, anything after --               a positional word
 * Key tables read "key=value" and "key" words the same way (cliopt_parse_words: the
 * words of a cutechess-style -engine, -each, -openings).
 *
 * Every error is one line that names the option as the user typed it, says what was
 * wrong and what is allowed:
 *   --games: 'x' is not a whole number (allowed: 1..1000000000000)
 *   --lr: needs a number (allowed: 1e-06..1e+06)
 *   --json: takes no value, got '1'
 *   --opening-order: 'rand' is not sequential or random
 *   -each nodes: '0' is out of range (allowed: 1..4000000000)
 *   -engine: unknown key 'nodez' (allowed: name, cmd, ...)
 *   unknown option '--nosuch' (chuhe-coordinator --help lists the options)
 * The caller puts the program's name in front.
 */
#ifndef CHUHE_CLIOPT_H
#define CHUHE_CLIOPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum {
    CLIOPT_HEADING,  /* no option: a line of --help (help is the line) */
    CLIOPT_FLAG,     /* sets a bool; no value */
    CLIOPT_FLAG_OFF, /* clears a bool (--no-dedup); no value */
    CLIOPT_INT,      /* an int in [min, max] */
    CLIOPT_U64,      /* a uint64_t in [min, max]; max CLIOPT_U64_ANY: up to UINT64_MAX */
    CLIOPT_DOUBLE,   /* a double in [min, max] */
    CLIOPT_MS,       /* seconds in [min, max], kept as int milliseconds (st=0.5: 500) */
    CLIOPT_TEXT,     /* printable text, copied into char[size] */
    CLIOPT_PATH,     /* a file path, copied likewise */
    CLIOPT_ARG,      /* the word itself, as a const char * into argv */
    CLIOPT_ENUM,     /* one of choices ("epd|pgn") or "" (the default), into char[size] */
    CLIOPT_TC,       /* a time control, into a CliTimeControl (max: moves per period) */
    CLIOPT_CALL,     /* handed to the table's call: repeated lists, key=value words... */
    CLIOPT_HELP,     /* --help: the parse stops with CLIOPT_ASKED_HELP */
    CLIOPT_VERSION,  /* --version: the parse stops with CLIOPT_ASKED_VERSION */
} CliOptKind;

/* Row flags the parser reads; bits from CLIOPT_OWNER up are the table owner's own. */
enum {
    CLIOPT_WORDS = 1,    /* CLIOPT_CALL: takes the words up to the next option */
    CLIOPT_NONEMPTY = 2, /* a key's value may not be empty ("cmd=" with nothing after) */
    CLIOPT_OWNER = 1 << 8,
};

#define CLIOPT_U64_ANY 0x1p64 /* 2^64: no uint64_t is above it */

/* A clock: "[MOVES/]BASE[+INC]" in seconds ("40/60+0.6", "10+0.1"), read once. */
typedef struct {
    char text[32];    /* as given, for settings stored as text; "" for no clock */
    int moves;        /* moves per period; 0: the whole game */
    uint32_t base_ms; /* 0: no clock */
    uint32_t inc_ms;  /* added after each move */
} CliTimeControl;

typedef struct {
    const char *name;  /* as typed ("--games", "-engine"); in a key table the key ("nodes"),
                        * and a key ending in '.' ("option.") takes every key it begins */
    const char *alias; /* a second name ("-o", "-h"); NULL for none */
    CliOptKind kind;
    size_t offset, size; /* the field in the destination struct */
    double min, max;     /* numbers: the range; CLIOPT_TC: most moves per period (0: none) */
    unsigned scope;      /* the CliOptSpec scopes that take it (bits); 0: every one */
    unsigned flags;      /* CLIOPT_WORDS, CLIOPT_NONEMPTY and the owner's bits */
    const char *arg;     /* the value's name in --help ("N", "FILE"); NULL: takes no value */
    const char *help;    /* the --help text ('\n' goes on in the help column); NULL: unlisted */
    const void *data;    /* CLIOPT_ENUM: the choices ("epd|pgn"); else the owner's */
} CliOpt;

/* A CLIOPT_CALL row met with its words (one for a row with arg, none for one without,
 * all of them for CLIOPT_WORDS); label is the option as typed. False with msg set to
 * refuse. */
typedef bool (*CliOptCall)(void *ctx, const CliOpt *o, const char *label, int n, char **words,
                           char *msg, size_t size);

enum {
    CLIOPT_STOP_AT_WORD = 1,    /* the first positional word and all after it are positional */
    CLIOPT_UNKNOWN_IS_WORD = 2, /* a word naming no option is positional (chuhe-engine's) */
};

typedef struct CliOptSpec {
    const char *prog; /* "chuhe-tune", "chuhe-coordinator export": for "--help lists ..." */
    const CliOpt *opts;
    int nopts;
    void *dest;      /* the rows' fields are at dest + offset */
    unsigned scope;  /* 0: every row; else the rows whose scope shares a bit with it */
    unsigned mode;   /* CLIOPT_STOP_AT_WORD, CLIOPT_UNKNOWN_IS_WORD */
    CliOptCall call; /* for CLIOPT_CALL rows */
    void *ctx;       /* call's first argument */
    bool *given;     /* when not NULL: given[i] is set when row i is given */
    const struct CliOptSpec *next; /* a second table, looked up after this one */
} CliOptSpec;

typedef enum {
    CLIOPT_OK,
    CLIOPT_ASKED_HELP,
    CLIOPT_ASKED_VERSION,
    CLIOPT_ERROR,
} CliOptStatus;

/*
 * Parses argv[0..argc-1] (the program's name already left out) against s and the
 * tables chained to it. The positional words go to pos[0..*npos-1] (pointers into
 * argv; pos has room for maxpos, and may be argv itself) in order; more than maxpos of
 * them is an error naming the first one too many. NULL pos: none allowed.
 */
CliOptStatus cliopt_parse(const CliOptSpec *s, int argc, char **argv, char **pos, int *npos,
                          int maxpos, char *msg, size_t size);

/* Reads the words of a key table: "key=value" for a row with a value, "key" for one
 * without; label (the option they follow, "-engine") and the key name the value in
 * messages ("-engine nodes: ..."). */
bool cliopt_parse_words(const CliOptSpec *s, const char *label, int n, char **words, char *msg,
                        size_t size);

/* Sets row o of s->dest (given when not NULL: row o's flag in s->given) from text; label
 * names it in messages. What the parser does with each value, for values from
 * elsewhere (a settings file). */
bool cliopt_set(const CliOptSpec *s, const CliOpt *o, const char *label, const char *text,
                char *msg, size_t size);

/* The row of s named name (or its alias; a key table's prefix row by its prefix), in s's
 * scope; NULL for none. Chained tables are not searched. */
const CliOpt *cliopt_find(const CliOptSpec *s, const char *name);

/* A time control "[MOVES/]BASE[+INC]" in seconds into tc ("" is no clock); moves per
 * period only up to max_moves (0: refused). Messages name label and the part:
 *   --tc base: '-5' is out of range (allowed: 0.001..86400) */
bool cliopt_parse_tc(const char *label, const char *text, int max_moves, CliTimeControl *tc,
                     char *msg, size_t size);

/* "key=value": the key into key[size] and *value after the '='; false for a word without
 * '=', or with an empty or too long key. The one splitter of key=value words. */
bool cliopt_split_kv(const char *word, char *key, size_t size, const char **value);

/* The option lines of --help, from the rows of s in its scope that have help (and the
 * headings): "  -o, --out FILE   help", the help in column 2 + column + 1. */
void cliopt_usage(FILE *f, const CliOptSpec *s, int column);

#endif
