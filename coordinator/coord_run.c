/*
 * `chuhe-coordinator [run] [options]`: a run served. The settings read (coord_cli), a new
 * run's file created or an existing one resumed with its stored settings, the schedule
 * and the statistics restored from the games already stored, the server loop run
 * (coord_server), and the end: the summary, SPSA's values and plot, -pgnout, the file
 * closed.
 */
#include "coord_run.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "contracts/runfile.h"
#include "contracts/stats.h"
#include "coord_auth.h"
#include "coord_cli.h"
#include "coord_config.h"
#include "coord_http.h"
#include "coord_inputs.h"
#include "coord_log.h"
#include "coord_options.h"
#include "coord_runstats.h"
#include "coord_sched.h"
#include "coord_server.h"
#include "coord_spsa_probe.h"
#include "coord_spsa_report.h"
#include "error.h"
#include "contracts/outpath.h"
#include "timeman.h"
#include "weights.h"

static void player_name(const CoordConfig *cfg, int p, char *buf, size_t size)
{
    const char *weights = cfg->weights[p];
    if (cfg->name[p][0]) {
        snprintf(buf, size, "%s", cfg->name[p]);
        return;
    }
    if (cfg->cmd[p][0]) {
        char prog[PROTO_COMMAND_MAX + 1];
        snprintf(prog, sizeof prog, "%s", cfg->cmd[p]);
        prog[strcspn(prog, " \t")] = '\0';
        const char *base = strrchr(prog, '/');
        snprintf(buf, size, "%.63s", base ? base + 1 : prog);
        return;
    }
    if (!weights[0]) {
        snprintf(buf, size, "chuhe");
        return;
    }
    const char *base = strrchr(weights, '/');
    snprintf(buf, size, "chuhe:%s", base ? base + 1 : weights);
}

/* Every weights file loads, so that no worker finds out later. */
static bool check_weights(const CoordConfig *cfg)
{
    for (int p = 0; p < cfg->engines; p++) {
        if (!cfg->weights[p][0])
            continue;
        EvalParams *params = malloc(sizeof *params);
        WeightsError err;
        bool ok = params && weights_load(cfg->weights[p], params, &err);
        free(params);
        if (!ok) {
            coord_log("weights of player %d: %s", p, params ? err.msg : "out of memory");
            return false;
        }
    }
    return true;
}

/* SPSA's outputs: the final values and the plot, whose path defaults to the values'
 * or the run file's with ".png". Checked before any game, never over an input. */
static bool spsa_outputs(CoordConfig *cfg)
{
    if (!cfg->spsa[0])
        return true;
    if (!cfg->spsa_plot[0]) {
        const char *base = cfg->spsa_out[0] ? cfg->spsa_out : cfg->out;
        size_t n = strlen(base);
        if (!cfg->spsa_out[0] && n > 3 && !strcmp(base + n - 3, ".h5"))
            n -= 3;
        snprintf(cfg->spsa_plot, sizeof cfg->spsa_plot, "%.*s.png", (int)n, base);
    }
    SpsaSettings set;
    CoordError cerr;
    if (!coord_spsa_settings_parse(cfg->spsa, &set, &cerr)) {
        coord_log("%s", cerr.msg);
        return false;
    }
    const char *inputs[2] = {cfg->out, set.params};
    char msg[COORD_PATH_MAX + 200];
    if ((cfg->spsa_out[0] && !outpath_check("--spsa-out", cfg->spsa_out, OUTPATH_REPLACE, true,
                                            inputs, 2, msg, sizeof msg)) ||
        !outpath_check("--spsa-plot", cfg->spsa_plot, OUTPATH_REPLACE, true, inputs, 2, msg,
                       sizeof msg)) {
        coord_log("%s", msg);
        return false;
    }
    return true;
}

/* The run file of a new run, made once everything else is ready (settings, openings,
 * the socket bound, the logs open), so that a failed start leaves no file. */
