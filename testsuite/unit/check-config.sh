#!/bin/sh
# elasticd --check-config, the built daemon on files of this test's own:
# a good file passes ("PATH: OK", status 0, nothing on stderr), a bad one
# fails with one line per error naming the key and what is allowed and
# "PATH: N errors" (status 1), the host's checks of a start (ElasticdUser,
# ElasticdStateDir) apply, levels reach the journal as prefixes, and no
# Slurm is needed (SLURM_CONF names no file: libslurm would stop at it).
# TAP, one test per case.
top=${top_builddir:-../..}
elasticd=$top/src/elasticd/elasticd
dir=$(mktemp -d "${TMPDIR:-/tmp}/check-config.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
me=$(id -un)
export SLURM_CONF="$dir/no-slurm/slurm.conf"
unset JOURNAL_STREAM
n=0

echo "1..8"
# shellcheck source=testsuite/unit/tap-lib.sh
. "${srcdir:-.}/tap-lib.sh"
# check FILE ARGS...: elasticd --check-config -f FILE, into out, err, rc.
check() {
	f=$1
	shift
	"$elasticd" --check-config -f "$f" "$@" >"$dir/out" 2>"$dir/err"
	rc=$?
}
is() { [ "$(cat "$1")" = "$2" ]; }

if [ ! -x "$elasticd" ]; then
	while [ $n -lt 8 ]; do
		n=$((n + 1))
		echo "not ok $n - $elasticd: not built"
	done
	exit 0
fi

mkdir -m 0700 "$dir/state"
cat >"$dir/good.conf" <<EOF
# A site's file: every line valid, the host's checks too.
MaxNodes=64
PreemptiblePartitions=spot
ElasticdListen=*:6830
ElasticdUser=$me
ElasticdStateDir=$dir/state
ElasticdUnitProgram=/bin/sh
EOF
check "$dir/good.conf"
ok_if "a good file: OK on stdout, nothing on stderr, status 0" \
	eval '[ $rc = 0 ] && is "$dir/out" "$dir/good.conf: OK" && ! [ -s "$dir/err" ]'

cat >"$dir/bad.conf" <<EOF
MaxNodes=lots
ElasticdUser=$me
Bogus=1
ElasticdListen=localhost
DefaultOnDemand=sometimes
ElasticdNotify=no
EOF
check "$dir/bad.conf"
cat >"$dir/want" <<EOF
elasticd: $dir/bad.conf:1: MaxNodes=lots: not a whole number (allowed: 1 to 65535)
elasticd: $dir/bad.conf:3: unknown key 'Bogus' (see elastic.conf(5) for the keys)
elasticd: $dir/bad.conf:4: ElasticdListen=localhost: no port (want HOST:PORT, [IPV6]:PORT or *:PORT, e.g. 127.0.0.1:6830)
elasticd: $dir/bad.conf:5: DefaultOnDemand=sometimes: not valid (allowed: never, below-min, always)
EOF
ok_if "a bad file: every error, one a line with its key and what is allowed, status 1" \
	eval '[ $rc = 1 ] && cmp -s "$dir/want" "$dir/err" && is "$dir/out" "$dir/bad.conf: 4 errors"'

printf 'ElasticdUser=%s\nElasticdNotify=no\nMaxNodes=4\nDefaultMinNodes=5\n' "$me" >"$dir/rel.conf"
check "$dir/rel.conf"
ok_if "keys that disagree: the relation named, status 1" \
	eval '[ $rc = 1 ] && is "$dir/err" "elasticd: $dir/rel.conf: DefaultMinNodes=5 is above MaxNodes=4"'

check "$dir/none.conf"
ok_if "-f names a file that is not there: status 1" \
	eval '[ $rc = 1 ] && is "$dir/err" "elasticd: $dir/none.conf: No such file or directory" && is "$dir/out" "$dir/none.conf: 1 error"'

other=nobody
[ "$me" != nobody ] || other=root
printf 'ElasticdUser=%s\nElasticdNotify=no\n' "$other" >"$dir/user.conf"
check "$dir/user.conf"
ok_if "ElasticdUser not the user it runs as: status 1, as a start" \
	eval '[ $rc = 1 ] && grep -q "ElasticdUser=$other (uid [0-9]*), but elasticd runs as uid $(id -u)" "$dir/err"'

# What a start only warns about: the state directory open to others.
chmod 0770 "$dir/state"
check "$dir/good.conf"
ok_if "a state directory open to others: a warning, status 0" \
	eval '[ $rc = 0 ] && is "$dir/err" "elasticd: warning: ElasticdStateDir $dir/state: not a directory of ours, writable by us only: elasticd would run without saved state" && is "$dir/out" "$dir/good.conf: OK"'
chmod 0700 "$dir/state"

# The journal's stream is stderr when JOURNAL_STREAM names it.
: >"$dir/journal"
JOURNAL_STREAM=$(stat -c %d:%i "$dir/journal") \
	"$elasticd" --check-config -f "$dir/bad.conf" >"$dir/out" 2>>"$dir/journal"
rc=$?
cp "$dir/journal" "$dir/err"
ok_if "under the journal: each line prefixed <3>, its level" \
	eval '[ $rc = 1 ] && [ "$(grep -c "^<3>elasticd: $dir/bad.conf:" "$dir/journal")" = 4 ]'

# Without a file, the defaults: a start as root passes, as another user
# fails on ElasticdUser (root by default).
SLURM_CONF="$dir/slurm.conf" "$elasticd" --check-config >"$dir/out" 2>"$dir/err"
rc=$?
if [ "$(id -u)" = 0 ]; then
	ok_if "no elastic.conf beside slurm.conf: the defaults apply, status 0" \
		eval '[ $rc = 0 ] && is "$dir/out" "$dir/elastic.conf: OK (no such file: the built-in defaults apply)"'
else
	ok_if "no elastic.conf beside slurm.conf: the defaults, ElasticdUser=root, status 1" \
		eval '[ $rc = 1 ] && grep -q "ElasticdUser=root (uid 0)" "$dir/err"'
fi
