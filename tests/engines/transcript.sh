#!/bin/sh
# An engine for the tests that writes every line it is sent to a file: transcript.sh LOG.
# It answers just enough of UCI, UCCI and XBoard to be driven: the handshakes (with a
# few options announced), ready checks, and a search that always plays h2e2 (h3e3 once
# told UCI_Variant, whose ranks count from 1).
log=$1
move=h2e2
while read -r line; do
    printf '%s\n' "$line" >>"$log"
    case $line in
    uci)
        echo "id name transcript"
        echo "option name Skill Level type spin default 20 min 0 max 20"
        echo "option name Ponder type check default false"
        echo "option name Hash type spin default 16 max 1024"
        echo "uciok"
        ;;
    ucci)
        echo "id name transcript"
        echo "option hashsize type spin min 0 max 1024 default 16"
        echo "ucciok"
        ;;
    "setoption name UCI_Variant value xiangqi") move=h3e3 ;;
    isready) echo "readyok" ;;
    "protover 2")
        echo 'feature myname="transcript" variants="xiangqi" setboard=1 usermove=1 ping=1'
        echo 'feature memory=1 option="Mood -combo calm /// grim"'
        echo 'feature option="Depth limit -spin 0 0 99" done=1'
        ;;
    ping*) echo "pong ${line#ping }" ;;
    "go depth"* | "go wtime"* | "go time"*)
        echo "info depth 1 score cp 5 nodes 10"; echo "bestmove $move" ;;
    go) echo "1 5 0 10 $move"; echo "move $move" ;;
    quit) exit 0 ;;
    esac
done
