/*
 * The one option parser (engine/cliopt.h): each kind of value read into its field once,
 * ranges, the forms of a command line (--name VALUE, --name=VALUE, a short name, a value
 * that starts with '-', words up to the next option, positional words, "--"), the one
 * error format (unknown option, missing value, a value for a flag, a word too many), key
 * tables of key=value words, time controls, scopes, chained tables and --help from the
 * table.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "engine/cliopt.h"

typedef struct {
    bool flag, on;
    int count;
    uint64_t seed;
    double lr;
    int st_ms;
    char name[8];
    char file[32];
    const char *arg;
    char order[16];
    CliTimeControl tc;
    char words[128]; /* what the calls saw */
    int calls;
} Dest;

#define F(f) offsetof(Dest, f), sizeof(((Dest *)0)->f)

enum { ONLY_A = 1, ONLY_B = 2 };

static const CliOpt OPTS[] = {
    {"Heading:", NULL, CLIOPT_HEADING, 0, 0, 0, 0, 0, 0, NULL, "Heading:", NULL},
    {"--flag", "-f", CLIOPT_FLAG, F(flag), 0, 0, 0, 0, NULL, "a flag", NULL},
    {"--no-on", NULL, CLIOPT_FLAG_OFF, F(on), 0, 0, 0, 0, NULL, "clears on", NULL},
    {"--count", "-c", CLIOPT_INT, F(count), -5, 100, 0, 0, "N", "a count\non two lines", NULL},
    {"--seed", NULL, CLIOPT_U64, F(seed), 0, CLIOPT_U64_ANY, 0, 0, "S", "a seed", NULL},
    {"--lr", NULL, CLIOPT_DOUBLE, F(lr), 1e-6, 10, ONLY_A, 0, "X", "a rate (A only)", NULL},
    {"--st", NULL, CLIOPT_MS, F(st_ms), 0.001, 3600, 0, 0, "S", "seconds a move", NULL},
    {"--name", NULL, CLIOPT_TEXT, F(name), 0, 0, 0, 0, "NAME", "a name", NULL},
    {"--file", NULL, CLIOPT_PATH, F(file), 0, 0, ONLY_B, 0, "FILE", "a file (B only)", NULL},
    {"--arg", NULL, CLIOPT_ARG, F(arg), 0, 0, 0, 0, "WORD", NULL, NULL},
    {"--order", NULL, CLIOPT_ENUM, F(order), 0, 0, 0, 0, "ORDER", "an order",
     "sequential|random|reversed"},
    {"--tc", NULL, CLIOPT_TC, F(tc), 0, 100, 0, 0, "TC", "a clock", NULL},
    {"-list", NULL, CLIOPT_CALL, 0, 0, 0, 0, 0, CLIOPT_WORDS, "K=V ...", "words", NULL},
    {"--add", NULL, CLIOPT_CALL, 0, 0, 0, 0, 0, 0, "X", "one value, repeatable", NULL},
    {"--ping", NULL, CLIOPT_CALL, 0, 0, 0, 0, 0, 0, NULL, "no value", NULL},
    {"--help", "-h", CLIOPT_HELP, 0, 0, 0, 0, 0, 0, NULL, "this text", NULL},
    {"--version", NULL, CLIOPT_VERSION, 0, 0, 0, 0, 0, 0, NULL, "the version", NULL},
};
enum { NOPTS = sizeof OPTS / sizeof OPTS[0] };

static bool record(void *ctx, const CliOpt *o, const char *label, int n, char **words, char *msg,
                   size_t size)
{
    Dest *d = ctx;
    (void)o;
    if (n == 1 && !strcmp(words[0], "refuse")) {
        snprintf(msg, size, "%s: 'refuse' is refused", label);
        return false;
    }
    size_t len = strlen(d->words);
    len += (size_t)snprintf(d->words + len, sizeof d->words - len, "%s%s:", len ? ";" : "", label);
    for (int i = 0; i < n; i++)
        len +=
            (size_t)snprintf(d->words + len, sizeof d->words - len, "%s%s", i ? "," : "", words[i]);
    d->calls++;
    return true;
}

static Dest g_dest;
static bool g_given[NOPTS];
static char *g_pos[32];
static int g_npos;
static char g_msg[300];

