#!/bin/sh
# A broken engine for the tests, speaking UCI or XBoard: answers every search with an
# impossible move.
xboard=0
while read -r line; do
    case $line in
    uci) echo "id name illegal"; echo "uciok" ;;
    "protover 2")
        xboard=1
        echo 'feature myname="illegal" variants="xiangqi" setboard=1 ping=1 done=1'
        ;;
    isready) echo "readyok" ;;
    ping*) echo "pong ${line#ping }" ;;
    go*)
        if [ $xboard = 1 ]; then
            echo "1 0 0 1 a0a0"; echo "move a0a0"
        else
            echo "info depth 1 score cp 0 nodes 1"; echo "bestmove a0a0"
        fi
        ;;
    quit) exit 0 ;;
    esac
done
