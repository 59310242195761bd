#include "cliopt.h"

#include <stdint.h>
#include <string.h>

#include "error.h"
#include "numparse.h"
#include "textesc.h"

enum {
    LABEL_MAX = 96, /* an option's name as typed, or an option and a key */
    SHOWN_MAX = 64, /* a refused text quoted in a message */
};

static bool in_scope(const CliOptSpec *s, const CliOpt *o)
{
    return o->kind != CLIOPT_HEADING && (!s->scope || !o->scope || (o->scope & s->scope));
}

/* Whether row o is named name[0..len-1]: its name or alias, or a key its prefix row
 * ("option.") begins. */
static bool named(const CliOpt *o, const char *name, size_t len)
{
    size_t n = strlen(o->name);
    if (n == len && !strncmp(o->name, name, len))
        return true;
    if (n && o->name[n - 1] == '.' && len > n && !strncmp(o->name, name, n))
        return true;
    return o->alias && strlen(o->alias) == len && !strncmp(o->alias, name, len);
}

static const CliOpt *find_n(const CliOptSpec *s, const char *name, size_t len)
{
    for (int i = 0; i < s->nopts; i++)
        if (in_scope(s, &s->opts[i]) && named(&s->opts[i], name, len))
            return &s->opts[i];
    return NULL;
}

const CliOpt *cliopt_find(const CliOptSpec *s, const char *name)
{
    return find_n(s, name, strlen(name));
}

/* The row a word names in s or a table chained to it (*owner: that table); a "--name=V"
 * word is looked up by its name. */
static const CliOpt *lookup(const CliOptSpec *s, const char *word, size_t len,
                            const CliOptSpec **owner)
{
    for (; s; s = s->next) {
        const CliOpt *o = find_n(s, word, len);
        if (o) {
            *owner = s;
            return o;
        }
    }
    return NULL;
}

/* The length of the name in a word: up to the '=' of "--name=value". */
static size_t name_len(const char *word)
{
    const char *eq = word[0] == '-' && word[1] == '-' ? strchr(word, '=') : NULL;
    return eq ? (size_t)(eq - word) : strlen(word);
}

/* Whether word is an option of s's tables (then it is no option's value). */
static bool names_option(const CliOptSpec *s, const char *word)
{
    const CliOptSpec *owner;
    return word[0] == '-' && word[1] && lookup(s, word, name_len(word), &owner);
}

static const char *shown(const char *text, char buf[SHOWN_MAX])
{
    textesc_printable(buf, SHOWN_MAX, text);
    return buf;
}

/* ---- values ---- */

bool cliopt_parse_tc(const char *label, const char *text, int max_moves, CliTimeControl *tc,
                     char *msg, size_t size)
{
    CliTimeControl t;
    memset(&t, 0, sizeof t);
    char buf[SHOWN_MAX], part[sizeof t.text], sub[LABEL_MAX + 16];
    if (strlen(text) >= sizeof t.text)
        return error_set(msg, size, "%s: '%s' is longer than %zu bytes", label, shown(text, buf),
                         sizeof t.text - 1);
    memcpy(t.text, text, strlen(text) + 1);
    const char *p = text;
    const char *slash = strchr(text, '/');
    if (slash) {
        long long moves;
        if (!max_moves)
            return error_set(msg, size,
                             "%s: '%s' gives moves per period, which this clock does not keep "
                             "(allowed: BASE[+INC] in seconds, e.g. 10+0.1)",
                             label, shown(text, buf));
        snprintf(part, sizeof part, "%.*s", (int)(slash - text), text);
        snprintf(sub, sizeof sub, "%s moves", label);
        if (!numparse_int(sub, part, 1, max_moves, &moves, msg, size))
            return false;
        t.moves = (int)moves;
        p = slash + 1;
    }
    if (*text) {
        const char *plus = strchr(p, '+');
        double base, inc = 0;
        snprintf(part, sizeof part, "%.*s", (int)(plus ? (size_t)(plus - p) : strlen(p)), p);
        snprintf(sub, sizeof sub, "%s base", label);
        if (!numparse_double(sub, part, 0.001, 86400, &base, msg, size))
            return false;
        snprintf(sub, sizeof sub, "%s increment", label);
        if (plus && !numparse_double(sub, plus + 1, 0, 3600, &inc, msg, size))
            return false;
        t.base_ms = (uint32_t)(base * 1000 + 0.5);
        t.inc_ms = (uint32_t)(inc * 1000 + 0.5);
    }
    *tc = t;
    return true;
}