static CliOptSpec spec(unsigned scope)
{
    memset(&g_dest, 0, sizeof g_dest);
    g_dest.on = true;
    memset(g_given, 0, sizeof g_given);
    return (CliOptSpec){.prog = "prog",
                        .opts = OPTS,
                        .nopts = NOPTS,
                        .dest = &g_dest,
                        .scope = scope,
                        .call = record,
                        .ctx = &g_dest,
                        .given = g_given};
}

/* Parses the NULL-terminated words with s; the status. */
static CliOptStatus parse_with(const CliOptSpec *s, int maxpos, const char *const *words)
{
    static char *argv[32];
    int argc = 0;
    while (words[argc])
        argv[argc] = (char *)words[argc], argc++;
    g_msg[0] = '\0';
    return cliopt_parse(s, argc, argv, g_pos, &g_npos, maxpos, g_msg, sizeof g_msg);
}

#define PARSE(scope, maxpos, ...) \
    (s = spec(scope), parse_with(&s, maxpos, (const char *const[]){__VA_ARGS__, NULL}))

/* The parse is refused with exactly this message. */
#define REFUSED(want, ...)                                             \
    do {                                                               \
        assert_int_equal(PARSE(ONLY_A, 2, __VA_ARGS__), CLIOPT_ERROR); \
        assert_string_equal(g_msg, want);                              \
    } while (0)

static void test_every_kind(void **state)
{
    (void)state;
    CliOptSpec s;
    assert_int_equal(PARSE(ONLY_A, 2, "-f", "--no-on", "--count", "-5", "--seed",
                           "18446744073709551615", "--lr=0.5", "--st", "0.25", "--name", "ab",
                           "--arg", "-x", "--order", "random", "--tc", "40/60+0.6", "a.h5"),
                     CLIOPT_OK);
    assert_true(g_dest.flag);
    assert_false(g_dest.on);
    assert_int_equal(g_dest.count, -5);
    assert_true(g_dest.seed == UINT64_MAX);
    assert_true(g_dest.lr == 0.5);
    assert_int_equal(g_dest.st_ms, 250);
    assert_string_equal(g_dest.name, "ab");
    assert_string_equal(g_dest.arg, "-x"); /* a value that starts with '-' */
    assert_string_equal(g_dest.order, "random");
    assert_string_equal(g_dest.tc.text, "40/60+0.6");
    assert_int_equal(g_dest.tc.moves, 40);
    assert_int_equal(g_dest.tc.base_ms, 60000);
    assert_int_equal(g_dest.tc.inc_ms, 600);
    assert_int_equal(g_npos, 1);
    assert_string_equal(g_pos[0], "a.h5");
    assert_true(g_given[1] && g_given[3] && !g_given[7 + 1]);
    /* the short name and the long one are the same row */
    assert_int_equal(PARSE(0, 0, "-c", "7"), CLIOPT_OK);
    assert_int_equal(g_dest.count, 7);
    assert_true(g_given[3]);
}

static void test_numbers_and_ranges(void **state)
{
    (void)state;
    CliOptSpec s;
    REFUSED("--count: 'x' is not a whole number (allowed: -5..100)", "--count", "x");
    REFUSED("--count: '101' is out of range (allowed: -5..100)", "--count", "101");
    REFUSED("-c: '1e2' is not a whole number (allowed: -5..100)", "-c", "1e2");
    REFUSED("--seed: '-1' is out of range (allowed: 0..18446744073709551615)", "--seed", "-1");
    REFUSED("--seed: '18446744073709551616' is out of range (allowed: 0..18446744073709551615)",
            "--seed", "18446744073709551616");
    REFUSED("--lr: '0' is out of range (allowed: 1e-06..10)", "--lr=0");
    REFUSED("--lr: 'inf' is not a number (allowed: 1e-06..10)", "--lr", "inf");
    REFUSED("--st: '0' is out of range (allowed: 0.001..3600)", "--st", "0");
    /* the ends of a range are taken */
    assert_int_equal(PARSE(ONLY_A, 0, "--count", "100", "--lr", "10", "--st", "3600"), CLIOPT_OK);
    assert_int_equal(g_dest.count, 100);
    assert_int_equal(g_dest.st_ms, 3600000);
}

static void test_texts_and_choices(void **state)
{
    (void)state;
    CliOptSpec s;
    REFUSED("--name: longer than 7 bytes", "--name", "abcdefgh");
    REFUSED("--name: 'a\\x0ab' holds a control character (shown as \\xNN); give printable text",
            "--name", "a\nb");
    REFUSED("--order: 'rand' is not sequential, random or reversed", "--order", "rand");
    /* "" is the default of a choice */
    assert_int_equal(PARSE(0, 0, "--order", ""), CLIOPT_OK);
    assert_string_equal(g_dest.order, "");
    assert_int_equal(PARSE(0, 0, "--name="), CLIOPT_OK);
    assert_string_equal(g_dest.name, "");
}

