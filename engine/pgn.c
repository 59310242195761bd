#include "pgn.h"

#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "error.h"
#include "notation.h"
#include "wxf.h"

/* A growing text; after a failed allocation it stays failed and keeps what it had. */
typedef struct {
    char *s;
    size_t len, cap;
    size_t col; /* characters on the current line */
    bool oom;
} Text;

static void text_put(Text *t, const char *s, size_t n)
{
    if (t->oom)
        return;
    if (!array_reserve((void **)&t->s, &t->cap, t->len + n + 1, 1, 1024)) {
        t->oom = true;
        return;
    }
    memcpy(t->s + t->len, s, n);
    t->len += n;
    t->s[t->len] = '\0';
    for (size_t i = 0; i < n; i++)
        t->col = s[i] == '\n' ? 0 : t->col + 1;
}

static void text_str(Text *t, const char *s)
{
    text_put(t, s, strlen(s));
}

/* A movetext token, on a new line when it would pass the line limit. */
static void text_token(Text *t, const char *tok)
{
    size_t n = strlen(tok);
    if (t->col > 0)
        text_str(t, t->col + 1 + n > PGN_LINE_MAX ? "\n" : " ");
    text_put(t, tok, n);
}

static void text_tag(Text *t, const char *name, const char *value, const char *fallback)
{
    text_str(t, "[");
    text_str(t, name);
    text_str(t, " \"");
    const char *v = value ? value : fallback;
    for (; *v; v++) {
        unsigned char c = (unsigned char)*v;
        if (c == '"' || c == '\\')
            text_put(t, "\\", 1);
        text_put(t, c < 0x20 || c == 0x7f ? " " : v, 1);
    }
    text_str(t, "\"]\n");
}

static void score_comment(const RecordPly *p, char *buf, size_t size)
{
    if (p->flags & RECORD_FLAG_OPENING) {
        snprintf(buf, size, "{book}");
        return;
    }
    int s = p->score, a = s < 0 ? -s : s;
    if (a >= VALUE_MATE_IN_MAX_PLY)
        snprintf(buf, size, "{%cM%d}", s < 0 ? '-' : '+', (VALUE_MATE - a + 1) / 2);
    else
        snprintf(buf, size, "{%c%d.%02d/%d}", s < 0 ? '-' : '+', a / 100, a % 100, p->depth);
}

static bool write_text(Text *t, const GameRecord *r, const PgnTags *tags, Position *pos,
                       PgnError *err)
{
    static const PgnTags none;
    if (!tags)
        tags = &none;
    if (r->nplies < 0 || r->nplies > RECORD_MAX_PLIES)
        return ERROR_SET(err, "record has %d plies", r->nplies);
    PosError perr;
    if (!memchr(r->start_fen, '\0', sizeof r->start_fen) || !pos_set_fen(pos, r->start_fen, &perr))
        return ERROR_SET(err, "bad start FEN: %s",
                         memchr(r->start_fen, '\0', sizeof r->start_fen) ? perr.msg
                                                                         : "not terminated");
    char fen[RECORD_FEN_MAX];
    pos_get_fen(pos, fen, sizeof fen);
    const char *result = record_outcome_pgn(r->outcome);

    text_tag(t, "Event", tags->event, "?");
    text_tag(t, "Site", tags->site, "?");
    text_tag(t, "Date", tags->date, "????.??.??");
    text_tag(t, "Round", tags->round, "?");
    text_tag(t, "Red", tags->red, "?");
    text_tag(t, "White", tags->red, "?");
    text_tag(t, "Black", tags->black, "?");
    text_tag(t, "Result", result, "*");
    text_tag(t, "Variant", "xiangqi", "");
    if (strcmp(fen, START_FEN) != 0) {
        text_tag(t, "SetUp", "1", "");
        text_tag(t, "FEN", fen, "");
    }
    text_tag(t, "Format", "WXF", "");
    text_tag(t, "Termination", rules_reason_name(r->reason), "");
    char num[32];
    snprintf(num, sizeof num, "%d", r->nplies);
    text_tag(t, "PlyCount", num, "");
    text_str(t, "\n");

    bool need_number = true;
    for (int i = 0; i < r->nplies; i++) {
        const RecordPly *p = &r->plies[i];
        char wxf[WXF_TEXT_SIZE], tok[32];
        if (!wxf_from_move(pos, p->move, wxf, sizeof wxf)) {
            char text[5];
            move_to_text(p->move, text);
            return ERROR_SET(err, "ply %d: move %s is illegal", i + 1, text);
        }
        int number = pos->game_ply / 2 + 1;
        if (pos->side == RED) {
            snprintf(tok, sizeof tok, "%d.", number);
            text_token(t, tok);
        } else if (need_number) {
            snprintf(tok, sizeof tok, "%d...", number);
            text_token(t, tok);
        }
        text_token(t, wxf);
        need_number = false;
        if (tags->comments) {
            score_comment(p, tok, sizeof tok);
            text_token(t, tok);
            need_number = true;
        }
        if (pos_history_full(pos))
            pos_trim_history(pos);
        pos_do_move(pos, p->move);
    }
    /* the move itself is not in the record (record.h): say at least who broke the rules */
    if (r->reason == REASON_ILLEGAL_MOVE) {
        text_token(t, pos->side == RED ? "{Red" : "{Black");
        text_token(t, "played an illegal move}");
    }
    text_token(t, result);
    text_str(t, "\n\n");
    if (t->oom)
        return ERROR_SET(err, "out of memory");
    return true;
}

/* Builds the whole text on the heap; NULL with err set on failure. */
static char *build(const GameRecord *r, const PgnTags *tags, size_t *len, PgnError *err)
{
    Position *pos = malloc(sizeof *pos);
    if (!pos) {
        ERROR_SET(err, "out of memory");
        return NULL;
    }
    Text t = {NULL, 0, 0, 0, false};
    bool ok = write_text(&t, r, tags, pos, err);
    free(pos);
    if (!ok) {
        free(t.s);
        return NULL;
    }
    *len = t.len;
    return t.s;
}

long pgn_write(const GameRecord *r, const PgnTags *tags, char *buf, size_t size, PgnError *err)
{
    size_t len;
    char *s = build(r, tags, &len, err);
    if (!s)
        return -1;
    if (size > 0) {
        size_t n = len < size - 1 ? len : size - 1;
        memcpy(buf, s, n);
        buf[n] = '\0';
    }
    free(s);
    return (long)len;
}

bool pgn_write_file(FILE *f, const GameRecord *r, const PgnTags *tags, PgnError *err)
{
    size_t len;
    char *s = build(r, tags, &len, err);
    if (!s)
        return false;
    bool ok = fwrite(s, 1, len, f) == len;
    free(s);
    if (!ok)
        return ERROR_SET(err, "write error");
    return true;
}