/* One of the '|'-separated choices, or "". */
static bool choice(const char *choices, const char *text)
{
    size_t n = strlen(text);
    if (!n)
        return true;
    for (const char *c = choices; *c; c += strcspn(c, "|"), c += *c == '|')
        if (strcspn(c, "|") == n && !strncmp(c, text, n))
            return true;
    return false;
}

/* "'x' is not a, b or c" */
static bool not_a_choice(const char *label, const char *choices, const char *text, char *msg,
                         size_t size)
{
    char list[256], buf[SHOWN_MAX];
    size_t n = 0;
    int count = 0;
    for (const char *c = choices; *c; c += strcspn(c, "|"), c += *c == '|')
        count++;
    int k = 0;
    for (const char *c = choices; *c && n < sizeof list; c += strcspn(c, "|"), c += *c == '|') {
        const char *sep = k == 0 ? "" : k == count - 1 ? " or " : ", ";
        n += (size_t)snprintf(list + n, sizeof list - n, "%s%.*s", sep, (int)strcspn(c, "|"), c);
        k++;
    }
    return error_set(msg, size, "%s: '%s' is not %s", label, shown(text, buf), list);
}

static bool set_text(const CliOpt *o, void *field, const char *label, const char *text, char *msg,
                     size_t size)
{
    char buf[SHOWN_MAX];
    if (strlen(text) >= o->size)
        return error_set(msg, size, "%s: longer than %zu bytes", label, o->size - 1);
    if (!textesc_plain(text))
        return error_set(msg, size,
                         "%s: '%s' holds a control character (shown as \\xNN); give printable "
                         "text",
                         label, shown(text, buf));
    if (o->kind == CLIOPT_ENUM && !choice(o->data, text))
        return not_a_choice(label, o->data, text, msg, size);
    memcpy(field, text, strlen(text) + 1);
    return true;
}

static bool set_number(const CliOpt *o, void *field, const char *label, const char *text, char *msg,
                       size_t size)
{
    long long i;
    double d;
    switch (o->kind) {
    case CLIOPT_INT:
        if (!numparse_int(label, text, (long long)o->min, (long long)o->max, &i, msg, size))
            return false;
        *(int *)field = (int)i;
        return true;
    case CLIOPT_U64: {
        uint64_t hi = o->max >= CLIOPT_U64_ANY ? UINT64_MAX : (uint64_t)o->max;
        return numparse_u64(label, text, (uint64_t)o->min, hi, field, msg, size);
    }
    case CLIOPT_MS:
        if (!numparse_double(label, text, o->min, o->max, &d, msg, size))
            return false;
        *(int *)field = (int)(d * 1000 + 0.5);
        return true;
    default:
        return numparse_double(label, text, o->min, o->max, field, msg, size);
    }
}

bool cliopt_set(const CliOptSpec *s, const CliOpt *o, const char *label, const char *text,
                char *msg, size_t size)
{
    void *field = (char *)s->dest + o->offset;
    bool number = o->kind == CLIOPT_INT || o->kind == CLIOPT_U64 || o->kind == CLIOPT_DOUBLE ||
                  o->kind == CLIOPT_MS;
    if (!text && !number)
        return error_set(msg, size, "%s: needs a value (%s)", label, o->arg ? o->arg : "");
    bool ok = true;
    switch (o->kind) {
    case CLIOPT_FLAG:
    case CLIOPT_FLAG_OFF:
        *(bool *)field = o->kind == CLIOPT_FLAG;
        break;
    case CLIOPT_INT:
    case CLIOPT_U64:
    case CLIOPT_DOUBLE:
    case CLIOPT_MS:
        ok = set_number(o, field, label, text, msg, size);
        break;
    case CLIOPT_TEXT:
    case CLIOPT_PATH:
    case CLIOPT_ENUM:
        ok = set_text(o, field, label, text, msg, size);
        break;
    case CLIOPT_ARG:
        *(const char **)field = text;
        break;
    case CLIOPT_TC:
        ok = cliopt_parse_tc(label, text, (int)o->max, field, msg, size);
        break;
    case CLIOPT_CALL:
        ok = s->call(s->ctx, o, label, 1, (char **)&text, msg, size);
        break;
    case CLIOPT_HEADING:
    case CLIOPT_HELP:
    case CLIOPT_VERSION:
        break;
    }
    if (ok && s->given)
        s->given[o - s->opts] = true;
    return ok;
}