static void test_command_line_errors(void **state)
{
    (void)state;
    CliOptSpec s;
    REFUSED("unknown option '--nosuch' (prog --help lists the options)", "--nosuch");
    REFUSED("unknown option '--count-x=5' (prog --help lists the options)", "--count-x=5");
    /* a missing value: at the end, or an option where the value should be */
    REFUSED("--count: needs a whole number (allowed: -5..100)", "--count");
    REFUSED("--lr: needs a number (allowed: 1e-06..10)", "--lr", "--flag");
    REFUSED("--name: needs a value (NAME)", "--name", "-c", "3");
    REFUSED("--flag: takes no value, got '1'", "--flag=1");
    REFUSED("--help: takes no value, got 'x'", "--help=x");
    REFUSED("unexpected word 'c.h5' (prog --help lists the options)", "a.h5", "b.h5", "c.h5");
    /* an option of another scope is unknown in this one */
    REFUSED("unknown option '--file' (prog --help lists the options)", "--file", "x");
    assert_int_equal(PARSE(ONLY_B, 0, "--file", "x"), CLIOPT_OK);
    assert_int_equal(PARSE(ONLY_B, 0, "--lr", "1"), CLIOPT_ERROR);
    /* no positional word allowed at all */
    assert_int_equal(PARSE(0, 0, "run.h5"), CLIOPT_ERROR);
    assert_string_equal(g_msg, "unexpected word 'run.h5' (prog --help lists the options)");
}

static void test_words_calls_and_positions(void **state)
{
    (void)state;
    CliOptSpec s;
    assert_int_equal(PARSE(0, 4, "-list", "a=1", "b", "-2", "-.5", "--add", "x", "-", "--add", "y",
                           "--ping", "--", "--flag", "z"),
                     CLIOPT_OK);
    assert_string_equal(g_dest.words, "-list:a=1,b,-2,-.5;--add:x;--add:y;--ping:");
    assert_false(g_dest.flag); /* after "--": a word */
    assert_int_equal(g_npos, 3);
    assert_string_equal(g_pos[0], "-");
    assert_string_equal(g_pos[1], "--flag");
    assert_string_equal(g_pos[2], "z");
    /* -list takes no word at all before the next option */
    assert_int_equal(PARSE(0, 0, "-list", "-f"), CLIOPT_OK);
    assert_string_equal(g_dest.words, "-list:");
    assert_true(g_dest.flag);
    /* a call refuses with its own message */
    assert_int_equal(PARSE(0, 0, "--add", "refuse"), CLIOPT_ERROR);
    assert_string_equal(g_msg, "--add: 'refuse' is refused");
    /* --help and --version stop the parse */
    assert_int_equal(PARSE(0, 0, "--count", "3", "-h", "--nosuch"), CLIOPT_ASKED_HELP);
    assert_int_equal(PARSE(0, 0, "--version"), CLIOPT_ASKED_VERSION);
}

static void test_stop_at_word_and_unknown_words(void **state)
{
    (void)state;
    CliOptSpec s = spec(0);
    s.mode = CLIOPT_STOP_AT_WORD | CLIOPT_UNKNOWN_IS_WORD;
    assert_int_equal(parse_with(&s, 8, (const char *const[]){"go", "--flag", "-5", NULL}),
                     CLIOPT_OK);
    assert_int_equal(g_npos, 3);
    assert_false(g_dest.flag);
    assert_int_equal(parse_with(&s, 8, (const char *const[]){"--frob", "--flag", NULL}), CLIOPT_OK);
    assert_int_equal(g_npos, 2);
    assert_string_equal(g_pos[0], "--frob");
    assert_int_equal(parse_with(&s, 8, (const char *const[]){"--help", NULL}), CLIOPT_ASKED_HELP);
}

