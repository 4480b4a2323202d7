#!/bin/sh
# run.sh TREE OUT [FLAGS...]: writes the equivalence tree of the worktree
# TREE to the folder OUT (emptied first). If TREE has no copy of the tool
# (a commit before it), this folder's files are copied in first; the copy is
# left there, untracked. FLAGS go to the tool (-equiv.only, -equiv.all,
# -equiv.parallel, -equiv.matrix). See README.md.
set -eu
[ $# -ge 2 ] || { echo "usage: $0 TREE OUT [FLAGS...]" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
tree=$(cd "$1" && pwd)
case $2 in /*) out=$2 ;; *) out=$(pwd)/$2 ;; esac
shift 2
dst=$tree/lro/internal/testing/equiv
if [ ! -f "$dst/equiv_test.go" ]; then
	mkdir -p "$dst"
	cp "$here"/*.go "$here"/run.sh "$here"/README.md "$dst"/
fi
cd "$dst"
exec nice go test -count=1 -timeout 30m -run '^TestEquiv$' . -equiv.out "$out" "$@"
