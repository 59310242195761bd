#include "exttrans.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "numparse.h"
#include "score.h"

enum {
    XB_MATE = 100000, /* XBoard's mate scores: 100000 + moves to mate */
};

/* The protocol's number for chuhe's rank 0. */
static int first_rank(ProtoExtProtocol p)
{
    return p == PROTO_EXT_UCI1 ? 1 : 0;
}

static bool is_move_text(const char *m)
{
    for (int half = 0; half < 2; half++) {
        if (m[half * 2] < 'a' || m[half * 2] > 'i' || m[half * 2 + 1] < '0' ||
            m[half * 2 + 1] > '9')
            return false;
    }
    return m[4] == '\0';
}

bool exttrans_move_out(ProtoExtProtocol p, const char *m, char *buf, size_t size)
{
    if (size)
        buf[0] = '\0';
    if (!is_move_text(m) || size < 8)
        return false;
    size_t n = 0;
    for (int half = 0; half < 2; half++) {
        int rank = m[half * 2 + 1] - '0' + first_rank(p);
        buf[n++] = m[half * 2];
        if (rank >= 10)
            buf[n++] = '1';
        buf[n++] = (char)('0' + rank % 10);
    }
    buf[n] = '\0';
    return true;
}

bool exttrans_move_in(ProtoExtProtocol p, const char *text, char out[5])
{
    const char *s = text;
    int shift = first_rank(p);
    for (int half = 0; half < 2; half++) {
        if (*s < 'a' || *s > 'i')
            return false;
        out[half * 2] = *s++;
        if (*s < '0' || *s > '9')
            return false;
        int rank = *s++ - '0';
        if (shift && rank == 1 && *s == '0') {
            rank = 10;
            s++;
        }
        rank -= shift;
        if (rank < 0 || rank > 9)
            return false;
        out[half * 2 + 1] = (char)('0' + rank);
    }
    out[4] = '\0';
    return *s == '\0';
}

bool exttrans_fen_out(ProtoExtProtocol p, const char *fen, char *buf, size_t size)
{
    size_t n = strlen(fen);
    if (n >= size)
        return false;
    memcpy(buf, fen, n + 1);
    if (p != PROTO_EXT_XBOARD)
        return true;
    /* XBoard names the horse and the elephant by their own letters */
    for (char *c = buf; *c && *c != ' '; c++) {
        switch (*c) {
        case 'n':
            *c = 'h';
            break;
        case 'N':
            *c = 'H';
            break;
        case 'b':
            *c = 'e';
            break;
        case 'B':
            *c = 'E';
            break;
        default:
            break;
        }
    }
    return true;
}

/* A whole token as a long; false when it is not one. */
static bool to_long(const char *tok, long *out)
{
    if (!tok || !*tok)
        return false;
    char *end;
    errno = 0;
    long v = strtol(tok, &end, 10);
    if (*end || errno)
        return false;
    *out = v;
    return true;
}

static bool to_u64(const char *tok, uint64_t *out)
{
    if (!tok || !isdigit((unsigned char)*tok))
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(tok, &end, 10);
    if (*end || errno)
        return false;
    *out = v;
    return true;
}

static Value clamp_cp(long cp)
{
    long hi = VALUE_MATE_IN_MAX_PLY - 1;
    return (Value)(cp > hi ? hi : cp < -hi ? -hi : cp);
}

/* Mate in n moves (n > 0) or mated in -n moves (n <= 0) as a Value. */
static Value mate_moves(long n)
{
    long cap = MAX_PLY / 2;
    n = n > cap ? cap : n < -cap ? -cap : n;
    return n > 0 ? value_mate_in((int)(2 * n - 1)) : value_mated_in((int)(-2 * n));
}

