#!/bin/sh
# An XBoard engine for the tests that resigns at its first search, after claiming a
# result the referee must ignore.
while read -r line; do
    case $line in
    "protover 2")
        echo 'feature done=0'
        echo 'feature myname="resign" variants="normal,xiangqi" setboard=1 usermove=1'
        echo 'feature ping=1 san=0 sigint=0 option="Mood -combo calm /// grim" done=1'
        ;;
    ping*) echo "pong ${line#ping }" ;;
    go) echo "1-0 {resigning now}"; echo "resign" ;;
    quit) exit 0 ;;
    esac
done
