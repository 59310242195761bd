#!/bin/sh
# An engine for the tests that starts a long-lived process of its own, as engines with
# helper processes do: usage forking.sh NOTES PROGRAM [ARGS...]. Starts `sleep 300` in
# the background (its stderr the engine's), appends "child PID", "engine PID" and one
# "fd N KIND" line per descriptor it holds (KIND: pipe:, socket:, script for this
# script's own file, file otherwise) to NOTES, then becomes PROGRAM.
notes=$1
shift
sleep 300 </dev/null >/dev/null &
echo "child $!" >>"$notes"
echo "engine $$" >>"$notes"
# Only builtins look at the descriptors: a pipeline or a command substitution would
# open descriptors of the shell's own while it is being listed. The glob's directory
# descriptor is gone by the time the loop tests it (-e).
fds=
for f in /proc/$$/fd/*; do
    [ -e "$f" ] || continue
    if [ -p "$f" ]; then kind=pipe:
    elif [ -S "$f" ]; then kind=socket:
    elif [ "$f" -ef "$0" ]; then kind=script
    else kind=file; fi
    fds="${fds}fd ${f##*/} $kind
"
done
printf '%s' "$fds" >>"$notes"
exec "$@"