static RunFile *create_run(const CoordConfig *cfg, uint16_t players[COORD_MAX_ENGINES])
{
    /* an SPSA run's parameter file is checked against its engine first */
    CoordError cerr;
    SpsaFile *spsa_file = NULL;
    if (cfg->spsa[0]) {
        spsa_file = malloc(sizeof *spsa_file);
        if (!spsa_file || !coord_spsa_probe_file(cfg, spsa_file, &cerr)) {
            coord_log("%s", spsa_file ? cerr.msg : "out of memory");
            free(spsa_file);
            return NULL;
        }
    }
    char *json = malloc(RUNFILE_CONFIG_MAX + 1);
    if (!json || !coord_config_to_json(cfg, json, RUNFILE_CONFIG_MAX + 1))
        COORD_FATAL("the run settings do not fit in run_config");
    RunError err;
    RunFile *rf = runfile_create(cfg->out, json, CHUHE_VERSION, &err);
    free(json);
    if (rf && spsa_file && !runfile_spsa_begin(rf, spsa_file->param, spsa_file->n, &err)) {
        runfile_close(&rf, NULL); /* a new file that is not yet a run: nothing to keep */
        unlink(cfg->out);
    }
    free(spsa_file);
    if (!rf) {
        coord_log("%s", err.msg);
        return NULL;
    }
    if (runfile_lock_note(rf)[0])
        coord_log("%s", runfile_lock_note(rf));
    char names[COORD_MAX_ENGINES][RUNFILE_NAME_SIZE];
    for (int p = 0; p < cfg->engines; p++) {
        char *name = names[p];
        uint64_t hash;
        player_name(cfg, p, name, sizeof names[p]);
        /* names tell engines apart in reports: a repeated one gets its engine number */
        for (int q = 0; q < p; q++)
            if (!strcmp(names[q], name)) {
                char base[52];
                snprintf(base, sizeof base, "%.50s", name);
                snprintf(name, sizeof names[p], "%s#%d", base, p);
                break;
            }
        bool external = cfg->cmd[p][0] != '\0';
        /* An external player's row holds its command line where weights would be. */
        char what[RUNFILE_WEIGHTS_SIZE];
        snprintf(what, sizeof what, "%.255s", external ? cfg->cmd[p] : cfg->weights[p]);
        bool hashed = coord_inputs_file_hash(external ? "" : cfg->weights[p], &hash);
        if (!hashed)
            snprintf(err.msg, sizeof err.msg, "weights '%.400s': %s", cfg->weights[p],
                     strerror(errno));
        if (!hashed || !runfile_add_player(rf, name,
                                           proto_engine_kind_name(external ? PROTO_ENGINE_EXTERNAL
                                                                           : PROTO_ENGINE_BUILTIN),
                                           what, hash, &players[p], &err)) {
            coord_log("%s", err.msg);
            runfile_close(&rf, &err);
            unlink(cfg->out);
            return NULL;
        }
    }
    bool flushed = runfile_flush(rf, &err);
    if (!flushed || !coord_inputs_store(cfg, rf, &cerr)) {
        coord_log("%s", flushed ? cerr.msg : err.msg);
        runfile_close(&rf, &err);
        unlink(cfg->out);
        return NULL;
    }
    coord_log("new run %s, run id %016" PRIx64, cfg->out, runfile_run_id(rf));
    return rf;
}

/* An existing run file opened to go on, with its stored settings taken; 0, or the exit
 * status: 1 for a file that cannot be opened, 2 for a command line it refuses. */
static int resume_run(CoordConfig *cfg, const CoordGiven *given, RunFile **rf,
                      uint16_t players[COORD_MAX_ENGINES])
{
    RunError err;
    if (!(*rf = runfile_open_append(cfg->out, &err))) {
        coord_log("%s", err.msg);
        return 1;
    }
    if (runfile_lock_note(*rf)[0])
        coord_log("%s", runfile_lock_note(*rf));
    if (runfile_recovery_note(*rf)[0])
        coord_log("%s", runfile_recovery_note(*rf));
    CoordError cerr;
    int status = 0;
    if (!coord_config_resume(cfg, given, runfile_config(*rf), &cerr)) {
        coord_options_say(given, cerr.msg, sizeof cerr.msg);
        coord_log("%s: %s", cfg->out, cerr.msg);
        status = 2;
    } else if (runfile_player_count(*rf) != cfg->engines) {
        coord_log("%s: the run file has %u players, expected %d", cfg->out,
                  runfile_player_count(*rf), cfg->engines);
        status = 1;
    } else if (!!cfg->spsa[0] != (runfile_spsa_param_count(*rf) > 0)) {
        coord_log("%s: the run settings and the file disagree on SPSA (/spsa_params)", cfg->out);
        status = 1;
    } else {
        char note[COORD_PATH_MAX + 600];
        if (!coord_inputs_check(cfg, *rf, note, sizeof note, &cerr)) {
            coord_log("%s: %s", cfg->out, cerr.msg);
            status = 1;
        } else if (note[0]) {
            coord_log("%s: %s", cfg->out, note);
        }
    }
    if (status) {
        runfile_close(rf, &err);
        return status;
    }
    for (int p = 0; p < cfg->engines; p++)
        players[p] = (uint16_t)p;
    coord_log("resuming run %s, run id %016" PRIx64 ": %" PRIu64 " games stored", cfg->out,
              runfile_run_id(*rf), runfile_game_count(*rf));
    return 0;
}