/* A second table chained to the first: its rows are found too, with their own fields. */
static void test_chained_tables(void **state)
{
    (void)state;
    static const CliOpt more[] = {
        {"-rounds", NULL, CLIOPT_INT, 0, sizeof(int), 1, 9, 0, 0, "N", "rounds", NULL},
    };
    int rounds = 0;
    CliOptSpec s = spec(0);
    CliOptSpec second = {.prog = "prog", .opts = more, .nopts = 1, .dest = &rounds};
    s.next = &second;
    assert_int_equal(parse_with(&s, 0, (const char *const[]){"-rounds", "3", "-c", "2", NULL}),
                     CLIOPT_OK);
    assert_int_equal(rounds, 3);
    assert_int_equal(g_dest.count, 2);
    /* an option of either table is no value */
    assert_int_equal(parse_with(&s, 0, (const char *const[]){"--name", "-rounds", "2", NULL}),
                     CLIOPT_ERROR);
    assert_string_equal(g_msg, "--name: needs a value (NAME)");
    assert_int_equal(parse_with(&s, 0, (const char *const[]){"-rounds", "0", NULL}), CLIOPT_ERROR);
    assert_string_equal(g_msg, "-rounds: '0' is out of range (allowed: 1..9)");
}

typedef struct {
    char name[8];
    bool builtin;
    uint64_t nodes;
    CliTimeControl tc;
    char options[64];
} Engine;

static bool add_option(void *ctx, const CliOpt *o, const char *label, int n, char **words,
                       char *msg, size_t size)
{
    Engine *e = ctx;
    (void)o, (void)label, (void)n, (void)msg, (void)size;
    size_t len = strlen(e->options);
    snprintf(e->options + len, sizeof e->options - len, "%s%s", len ? ";" : "", words[0]);
    return true;
}

#define E(f) offsetof(Engine, f), sizeof(((Engine *)0)->f)
static const CliOpt KEYS[] = {
    {"name", NULL, CLIOPT_TEXT, E(name), 0, 0, 0, CLIOPT_NONEMPTY, "N", NULL, NULL},
    {"builtin", NULL, CLIOPT_FLAG, E(builtin), 0, 0, 0, 0, NULL, NULL, NULL},
    {"nodes", NULL, CLIOPT_U64, E(nodes), 1, 4e9, 0, 0, "N", NULL, NULL},
    {"tc", NULL, CLIOPT_TC, E(tc), 0, 0, 0, CLIOPT_NONEMPTY, "B+I", NULL, NULL},
    {"option.", NULL, CLIOPT_CALL, 0, 0, 0, 0, 0, 0, "X=Y", NULL, NULL},
};

static bool words(Engine *e, char *msg, const char *const *w)
{
    static char *argv[16];
    int n = 0;
    while (w[n])
        argv[n] = (char *)w[n], n++;
    memset(e, 0, sizeof *e);
    CliOptSpec s = {.opts = KEYS, .nopts = 5, .dest = e, .call = add_option, .ctx = e};
    msg[0] = '\0';
    return cliopt_parse_words(&s, "-engine", n, argv, msg, 300);
}

#define WORDS(...) words(&e, msg, (const char *const[]){__VA_ARGS__, NULL})

