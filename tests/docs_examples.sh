#!/usr/bin/env bash
# The command examples of README.md and docs/*.md, run at small sizes, and the relative
# links of those pages (one check per page).
#
# Usage: tests/docs_examples.sh BINDIR [PAGE...]
#   PAGE: README.md or docs/NAME.md (default: all of them); CHUHE_TEST_KEEP=1 keeps the
#   scratch folders and the logs of the examples.
#
# What is an example: every command of a ```sh block (blank lines and comment lines left
# out, a line ending in \ joined with the next, a trailing "# ..." comment cut off). Other
# blocks (plain ``` transcripts of the engine's dialogue, output, diagrams, ```python)
# are not examples. Each example is one check named PAGE:LINE and the command; it passes
# when the command, run with bash -o pipefail, exits 0 within its time limit
# (CHUHE_DOCS_LIMIT seconds, default 120), and an example that drives bin/chuhe-engine
# also when the engine answered no "info string error".
#
# HTML comments on the lines above a ```sh block (blank lines may come between) say what
# the page expects:
#   <!-- example: skip (REASON) -->               no example of the block is run
#   <!-- example: skip COMMAND (REASON) -->       the example COMMAND is not run
#   <!-- example: status N COMMAND (REASON) -->   the example COMMAND passes with status N
# COMMAND is the example as the check names it (the text after PAGE:LINE). A comment
# that names no example of its block, or stands above anything but a ```sh block, fails.
#
# Where the examples run: one scratch folder per page, made afresh from the repository
# (bin/ a link to BINDIR; copies of scripts/, data/, results/, tests/data/,
# engine/default.weights)
# and the files the pages read without making them: out/run.h5, run.h5, run1.h5 and
# run2.h5 (a 4-game self-play run made at the start), book.epd (20 lines of
# data/openings.epd), book.pgn (that run as PGN), cannon.weights, tuned.weights and
# start.weights (the built-in weights); a file that an example of the page writes (-o, --out or > FILE) is
# not put there. The examples of a page run in order, so one may use what an earlier
# one made. Nothing is written into the repository: `make` runs as `make -n` there (the
# targets exist and their recipes expand; what the recipes run is an example of its
# own), and scripts/install-deps as `bash -n` (it would install system packages).
#
# A coordinator and its workers: an example that serves a run (bin/chuhe-coordinator with
# options, not a subcommand) runs in the background, with or without its trailing &;
# the next examples that run bin/chuhe-worker get its endpoint for --connect (the docs
# write PORT, or the port of a sample output). When no worker example follows, the test
# connects two worker ranks itself before the page goes on; a worker example with no
# coordinator before it gets a 2-game coordinator from the test. The coordinator's check
# comes when it has ended.
#
# Small sizes (rules applied to the text of every example):
#   --games N, -games N   2 * ceil(N / 1000), within 2..4 (a run extended from 1000 to
#                         2000 games still grows: 2 then 4)
#   --nodes N             300                   --match-games N   2
#   -n N (not nice's)     2                     -np N             2
#   --tc B+I, tc=B+I      a tenth: 10+0.1 -> 1+0.01 (each clock of a list B+I,B+I)
#   -rounds N             1                     --minutes N       0.05
#   -each nodes=N         nodes=300             -spsa pairs=N     pairs=4
#   --gauntlet N          2
# and options added to a program when the example does not give them (its defaults,
# shrunk by the same rules):
#   scripts/chuhe-run         --nodes 300 --drain-timeout 2 (a restart on a complete run
#                             waits that long for late workers, not 7 s)
#   scripts/bench-scaling     --games 4 --nodes 300
#   scripts/tune-loop         --games 4 --nodes 300 --match-games 2
#   scripts/bench-perft       --depth 3 --runs 1
#   scripts/bench-search      --movetime 100 --rounds 1
#   scripts/bench-mates       --nodes 2000
#   scripts/perft-crosscheck  --max-depth 2 --time 0.2
#   scripts/make-openings     --nodes 300
#   scripts/soak              -n 4 --jobs 2
#   bin/chuhe-tune --bench    --bench-positions 20000
#   scripts/bench-train-ranks --rounds 1 --seconds 0.5 --positions 20000
#
# What a test machine may lack: an example whose program is not installed (its first
# word, or a /usr/games/ path it names) is skipped, with the program as the reason, and
# so is one that runs a test program under bin/tests/ that is not built (make check
# builds them). The sanitizer build skips the whole test (the examples would take too
# long there); without mpirun it is skipped too.
set -u

