#include "session.h"

#include <stdio.h>
#include <stdlib.h>

#include "meter.h"
#include "report.h"

int session_check_outputs(Comm *comm, const Cli *c, const char *prog)
{
    CliError err = {""};
    bool ok = comm->rank != 0 || cli_check_outputs(c, &err);
    if (!comm_agree(comm, ok, err.msg, sizeof err.msg)) {
        comm_fail(comm, prog, "%s", err.msg);
        return CLI_EXIT_USAGE;
    }
    if (c->dry_run && comm->rank == 0)
        printf("dry run: the options and the output files are fine\n");
    return 0;
}

bool session_alloc_order(Comm *comm, uint64_t n, uint32_t **perm)
{
    *perm = malloc((n ? n : 1) * sizeof **perm);
    return comm_all_ok(comm, *perm && n < UINT32_MAX);
}

void session_print_history(const EpochRow *hist, int nhist)
{
    report_table_header(stdout);
    for (int i = 0; i < nhist; i++)
        report_table_row(stdout, &hist[i]);
    fflush(stdout);
}

bool session_epoch_done(Comm *comm, const Cli *c, const char *prog, const SessionEpoch *e,
                        SessionSave save, const void *state, const char *config, uint64_t data_hash)
{
    bool saved = true;
    char err[1400] = "";
    if (comm->rank == 0 && e->checkpoint)
        saved = save(c->ckpt, state, config, data_hash, err, sizeof err);
    if (!comm_agree(comm, saved, err, sizeof err)) {
        comm_fail(comm, prog, "checkpoint: %s", err);
        return false;
    }
    if (comm->rank != 0)
        return true;
    const EpochRow *row = &e->hist[e->nhist - 1];
    report_table_row(stdout, row);
    fflush(stdout);
    if (!report_tsv(c->log, e->hist, e->nhist, err, sizeof err))
        fprintf(stderr, "%s: warning: %s\n", prog, err);
    if (c->quiet)
        return true;
    char eta[32];
    meter_eta(e->per_epoch * (e->epochs - e->epoch), eta, sizeof eta);
    fprintf(stderr,
            "%s: epoch %d/%d done  after %d: train %.8f  valid %.8f  best %.8f (after %d)  "
            "%.2f s/epoch  ETA %s\n",
            prog, e->epoch, e->epochs, row->epoch, row->train_loss, row->valid_loss, e->best_loss,
            e->best_epoch, e->per_epoch, eta);
    return true;
}

int session_epochs_end(Comm *comm, const char *prog, bool ok, const EpochRow *hist, int nhist)
{
    if (!ok)
        return comm_fail(comm, prog, "training failed (out of memory or MPI)");
    if (comm->rank == 0)
        report_table_row(stdout, &hist[nhist - 1]);
    return 0;
}

void session_write_history(const Cli *c, const char *prog, const EpochRow *hist, int nhist)
{
    char err[1400], title[64];
    if (!report_tsv(c->log, hist, nhist, err, sizeof err))
        fprintf(stderr, "%s: warning: %s\n", prog, err);
    else
        printf("epoch table: %s\n", c->log);
    snprintf(title, sizeof title, "%s: loss by epoch", prog);
    if (report_plot(c->log, c->plot, title, err, sizeof err))
        printf("plot: %s\n", c->plot);
    else
        fprintf(stderr, "%s: warning: %s\n", prog, err);
}