bool exttrans_parse_info(const char *line, SearchResult *out)
{
    char copy[1024];
    size_t len = strlen(line);
    if (len >= sizeof copy || strncmp(line, "info", 4) || (line[4] != ' ' && line[4] != '\0'))
        return false;
    memcpy(copy, line, len + 1);
    SearchResult r = *out;
    char *save = NULL;
    strtok_r(copy, " ", &save);
    for (char *tok = strtok_r(NULL, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        /* free text and move lists end the fields worth reading */
        if (!strcmp(tok, "string") || !strcmp(tok, "pv"))
            break;
        long v;
        if (!strcmp(tok, "depth")) {
            if (!to_long(strtok_r(NULL, " ", &save), &v) || v < 0 || v > 1000)
                return false;
            r.depth = (int)v;
        } else if (!strcmp(tok, "nodes")) {
            if (!to_u64(strtok_r(NULL, " ", &save), &r.nodes))
                return false;
        } else if (!strcmp(tok, "score")) {
            char *kind = strtok_r(NULL, " ", &save);
            if (kind && !strcmp(kind, "cp")) {
                if (!to_long(strtok_r(NULL, " ", &save), &v))
                    return false;
                r.score = clamp_cp(v);
            } else if (kind && !strcmp(kind, "mate")) {
                if (!to_long(strtok_r(NULL, " ", &save), &v))
                    return false;
                r.score = mate_moves(v);
            } else if (to_long(kind, &v)) {
                r.score = clamp_cp(v); /* UCCI: "score X" in centipawns */
            } else {
                return false;
            }
        }
    }
    *out = r;
    return true;
}

bool exttrans_parse_thinking(const char *line, SearchResult *out)
{
    char copy[1024];
    size_t len = strlen(line);
    if (len >= sizeof copy)
        return false;
    memcpy(copy, line, len + 1);
    char *save = NULL;
    char *tok[4];
    for (int i = 0; i < 4; i++)
        tok[i] = strtok_r(i ? NULL : copy, " \t", &save);
    long ply, score, cs;
    uint64_t nodes;
    if (!to_long(tok[0], &ply) || ply < 0 || ply > 1000 || !to_long(tok[1], &score) ||
        !to_long(tok[2], &cs) || cs < 0 || !to_u64(tok[3], &nodes))
        return false;
    out->depth = (int)ply;
    out->nodes = nodes;
    if (score >= XB_MATE)
        out->score = mate_moves(score - XB_MATE > 0 ? score - XB_MATE : 1);
    else if (score <= -XB_MATE)
        out->score = mate_moves(XB_MATE + score);
    else
        out->score = clamp_cp(score);
    return true;
}

/* n bytes of s as a string in buf; false when they do not fit. */
static bool copy_span(char *buf, size_t size, const char *s, size_t n)
{
    if (n >= size)
        return false;
    memcpy(buf, s, n);
    buf[n] = '\0';
    return true;
}

bool exttrans_next_feature(const char **cursor, char *name, size_t nsize, char *value, size_t vsize)
{
    const char *s = *cursor;
    while (*s == ' ' || *s == '\t')
        s++;
    *cursor = s;
    if (!*s)
        return false;
    size_t n = 0;
    while (isalnum((unsigned char)s[n]) || s[n] == '_' || s[n] == '-')
        n++;
    if (n == 0 || s[n] != '=' || !copy_span(name, nsize, s, n))
        return false;
    s += n + 1;
    const char *v = s, *end;
    if (*s == '"') {
        v = s + 1;
        end = strchr(v, '"');
        if (!end)
            return false;
        s = end + 1;
    } else {
        end = s;
        while (*end && *end != ' ' && *end != '\t')
            end++;
        s = end;
    }
    if ((*s && *s != ' ' && *s != '\t') || !copy_span(value, vsize, v, (size_t)(end - v)))
        return false;
    *cursor = s;
    return true;
}

/* The word at *s (blanks skipped) as [*word, *word + returned length); *s moves past it. */
static size_t next_word(const char **s, const char **word)
{
    const char *p = *s;
    while (*p == ' ' || *p == '\t')
        p++;
    *word = p;
    while (*p && *p != ' ' && *p != '\t')
        p++;
    *s = p;
    return (size_t)(p - *word);
}

/* The word at *s as a number; false when it is none (or there is no word). */
static bool next_number(const char **s, double *v)
{
    const char *w;
    char text[64];
    size_t n = next_word(s, &w);
    return n && copy_span(text, sizeof text, w, n) &&
           numparse_double("option", text, -1e300, 1e300, v, NULL, 0);
}

/* The name in [name, name + n) and the type word at type into out, not ranged. */
static bool option_start(ExtOption *out, const char *name, size_t n, const char *type, size_t tn)
{
    memset(out, 0, sizeof *out);
    return n && copy_span(out->name, sizeof out->name, name, n) &&
           copy_span(out->type, sizeof out->type, type, tn);
}

bool exttrans_parse_option(ProtoExtProtocol p, const char *line, ExtOption *out)
{
    const char *s = line, *w;
    size_t n = next_word(&s, &w);
    if (n != 6 || strncmp(w, "option", 6))
        return false;
    if (p != PROTO_EXT_UCCI && ((n = next_word(&s, &w)) != 4 || strncmp(w, "name", 4)))
        return false;
    while (*s == ' ' || *s == '\t')
        s++;
    const char *name = s, *type = strstr(s, " type ");
    if (!type)
        return false;
    s = type + 6;
    n = next_word(&s, &w);
    if (!option_start(out, name, (size_t)(type - name), w, n))
        return false;
    bool has_min = false, has_max = false;
    while ((n = next_word(&s, &w)) != 0) {
        if (n == 3 && !strncmp(w, "min", 3))
            has_min = next_number(&s, &out->min);
        else if (n == 3 && !strncmp(w, "max", 3))
            has_max = next_number(&s, &out->max);
    }
    out->ranged = !strcmp(out->type, "spin") && has_min && has_max;
    return true;
}

/* The length of the XBoard option type word at s ("-spin", "-check", ...), 0 if none. */
static size_t option_type_at(const char *s)
{
    static const char *const TYPES[] = {"-button", "-save", "-reset", "-check",  "-string",
                                        "-file",   "-path", "-spin",  "-slider", "-combo"};
    for (size_t i = 0; i < sizeof TYPES / sizeof TYPES[0]; i++) {
        size_t n = strlen(TYPES[i]);
        if (!strncmp(s, TYPES[i], n) && (s[n] == ' ' || s[n] == '\0'))
            return n;
    }
    return 0;
}

bool exttrans_xboard_option(const char *value, ExtOption *out)
{
    const char *dash = strstr(value, " -");
    while (dash && !option_type_at(dash + 1))
        dash = strstr(dash + 1, " -");
    if (!dash ||
        !option_start(out, value, (size_t)(dash - value), dash + 2, option_type_at(dash + 1) - 1))
        return false;
    const char *s = dash + 1 + option_type_at(dash + 1);
    double def;
    out->ranged = (!strcmp(out->type, "spin") || !strcmp(out->type, "slider")) &&
                  next_number(&s, &def) && next_number(&s, &out->min) && next_number(&s, &out->max);
    return true;
}

bool exttrans_has_variant(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *s = list; *s;) {
        const char *comma = strchr(s, ',');
        size_t len = comma ? (size_t)(comma - s) : strlen(s);
        if (len == n && !strncmp(s, name, n))
            return true;
        if (!comma)
            break;
        s = comma + 1;
    }
    return false;
}
