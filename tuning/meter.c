#include "meter.h"

#include <stdio.h>
#include <time.h>

double meter_wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

double meter_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

double meter_resident(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long long pages = 0, rss = 0;
    if (f) {
        if (fscanf(f, "%llu %llu", &pages, &rss) != 2)
            rss = 0;
        fclose(f);
    }
    return (double)rss * 4096.0;
}

void meter_eta(double s, char *buf, size_t size)
{
    if (s < 60)
        snprintf(buf, size, "%.0fs", s);
    else if (s < 3600)
        snprintf(buf, size, "%dm%02ds", (int)s / 60, (int)s % 60);
    else
        snprintf(buf, size, "%dh%02dm", (int)s / 3600, (int)s / 60 % 60);
}
