/*
 * The dialogue of the UCI family with an external engine (extdialog.h): UCI as Pikafish
 * speaks it (ranks 0-9), UCI with ranks 1-10 (Fairy-Stockfish, which is also told
 * UCI_Variant xiangqi) and UCCI (clocks in seconds, "setoption NAME VALUE", no
 * ucinewgame). Every search sends the whole game as "position fen F moves ...", so the
 * engine keeps no board of its own between searches.
 */
#ifndef CHUHE_EXTUCI_H
#define CHUHE_EXTUCI_H

#include "extdialog.h"

extern const ExtDialog extuci_dialog;

#endif
