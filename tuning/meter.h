/*
 * What the tuner and the trainer measure about themselves: wall and CPU time, resident
 * memory, and the remaining time as text.
 */
#ifndef CHUHE_METER_H
#define CHUHE_METER_H

#include <stddef.h>

/* Seconds of a monotonic clock. */
double meter_wall(void);
/* CPU seconds of this process: speed per core even when the cores are shared. */
double meter_cpu(void);
/* Resident set size in bytes, from /proc (0 where there is none). */
double meter_resident(void);
/* "42s", "3m05s" or "2h10m". */
void meter_eta(double seconds, char *buf, size_t size);

#endif