/* The schedule and the statistics from the games already in the file. */
static void restore(RunFile *rf, Schedule *sched, RunStats *stats)
{
    uint64_t n = runfile_game_count(rf);
    for (uint64_t id = 0; id < n; id++) {
        const RunGame *g = runfile_game(rf, id);
        if (!g)
            continue;
        coord_sched_restore_game(sched, g->pair_id, g->game_in_pair);
        coord_runstats_add_stored(stats, rf, id, 0, false, NULL);
    }
    double llr;
    if (coord_runstats_sprt(stats, &llr) != SPRT_CONTINUE) {
        coord_log("the SPRT had already decided (LLR %.2f): no new pairs", llr);
        coord_sched_stop(sched);
    }
    coord_sched_restore_end(sched, runfile_next_pair_id(rf));
    if (n)
        coord_log("%" PRIu64 " pairs complete, %" PRIu64 " to finish, next new pair %" PRIu64,
                  sched->complete, sched->outstanding, sched->next_new);
}

static void summary(const CoordRun *run, const char *status, int workers)
{
    RunStatsContext cx;
    coord_server_stats_context(run, 0, &cx);
    if (run->cfg->json) {
        StrBuf extra;
        strbuf_init(&extra);
        strbuf_printf(&extra, "\"status\":\"%s\",\"run_id\":\"%016" PRIx64 "\",\"out\":", status,
                      runfile_run_id(run->rf));
        strbuf_json_string(&extra, runfile_path(run->rf));
        strbuf_printf(&extra, ",\"workers_seen\":%d", workers);
        if (run->spsa) {
            strbuf_printf(&extra, ",");
            coord_spsa_report_json(run->spsa, &extra);
        }
        StrBuf line;
        strbuf_init(&line);
        coord_runstats_json(run->stats, &cx, "summary", strbuf_text(&extra), true, &line);
        printf("%s\n", strbuf_text(&line));
        strbuf_free(&line);
        strbuf_free(&extra);
    } else {
        StrBuf text;
        strbuf_init(&text);
        coord_runstats_summary_text(run->stats, &cx, &text);
        if (run->spsa) {
            strbuf_printf(&text,
                          "  spsa       %" PRIu64 " iterations of %" PRIu64 " (window %" PRIu64
                          "); the values now:\n",
                          run->spsa->applied, run->spsa->set.pairs, run->spsa->set.window);
            StrBuf values;
            strbuf_init(&values);
            coord_spsa_report_values(run->spsa, &values);
            for (const char *l = strbuf_text(&values); *l;) {
                size_t len = strcspn(l, "\n");
                strbuf_printf(&text, "             %.*s\n", (int)len, l);
                l += len + (l[len] == '\n');
            }
            strbuf_free(&values);
        }
        printf("chuhe-coordinator: run %s (run id %016" PRIx64 ") %s, %d workers seen\n%s",
               runfile_path(run->rf), runfile_run_id(run->rf), status, workers, strbuf_text(&text));
        strbuf_free(&text);
    }
    fflush(stdout);
}

/* An SPSA run's state from its run file: theta replayed from the stored iterations, each
 * checked, and the updates of complete pairs not yet applied. */
static bool spsa_start(const CoordConfig *cfg, RunFile *rf, uint16_t plus_player, Spsa *s)
{
    SpsaSettings set;
    CoordError error, *err = &error;
    RunSpsaParam params[SPSA_MAX_PARAMS];
    int n = runfile_spsa_param_count(rf);
    for (int i = 0; i < n; i++)
        params[i] = *runfile_spsa_param(rf, i);
    memset(s, 0, sizeof *s);
    bool ok = coord_spsa_settings_parse(cfg->spsa, &set, err);
    if (ok && !coord_spsa_init(s, &set, cfg->seed, params, n, plus_player))
        ok = ERROR_SET(err, "out of memory");
    ok = ok && coord_spsa_restore(s, rf, err);
    if (!ok)
        coord_log("%s", err->msg);
    else if (s->applied)
        coord_log("SPSA: %" PRIu64 " iterations applied from the run file", s->applied);
    return ok;
}