static void test_key_words(void **state)
{
    (void)state;
    Engine e;
    char msg[300];
    assert_true(
        WORDS("name=a", "builtin", "nodes=300", "tc=10+0.1", "option.Hash=16", "option.Threads=2"));
    assert_string_equal(e.name, "a");
    assert_true(e.builtin);
    assert_int_equal(e.nodes, 300);
    assert_int_equal(e.tc.base_ms, 10000);
    assert_int_equal(e.tc.inc_ms, 100);
    assert_string_equal(e.options, "Hash=16;Threads=2");
    static const struct {
        const char *word, *msg;
    } bad[] = {
        {"nodes=0", "-engine nodes: '0' is out of range (allowed: 1..4000000000)"},
        {"nodes", "-engine nodes: needs a whole number (allowed: 1..4000000000)"},
        {"builtin=1", "-engine builtin: takes no value, got '1'"},
        {"name=", "-engine name: '' is empty (give a value, or leave name= out)"},
        {"tc=", "-engine tc: '' is empty (give a value, or leave tc= out)"},
        {"tc=fast", "-engine tc base: 'fast' is not a number (allowed: 0.001..86400)"},
        {"tc=40/60", "-engine tc: '40/60' gives moves per period, which this clock does not "
                     "keep (allowed: BASE[+INC] in seconds, e.g. 10+0.1)"},
        {"nodez=3", "-engine: unknown key 'nodez' (allowed: name, builtin, nodes, tc, option.)"},
        {"ponder", "-engine: unknown key 'ponder' (allowed: name, builtin, nodes, tc, option.)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_false(WORDS(bad[i].word));
        assert_string_equal(msg, bad[i].msg);
    }
}

static void test_time_controls(void **state)
{
    (void)state;
    CliTimeControl tc;
    char msg[300];
    assert_true(cliopt_parse_tc("--tc", "10+0.1", 0, &tc, msg, sizeof msg));
    assert_true(tc.moves == 0 && tc.base_ms == 10000 && tc.inc_ms == 100);
    assert_true(cliopt_parse_tc("--tc", "0.5", 0, &tc, msg, sizeof msg));
    assert_true(tc.base_ms == 500 && tc.inc_ms == 0);
    assert_true(cliopt_parse_tc("--tc", "40/60+0.6", 40, &tc, msg, sizeof msg));
    assert_true(tc.moves == 40 && tc.base_ms == 60000 && tc.inc_ms == 600);
    assert_true(cliopt_parse_tc("--tc", "", 0, &tc, msg, sizeof msg));
    assert_true(tc.base_ms == 0 && !tc.text[0]);
    static const struct {
        const char *text, *msg;
    } bad[] = {
        {"-5+1", "--tc base: '-5' is out of range (allowed: 0.001..86400)"},
        {"10+x", "--tc increment: 'x' is not a number (allowed: 0..3600)"},
        {"10+", "--tc increment: '' is not a number (allowed: 0..3600)"},
        {"+1", "--tc base: '' is not a number (allowed: 0.001..86400)"},
        {"0/60", "--tc moves: '0' is out of range (allowed: 1..40)"},
        {"41/60", "--tc moves: '41' is out of range (allowed: 1..40)"},
        {"x/60", "--tc moves: 'x' is not a whole number (allowed: 1..40)"},
        {"10+0.1+0.1", "--tc increment: '0.1+0.1' is not a number (allowed: 0..3600)"},
        {"1234567890123456789012345678901234", "--tc: '1234567890123456789012345678901234' is "
                                               "longer than 31 bytes"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tc.base_ms = 7;
        assert_false(cliopt_parse_tc("--tc", bad[i].text, 40, &tc, msg, sizeof msg));
        assert_string_equal(msg, bad[i].msg);
        assert_int_equal(tc.base_ms, 7); /* left alone */
    }
}

static void test_split_kv(void **state)
{
    (void)state;
    char key[8];
    const char *value;
    assert_true(cliopt_split_kv("elo0=5", key, sizeof key, &value));
    assert_string_equal(key, "elo0");
    assert_string_equal(value, "5");
    assert_true(cliopt_split_kv("a==", key, sizeof key, &value));
    assert_string_equal(value, "=");
    assert_false(cliopt_split_kv("garbage", key, sizeof key, &value));
    assert_false(cliopt_split_kv("=5", key, sizeof key, &value));
    assert_false(cliopt_split_kv("longerkey=5", key, sizeof key, &value));
}

static void test_usage_from_the_table(void **state)
{
    (void)state;
    char text[4096];
    FILE *f = fmemopen(text, sizeof text, "w");
    assert_non_null(f);
    CliOptSpec s = spec(ONLY_A);
    cliopt_usage(f, &s, 20);
    assert_int_equal(fclose(f), 0);
    static const char *const lines[] = {
        "Heading:\n",
        "  -f, --flag           a flag\n",
        "      --no-on          clears on\n",
        "  -c, --count N        a count\n                       on two lines\n",
        "      --lr X           a rate (A only)\n",
        "      --order ORDER    an order\n",
        "      -list K=V ...    words\n",
        "  -h, --help           this text\n",
    };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
        if (!strstr(text, lines[i]))
            fail_msg("--help has no line '%s':\n%s", lines[i], text);
    assert_null(strstr(text, "--file")); /* another scope's */
    assert_null(strstr(text, "--arg"));  /* no help: unlisted */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_kind),
        cmocka_unit_test(test_numbers_and_ranges),
        cmocka_unit_test(test_texts_and_choices),
        cmocka_unit_test(test_command_line_errors),
        cmocka_unit_test(test_words_calls_and_positions),
        cmocka_unit_test(test_stop_at_word_and_unknown_words),
        cmocka_unit_test(test_chained_tables),
        cmocka_unit_test(test_key_words),
        cmocka_unit_test(test_time_controls),
        cmocka_unit_test(test_split_kv),
        cmocka_unit_test(test_usage_from_the_table),
    };
    return cmocka_run_group_tests_name("cliopt", tests, NULL, NULL);
}
