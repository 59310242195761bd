#!/bin/sh
# A broken engine for the tests, speaking UCI or XBoard (whichever it is greeted in):
# completes the handshake, then exits at the first search.
while read -r line; do
    case $line in
    uci) echo "id name crash"; echo "uciok" ;;
    "protover 2") echo 'feature myname="crash" variants="xiangqi" setboard=1 ping=1 done=1' ;;
    isready) echo "readyok" ;;
    ping*) echo "pong ${line#ping }" ;;
    go*) exit 3 ;;
    quit) exit 0 ;;
    esac
done
