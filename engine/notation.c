#include "notation.h"

#include <string.h>

#include "movegen.h"

void square_to_text(Square s, char buf[3])
{
    buf[0] = (char)('a' + sq_file(s));
    buf[1] = (char)('0' + sq_rank(s));
    buf[2] = '\0';
}

Square square_from_text(const char *t)
{
    if (!t || t[0] < 'a' || t[0] > 'i' || t[1] < '0' || t[1] > '9')
        return SQ_NONE;
    return sq_make(t[0] - 'a', t[1] - '0');
}

void move_to_text(Move m, char buf[5])
{
    if (m == MOVE_NONE || m == MOVE_NULL) {
        memcpy(buf, "0000", 5);
        return;
    }
    square_to_text(move_from(m), buf);
    square_to_text(move_to(m), buf + 2);
}

Move move_from_text(const char *t)
{
    if (!t || strlen(t) != 4)
        return MOVE_NONE;
    Square from = square_from_text(t), to = square_from_text(t + 2);
    if (from == SQ_NONE || to == SQ_NONE || from == to)
        return MOVE_NONE;
    return move_make(from, to);
}

Move move_parse_legal(const Position *pos, const char *text)
{
    Move m = move_from_text(text);
    return m != MOVE_NONE && move_is_legal(pos, m) ? m : MOVE_NONE;
}
