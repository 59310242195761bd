#!/bin/sh
# An engine for the tests that starts a long-lived process of its own, as engines with
# helper processes do: usage forking.sh NOTES PROGRAM [ARGS...]. Starts `sleep 300` in
# the background (its stderr the engine's), appends "child PID", "engine PID" and one
# "fd N TARGET" line per descriptor it holds (as `ls -l` shows them) to NOTES, then
# becomes PROGRAM.
notes=$1
shift
sleep 300 </dev/null >/dev/null &
echo "child $!" >>"$notes"
echo "engine $$" >>"$notes"
# a simple command: its redirection and pipe are ls's and sed's, not the shell's
ls -l /proc/$$/fd/ | sed -n 's/.* \([0-9][0-9]*\) -> \(.*\)/fd \1 \2/p' >>"$notes"
exec "$@"
