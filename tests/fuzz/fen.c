/*
 * Fuzz harness for the FEN reader (engine/position.c) and coordinate move text
 * (engine/notation.c).
 *
 * Input: a FEN, optionally followed by '|' and blank-separated moves in coordinate text
 * ("h2e2 h9g7"); '|' cannot occur in a FEN, so the reader sees everything before it.
 * A FEN that pos_set_fen accepts must give a consistent position that writes back to a
 * FEN reading to the same position, whose legal moves agree across the generators,
 * perft(1) and move_is_legal, and each of which makes and unmakes cleanly and gives
 * check exactly when pos_gives_check says so. The moves after '|' are parsed with
 * move_parse_legal and played while legal, with the same checks after each.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "movegen.h"
#include "notation.h"
#include "perft.h"
#include "position.h"
#include "record.h"
#include "rules.h"

enum { TEXT_MAX = 4096, MOVES_MAX = 256 };

static void die(const char *what, const char *fen)
{
    fprintf(stderr, "fuzz-fen: %s\n  FEN: %s\n", what, fen ? fen : "");
    abort();
}

/* Writes the FEN of pos, reads it back and compares what a FEN holds. */
static void check_round_trip(const Position *pos)
{
    static Position back;
    char fen[160], again[160];
    PosError err;
    pos_get_fen(pos, fen, sizeof fen);
    if (strlen(fen) >= 128)
        die("pos_get_fen wrote more than 127 characters", fen);
    if (!pos_set_fen(&back, fen, &err)) {
        fprintf(stderr, "fuzz-fen: reader refused: %s\n", err.msg);
        die("the FEN of an accepted position does not read back", fen);
    }
    pos_get_fen(&back, again, sizeof again);
    if (strcmp(fen, again))
        die("FEN changed on a second round trip", again);
    if (memcmp(back.board, pos->board, sizeof back.board) || back.side != pos->side ||
        pos_key(&back) != pos_key(pos) || pos_checkers(&back) != pos_checkers(pos) ||
        pos_state(&back)->rule60 != pos_state(pos)->rule60 ||
        (back.game_ply != pos->game_ply && pos->game_ply / 2 + 1 < FEN_MOVE_NUMBER_MAX))
        die("FEN round trip gives a different position", fen);

    /* Packed positions are stored before a move: never past the 60-move rule. */
    PackedPos packed;
    record_pack(pos, &packed);
    bool unpacked = record_unpack(&packed, &back, &err);
    if (unpacked != (pos_state(pos)->rule60 < 120) || (unpacked && pos_key(&back) != pos_key(pos)))
        die("packed position does not unpack to the same position", fen);
}

/* Legal moves agree across generators; each one makes, checks and unmakes cleanly. */
static void check_moves(Position *pos)
{
    const char *why;
    char fen[160];
    pos_get_fen(pos, fen, sizeof fen);
    if (!pos_is_ok(pos, &why))
        die(why, fen);

    MoveList all, caps, quiets;
    int n = gen_legal(pos, &all);
    if (n != all.count || n != gen_count(pos) || (uint64_t)n != perft(pos, 1))
        die("gen_legal, gen_count and perft(1) disagree", fen);
    if (gen_captures(pos, &caps) + gen_quiets(pos, &quiets) != n)
        die("captures and quiets do not add up to the legal moves", fen);
    if (pos_in_check(pos)) {
        MoveList ev;
        if (gen_evasions(pos, &ev) != n)
            die("evasions differ from the legal moves in check", fen);
    }

    Key key = pos_key(pos);
    for (int i = 0; i < n; i++) {
        Move m = all.moves[i];
        char text[5];
        move_to_text(m, text);
        if (!move_is_legal(pos, m) || move_parse_legal(pos, text) != m)
            die("a generated move is not legal by move_is_legal or move text", fen);
        bool gives = pos_gives_check(pos, m);
        bool full = pos_history_full(pos);
        if (full)
            break; /* the caller trims before playing on */
        pos_do_move(pos, m);
        if (!pos_is_ok(pos, &why))
            die(why, fen);
        if (pos_in_check(pos) != gives)
            die("pos_gives_check disagrees with the position after the move", fen);
        pos_undo_move(pos);
        if (pos_key(pos) != key)
            die("make/unmake does not restore the key", fen);
    }

    /* Moves that are not generated are not legal either. */
    for (Square from = 0; from < SQUARE_NB; from++) {
        Piece pc = pos_piece_on(pos, from);
        if (!pc || piece_color(pc) != pos->side)
            continue;
        for (Square to = 0; to < SQUARE_NB; to++) {
            Move m = move_make(from, to);
            bool listed = false;
            for (int i = 0; i < n && !listed; i++)
                listed = all.moves[i] == m;
            if (from != to && move_is_legal(pos, m) != listed)
                die("move_is_legal disagrees with gen_legal", fen);
        }
    }
    Position copy;
    pos_copy(&copy, pos);
    rules_judge_game(&copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static Position pos;
    static char text[TEXT_MAX + 1];
    if (size > TEXT_MAX)
        return -1; /* longer inputs add nothing: the reader refuses FENs over 255 bytes */
    position_init();
    memcpy(text, data, size);
    text[size] = '\0';
    char *moves = strchr(text, '|');
    if (moves)
        *moves++ = '\0';

    PosError err;
    if (!pos_set_fen(&pos, text, &err)) {
        if (!err.msg[0] || !memchr(err.msg, '\0', sizeof err.msg))
            die("refused without a message", text);
        return 0;
    }
    check_round_trip(&pos);
    check_moves(&pos);
    if (!moves)
        return 0;

    int played = 0;
    char *save = NULL;
    for (char *tok = strtok_r(moves, " \t\r\n", &save); tok && played < MOVES_MAX;
         tok = strtok_r(NULL, " \t\r\n", &save), played++) {
        Move m = move_parse_legal(&pos, tok);
        if (m == MOVE_NONE)
            break;
        if (pos_history_full(&pos))
            pos_trim_history(&pos);
        pos_do_move(&pos, m);
        check_round_trip(&pos);
        check_moves(&pos);
    }
    return 0;
}
