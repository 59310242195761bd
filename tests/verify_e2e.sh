#!/usr/bin/env bash
# verify end to end: `chuhe-coordinator verify` holds a run file to what a resumed
# coordinator reads from it (its run_config, parsed by the same code, and the players it
# needs) and to the rules of its rows that the replay does not see: Red and Black are
# two players, the pair's engines; the opening moves come first. Each damaged copy (made
# with h5py) is reported FAILED with exit status 1 and a line naming the fault; the
# intact file is OK.
# Prints TAP. Usage: tests/verify_e2e.sh <bindir>; CHUHE_TEST_KEEP=1 keeps the logs.
set -u
bindir=${1:-bin}
. "$(dirname "$0")/support/e2e.sh"
if ! /usr/bin/python3 -c 'import h5py' 2>/dev/null; then
    tap_skip_all "verify end to end" "python3-h5py missing"
fi
e2e_begin "verify end to end" 6 "$coord" "$worker"

e2e_run r --games 2 --nodes 300 --max-plies 120 --random-plies 4 --seed 11
run=$tmp/r.h5
verify "$run"
[ $rc_c -eq 0 ] && grep -q '^verify .*: OK$' "$tmp/verify.txt"
check "the intact run file verifies" $? "$(cat "$tmp/r.err" "$tmp/verify.txt")"

# damaged KIND: a copy of the run file with one fault, $tmp/KIND.h5
damaged() {
    /usr/bin/python3 - "$run" "$1" "$tmp/$1.h5" <<'PY'
import shutil, sys
import h5py

src, kind, dst = sys.argv[1:]
shutil.copy(src, dst)
with h5py.File(dst, "r+") as f:
    games, positions = f["games"], f["positions"]
    g = games[0]
    if kind == "config":
        f.attrs.modify("run_config", f.attrs["run_config"][:-6])
    elif kind == "same-player":
        g["black_player"] = g["red_player"]
        games[0] = g
    elif kind == "swapped":
        g["red_player"], g["black_player"] = g["black_player"], g["red_player"]
        games[0] = g
    elif kind == "flag":
        last = int(g["first_position"]) + int(g["plies"]) - 1
        p = positions[last]
        p["flags"] |= 8
        positions[last] = p
PY
}

# faulty NAME KIND TEXT: verify of the KIND copy says FAILED and TEXT, exit status 1
faulty() {
    damaged "$2"
    "$coord" verify "$tmp/$2.h5" >"$tmp/$2.txt" 2>&1
    local rc=$?
    [ $rc -eq 1 ] && grep -q '^verify .*: FAILED$' "$tmp/$2.txt" && grep -qF -- "$3" "$tmp/$2.txt"
    check "$1" $? "$(echo "status $rc"; cat "$tmp/$2.txt")"
}
faulty "a damaged run_config: FAILED, as a resume refuses it" config "run_config: unterminated string"
timeout 30 "$coord" --bind 'tcp://127.0.0.1:*' --out "$tmp/config.h5" >"$tmp/resume.txt" 2>&1
[ $? -ne 0 ] && grep -q 'run_config: unterminated string' "$tmp/resume.txt"
check "...and the coordinator indeed does not resume it" $? "$tmp/resume.txt"
faulty "red_player == black_player: FAILED" same-player \
    "game 0: red_player and black_player are both player "
faulty "players other than the pair's engines: FAILED" swapped \
    "game 0: players are not the pair's engines: red "
faulty "the opening flag on a searched move: FAILED" flag \
    "game 0: the opening flag is set on a move after a searched one"
e2e_end
