#!/bin/sh
# A broken UCI engine for the tests: answers every search with an impossible move.
while read -r line; do
    case $line in
    uci) echo "id name illegal"; echo "uciok" ;;
    isready) echo "readyok" ;;
    go*) echo "info depth 1 score cp 0 nodes 1"; echo "bestmove a0a0" ;;
    quit) exit 0 ;;
    esac
done
