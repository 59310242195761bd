/*
 * WXF move text, the notation of xiangqi books and game records, for people to read
 * and type: "C2.5", "H8+7", "R+.3". Engines speak coordinates instead (notation.h).
 *
 * A move is four characters: piece, which piece, direction, number.
 *
 *   piece      K A E H R C P (king, advisor, elephant, horse, chariot, cannon, pawn).
 *   which      the file the piece stands on, 1-9 counted from the mover's own RIGHT:
 *              for Red file i is 1 and file a is 9, for Black file a is 1 and i is 9.
 *   direction  '+' forward (toward the enemy), '-' backward, '.' sideways.
 *   number     for K R C P moving along their file, the number of ranks moved; for
 *              a sideways move, and for every A E H move, the destination file.
 *
 * Two like pieces on one file (tandem). As the WXF/AXF notation page prescribes
 * ("the digit denoting the file position of the tandem pieces is replaced by + for
 * front piece, and - for rear piece", examples R+.3 and C--1), the marker takes the
 * place of the file digit, after the letter: "R+.3", "C--1". The front piece is the
 * one nearer the enemy. This holds for advisors and elephants too: "A-+5" moves the
 * rear of two advisors on one file.
 *
 * Pawns, following the same page:
 *   - 3 on a file: front "P+", middle with its plain file digit "P5", rear "P-";
 *   - 4 on a file: "++", "P+", "P-", "--" from the front (the letter is dropped);
 *   - 5 on a file: "++", "P+", "P5" (middle), "P-", "--";
 *   - tandems on two files (2+2 or 3+2, the only possibilities with five pawns): the
 *     letter gives way to the file digit, then '+', '-' or the digit again for the
 *     middle of three: "3+.4", "33.4", "3-.4", "7+.6", "7-.6".
 * Every legal move therefore has exactly one text, and wxf_from_move never fails for a
 * legal move. Not followed, being absent from the WXF page: reading the middle pawn's
 * digit as an ordinal ("P3" for the third pawn, as some tutorials do) and the letter
 * ordinals some programs use for pawns ("Pc+1").
 *
 * Input is more forgiving than output: letters in either case; B for elephant and N
 * for horse; '=' for '.'; the marker before the letter ("+R.3", a common variant);
 * the file-digit-first pawn form also when only one file holds tandem pawns; spaces
 * around the text. Anything ambiguous or illegal is refused with a reason. The
 * separator may not be left out ("C25" is refused), and no check or comment marks
 * may follow, since '+' already means forward.
 */
#ifndef CHUHE_WXF_H
#define CHUHE_WXF_H

#include <stddef.h>

#include "position.h"

/* Buffer size that always holds a WXF move: four characters and the NUL. */
enum { WXF_TEXT_SIZE = 5 };

typedef struct {
    char msg[128];
} WxfError;

/* Writes the WXF text of m, which must be legal in pos, into buf. Returns false, with
 * buf set to "" when size allows, if m is not legal or size < WXF_TEXT_SIZE. */
/* The piece type a letter names, either case: K A E|B H|N R C P; NO_PIECE_TYPE else. */
PieceType wxf_piece_type(char ch);

bool wxf_from_move(const Position *pos, Move m, char *buf, size_t size);

/* Parses WXF text for the side to move in pos. Returns the legal move it names, or
 * MOVE_NONE with the reason in err (err may be NULL). */
Move wxf_to_move(const Position *pos, const char *text, WxfError *err);

#endif