/* SPSA's final values and plot (logged when they cannot be written). */
static void spsa_finish(const CoordConfig *cfg, const Spsa *s, const char *run_path)
{
    CoordError err;
    if (cfg->spsa_out[0]) {
        if (coord_spsa_report_write(s, cfg->spsa_out, &err))
            coord_log("SPSA values written to %s", cfg->spsa_out);
        else
            coord_log("--spsa-out: %s", err.msg);
    }
    if (coord_spsa_report_plot(s, cfg->spsa_plot, run_path, &err))
        coord_log("SPSA trajectories drawn in %s", cfg->spsa_plot);
    else
        coord_log("--spsa-plot: %s", err.msg);
}

/* Everything that can refuse a start, in an order that leaves nothing behind when one
 * does: the settings (a resumed run's from its file, opened for append but not written),
 * the output paths, the weights, the openings, the socket and the logs; only then the
 * file of a new run. 0 with *rf, *server and sched ready, else the exit status. */
static int start(CoordConfig *cfg, const CoordGiven *given, RunFile **rf, CoordHub **server,
                 Schedule *sched, uint16_t players[COORD_MAX_ENGINES])
{
    CoordError cerr;
    SchedError serr;
    RunError err;
    *rf = NULL;
    *server = NULL;
    if (outpath_is_hdf5(cfg->out)) {
        int resumed = resume_run(cfg, given, rf, players);
        if (resumed)
            return resumed;
    } else if (!coord_config_finish_new(cfg, given, &cerr)) {
        coord_options_say(given, cerr.msg, sizeof cerr.msg);
        coord_log("%s", cerr.msg);
        return 2;
    }
    int status = 0;
    if (!coord_config_check_outputs(cfg, &cerr)) {
        coord_options_say(given, cerr.msg, sizeof cerr.msg);
        coord_log("%s", cerr.msg);
        status = 2;
    } else if (!check_weights(cfg) || !spsa_outputs(cfg)) {
        status = 1;
    } else if (!coord_sched_init(sched, cfg, &serr)) {
        coord_log("%s", serr.msg);
        status = 1;
    } else if (!(*server = coord_server_open(cfg)) || (!*rf && !(*rf = create_run(cfg, players)))) {
        coord_server_abandon(server);
        coord_sched_free(sched);
        status = 1;
    }
    if (status && *rf)
        runfile_close(rf, &err);
    return status;
}

/* The live page's end, on every way out of serve. */
static int serve_end(CoordHttp **http, CoordLive **live, int status)
{
    coord_http_stop(http);
    coord_live_free(live);
    return status;
}

/* Workers beat between moves only: a move must fit well inside the timeout. */
static void fit_heartbeat(CoordConfig *cfg)
{
    double longest_move = 0;
    for (int e = 0; e < cfg->engines; e++) {
        CoordLimits lim;
        coord_engine_limits(cfg, e, &lim);
        double t = lim.movetime / 1000.0, clock = lim.tc_base_ms / 1000.0;
        t = clock > t ? clock : t;
        longest_move = t > longest_move ? t : longest_move;
    }
    if (longest_move > 0 && cfg->heartbeat_timeout < 2 * longest_move + 5) {
        cfg->heartbeat_timeout = 2 * longest_move + 5;
        coord_log("note: --heartbeat-timeout raised to %.0f s for moves of up to %.1f s",
                  cfg->heartbeat_timeout, longest_move);
    }
    if (cfg->games % 2)
        coord_log("note: %" PRIu64 " games is %" PRIu64 " whole pairs", cfg->games,
                  coord_sched_pairs_for_games(cfg->games));
}

/* The statistics of a run opened: its engines' names, the SPRT, the stored games. */
static void stats_start(RunStats *stats, const CoordConfig *cfg, RunFile *rf,
                        const uint16_t players[COORD_MAX_ENGINES], Schedule *sched)
{
    CoordError cerr;
    coord_runstats_init(stats, (double)time_now_ms() / 1000.0);
    coord_runstats_set_engines(stats, cfg->engines);
    for (int e = 0; e < cfg->engines; e++) {
        const RunPlayer *pl = runfile_player(rf, players[e]);
        coord_crosstable_set_name(&stats->table, e, pl ? pl->name : "");
    }
    /* the settings passed coord_config's checks, which parse the SPRT text the same way */
    coord_config_parse_sprt(cfg->sprt, &stats->sprt, &stats->has_sprt, &cerr);
    restore(rf, sched, stats);
}

