#!/bin/sh
# The admin's path, as the README and the man pages give it, agrees with
# the files it names (no cluster needed): the install lines name every
# package debian/control builds; the examples the README sends the admin
# to are the ones the plugins' package installs; elasticd(8)'s command
# line for a start without systemd is the unit's; the README's MaxGrace
# fits the GraceTime of the preemptible partition of slurm.conf.example.
set -eu
top=${srcdir:-.}
fail() { echo "test_admin: FAIL: $*"; exit 1; }
# A man page as text: roff's escapes for -, fonts and zero widths undone.
unroff() { sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\&//g' "$1"; }
n=0

# Every package of debian/control, in the README's Debian install lines.
pkgs=$(sed -n 's/^Package: *//p' "$top/debian/control")
[ -n "$pkgs" ] || fail "no Package in debian/control"
for p in $pkgs; do
	grep -qF "../${p}_*.deb" "$top/README.md" ||
		fail "README.md: no '../${p}_*.deb' in the install lines (debian/control builds $p)"
	n=$((n + 1))
done

# The examples: installed by the plugins' package, named by the README
# where they land, and there in the tree.
ex=$top/debian/slurm-elastic-plugins.examples
[ -f "$ex" ] || fail "no $ex: the README's examples are not installed"
grep -qF '/usr/share/doc/slurm-elastic-plugins/examples/' "$top/README.md" ||
	fail "README.md does not name /usr/share/doc/slurm-elastic-plugins/examples/"
while read -r f; do
	[ -f "$top/$f" ] || fail "$ex: $f is not in the tree"
	grep -qF "${f##*/}" "$top/README.md" || fail "README.md does not name ${f##*/}"
	n=$((n + 1))
done <"$ex"

# elasticd(8), RUNNING WITHOUT SYSTEMD: the unit's environment file,
# command (the packages' sbindir) and state directory.
unit=$top/etc/elasticd.service.in
page=$(unroff "$top/doc/man/elasticd.8" |
	sed -n '/^\.SH RUNNING WITHOUT SYSTEMD/,/^\.SH /p')
[ -n "$page" ] || fail "elasticd.8 has no RUNNING WITHOUT SYSTEMD"
envfile=$(sed -n 's/^EnvironmentFile=-\{0,1\}//p' "$unit")
exec_start=$(sed -n 's/^ExecStart=//p' "$unit" | sed 's|@sbindir@|/usr/sbin|')
state=$(sed -n 's/^StateDirectory=//p' "$unit")
if [ -z "$envfile" ] || [ -z "$exec_start" ] || [ -z "$state" ]; then
	fail "$unit: no EnvironmentFile, ExecStart or StateDirectory"
fi
printf '%s\n' "$page" | grep -qF ". $envfile" ||
	fail "elasticd.8 does not read the unit's EnvironmentFile $envfile"
printf '%s\n' "$page" | grep -q "^$exec_start " ||
	fail "elasticd.8 does not show the unit's command line: $exec_start"
printf '%s\n' "$page" | grep -qF "/var/lib/$state" ||
	fail "elasticd.8 does not name the unit's state directory /var/lib/$state"
n=$((n + 3))

# The README's elastic.conf: MaxGrace within the GraceTime of its
# preemptible partition in slurm.conf.example.
ex_dir=$(mktemp -d)
trap 'rm -rf "$ex_dir"' EXIT
"$top/testsuite/docs/extract-examples" "$ex_dir" "$top/README.md" >/dev/null ||
	fail "README.md: its examples do not extract"
conf=$(cat "$ex_dir/elastic.conf")
part=$(printf '%s\n' "$conf" | sed -n 's/^PreemptiblePartitions=\([^,]*\).*/\1/p')
max=$(printf '%s\n' "$conf" | sed -n 's/^MaxGrace=//p')
max=${max:-3600}
grace=$(sed -n "s/^PartitionName=$part .*GraceTime=\([0-9]*\).*/\1/p" "$top/etc/slurm.conf.example")
if [ -z "$part" ] || [ -z "$grace" ]; then
	fail "no GraceTime for the README's PreemptiblePartitions ($part) in etc/slurm.conf.example"
fi
[ "$max" -le "$grace" ] ||
	fail "README.md: MaxGrace=$max is above GraceTime=$grace of partition $part in etc/slurm.conf.example"
n=$((n + 1))

echo "test_admin: PASS: $n checks"
