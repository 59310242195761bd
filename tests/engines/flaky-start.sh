#!/bin/sh
# An engine that dies during its first start, as one killed while it starts, and runs
# ENGINE from then on: flaky-start.sh STATE-FILE ENGINE [ARGS...]. The state file
# records that the first start happened.
state=$1
shift
if [ ! -e "$state" ]; then
    : >"$state"
    read -r line
    exit 1
fi
exec "$@"