if [ $# -lt 1 ] || [ ! -d "$1" ]; then
    echo "usage: tests/docs_examples.sh BINDIR [PAGE...]" >&2
    exit 2
fi
bindir=$(cd "$1" && pwd)
shift
. "$(dirname "$0")/support/e2e.sh"

limit=${CHUHE_DOCS_LIMIT:-120}
pages=("$root/README.md" "$root"/docs/*.md)
if [ $# -gt 0 ]; then
    pages=()
    for p in "$@"; do
        [ -f "$root/$p" ] || { echo "tests/docs_examples.sh: no page $p" >&2; exit 2; }
        pages+=("$root/$p")
    done
fi

# extract PAGE: the examples and the comments of PAGE, one line each, fields separated by
# \037: "ex LINE STATUS SKIP-REASON COMMAND" or "bad LINE - - MESSAGE".
extract() {
    awk '
    function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
    function squash(s) { gsub(/[ \t]+/, " ", s); return trim(s) }
    # cut a trailing comment: a # at the start or after a blank, outside quotes
    function uncomment(s,    i, c, q, prev) {
        q = ""; prev = " "
        for (i = 1; i <= length(s); i++) {
            c = substr(s, i, 1)
            if (q != "") { if (c == q) q = "" }
            else if (c == "\047" || c == "\"") q = c
            else if (c == "#" && prev ~ /[ \t]/) return substr(s, 1, i - 1)
            prev = c
        }
        return s
    }
    function bad(line, msg) { printf "bad\037%d\037-\037-\037%s\n", line, msg }
    # a comment above a block: skip (R), skip CMD (R) or status N CMD (R)
    function directive(text, line,    body, p, r, n) {
        body = text
        sub(/^[ \t]*<!--[ \t]*example:[ \t]*/, "", body)
        sub(/[ \t]*-->[ \t]*$/, "", body)
        p = 0
        for (n = 1; n <= length(body); n++) if (substr(body, n, 2) == " (") p = n
        if (p == 0 || body !~ /\)$/) { bad(line, "no (reason) at the end: " text); return }
        r = substr(body, p + 2, length(body) - p - 2)
        body = substr(body, 1, p - 1)
        nd++
        dline[nd] = line; dreason[nd] = r; dused[nd] = 0; dstatus[nd] = ""
        if (body == "skip") { dkind[nd] = "all"; dcmd[nd] = ""; return }
        if (body ~ /^skip /) { dkind[nd] = "skip"; dcmd[nd] = squash(substr(body, 6)); return }
        if (match(body, /^status [0-9]+ /)) {
            dkind[nd] = "status"; dstatus[nd] = substr(body, 8, RLENGTH - 8)
            dcmd[nd] = squash(substr(body, RLENGTH + 1)); return
        }
        nd--
        bad(line, "not skip or status: " text)
    }
    function example(line, cmd,    i, status, why, key) {
        cmd = trim(uncomment(cmd))
        if (cmd == "") return
        status = 0; why = ""; key = squash(cmd)
        for (i = 1; i <= nd; i++) {
            if (dkind[i] == "all") { why = dreason[i]; dused[i] = 1 }
            else if (dcmd[i] == key) {
                dused[i] = 1
                if (dkind[i] == "skip") why = dreason[i]; else status = dstatus[i]
            }
        }
        printf "ex\037%d\037%d\037%s\037%s\n", line, status, why, cmd
    }
    function end_block(    i) {
        for (i = 1; i <= nd; i++)
            if (!dused[i]) bad(dline[i], "names no example of its block: " dcmd[i])
        nd = 0
    }
    BEGIN { inblock = 0; nd = 0; nabove = 0 }
    !inblock && /^```/ {
        inblock = 1; sh = ($0 ~ /^```sh[ \t]*$/); cont = ""; nd = 0
        for (i = 1; i <= nabove; i++) {
            if (sh) directive(above[i], aline[i])
            else bad(aline[i], "stands above a block that is not ```sh")
        }
        nabove = 0
        next
    }
    !inblock {
        if ($0 ~ /^[ \t]*<!--[ \t]*example:/) { nabove++; above[nabove] = $0; aline[nabove] = NR; next }
        if ($0 ~ /^[ \t]*$/) next
        for (i = 1; i <= nabove; i++) bad(aline[i], "is not directly above a block")
        nabove = 0
        next
    }
    /^```[ \t]*$/ {
        if (sh && cont != "") example(cline, cont)
        inblock = 0; end_block(); next
    }
    !sh { next }
    {
        text = $0
        if (cont == "") {
            if (text ~ /^[ \t]*(#|$)/) next
            cline = NR
        }
        if (cont != "") sub(/^[ \t]+/, "", text)
        if (text ~ /\\$/) { cont = cont substr(text, 1, length(text) - 1); sub(/[ \t]*$/, " ", cont); next }
        example(cline, cont text)
        cont = ""
    }
    END { for (i = 1; i <= nabove; i++) bad(aline[i], "is not directly above a block") }
    ' "$1"
}

# small COMMAND: the command at the sizes of the test (the rules in the header).
small() {
    perl -e '
        use POSIX qw(ceil);
        $_ = " " . $ARGV[0];
        sub games { my $g = 2 * ceil($_[0] / 1000); $g < 2 ? 2 : $g > 4 ? 4 : $g }
        sub tenth { sprintf "%g", $_[0] / 10 }
        s/(?<=\s)(--games|-games) (\d+)\b/"$1 " . games($2)/ge;
        s/(?<=\s)--nodes \d+\b/--nodes 300/g;
        s/(?<=\s)--match-games \d+\b/--match-games 2/g;
        s/(?<!nice )(?<=\s)-n \d+\b/-n 2/g;
        s/(?<=\s)-np \d+\b/-np 2/g;
        sub clock { my ($b, $i) = split /\+/, $_[0]; tenth($b) . "+" . tenth($i) }
        s/(?<=\s)(--tc |tc=)(\d[\d.]*\+[\d.]+(?:,\d[\d.]*\+[\d.]+)*)/$1 . join(",", map { clock($_) } split(",", $2))/ge;
        s/(?<=\s)-rounds \d+\b/-rounds 1/g;
        s/(?<=\s)nodes=\d+\b/nodes=300/g;
        s/(?<=\s)pairs=\d+\b/pairs=4/g;
        s/(?<=\s)--gauntlet \d+\b/--gauntlet 2/g;
        s/(?<=\s)--minutes \d+(?:\.\d+)?/--minutes 0.05/g;
        s{(?<=\s)(scripts/install-deps)(?=\s|$)}{bash -n $1}g;
        my @add = (
            ["scripts/bench-scaling", "--games 4", "--nodes 300"],
            ["scripts/tune-loop", "--games 4", "--nodes 300", "--match-games 2"],
            ["scripts/chuhe-run", "--nodes 300", "--drain-timeout 2"],
            ["scripts/bench-perft", "--depth 3", "--runs 1"],
            ["scripts/bench-search", "--movetime 100", "--rounds 1"],
            ["scripts/bench-mates", "--nodes 2000"],
            ["scripts/perft-crosscheck", "--max-depth 2", "--time 0.2"],
            ["scripts/make-openings", "--nodes 300"],
            ["scripts/soak", "-n 4", "--jobs 2"],
            ["bin/chuhe-tune --bench", "--bench-positions 20000"],
            ["scripts/bench-train-ranks", "--rounds 1", "--seconds 0.5", "--positions 20000"],
        );
        for my $a (@add) {
            my ($prog, @opts) = @$a;
            next unless /(?<=\s)\Q$prog\E(?=\s|$)/;
            my $cmd = $_;
            my $more = join "", map { my ($name) = split / /; $cmd =~ /(?<=\s)(?<!nice )\Q$name\E(?=\s|$)/ ? "" : " $_" } @opts;
            s/(?<=\s)(\Q$prog\E)(?=\s|$)/$1$more/;
        }
        # a dated folder (NAME-YYYYmmdd-HHMMSS, NAME-<time>): the newest one the page made
        s{(?<=\s)([\w./-]+?)-(?:\d{8}-\d{6}|<time>)(?=[\s/]|$)}{
            my ($base, $all) = ($1, $&);
            my @made = sort { -M $a <=> -M $b } glob("$ARGV[1]/$base-*");
            @made ? substr($made[0], length($ARGV[1]) + 1) : $all
        }ge;
        s/^ //;
        print;
    ' "$1" "${dir:-.}"
}

# missing COMMAND: why the command cannot run on this machine, or nothing.
missing() {
    local part word p
    while IFS= read -r part; do
        read -r -a word <<<"$part"
        p=0
        while [ $p -lt ${#word[@]} ]; do # VAR=value words and nice's options come first
            case ${word[p]} in
            *=*) p=$((p + 1)) ;;
            nice) p=$((p + 1)); [ "${word[p]:-}" = -n ] && p=$((p + 2)) ;;
            *) break ;;
            esac
        done
        [ -n "${word[p]:-}" ] || continue
        # a program from elsewhere, not one of chuhe's (a missing one of those fails)
        if [[ ${word[p]} =~ ^[a-z0-9][a-z0-9._+-]*$ && ${word[p]} != chuhe* ]] &&
            ! command -v "${word[p]}" >/dev/null 2>&1; then
            echo "${word[p]} is not installed"
            return
        fi
    done < <(sed 's/ && \| || \| | /\n/g' <<<"$1")
    for p in $(grep -o '/usr/games/[A-Za-z0-9_.-]*' <<<"$1"); do
        [ -x "$p" ] || { echo "$p is not installed"; return; }
    done
    for p in $(grep -o 'bin/tests/[A-Za-z0-9_/.-]*' <<<"$1"); do
        [ -x "$bindir/${p#bin/}" ] || { echo "$p is not built (make check builds it)"; return; }
    done
}

# The files every page may read; made once.
make_fixtures() {
    local f=$tmp/fixtures
    mkdir -p "$f"
    e2e_run fixture --games 4 --nodes 300 --seed 1
    cp "$tmp/fixture.h5" "$f/run.h5" 2>/dev/null &&
        "$coord" export pgn "$f/run.h5" >"$f/book.pgn" 2>"$tmp/fixture.pgn.err" &&
        head -20 "$root/data/openings.epd" >"$f/book.epd" &&
        cp "$root/engine/default.weights" "$f/tuned.weights" &&
        cp "$root/engine/default.weights" "$f/cannon.weights" &&
        cp "$root/engine/default.weights" "$f/start.weights"
    local copied=$?
    check "a 4-game run file and the other files the examples read" \
        $((rc_c || rc_w || copied)) "$(tail -5 "$tmp/fixture.err" "$tmp/fixture.workers" 2>/dev/null)"
}

# new_scratch PAGE-NAME COMMANDS: a fresh folder for the page's examples; sets dir.
new_scratch() {
    local f name
    dir=$tmp/pages/$1
    mkdir -p "$dir/out" "$dir/engine" "$dir/tests"
    ln -s "$bindir" "$dir/bin"
    cp -r "$root/scripts" "$root/data" "$root/results" "$dir/"
    cp -r "$root/tests/data" "$dir/tests/"
    cp "$root/engine/default.weights" "$dir/engine/"
    for f in out/run.h5 run.h5 run1.h5 run2.h5 book.epd book.pgn cannon.weights tuned.weights \
        start.weights; do
        name=$(basename "$f")
        # a file that an example of the page writes stays the example's to make
        grep -qE "(-o|--out|>) $f( |$)" <<<"$2" && continue
        [ -f "$tmp/fixtures/$name" ] || name=run.h5
        cp "$tmp/fixtures/$name" "$dir/$f" 2>/dev/null
    done
}

# in_scratch LOG COMMAND: runs the command in $dir within the time limit, its output in LOG.
in_scratch() (
    cd "$dir" && exec timeout -k 5 "$limit" bash -o pipefail -c "$2" >"$1" 2>&1 </dev/null
)

# start_example LOG COMMAND: in_scratch in the background; sets bpid and ep (empty when
# it ended or did not print a listening line within 30 s).
start_example() {
    local i
    in_scratch "$1" "$2" &
    bpid=$!
    ep=
    for i in $(seq 300); do
        ep=$(sed -n -e 's/^listening \(tcp:[^ ]*\).*/\1/p' \
            -e 's/.*"event":"listening","endpoint":"\([^"]*\)".*/\1/p' "$1" | head -1)
        ep=${ep/0.0.0.0/127.0.0.1}
        [ -n "$ep" ] && return
        kill -0 "$bpid" 2>/dev/null || return
        sleep 0.1
    done
}

detail() { # COMMAND STATUS EXPECTED LOG...
    local cmd=$1 got=$2 want=$3
    shift 3
    echo "ran in $dir: $cmd"
    if [ "$got" = 124 ]; then echo "timed out after ${limit}s"; else echo "exit status $got (expected $want)"; fi
    tail -n 20 "$@" 2>/dev/null
}

# The coordinator started by a serving example (pc_*), waiting for its workers or its end.
pc_pid= pc_ep=
finish_coordinator() {
    local wrc=0
    [ -n "$pc_pid" ] || return 0
    if [ "$pc_served" = 0 ]; then
        timeout -k 5 "$limit" mpirun --oversubscribe --bind-to none -np 2 "$worker" --connect "$pc_ep" \
            --quiet >"$pc_log.workers" 2>&1 </dev/null
        wrc=$?
    fi
    wait_for "$pc_pid" "$limit"
    if [ "$rc" = "$pc_want" ] && [ "$wrc" = 0 ]; then
        check "$pc_name" 0
    else
        check "$pc_name" 1 "$(detail "$pc_cmd" "$rc" "$pc_want" "$pc_log" "$pc_log.workers")"
    fi
    section "${pc_name%% *}"
    pc_pid=
}

# One example: LINE STATUS SKIP-REASON COMMAND of page $page.
one_example() {
    local line=$1 want=$2 why=$3 text=$4 name cmd log
    name="$page:$line $text"
    log=$tmp/logs/${page//\//-}-$line.log
    cmd=$(small "$text")
    [ -n "$why" ] || why=$(missing "$cmd")
    if [ -n "$why" ]; then
        finish_coordinator
        skip "$name" "$why"
        return
    fi
    if [[ $cmd =~ ^bin/chuhe-coordinator\ +- ]] && ! [[ $cmd =~ ^bin/chuhe-coordinator\ +--?(help|version) ]]; then
        finish_coordinator
        cmd=${cmd%&}
        start_example "$log" "$cmd"
        if [ -z "$ep" ]; then
            wait_for "$bpid" 10
            check "$name" $((rc != want)) "$(detail "$cmd" "$rc" "$want" "$log")"
            return
        fi
        pc_pid=$bpid pc_ep=$ep pc_log=$log pc_name=$name pc_cmd=$cmd pc_want=$want pc_served=0
        return
    fi
    if [[ $cmd =~ bin/chuhe-worker.*--connect ]]; then
        local target=$pc_ep own=
        if [ -z "$pc_pid" ]; then # a coordinator for it, from the test
            start_example "$log.coordinator" \
                "bin/chuhe-coordinator --bind 'tcp://127.0.0.1:*' --out out/workers-$line.h5 --games 2 --nodes 300"
            own=$bpid target=$ep
        fi
        cmd=$(sed -E "s#--connect +[^ ]+#--connect $target#" <<<"$cmd")
        in_scratch "$log" "$cmd"
        local wrc=$?
        if [ -n "$own" ]; then
            wait_for "$own" "$limit"
            [ "$rc" = 0 ] || { wrc=1; echo "the test's coordinator: exit status $rc" >>"$log"; }
        else
            pc_served=1
        fi
        check "$name" $((wrc != want)) "$(detail "$cmd" "$wrc" "$want" "$log" "$log.coordinator")"
        section "$page:$line"
        return
    fi
    finish_coordinator
    in_scratch "$log" "$cmd"
    rc=$?
    if [[ $cmd == *bin/chuhe-engine* ]] && grep -q 'info string error' "$log"; then
        check "$name" 1 "$(echo "ran in $dir: $cmd"; echo "the engine answered:"; grep 'info string error' "$log")"
    else
        check "$name" $((rc != want)) "$(detail "$cmd" "$rc" "$want" "$log")"
    fi
    section "$page:$line"
}

# links PAGE: every relative link of the page names a file, and its #anchor a heading.
links() {
    perl -CSD -Mutf8 -e '
        use File::Basename;
        my ($page) = @ARGV;
        my %anchors;
        sub anchors {
            my ($file) = @_;
            return $anchors{$file} if $anchors{$file};
            my %a; my $fence = 0;
            open my $fh, "<", $file or return {};
            while (<$fh>) {
                $fence = !$fence if /^```/;
                next if $fence || !/^#+\s+(.*?)\s*$/;
                my $s = lc $1;
                $s =~ s/[^\p{L}\p{N} _-]//g;
                $s =~ s/ /-/g;
                $a{$s} = 1;
            }
            return $anchors{$file} = \%a;
        }
        my $fence = 0; my $bad = 0;
        open my $fh, "<", $page or die "$page: $!";
        while (<$fh>) {
            $fence = !$fence if /^```/;
            next if $fence;
            my $line = $.;
            s/`[^`]*`//g;
            while (/\]\(([^)\s]+)\)/g) {
                my $link = $1;
                next if $link =~ m{^[a-z]+:};
                my ($path, $anchor) = split /#/, $link, 2;
                my $target = $path eq "" ? $page : dirname($page) . "/" . $path;
                if (!-e $target) { print "line $line: $link: no file $path\n"; $bad++; next }
                next unless defined $anchor && $target =~ /\.md$/;
                next if anchors($target)->{$anchor};
                print "line $line: $link: no heading #$anchor in $path\n"; $bad++;
            }
        }
        exit($bad ? 1 : 0);
    ' "$1"
}

