/*
 * The dialogue of XBoard/CECP protocol 2 with an external engine (extdialog.h), as
 * Sjaak II speaks it: "xboard", "protover 2" and the features the engine announces
 * (each answered accepted or rejected), "variant xiangqi", setboard, force mode, "sd",
 * "level"/"st" and "time"/"otim", ping/pong for readiness. The engine keeps the game on
 * its own board: a search sends only the moves played since its last one, or a new game
 * and setboard when the game is another. An engine without feature reuse=1 gets a new
 * process for every game; "resign" loses it the game; its result claims ("1-0 {...}")
 * are logged, and the game loop's own referee decides. XBoard has no exact node limit:
 * a nodes limit is never sent.
 */
#ifndef CHUHE_EXTXBOARD_H
#define CHUHE_EXTXBOARD_H

#include "extdialog.h"

extern const ExtDialog extxboard_dialog;

#endif
