#include "wxf.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "movegen.h"

static const char WXF_LETTER[PIECE_TYPE_NB] = {0, 'K', 'A', 'E', 'H', 'R', 'C', 'P'};
static const char *const WXF_NAME[PIECE_TYPE_NB] = {
    "", "king", "advisor", "elephant", "horse", "chariot", "cannon", "pawn",
};

static const char *color_name(Color c)
{
    return c == RED ? "red" : "black";
}

/* Files are counted from each player's own right: Red's right is file i, Black's is a. */
static int file_number(Color c, int file)
{
    return c == RED ? FILE_NB - file : file + 1;
}
static int file_index(Color c, int number)
{
    return c == RED ? FILE_NB - number : number - 1;
}

/* Board ranks run from Red's side, so "forward" is up for Red and down for Black. */
static int forward_step(Color c)
{
    return c == RED ? 1 : -1;
}

/* King, chariot, cannon and pawn move along lines, so a forward or backward move is
 * written as a distance; the others always change file and give the new file. */
static bool moves_straight(PieceType t)
{
    return t == KING || t == CHARIOT || t == CANNON || t == SOLDIER;
}

/* The squares of c's pieces of type t on a file, front (nearest the enemy) first. */
static int file_pieces(const Position *pos, Color c, PieceType t, int file, Square out[RANK_NB])
{
    Piece p = piece_make(c, t);
    int n = 0;
    for (int rr = RANK_NB - 1; rr >= 0; rr--) {
        Square s = sq_make(file, rank_relative(c, rr));
        if (pos_piece_on(pos, s) == p)
            out[n++] = s;
    }
    return n;
}

/* Files holding two or more of c's pieces of type t; the last such file in *file. */
static int tandem_files(const Position *pos, Color c, PieceType t, int *file)
{
    Square line[RANK_NB];
    int count = 0;
    for (int f = 0; f < FILE_NB; f++)
        if (file_pieces(pos, c, t, f, line) >= 2) {
            count++;
            *file = f;
        }
    return count;
}

/*
 * The first two characters: which piece moves. idx counts from the front of the n
 * pieces of its kind on its file. Only pawns can be more than two on a file, and only
 * pawns can stand in tandem on two files at once; see wxf.h for the forms.
 */
static void write_prefix(const Position *pos, Color c, PieceType t, Square from, char out[2])
{
    Square line[RANK_NB];
    int file = sq_file(from);
    char digit = (char)('0' + file_number(c, file));
    int n = file_pieces(pos, c, t, file, line);
    int idx = 0;
    while (line[idx] != from)
        idx++;
    int from_rear = n - 1 - idx;

    out[0] = WXF_LETTER[t];
    out[1] = digit;
    if (n < 2)
        return;
    int other = 0;
    if (t == SOLDIER && tandem_files(pos, c, t, &other) > 1) {
        out[0] = digit;
        out[1] = idx == 0 ? '+' : from_rear == 0 ? '-' : digit;
        return;
    }
    if (n >= 4 && (idx == 0 || from_rear == 0)) {
        out[0] = out[1] = idx == 0 ? '+' : '-';
        return;
    }
    /* With two or three on the file the ends are + and -; with four or five the ends
     * took ++ and --, so + and - move one place inward. A lone middle keeps its digit. */
    int edge = n >= 4 ? 1 : 0;
    if (idx == edge)
        out[1] = '+';
    else if (from_rear == edge)
        out[1] = '-';
}

bool wxf_from_move(const Position *pos, Move m, char *buf, size_t size)
{
    if (!buf || size < WXF_TEXT_SIZE) {
        if (buf && size)
            buf[0] = '\0';
        return false;
    }
    buf[0] = '\0';
    if (m == MOVE_NONE || m == MOVE_NULL || !move_is_legal(pos, m))
        return false;

    Square from = move_from(m), to = move_to(m);
    Piece pc = pos_piece_on(pos, from);
    Color c = piece_color(pc);
    PieceType t = piece_type(pc);
    int ranks = (sq_rank(to) - sq_rank(from)) * forward_step(c);

    write_prefix(pos, c, t, from, buf);
    buf[2] = ranks > 0 ? '+' : ranks < 0 ? '-' : '.';
    if (moves_straight(t) && ranks != 0)
        buf[3] = (char)('0' + abs(ranks));
    else
        buf[3] = (char)('0' + file_number(c, sq_file(to)));
    buf[4] = '\0';
    return true;
}

PieceType wxf_piece_type(char ch)
{
    switch (toupper((unsigned char)ch)) {
    case 'K':
        return KING;
    case 'A':
        return ADVISOR;
    case 'E':
    case 'B':
        return ELEPHANT;
    case 'H':
    case 'N':
        return HORSE;
    case 'R':
        return CHARIOT;
    case 'C':
        return CANNON;
    case 'P':
        return SOLDIER;
    default:
        return NO_PIECE_TYPE;
    }
}