case $bindir in
san | */san) tap_skip_all "docs examples" "the sanitizer build (the examples run on release and debug builds)" ;;
esac

# Every page's examples, extracted before the plan is known.
declare -A listing
total=0
for p in "${pages[@]}"; do
    listing[$p]=$(extract "$p")
    total=$((total + 1 + $(grep -c . <<<"${listing[$p]}")))
done

e2e_begin "docs examples" $((total + 1)) "$coord" "$worker" "$bindir/chuhe-engine" "$bindir/chuhe-tune"
mkdir -p "$tmp/logs" "$tmp/pages"
make() { command make -n -C "$DOCS_ROOT" "$@"; }
export -f make
export DOCS_ROOT=$root
make_fixtures
section "fixtures"

# run_page PAGE: its link check and its examples, numbered from 1.
run_page() {
    local p=$1 kind line want why text out
    n=0 failed=0 pc_pid= pc_ep=
    e2e_started=$(date +%s.%N)
    page=${p#"$root"/}
    out=$(links "$p" 2>&1)
    check "$page: relative links resolve" $? "$out"
    [ -n "${listing[$p]}" ] || return 0
    new_scratch "${page//\//-}" "$(cut -d $'\037' -f5 <<<"${listing[$p]}")"
    while IFS=$'\037' read -r kind line want why text; do
        if [ "$kind" = bad ]; then
            finish_coordinator
            check "$page:$line an example comment" 1 "$text"
            continue
        fi
        one_example "$line" "$want" "$why" "$text"
    done <<<"${listing[$p]}"
    finish_coordinator
}

# Two pages at a time: most of an example's time is spent waiting (clocks, drains,
# start-up), not computing. Their lines are printed in page order, numbered on.
mkdir -p "$tmp/tap"
for i in "${!pages[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge 2 ]; do wait -n; done
    run_page "${pages[i]}" >"$tmp/tap/$i" 2>&1 &
done
wait
for i in "${!pages[@]}"; do
    ran=0
    while IFS= read -r text; do
        if [[ $text =~ ^(not\ )?ok\ [0-9]+\ (.*)$ ]]; then
            n=$((n + 1)) ran=$((ran + 1))
            [ -n "${BASH_REMATCH[1]}" ] && failed=$((failed + 1))
            text="${BASH_REMATCH[1]}ok $n ${BASH_REMATCH[2]}"
        fi
        printf '%s\n' "$text"
    done <"$tmp/tap/$i"
    # a page whose run stopped short still accounts for every check of the plan
    want=$((1 + $(grep -c . <<<"${listing[${pages[i]}]}")))
    for ((k = ran + 1; k <= want; k++)); do
        check "${pages[i]#"$root"/}: check $k of $want did not run" 1 "$(tail -5 "$tmp/tap/$i")"
    done
done

e2e_end
