/*
 * What an SPSA run shows: the live line's part (the iteration and the first
 * parameters), the JSON member with every parameter, the final values as fishtest's SPSA
 * input, a PNG of every parameter's trajectory (gnuplot), and `chuhe-coordinator
 * spsa-report RUN.h5`, which prints the same from any SPSA run file, finished or not.
 */
#ifndef CHUHE_COORD_SPSA_REPORT_H
#define CHUHE_COORD_SPSA_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "coord_spsa.h"
#include "strbuf.h"

/* " | spsa 12/30 rfp_margin 93.2 lmr_base 80.1 fut_base 119.6 (+27 more)", appended to
 * the progress line in buf[size]. */
void coord_spsa_report_progress(const Spsa *s, char *buf, size_t size);

/* "\"spsa\":{\"iterations\":K,\"pairs\":N,\"params\":[{\"name\":..,\"value\":..,
 * \"theta\":..},...]}": value as the final file has it, theta exact. */
void coord_spsa_report_json(const Spsa *s, StrBuf *out);

/* The current values, one line each: "name, int, 93, 20, 300, 8, 0.002" (an int
 * parameter rounded, a float one to 6 digits). */
void coord_spsa_report_values(const Spsa *s, StrBuf *out);

/* The values into path (written whole, then renamed over it). */
bool coord_spsa_report_write(const Spsa *s, const char *path, CoordError *err);

/* Every parameter's theta after each iteration, as a fraction of its [min, max], into a
 * PNG drawn by gnuplot, titled with the run file's path. */
bool coord_spsa_report_plot(const Spsa *s, const char *png, const char *run, CoordError *err);

/* `spsa-report RUN.h5 [--out FILE] [--plot FILE]`: the values on stdout (the same text
 * as the run's out= file), a summary line on stderr; an exit status. */
int coord_spsa_report_tool(int argc, char **argv);

#endif