/* The -pgnout file (brought up to date) and SPSA's state; false, logged, when either
 * cannot be had (nothing of them left open). */
static bool extras_start(CoordRun *run, Spsa *spsa)
{
    const CoordConfig *cfg = run->cfg;
    CoordError cerr;
    if (cfg->pgnout[0]) {
        if (!(run->pgnout = coord_pgnout_open(cfg->pgnout, run->rf, &cerr))) {
            coord_log("%s", cerr.msg);
            return false;
        }
        coord_pgnout_sync(run->pgnout, run->rf); /* the games an earlier session left out */
    }
    if (cfg->spsa[0]) {
        if (!spsa_start(cfg, run->rf, run->players[0], spsa)) {
            coord_spsa_free(spsa);
            coord_pgnout_close(&run->pgnout);
            return false;
        }
        run->spsa = spsa;
    }
    return true;
}

/* The end of a run served: the summary, SPSA's files, -pgnout, the run file closed; the
 * exit status. */
static int run_end(CoordRun *run, ServeStatus st, int signo, int workers)
{
    const CoordConfig *cfg = run->cfg;
    RunError err;
    const char *status = st == SERVE_COMPLETE      ? "complete"
                         : st == SERVE_INTERRUPTED ? "interrupted"
                                                   : "failed";
    summary(run, status, workers);
    if (run->spsa) {
        spsa_finish(cfg, run->spsa, runfile_path(run->rf));
        coord_spsa_free(run->spsa);
    }
    bool written = true;
    if (run->pgnout) {
        written = coord_pgnout_sync(run->pgnout, run->rf);
        if (written)
            coord_log("-pgnout %s: %" PRIu64 " games of the run", cfg->pgnout,
                      coord_pgnout_games(run->pgnout));
        coord_pgnout_close(&run->pgnout);
    }
    bool closed = runfile_close(&run->rf, &err);
    if (!closed)
        coord_log("%s", err.msg);
    if (st == SERVE_INTERRUPTED)
        coord_log("stopped by signal %d; the run file is closed: run again with --out %s to "
                  "continue",
                  signo, cfg->out);
    if (!closed || !written || st == SERVE_FAILED)
        return 1;
    return st == SERVE_INTERRUPTED ? 128 + signo : 0;
}

int coord_run_serve(int argc, char **argv)
{
    CoordConfig cfg;
    CoordGiven given;
    CoordError cerr;
    coord_config_defaults(&cfg);
    if (!coord_cli_parse(&cfg, &given, argc, argv, &cerr) ||
        !coord_config_check_network(&cfg, &cerr) || !coord_auth_check(&cfg, &cerr)) {
        fprintf(stderr, "chuhe-coordinator: %s\n", cerr.msg);
        return 2;
    }
    /* --http '' is refused by coord_http_start, not taken as no page */
    bool page = cfg.http[0] || coord_options_given(&given, "--http");
    CoordLive *live = page ? coord_live_new() : NULL;
    CoordHttp *http = live ? coord_http_start(cfg.http, cfg.http_open, live, &cerr) : NULL;
    if (live && !http) {
        fprintf(stderr, "chuhe-coordinator: %s\n", cerr.msg);
        return serve_end(&http, &live, 2);
    }
    uint16_t players[COORD_MAX_ENGINES];
    Schedule sched;
    RunFile *rf;
    CoordHub *server;
    int started = start(&cfg, &given, &rf, &server, &sched, players);
    if (started)
        return serve_end(&http, &live, started);
    fit_heartbeat(&cfg);
    RunStats stats;
    stats_start(&stats, &cfg, rf, players, &sched);
    CoordRun run = {.cfg = &cfg, .rf = rf, .sched = &sched, .stats = &stats, .live = live};
    if (http) {
        coord_live_set_run(live, runfile_run_id(rf), runfile_path(rf));
        coord_http_announce(http, cfg.json);
    }
    memcpy(run.players, players, sizeof run.players);
    Spsa spsa;
    int status = 1;
    if (extras_start(&run, &spsa)) {
        int signo = 0, workers = 0;
        ServeStatus st = coord_server_run(&server, &run, &signo, &workers);
        status = run_end(&run, st, signo, workers);
    } else {
        RunError err;
        coord_server_abandon(&server);
        runfile_close(&run.rf, &err);
    }
    coord_sched_free(&sched);
    coord_runstats_free(&stats);
    return serve_end(&http, &live, status);
}
