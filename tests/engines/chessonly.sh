#!/bin/sh
# An XBoard engine for the tests that plays western chess only.
while read -r line; do
    case $line in
    "protover 2") echo 'feature myname="chessonly" variants="normal,suicide" setboard=1 ping=1 done=1' ;;
    ping*) echo "pong ${line#ping }" ;;
    quit) exit 0 ;;
    esac
done
