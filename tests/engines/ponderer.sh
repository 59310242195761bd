#!/bin/sh
# A UCI engine for the tests that ponders: ponderer.sh LOG writes every line it is sent
# to LOG. A search answers "bestmove h2e2 ponder h9g7"; a "go ponder" thinks until
# "ponderhit" (then "bestmove b0c2 ponder b9c7") or "stop" (then "bestmove a0a1", which
# the worker must drop).
log=$1
while read -r line; do
    printf '%s\n' "$line" >>"$log"
    case $line in
    uci) echo "id name ponderer"; echo "option name Ponder type check default false"; echo "uciok" ;;
    isready) echo "readyok" ;;
    "go ponder"*) ;;
    go*) echo "bestmove h2e2 ponder h9g7" ;;
    ponderhit) echo "bestmove b0c2 ponder b9c7" ;;
    stop) echo "bestmove a0a1" ;;
    quit) exit 0 ;;
    esac
done
