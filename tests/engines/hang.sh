#!/bin/sh
# A broken engine for the tests, speaking UCI or XBoard: never answers a search.
while read -r line; do
    case $line in
    uci) echo "id name hang"; echo "uciok" ;;
    "protover 2") echo 'feature myname="hang" variants="xiangqi" setboard=1 ping=1 done=1' ;;
    isready) echo "readyok" ;;
    ping*) echo "pong ${line#ping }" ;;
    quit) exit 0 ;;
    esac
done
