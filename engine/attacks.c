#include "attacks.h"

#include <stdlib.h>

uint16_t rank_slide[FILE_NB][1 << FILE_NB];
uint16_t rank_hit1[FILE_NB][1 << FILE_NB];
uint16_t rank_hit2[FILE_NB][1 << FILE_NB];
uint16_t file_slide[RANK_NB][1 << RANK_NB];
uint16_t file_hit1[RANK_NB][1 << RANK_NB];
uint16_t file_hit2[RANK_NB][1 << RANK_NB];

StepList king_steps[SQUARE_NB];
StepList advisor_steps[SQUARE_NB];
StepList elephant_steps[SQUARE_NB];
StepList horse_steps[SQUARE_NB];
StepList soldier_steps[COLOR_NB][SQUARE_NB];
StepList horse_attackers[SQUARE_NB];
StepList soldier_attackers[COLOR_NB][SQUARE_NB];
Bitboard king_steps_bb[SQUARE_NB];
Bitboard advisor_steps_bb[SQUARE_NB];
Bitboard elephant_steps_bb[SQUARE_NB];
Bitboard horse_attackers_bb[SQUARE_NB];
Bitboard check_from_bb[SQUARE_NB];
Bitboard check_to_bb[SQUARE_NB];
Bitboard soldier_attackers_bb[COLOR_NB][SQUARE_NB];

Bitboard palace_bb[COLOR_NB];
Bitboard advisor_home_bb[COLOR_NB];
Bitboard elephant_home_bb[COLOR_NB];
Bitboard half_bb[COLOR_NB];
Bitboard file_spread[1 << RANK_NB];
Bitboard rank_bb[RANK_NB];
Bitboard file_bb[FILE_NB];

/* Walks a line of length n from index i in both directions. */
static void line_fill(int n, int i, unsigned occ, uint16_t *slide, uint16_t *hit1, uint16_t *hit2)
{
    *slide = *hit1 = *hit2 = 0;
    for (int dir = -1; dir <= 1; dir += 2) {
        int found = 0;
        for (int j = i + dir; j >= 0 && j < n; j += dir) {
            if (!(occ & (1u << j))) {
                if (found == 0)
                    *slide |= (uint16_t)(1u << j);
                continue;
            }
            found++;
            if (found == 1)
                *hit1 |= (uint16_t)(1u << j);
            else {
                *hit2 |= (uint16_t)(1u << j);
                break;
            }
        }
    }
}

static void step_add(StepList *l, Square to, Square via)
{
    l->to[l->n] = (uint8_t)to;
    l->via[l->n] = (uint8_t)via;
    l->n++;
}

static Bitboard step_points(const StepList *l)
{
    Bitboard b = 0;
    for (int k = 0; k < l->n; k++)
        b |= bb_square(l->to[k]);
    return b;
}

static bool in_palace(int f, int r)
{
    return f >= 3 && f <= 5 && (r <= 2 || r >= 7);
}