/* A row without a value (a flag, or a call of no words). */
static bool set_bare(const CliOptSpec *s, const CliOpt *o, const char *label, char *msg,
                     size_t size)
{
    if (o->kind != CLIOPT_CALL)
        return cliopt_set(s, o, label, "", msg, size);
    if (!s->call(s->ctx, o, label, 0, NULL, msg, size))
        return false;
    if (s->given)
        s->given[o - s->opts] = true;
    return true;
}

/* ---- the command line ---- */

/* The words after argv[i] that CLIOPT_WORDS row takes: up to the next one that starts
 * with '-' and is not a number ("-repeat -1" is judged as a count). */
static int words_after(int argc, char **argv, int i)
{
    int n = 0;
    for (const char *w; i + 1 + n < argc; n++) {
        w = argv[i + 1 + n];
        if (w[0] == '-' && !(w[1] >= '0' && w[1] <= '9') && w[1] != '.')
            break;
    }
    return n;
}

/* Option o of table t, met at argv[*i] as label (with "=value" after it at eq). */
static CliOptStatus take(const CliOptSpec *s, const CliOptSpec *t, const CliOpt *o,
                         const char *label, const char *eq, int argc, char **argv, int *i,
                         char *msg, size_t size)
{
    if (o->kind == CLIOPT_HELP || o->kind == CLIOPT_VERSION || (!o->arg && eq)) {
        if (eq) {
            char buf[SHOWN_MAX];
            error_set(msg, size, "%s: takes no value, got '%s'", label, shown(eq + 1, buf));
            return CLIOPT_ERROR;
        }
        return o->kind == CLIOPT_HELP ? CLIOPT_ASKED_HELP : CLIOPT_ASKED_VERSION;
    }
    if (o->flags & CLIOPT_WORDS) {
        int n = words_after(argc, argv, *i);
        bool ok = t->call(t->ctx, o, label, n, argv + *i + 1, msg, size);
        *i += n;
        if (ok && t->given)
            t->given[o - t->opts] = true;
        return ok ? CLIOPT_OK : CLIOPT_ERROR;
    }
    if (!o->arg)
        return set_bare(t, o, label, msg, size) ? CLIOPT_OK : CLIOPT_ERROR;
    const char *value = NULL;
    if (eq)
        value = eq + 1;
    else if (*i + 1 < argc && !names_option(s, argv[*i + 1]))
        value = argv[++*i];
    return cliopt_set(t, o, label, value, msg, size) ? CLIOPT_OK : CLIOPT_ERROR;
}

static bool positional(const CliOptSpec *s, char *w, char **pos, int *npos, int maxpos, char *msg,
                       size_t size)
{
    char buf[SHOWN_MAX];
    if (!pos || *npos >= maxpos)
        return error_set(msg, size, "unexpected word '%s' (%s --help lists the options)",
                         shown(w, buf), s->prog ? s->prog : "");
    pos[(*npos)++] = w;
    return true;
}

CliOptStatus cliopt_parse(const CliOptSpec *s, int argc, char **argv, char **pos, int *npos,
                          int maxpos, char *msg, size_t size)
{
    int n = 0;
    bool words_only = false;
    if (npos)
        *npos = 0;
    for (int i = 0; i < argc; i++) {
        char *w = argv[i];
        if (!words_only && !strcmp(w, "--")) {
            words_only = true;
            continue;
        }
        const CliOptSpec *t = NULL;
        size_t len = name_len(w);
        const CliOpt *o = words_only || w[0] != '-' || !w[1] ? NULL : lookup(s, w, len, &t);
        if (!o && !words_only && w[0] == '-' && w[1] && !(s->mode & CLIOPT_UNKNOWN_IS_WORD)) {
            char buf[SHOWN_MAX];
            error_set(msg, size, "unknown option '%s' (%s --help lists the options)", shown(w, buf),
                      s->prog ? s->prog : "");
            return CLIOPT_ERROR;
        }
        if (!o) {
            if (!positional(s, w, pos, &n, maxpos, msg, size))
                return CLIOPT_ERROR;
            if (npos)
                *npos = n;
            words_only |= (s->mode & CLIOPT_STOP_AT_WORD) != 0;
            continue;
        }
        char label[LABEL_MAX];
        snprintf(label, sizeof label, "%.*s", (int)len, w);
        CliOptStatus st =
            take(s, t, o, label, w[len] == '=' ? w + len : NULL, argc, argv, &i, msg, size);
        if (st != CLIOPT_OK)
            return st;
    }
    return CLIOPT_OK;
}

