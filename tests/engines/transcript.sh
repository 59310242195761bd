#!/bin/sh
# An engine for the tests that writes every line it is sent to a file: transcript.sh LOG.
# It answers just enough of UCI, UCCI and XBoard to be driven: the handshakes, ready
# checks, and a search that always plays h2e2 (h3e3 once told UCI_Variant, whose ranks
# count from 1).
log=$1
move=h2e2
while read -r line; do
    printf '%s\n' "$line" >>"$log"
    case $line in
    uci) echo "id name transcript"; echo "uciok" ;;
    ucci) echo "id name transcript"; echo "ucciok" ;;
    "setoption name UCI_Variant value xiangqi") move=h3e3 ;;
    isready) echo "readyok" ;;
    "protover 2")
        echo 'feature myname="transcript" variants="xiangqi" setboard=1 usermove=1 ping=1'
        echo 'feature memory=1 option="Mood -combo calm /// grim" done=1'
        ;;
    ping*) echo "pong ${line#ping }" ;;
    "go depth"* | "go wtime"* | "go time"*)
        echo "info depth 1 score cp 5 nodes 10"; echo "bestmove $move" ;;
    go) echo "1 5 0 10 $move"; echo "move $move" ;;
    quit) exit 0 ;;
    esac
done