static void steps_init(Square s)
{
    int f = sq_file(s), r = sq_rank(s);
    static const int orth[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
    static const int diag[4][2] = {{1, 1}, {1, -1}, {-1, 1}, {-1, -1}};

    for (int k = 0; k < 4; k++) {
        int tf = f + orth[k][0], tr = r + orth[k][1];
        if (in_palace(f, r) && sq_valid(tf, tr) && in_palace(tf, tr) && (tr <= 2) == (r <= 2))
            step_add(&king_steps[s], sq_make(tf, tr), 0);
    }
    /* advisors: diagonal steps between the five palace points */
    for (int k = 0; k < 4; k++) {
        int tf = f + diag[k][0], tr = r + diag[k][1];
        if (in_palace(f, r) && sq_valid(tf, tr) && in_palace(tf, tr) && (tr <= 2) == (r <= 2))
            step_add(&advisor_steps[s], sq_make(tf, tr), 0);
    }
    /* elephants: two points diagonally, never across the river, eye in between */
    for (int k = 0; k < 4; k++) {
        int tf = f + 2 * diag[k][0], tr = r + 2 * diag[k][1];
        if (sq_valid(tf, tr) && (tr <= 4) == (r <= 4))
            step_add(&elephant_steps[s], sq_make(tf, tr), sq_make(f + diag[k][0], r + diag[k][1]));
    }
    /* horses: one point orthogonally (the leg), then one diagonally outwards */
    for (int k = 0; k < 4; k++) {
        int lf = f + orth[k][0], lr = r + orth[k][1];
        if (!sq_valid(lf, lr))
            continue;
        for (int side = -1; side <= 1; side += 2) {
            int tf = lf + orth[k][0] + (orth[k][0] ? 0 : side);
            int tr = lr + orth[k][1] + (orth[k][1] ? 0 : side);
            if (sq_valid(tf, tr))
                step_add(&horse_steps[s], sq_make(tf, tr), sq_make(lf, lr));
        }
    }
    /* soldiers: forward, and sideways once across the river */
    for (Color c = RED; c < COLOR_NB; c++) {
        int fwd = c == RED ? 1 : -1;
        if (sq_valid(f, r + fwd))
            step_add(&soldier_steps[c][s], sq_make(f, r + fwd), 0);
        if (!sq_own_half(c, s)) {
            if (f > 0)
                step_add(&soldier_steps[c][s], sq_make(f - 1, r), 0);
            if (f < FILE_NB - 1)
                step_add(&soldier_steps[c][s], sq_make(f + 1, r), 0);
        }
    }
}

void attacks_init(void)
{
    static bool done;
    if (done)
        return;

    for (int i = 0; i < FILE_NB; i++)
        for (unsigned occ = 0; occ < (1u << FILE_NB); occ++)
            line_fill(FILE_NB, i, occ, &rank_slide[i][occ], &rank_hit1[i][occ], &rank_hit2[i][occ]);
    for (int i = 0; i < RANK_NB; i++)
        for (unsigned occ = 0; occ < (1u << RANK_NB); occ++)
            line_fill(RANK_NB, i, occ, &file_slide[i][occ], &file_hit1[i][occ], &file_hit2[i][occ]);

    for (unsigned m = 0; m < (1u << RANK_NB); m++)
        for (int r = 0; r < RANK_NB; r++)
            if (m & (1u << r))
                file_spread[m] |= bb_square(sq_make(0, r));
    for (Square s = 0; s < SQUARE_NB; s++) {
        int f = sq_file(s), r = sq_rank(s);
        rank_bb[r] |= bb_square(s);
        file_bb[f] |= bb_square(s);
        half_bb[r <= 4 ? RED : BLACK] |= bb_square(s);
        if (in_palace(f, r)) {
            Color c = r <= 2 ? RED : BLACK;
            palace_bb[c] |= bb_square(s);
            if ((f + r) % 2 == (c == RED ? 1 : 0))
                advisor_home_bb[c] |= bb_square(s);
        }
        steps_init(s);
    }
    for (Color c = RED; c < COLOR_NB; c++) {
        /* elephants: rank 0/4 on files c and g, rank 2 on files a, e and i (mirrored) */
        static const int pts[7][2] = {{2, 0}, {6, 0}, {0, 2}, {4, 2}, {8, 2}, {2, 4}, {6, 4}};
        for (int k = 0; k < 7; k++) {
            int r = c == RED ? pts[k][1] : RANK_NB - 1 - pts[k][1];
            elephant_home_bb[c] |= bb_square(sq_make(pts[k][0], r));
        }
    }
    /* reverse tables from the forward ones */
    for (Square s = 0; s < SQUARE_NB; s++) {
        for (int k = 0; k < horse_steps[s].n; k++)
            step_add(&horse_attackers[horse_steps[s].to[k]], s, 0);
        for (Color c = RED; c < COLOR_NB; c++)
            for (int k = 0; k < soldier_steps[c][s].n; k++)
                step_add(&soldier_attackers[c][soldier_steps[c][s].to[k]], s, 0);
    }
    /* A horse on h attacks s unless the point next to h on the way to s is occupied:
     * that leg is the diagonal neighbour of s between them. */
    for (Square s = 0; s < SQUARE_NB; s++) {
        StepList *l = &horse_attackers[s];
        for (int k = 0; k < l->n; k++) {
            int hf = sq_file(l->to[k]), hr = sq_rank(l->to[k]);
            int df = sq_file(s) - hf, dr = sq_rank(s) - hr;
            int lf = hf + (abs(df) == 2 ? df / 2 : 0), lr = hr + (abs(dr) == 2 ? dr / 2 : 0);
            l->via[k] = (uint8_t)sq_make(lf, lr);
        }
    }
    for (Square s = 0; s < SQUARE_NB; s++) {
        king_steps_bb[s] = step_points(&king_steps[s]);
        advisor_steps_bb[s] = step_points(&advisor_steps[s]);
        elephant_steps_bb[s] = step_points(&elephant_steps[s]);
        horse_attackers_bb[s] = step_points(&horse_attackers[s]);
        for (Color c = RED; c < COLOR_NB; c++)
            soldier_attackers_bb[c][s] = step_points(&soldier_attackers[c][s]);
        Bitboard lines = file_bb[sq_file(s)] | rank_bb[sq_rank(s)];
        Bitboard legs = 0;
        for (int k = 0; k < horse_attackers[s].n; k++)
            legs |= bb_square(horse_attackers[s].via[k]);
        check_from_bb[s] = lines | legs;
        check_to_bb[s] = lines | horse_attackers_bb[s];
    }
    done = true;
}
