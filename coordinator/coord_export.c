#include "coord_export.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "movegen.h"
#include "notation.h"
#include "pgn.h"

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
    if (f->limit_score && (p->score > f->max_score || p->score < -f->max_score))
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
        return ERROR_SET(err, "%s: game %llu: bad start FEN: %s", runfile_path(rf),
                         (unsigned long long)id, perr.msg);
    int red = s->rec.outcome == OUTCOME_RED_WIN ? 1 : s->rec.outcome == OUTCOME_BLACK_WIN ? -1 : 0;
    for (int i = 0; i < s->rec.nplies; i++) {
        const RecordPly *p = &s->rec.plies[i];
        if (!move_is_legal(&s->pos, p->move))
            return ERROR_SET(err, "%s: game %llu: ply %d is not a legal move", runfile_path(rf),
                             (unsigned long long)id, i);
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

void coord_export_pgn_event(RunFile *rf, char *buf, size_t size)
{
    snprintf(buf, size, "chuhe run %016llx", (unsigned long long)runfile_run_id(rf));
}

static bool pgn_game(RunFile *rf, Scratch *s, uint64_t id, bool comments, FILE *out,
                     ExportStats *st, RunError *err)
{
    if (!runfile_read_game(rf, id, &s->rec, err))
        return false;
    const RunGame *g = runfile_game(rf, id);
    const RunPlayer *red = runfile_player(rf, g->red), *black = runfile_player(rf, g->black);
    char event[48], date[11] = "", round[48];
    coord_export_pgn_event(rf, event, sizeof event);
    const char *c = runfile_created(rf); /* 2024-05-01T... */
    if (strlen(c) >= 10)
        snprintf(date, sizeof date, "%.4s.%.2s.%.2s", c, c + 5, c + 8);
    snprintf(round, sizeof round, "%llu.%u", (unsigned long long)g->pair_id + 1,
             g->game_in_pair + 1u);
    PgnTags tags = {.event = event,
                    .date = date[0] ? date : NULL,
                    .round = round,
                    .red = red ? red->name : NULL,
                    .black = black ? black->name : NULL,
                    .comments = comments};
    PgnError perr;
    if (!pgn_write_file(out, &s->rec, &tags, &perr))
        return ERROR_SET(err, "%s: game %llu: %s", runfile_path(rf), (unsigned long long)id,
                         perr.msg);
    st->games++;
    st->positions += (uint64_t)s->rec.nplies;
    return true;
}

/* Runs one exporter over a range of games. */
static bool export_range(RunFile *rf, uint64_t first_game, uint64_t ngames,
                         const ExportFilter *filter, bool pgn, bool comments, FILE *out,
                         ExportStats *stats, RunError *err)
{
    ExportStats st = {0, 0, 0};
    uint64_t total = runfile_game_count(rf);
    uint64_t end = first_game > total ? total : first_game;
    end += ngames < total - end ? ngames : total - end;
    Scratch *s = malloc(sizeof *s);
    bool ok = s ? true : ERROR_SET(err, "%s: out of memory", runfile_path(rf));
    for (uint64_t id = first_game; ok && id < end; id++)
        ok = pgn ? pgn_game(rf, s, id, comments, out, &st, err)
                 : export_game(rf, s, id, filter, out, &st, err);
    free(s);
    if (fflush(out) != 0 || ferror(out))
        ok = ok && ERROR_SET(err, "%s: writing the %s failed: %s", runfile_path(rf),
                             pgn ? "PGN" : "plain text", strerror(errno));
    if (stats)
        *stats = st;
    return ok;
}

bool coord_export_plain(RunFile *rf, uint64_t first_game, uint64_t ngames,
                        const ExportFilter *filter, FILE *out, ExportStats *stats, RunError *err)
{
    return export_range(rf, first_game, ngames, filter, false, false, out, stats, err);
}

bool coord_export_pgn(RunFile *rf, uint64_t first_game, uint64_t ngames, bool comments, FILE *out,
                      ExportStats *stats, RunError *err)
{
    return export_range(rf, first_game, ngames, NULL, true, comments, out, stats, err);
}