static bool is_sign(char ch)
{
    return ch == '+' || ch == '-';
}
static bool is_file_digit(char ch)
{
    return ch >= '1' && ch <= '9';
}

/* How the first two characters pick the piece. */
typedef enum {
    SEL_FILE,        /* "C2": the piece on that file (the middle one of 3 or 5 pawns) */
    SEL_TANDEM,      /* "R+", "+R", "P-": front or rear of the one tandem file */
    SEL_END,         /* "++", "--": foremost or rearmost of 4 or 5 pawns on a file */
    SEL_FILE_TANDEM, /* "3+", "33", "3-": pawns, the file given first */
} Selector;

typedef struct {
    PieceType type;
    Selector sel;
    int file;  /* board file index, for SEL_FILE and SEL_FILE_TANDEM */
    char mark; /* '+', '-', or for SEL_FILE_TANDEM the file digit for the middle pawn */
} Which;

/* Reads the first two characters; returns false with err filled when they make no sense. */
static bool parse_which(Color c, const char t[2], Which *w, WxfError *err)
{
    char a = t[0], b = t[1];
    if (isalpha((unsigned char)a)) {
        w->type = wxf_piece_type(a);
        if (w->type == NO_PIECE_TYPE)
            return ERROR_SET(err, "unknown piece letter '%c' (use K A E H R C P)", a);
        if (is_file_digit(b)) {
            w->sel = SEL_FILE;
            w->file = file_index(c, b - '0');
        } else if (is_sign(b)) {
            w->sel = SEL_TANDEM;
            w->mark = b;
        } else if (b == '0') {
            return ERROR_SET(err, "files are numbered 1-9, not 0");
        } else {
            return ERROR_SET(err, "after the piece letter comes a file 1-9, + or -, not '%c'", b);
        }
        return true;
    }
    if (is_sign(a)) {
        if (isalpha((unsigned char)b)) {
            w->type = wxf_piece_type(b);
            if (w->type == NO_PIECE_TYPE)
                return ERROR_SET(err, "unknown piece letter '%c' (use K A E H R C P)", b);
            w->sel = SEL_TANDEM;
            w->mark = a;
            return true;
        }
        if (b == a) {
            w->type = SOLDIER;
            w->sel = SEL_END;
            w->mark = a;
            return true;
        }
        return ERROR_SET(err, "'%c%c' names no piece (write e.g. R+, +R, ++ or --)", a, b);
    }
    if (is_file_digit(a)) {
        if (!is_sign(b) && b != a)
            return ERROR_SET(err, "pawn file %c must be followed by +, - or %c, not '%c'", a, a, b);
        w->type = SOLDIER;
        w->sel = SEL_FILE_TANDEM;
        w->file = file_index(c, a - '0');
        w->mark = b;
        return true;
    }
    if (a == '0')
        return ERROR_SET(err, "files are numbered 1-9, not 0");
    return ERROR_SET(err, "a WXF move starts with a piece letter, not '%c'", a);
}

/* Finds the square of the piece that w names, or SQ_NONE with err filled. */
static Square find_piece(const Position *pos, Color c, const Which *w, WxfError *err)
{
    Square line[RANK_NB];
    const char *name = WXF_NAME[w->type];
    int n, file = 0;

    switch (w->sel) {
    case SEL_FILE:
        n = file_pieces(pos, c, w->type, w->file, line);
        if (n == 0) {
            ERROR_SET(err, "no %s %s on file %d", color_name(c), name, file_number(c, w->file));
            return SQ_NONE;
        }
        if (n == 1)
            return line[0];
        /* The middle one of three or five pawns is written with its plain file digit. */
        if (w->type == SOLDIER && n % 2 == 1)
            return line[n / 2];
        ERROR_SET(err, "%d %s %ss on file %d: write %c+ or %c- instead of the file", n,
                  color_name(c), name, file_number(c, w->file), WXF_LETTER[w->type],
                  WXF_LETTER[w->type]);
        return SQ_NONE;

    case SEL_TANDEM: {
        int count = tandem_files(pos, c, w->type, &file);
        if (count == 0) {
            ERROR_SET(err, "'%c' needs two %s %ss on one file", w->mark, color_name(c), name);
            return SQ_NONE;
        }
        if (count > 1) {
            ERROR_SET(err,
                      "%s pawns stand in tandem on two files: start with the file, "
                      "e.g. 3%c",
                      color_name(c), w->mark);
            return SQ_NONE;
        }
        n = file_pieces(pos, c, w->type, file, line);
        /* Past three pawns the ends are ++ and --, so + and - step one place inward. */
        int edge = n >= 4 ? 1 : 0;
        return w->mark == '+' ? line[edge] : line[n - 1 - edge];
    }

    case SEL_END:
        if (tandem_files(pos, c, SOLDIER, &file) != 1 ||
            (n = file_pieces(pos, c, SOLDIER, file, line)) < 4) {
            ERROR_SET(err, "'%c%c' needs four or five %s pawns on one file", w->mark, w->mark,
                      color_name(c));
            return SQ_NONE;
        }
        return w->mark == '+' ? line[0] : line[n - 1];

    case SEL_FILE_TANDEM:
        n = file_pieces(pos, c, SOLDIER, w->file, line);
        if (n < 2 || n > 3) {
            ERROR_SET(err,
                      "the file-first form needs two or three %s pawns on file %d, "
                      "not %d",
                      color_name(c), file_number(c, w->file), n);
            return SQ_NONE;
        }
        if (w->mark == '+')
            return line[0];
        if (w->mark == '-')
            return line[n - 1];
        if (n != 3) {
            ERROR_SET(err, "only three pawns on a file have a middle one");
            return SQ_NONE;
        }
        return line[1];
    }
    return SQ_NONE;
}

