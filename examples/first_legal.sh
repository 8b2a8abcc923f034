#!/bin/sh
# An Amazons player for `arena bot --engine-cmd`, in POSIX shell and awk: a template to copy.
# It speaks the line protocol of docs/bot-protocol.md on stdin and stdout and answers the first
# legal move it finds in the position text it is sent (amazons by file, then destination, then
# arrow, each scanning the eight directions in turn).
#
#     arena bot --server ws://localhost:8765 --engine-cmd "sh examples/first_legal.sh"

first_legal_move() {
    # $1 is position text such as `2B2B/6/B4B/W4W/6/1W2W1 w`; prints `move d1-d4/b4`.
    echo "$1" | awk '
    function queen_reach(f, r, df, dr,    n) {
        # how many empty squares from (f, r) in direction (df, dr); they go in rayf/rayr[1..n]
        n = 0
        f += df; r += dr
        while ((f, r) in board && board[f, r] == ".") {
            n++; rayf[n] = f; rayr[n] = r
            f += df; r += dr
        }
        return n
    }
    function square(f, r) { return substr("abcdefghijklmnopqrstuvwxyz", f + 1, 1) (r + 1) }
    {
        side = ($2 == "b") ? "B" : "W"
        height = split($1, rows, "/")
        for (i = 1; i <= height; i++) {
            r = height - i; f = 0; count = ""
            row = rows[i] "/"
            for (j = 1; j <= length(row); j++) {
                c = substr(row, j, 1)
                if (c ~ /[0-9]/) { count = count c; continue }
                for (k = 0; k < count + 0; k++) board[f++, r] = "."
                count = ""
                if (c ~ /[WBx]/) board[f++, r] = c
            }
        }
        split("-1 -1 -1 0 0 1 1 1", dfs, " ")
        split("-1 0 1 -1 1 -1 0 1", drs, " ")
        # amazons in order of file then rank: the first with a move plays it
        for (f0 = 0; f0 < 26; f0++) for (r0 = 0; r0 < height; r0++) {
            if (!((f0, r0) in board) || board[f0, r0] != side) continue
            board[f0, r0] = "."
            for (d = 1; d <= 8; d++) {
                n = queen_reach(f0, r0, dfs[d], drs[d])
                for (m = 1; m <= n; m++) { tof[m] = rayf[m]; tor[m] = rayr[m] }
                for (m = 1; m <= n; m++) {
                    board[tof[m], tor[m]] = side
                    for (e = 1; e <= 8; e++) {
                        if (queen_reach(tof[m], tor[m], dfs[e], drs[e]) > 0) {
                            print "move " square(f0, r0) "-" square(tof[m], tor[m]) "/" \
                                square(rayf[1], rayr[1])
                            exit
                        }
                    }
                    board[tof[m], tor[m]] = "."
                }
            }
            board[f0, r0] = side
        }
        print "error no legal move in " $0
    }'
}

while IFS= read -r line; do
    case $line in
        "arena 1")
            echo "name first-legal"
            echo "games amazons"
            echo "ready"
            ;;
        "arena "*)
            echo "error first-legal speaks protocol 1, not ${line#arena }"
            exit 0
            ;;
        "position "*) position=${line#position } ;;
        go) first_legal_move "$position" ;;
        quit) exit 0 ;;
    esac  # game, moves and clocks: this player has no use for them
done
