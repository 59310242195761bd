#include "coord_tournament.h"

#include <string.h>

bool coord_tournament_kind_parse(const char *name, TourKind *out)
{
    if (!strcmp(name, "roundrobin") || !strcmp(name, "round-robin")) {
        *out = TOUR_ROUNDROBIN;
        return true;
    }
    if (!strcmp(name, "gauntlet")) {
        *out = TOUR_GAUNTLET;
        return true;
    }
    return false;
}

const char *coord_tournament_kind_name(TourKind k)
{
    return k == TOUR_ROUNDROBIN ? "roundrobin" : k == TOUR_GAUNTLET ? "gauntlet" : "unknown";
}

uint64_t coord_tournament_pairings(TourKind kind, int engines)
{
    if (engines < 2 || engines > TOUR_MAX_ENGINES)
        return 0;
    if (engines == 2)
        return 1;
    uint64_t n = (uint64_t)engines;
    return kind == TOUR_GAUNTLET ? n - 1 : n * (n - 1) / 2;
}

/*
 * Pairing k of a round-robin cycle by the circle method. With m players (n rounded up
 * to even; player n is the bye) there are m - 1 rounds of m / 2 games. In round r the
 * seats hold player 0 and then players 1..m-1 rotated by r; seat s meets seat
 * m - 1 - s. Player 0 changes sides every round, as in the Berger tables.
 */
static void circle_pairing(int n, uint64_t k, int *first, int *second)
{
    int m = n + (n & 1);
    uint64_t seen = 0;
    for (int r = 0; r < m - 1; r++) {
        for (int s = 0; s < m / 2; s++) {
            int a = s == 0 ? 0 : 1 + (s - 1 + r) % (m - 1);
            int b = 1 + (m - 2 - s + r) % (m - 1);
            if (a == n || b == n)
                continue; /* the bye */
            if (seen++ == k) {
                bool swap = s == 0 && (r & 1);
                *first = swap ? b : a;
                *second = swap ? a : b;
                return;
            }
        }
    }
    *first = 0; /* k out of range: cannot happen for k < n(n-1)/2 */
    *second = 1;
}

void coord_tournament_pair_engines(TourKind kind, int engines, uint64_t pair_id, int *first,
                                   int *second)
{
    uint64_t per = coord_tournament_pairings(kind, engines);
    if (per <= 1) {
        *first = 0;
        *second = 1;
        return;
    }
    uint64_t cycle = pair_id / per, k = pair_id % per;
    int a, b;
    if (kind == TOUR_GAUNTLET) {
        a = 0;
        b = (int)k + 1;
    } else {
        circle_pairing(engines, k, &a, &b);
    }
    bool swap = cycle & 1;
    *first = swap ? b : a;
    *second = swap ? a : b;
}
