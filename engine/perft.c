#include "perft.h"

#include "movegen.h"

uint64_t perft(Position *pos, int depth)
{
    if (depth <= 0)
        return 1;
    if (depth == 1)
        return (uint64_t)gen_count(pos);
    MoveList list;
    gen_legal(pos, &list);
    uint64_t nodes = 0;
    for (int i = 0; i < list.count; i++) {
        pos_do_move(pos, list.moves[i]);
        nodes += perft(pos, depth - 1);
        pos_undo_move(pos);
    }
    return nodes;
}

uint64_t perft_divide(Position *pos, int depth, PerftDivideFn fn, void *ctx)
{
    if (depth <= 0)
        return 1;
    MoveList list;
    gen_legal(pos, &list);
    uint64_t total = 0;
    for (int i = 0; i < list.count; i++) {
        pos_do_move(pos, list.moves[i]);
        uint64_t n = perft(pos, depth - 1);
        pos_undo_move(pos);
        if (fn)
            fn(ctx, list.moves[i], n);
        total += n;
    }
    return total;
}
