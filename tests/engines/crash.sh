#!/bin/sh
# A broken UCI engine for the tests: completes the handshake, then exits at the first
# search.
while read -r line; do
    case $line in
    uci) echo "id name crash"; echo "uciok" ;;
    isready) echo "readyok" ;;
    go*) exit 3 ;;
    quit) exit 0 ;;
    esac
done
