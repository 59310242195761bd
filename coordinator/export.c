#include "export.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "movegen.h"
#include "notation.h"

static bool fail(RunError *err, const RunFile *rf, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static bool fail(RunError *err, const RunFile *rf, const char *fmt, ...)
{
    if (err) {
        char what[400];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(what, sizeof what, fmt, ap);
        va_end(ap);
        snprintf(err->msg, sizeof err->msg, "%s: %s", runfile_path(rf), what);
    }
    return false;
}

/* Large: one game and one position, kept off the stack. */
typedef struct {
    GameRecord rec;
    Position pos;
} Scratch;

static bool keep(const ExportFilter *f, const Position *pos, const RecordPly *p)
{
    if (!f)
        return true;
    if (f->skip_opening && (p->flags & RECORD_FLAG_OPENING))
        return false;
    if (f->skip_in_check && pos_in_check(pos))
        return false;
    if (f->skip_captures && pos_is_capture(pos, p->move))
        return false;
    if (f->max_score > 0 && (p->score > f->max_score || p->score < -f->max_score))
        return false;
    return true;
}

static bool export_game(RunFile *rf, Scratch *s, uint64_t id, const ExportFilter *filter, FILE *out,
                        ExportStats *st, RunError *err)
{
    if (!runfile_read_game(rf, id, &s->rec, err))
        return false;
    PosError perr;
    if (!pos_set_fen(&s->pos, s->rec.start_fen, &perr))
        return fail(err, rf, "game %llu: bad start FEN: %s", (unsigned long long)id, perr.msg);
    int red = s->rec.outcome == OUTCOME_RED_WIN ? 1 : s->rec.outcome == OUTCOME_BLACK_WIN ? -1 : 0;
    for (int i = 0; i < s->rec.nplies; i++) {
        const RecordPly *p = &s->rec.plies[i];
        if (!move_is_legal(&s->pos, p->move))
            return fail(err, rf, "game %llu: ply %d is not a legal move", (unsigned long long)id,
                        i);
        if (keep(filter, &s->pos, p)) {
            char fen[RECORD_FEN_MAX], move[5];
            pos_get_fen(&s->pos, fen, sizeof fen);
            move_to_text(p->move, move);
            fprintf(out, "fen %s\nmove %s\nscore %d\nply %d\nresult %d\ne\n", fen, move, p->score,
                    s->pos.game_ply, s->pos.side == RED ? red : -red);
            st->positions++;
        } else {
            st->skipped++;
        }
        pos_do_move(&s->pos, p->move);
        if (pos_history_full(&s->pos))
            pos_trim_history(&s->pos);
    }
    st->games++;
    return true;
}

bool export_plain(RunFile *rf, uint64_t first_game, uint64_t ngames, const ExportFilter *filter,
                  FILE *out, ExportStats *stats, RunError *err)
{
    ExportStats st = {0, 0, 0};
    uint64_t total = runfile_game_count(rf);
    uint64_t end = first_game > total ? total : first_game;
    end += ngames < total - end ? ngames : total - end;
    Scratch *s = malloc(sizeof *s);
    bool ok = s ? true : fail(err, rf, "out of memory");
    for (uint64_t id = first_game; ok && id < end; id++)
        ok = export_game(rf, s, id, filter, out, &st, err);
    free(s);
    if (fflush(out) != 0 || ferror(out))
        ok = ok && fail(err, rf, "writing the plain text failed: %s", strerror(errno));
    if (stats)
        *stats = st;
    return ok;
}
