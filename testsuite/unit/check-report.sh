#!/bin/sh
# elasticctl report on a saved account document (--from-file; the story
# of acct-story.json: a growth, a preemption, a crash, a hang, a
# straggler, a spare swapped in, a shrink): the text adds up, gnuplot
# draws a PNG of real size (its IHDR) and an SVG that names every event,
# nothing is left in TMPDIR, and a missing gnuplot, a wrong job or a
# document that does not add up are said in one line.  No Slurm, no
# elasticd; gnuplot is needed (gnuplot-nox).  TAP, one test per case.
top=${top_builddir:-../..}
src=${srcdir:-.}
ctl=$top/src/elasticctl/elasticctl
story=$src/acct-story.json
dir=$(mktemp -d "${TMPDIR:-/tmp}/check-report.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/tmp"
n=0
total=11

echo "1..$total"
# shellcheck source=testsuite/unit/tap-lib.sh
. "${srcdir:-.}/tap-lib.sh"
# ctl_with VAR=VALUE ARGS...: elasticctl ARGS with VAR set, into out,
# err, rc.
ctl_with() {
	v=$1
	shift
	env TMPDIR="$dir/tmp" "$v" "$ctl" "$@" >"$dir/out" 2>"$dir/err"
	rc=$?
}
# report ARGS...: elasticctl report ARGS.
report() { ctl_with TMPDIR="$dir/tmp" report "$@"; }
has() { grep -q -- "$2" "$1"; }
lines() { [ "$(wc -l <"$1")" -eq "$2" ]; }

if [ ! -x "$ctl" ]; then
	while [ $n -lt $total ]; do
		n=$((n + 1))
		echo "not ok $n - $ctl: not built"
	done
	exit 0
fi

# The unsigned big-endian 32-bit number at byte OFFSET of FILE.
u32() { od -An -tu1 -j "$2" -N4 "$1" | awk '{ print (($1 * 256 + $2) * 256 + $3) * 256 + $4 }'; }
png_ok() {
	f=$1
	[ "$(od -An -c -j1 -N3 "$f" | tr -d ' ')" = PNG ] &&
		[ "$(od -An -c -j12 -N4 "$f" | tr -d ' ')" = IHDR ] &&
		w=$(u32 "$f" 16) && h=$(u32 "$f" 20) &&
		echo "# $f: ${w}x$h, $(wc -c <"$f") bytes" &&
		[ "$w" -gt 0 ] && [ "$h" -gt 0 ] && [ "$(wc -c <"$f")" -gt 10240 ]
}
svg_marks() {
	kinds=$(grep -o '"kind": "[a-z-]*"' "$story" | sed 's/.*: "//; s/"//' | sort -u)
	[ "$(echo "$kinds" | wc -l)" -eq 7 ] || return 1
	for k in $kinds; do
		grep -q ">$k<" "$1" || {
			echo "# no label $k in $1"
			return 1
		}
	done
}
empty() { [ -z "$(ls -A "$1")" ]; }

report --from-file "$story" --png "$dir/story.png" --svg "$dir/story.svg"
ok_if "report --png --svg: exit 0, the text adds up" \
	eval '[ $rc = 0 ] && has "$dir/out" "^held = training + lost: 4956.0 = 4340.0 + 616.0 node-seconds: adds up" && [ ! -s "$dir/err" ]'
ok_if "the PNG: its IHDR's width and height > 0, more than 10 kB" png_ok "$dir/story.png"
ok_if "the SVG names each of the story's seven kinds of event" svg_marks "$dir/story.svg"
ok_if "no file left in TMPDIR" empty "$dir/tmp"

report 4242 --json --from-file "$story"
ok_if "--json: the document as it was" eval '[ $rc = 0 ] && cmp -s "$story" "$dir/out"'

ctl_with GNUPLOT="$dir/no-gnuplot" report --from-file "$story" --svg "$dir/x.svg"
ok_if "GNUPLOT names no gnuplot: exit 1, one line naming --png/--svg and gnuplot" \
	eval '[ $rc = 1 ] && lines "$dir/err" 1 && has "$dir/err" "--png/--svg: GNUPLOT=.*gnuplot" && [ ! -e "$dir/x.svg" ]'

ctl_with PATH="$dir/tmp" report --from-file "$story" --png "$dir/x.png"
ok_if "no gnuplot on PATH: exit 1, one line naming --png/--svg and gnuplot" \
	eval '[ $rc = 1 ] && lines "$dir/err" 1 && has "$dir/err" "^elasticctl: --png/--svg: gnuplot not found" && [ ! -e "$dir/x.png" ]'

printf '#!/bin/sh\necho "$2" line 3: undefined variable: x >&2\nexit 1\n' >"$dir/bad-gnuplot"
chmod +x "$dir/bad-gnuplot"
ctl_with GNUPLOT="$dir/bad-gnuplot" report --from-file "$story" --png "$dir/x.png"
ok_if "gnuplot failing: exit 1, its last line said, no file left in TMPDIR" \
	eval '[ $rc = 1 ] && lines "$dir/err" 1 && has "$dir/err" "gnuplot failed (exit status 1): report.gp line 3: undefined variable: x" && empty "$dir/tmp" && [ ! -e "$dir/x.png" ]'

report 99 --from-file "$story"
ok_if "another job's document: exit 1" \
	eval '[ $rc = 1 ] && has "$dir/err" "the account of job 4242, not of job 99"'

sed 's/"held": 4956.0/"held": 4960.0/' "$story" >"$dir/off.json"
report --from-file "$dir/off.json"
ok_if "causes that do not add up: the text says so, exit 1" \
	eval '[ $rc = 1 ] && has "$dir/out" "does NOT add up (off by 4.0)" && has "$dir/err" "do not add up"'

ctl_with TMPDIR="$dir/tmp" status --png "$dir/x.png"
ok_if "--png with another command: a usage error" \
	eval '[ $rc = 2 ] && has "$dir/err" "options of report"'
