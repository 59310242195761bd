#include "extdialog.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "notation.h"

enum { EXT_DEFAULT_MS = 10000 }; /* startup and ready timeouts when the config gives none */

void extdialog_stop(ExtEngine *e, bool polite)
{
    extproc_stop(&e->proc, polite, "quit");
    if (e->state)
        memset(e->state, 0, e->dialog->state_size);
}

void extdialog_note(ExtEngine *e, const char *fmt, ...)
{
    if (!e->note)
        return;
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    e->note(e->note_ctx, text);
}

int extdialog_startup_ms(const ExtEngine *e)
{
    return e->cfg.startup_ms > 0 ? e->cfg.startup_ms : EXT_DEFAULT_MS;
}

int extdialog_ready_ms(const ExtEngine *e)
{
    return e->cfg.ready_ms > 0 ? e->cfg.ready_ms : EXT_DEFAULT_MS;
}

bool extdialog_starts_with(const char *line, const char *word)
{
    size_t n = strlen(word);
    return !strncmp(line, word, n) && (line[n] == '\0' || line[n] == ' ');
}

bool extdialog_expect(ExtEngine *e, const char *want, int64_t deadline,
                      void (*seen)(ExtEngine *, const char *))
{
    char line[EXTPROC_LINE_MAX];
    for (;;) {
        ExtProcRead st = extproc_read_line(&e->proc, deadline, line, sizeof line);
        if (st == EXTPROC_TIMEOUT)
            extproc_fail(&e->proc, "no '%s' in time", want);
        if (st != EXTPROC_LINE) {
            extdialog_stop(e, false);
            return false;
        }
        if (extdialog_starts_with(line, want))
            return true;
        if (seen)
            seen(e, line);
    }
}

void extdialog_add_option(ExtEngine *e, const ExtOption *o)
{
    ExtOptions *list = &e->options;
    if (list->n == EXT_OPTIONS_MAX)
        list->cut = true;
    else
        list->opt[list->n++] = *o;
}

bool extdialog_each_option(ExtEngine *e, bool (*fn)(ExtEngine *, const char *, const char *))
{
    char opts[EXT_TEXT_MAX];
    snprintf(opts, sizeof opts, "%s", e->cfg.options);
    for (char *save = NULL, *tok = strtok_r(opts, ";", &save); tok;
         tok = strtok_r(NULL, ";", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq)
            return extproc_fail(&e->proc, "option '%s' is not Name=Value", tok);
        *eq = '\0';
        if (!fn(e, tok, eq + 1))
            return false;
    }
    return true;
}

char *extdialog_first_word(char *p)
{
    while (*p == ' ')
        p++;
    char *end = strchr(p, ' ');
    if (end)
        *end = '\0';
    return p;
}

bool extdialog_take_move(ExtEngine *e, const char *m, SearchResult *out, char mv[5])
{
    snprintf(e->last_move, sizeof e->last_move, "%.20s", m);
    if (exttrans_move_in(e->cfg.proto, m, mv)) {
        out->best = move_from_text(mv);
        return true;
    }
    return extproc_fail(&e->proc, "unparsable move '%.20s'", m);
}