/* ---- key=value words ---- */

bool cliopt_split_kv(const char *word, char *key, size_t size, const char **value)
{
    const char *eq = strchr(word, '=');
    if (!eq || eq == word || (size_t)(eq - word) >= size)
        return false;
    memcpy(key, word, (size_t)(eq - word));
    key[eq - word] = '\0';
    *value = eq + 1;
    return true;
}

/* "-engine: unknown key 'x' (allowed: name, cmd, ...)" */
static bool unknown_key(const CliOptSpec *s, const char *label, const char *key, char *msg,
                        size_t size)
{
    char list[512], buf[SHOWN_MAX];
    size_t n = 0;
    for (int i = 0; i < s->nopts && n < sizeof list; i++)
        if (in_scope(s, &s->opts[i]))
            n +=
                (size_t)snprintf(list + n, sizeof list - n, "%s%s", n ? ", " : "", s->opts[i].name);
    return error_set(msg, size, "%s: unknown key '%s' (allowed: %s)", label, shown(key, buf), list);
}

bool cliopt_parse_words(const CliOptSpec *s, const char *label, int n, char **words, char *msg,
                        size_t size)
{
    for (int i = 0; i < n; i++) {
        const char *w = words[i], *value = NULL;
        char key[LABEL_MAX], sub[LABEL_MAX * 2], buf[SHOWN_MAX];
        if (!cliopt_split_kv(w, key, sizeof key, &value))
            snprintf(key, sizeof key, "%s", w); /* a key alone ("builtin") */
        const char *eq = value ? value - 1 : NULL;
        const CliOpt *o = find_n(s, key, strlen(key));
        if (!o)
            return unknown_key(s, label, key, msg, size);
        snprintf(sub, sizeof sub, "%s %s", label, key);
        size_t plen = strlen(o->name);
        if (o->name[plen - 1] == '.') { /* "option.X=Y": the call takes "X=Y" */
            char *rest = (char *)w + plen;
            if (!s->call(s->ctx, o, sub, 1, &rest, msg, size))
                return false;
            continue;
        }
        if (!o->arg) {
            if (eq)
                return error_set(msg, size, "%s: takes no value, got '%s'", sub,
                                 shown(eq + 1, buf));
            if (!set_bare(s, o, sub, msg, size))
                return false;
            continue;
        }
        if (eq && !eq[1] && (o->flags & CLIOPT_NONEMPTY))
            return error_set(msg, size, "%s: '' is empty (give a value, or leave %s= out)", sub,
                             key);
        if (!cliopt_set(s, o, sub, eq ? eq + 1 : NULL, msg, size))
            return false;
    }
    return true;
}

/* ---- --help ---- */

static void help_text(FILE *f, const char *help, int indent)
{
    for (const char *p = help; *p; p++) {
        fputc(*p, f);
        if (*p == '\n')
            fprintf(f, "%*s", indent, "");
    }
    fputc('\n', f);
}

void cliopt_usage(FILE *f, const CliOptSpec *s, int column)
{
    bool letters = false;
    for (int i = 0; i < s->nopts; i++)
        letters |= in_scope(s, &s->opts[i]) && s->opts[i].alias && strlen(s->opts[i].alias) == 2;
    for (int i = 0; i < s->nopts; i++) {
        const CliOpt *o = &s->opts[i];
        if (o->kind == CLIOPT_HEADING && (!s->scope || !o->scope || (o->scope & s->scope))) {
            fprintf(f, "%s\n", o->help);
            continue;
        }
        if (!in_scope(s, o) || !o->help)
            continue;
        char left[256];
        snprintf(left, sizeof left, "%s%s%s%s%s",
                 o->alias  ? o->alias
                 : letters ? "    "
                           : "",
                 o->alias ? ", " : "", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
        if ((int)strlen(left) > column)
            fprintf(f, "  %s\n%*s", left, column + 3, "");
        else
            fprintf(f, "  %-*s ", column, left);
        help_text(f, o->help, column + 3);
    }
}
