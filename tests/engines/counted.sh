#!/bin/sh
# An engine wrapper for the tests that counts its starts: counted.sh COUNT-FILE ENGINE
# [ARGS...] appends one line to COUNT-FILE, the pid of the process that started it (a
# worker rank), then runs ENGINE.
count=$1
shift
echo "$PPID" >>"$count"
exec "$@"
