#!/bin/sh
# A UCI engine for the tests that ponders: ponderer.sh LOG [STOP_S] writes every line it
# is sent to LOG, and takes STOP_S seconds (default 0) to answer a stop. A search answers "bestmove h2e2 ponder h9g7"; a "go ponder" thinks until
# "ponderhit" (then "bestmove b0c2 ponder b9c7") or "stop" (then "bestmove a0a1", which
# the worker must drop).
log=$1
stop_s=${2:-0}
while read -r line; do
    printf '%s\n' "$line" >>"$log"
    case $line in
    uci) echo "id name ponderer"; echo "option name Ponder type check default false"; echo "uciok" ;;
    isready) echo "readyok" ;;
    "go ponder"*) ;;
    go*) echo "bestmove h2e2 ponder h9g7" ;;
    ponderhit) echo "bestmove b0c2 ponder b9c7" ;;
    stop) sleep "$stop_s"; echo "bestmove a0a1" ;;
    quit) exit 0 ;;
    esac
done
