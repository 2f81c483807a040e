#!/bin/sh
# The documentation's examples are there and well formed (no cluster
# needed): the complete training loops of the README, libelastic(3) and
# spank_elastic(8), and spank_elastic(8)'s batch script and size config;
# the admin's install lines, configuration and elasticd's start of the
# README and elasticd(8) (t0108-admin-path.t runs them).
# Deleting one from its page, or letting two copies of one drift apart,
# fails here; t0270-doc-examples.t runs them on the cluster.
set -eu
top=${srcdir:-.}
out=$(mktemp -d "${TMPDIR:-/tmp}/doc-examples.XXXXXX")
trap 'rm -rf "$out"' EXIT
fail() { echo "test_examples: FAIL: $*"; exit 1; }

"$top/testsuite/docs/extract-examples" "$out" "$top/README.md" \
	"$top/doc/man/libelastic.3" "$top/doc/man/spank_elastic.8" "$top/doc/man/elasticd.8" >"$out/list" ||
	fail "the extractor failed"
for want in "train.py $top/README.md" "train.py $top/doc/man/spank_elastic.8" \
	"rank.c $top/doc/man/libelastic.3" "train.sh $top/doc/man/spank_elastic.8" \
	"sizes.conf $top/doc/man/spank_elastic.8" "install-debs.sh $top/README.md" \
	"plugstack.conf $top/README.md" "slurm.conf $top/README.md" "elastic.conf $top/README.md" \
	"start-elasticd.sh $top/README.md" "elasticd-by-hand.sh $top/doc/man/elasticd.8"; do
	grep -qxF "$want" "$out/list" || fail "no example ${want%% *} in ${want#* }"
done
/usr/bin/python3 -c 'import ast, sys; ast.parse(open(sys.argv[1]).read())' "$out/train.py" ||
	fail "train.py does not parse"
for sh in train.sh install-debs.sh start-elasticd.sh elasticd-by-hand.sh; do
	bash -n "$out/$sh" || fail "$sh does not parse"
done
mkdir -p "$out/inc/slurm-elastic"
cp "$top/src/libelastic/elastic.h" "$out/inc/slurm-elastic/"
mpicc -fsyntax-only -Wall -Wextra -Werror -I"$out/inc" "$out/rank.c" ||
	fail "rank.c does not compile"
grep -q 'exit_for_event()' "$out/train.py" && grep -q 'elastic_exit_event()' "$out/rank.c" ||
	fail "a loop does not exit with the event status"
echo "test_examples: PASS: $(wc -l <"$out/list") examples"
