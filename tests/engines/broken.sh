#!/bin/sh
# A broken engine for the tests, speaking UCI or XBoard (whichever it is greeted in):
# broken.sh FAULT completes the handshake, then at every search
#   crash    exits
#   illegal  answers with an impossible move
#   hang     never answers
# except longline, which answers the greeting with 10 MB and no newline.
fault=$1
xboard=0
while read -r line; do
    case $line in
    uci)
        [ "$fault" = longline ] && head -c 10000000 /dev/zero | tr '\0' x
        echo "id name $fault"
        echo "uciok"
        ;;
    "protover 2")
        xboard=1
        echo "feature myname=\"$fault\" variants=\"xiangqi\" setboard=1 ping=1 done=1"
        ;;
    isready) echo "readyok" ;;
    ping*) echo "pong ${line#ping }" ;;
    go*)
        case $fault in
        crash) exit 3 ;;
        illegal)
            if [ $xboard = 1 ]; then
                echo "1 0 0 1 a0a0"; echo "move a0a0"
            else
                echo "info depth 1 score cp 0 nodes 1"; echo "bestmove a0a0"
            fi
            ;;
        esac
        ;;
    quit) exit 0 ;;
    esac
done
