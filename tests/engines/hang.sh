#!/bin/sh
# A broken UCI engine for the tests: never answers a search.
while read -r line; do
    case $line in
    uci) echo "id name hang"; echo "uciok" ;;
    isready) echo "readyok" ;;
    quit) exit 0 ;;
    esac
done