/* The destination of the piece on `from` given direction and number, or SQ_NONE. */
static Square find_target(Color c, PieceType t, Square from, char dir, int num, WxfError *err)
{
    int file = sq_file(from), rank = sq_rank(from);
    const char *name = WXF_NAME[t];

    if (dir == '.') {
        if (!moves_straight(t)) {
            ERROR_SET(err, "%ss never move sideways", name);
            return SQ_NONE;
        }
        int to_file = file_index(c, num);
        if (to_file == file) {
            ERROR_SET(err, "a sideways move must go to another file than %d", num);
            return SQ_NONE;
        }
        return sq_make(to_file, rank);
    }

    int step = (dir == '+' ? 1 : -1) * forward_step(c);
    if (moves_straight(t)) {
        int to_rank = rank + step * num;
        if (to_rank < 0 || to_rank >= RANK_NB) {
            ERROR_SET(err, "%d ranks %s runs off the board", num, dir == '+' ? "forward" : "back");
            return SQ_NONE;
        }
        return sq_make(file, to_rank);
    }

    /* A diagonal mover's new file fixes how many ranks it goes: advisors one file and
     * one rank, elephants two and two, horses one and two or two and one. */
    int to_file = file_index(c, num), df = abs(to_file - file), dr = 0;
    if (t == ADVISOR && df == 1)
        dr = 1;
    else if (t == ELEPHANT && df == 2)
        dr = 2;
    else if (t == HORSE && (df == 1 || df == 2))
        dr = 3 - df;
    if (!dr) {
        ERROR_SET(err, "a %s on file %d cannot reach file %d", name, file_number(c, file), num);
        return SQ_NONE;
    }
    int to_rank = rank + step * dr;
    if (to_rank < 0 || to_rank >= RANK_NB) {
        ERROR_SET(err, "that %s move runs off the board", name);
        return SQ_NONE;
    }
    return sq_make(to_file, to_rank);
}

Move wxf_to_move(const Position *pos, const char *text, WxfError *err)
{
    if (!text) {
        ERROR_SET(err, "no move text");
        return MOVE_NONE;
    }
    while (isspace((unsigned char)*text))
        text++;
    size_t len = strlen(text);
    while (len && isspace((unsigned char)text[len - 1]))
        len--;
    if (len != 4) {
        ERROR_SET(err, "a WXF move has four characters, e.g. C2.5, not %zu", len);
        return MOVE_NONE;
    }

    char dir = text[2] == '=' ? '.' : text[2];
    if (dir != '+' && dir != '-' && dir != '.') {
        ERROR_SET(err, "the third character must be +, - or . (or =), not '%c'", text[2]);
        return MOVE_NONE;
    }
    if (!is_file_digit(text[3])) {
        ERROR_SET(err, "the last character must be a digit 1-9, not '%c'", text[3]);
        return MOVE_NONE;
    }
    int num = text[3] - '0';

    Color c = pos->side;
    Which w;
    if (!parse_which(c, text, &w, err))
        return MOVE_NONE;
    Square from = find_piece(pos, c, &w, err);
    if (from == SQ_NONE)
        return MOVE_NONE;
    Square to = find_target(c, w.type, from, dir, num, err);
    if (to == SQ_NONE)
        return MOVE_NONE;

    Move m = move_make(from, to);
    if (!move_is_legal(pos, m)) {
        ERROR_SET(err, "%.4s is not a legal move here", text);
        return MOVE_NONE;
    }
    return m;
}
