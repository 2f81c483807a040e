#!/bin/sh
# elasticd's systemd unit as built (etc/elasticd.service): hardened, and
# still giving elasticd what it uses.  systemd-analyze rates the file
# offline (no systemd need run): its exposure must stay under 4.0 ("OK").
# Then what elasticd needs must be there: its program, StateDirectory for
# ElasticdStateDir, the socket families of munged, slurmctld and the API,
# the system calls of a networked service, and none of the paths it reads
# (Slurm's and its own configuration, munged's socket, the libraries and
# plugins) hidden.  systemd-analyze is Debian's systemd package: without
# it this test fails, it does not skip.
set -eu
unit=${ELASTICD_UNIT:-etc/elasticd.service}
fail() {
	echo "test_service: FAIL: $*"
	exit 1
}

[ -f "$unit" ] || fail "$unit: not built (make -C etc)"
command -v systemd-analyze >/dev/null 2>&1 ||
	fail "systemd-analyze is missing (apt-get install systemd)"
out=$(systemd-analyze security --offline=true "$unit" 2>&1) ||
	fail "systemd-analyze security --offline=true $unit: $out"
score=$(printf '%s\n' "$out" |
	sed -n 's/.*Overall exposure level for [^:]*: \([0-9][0-9]*\.[0-9]\).*/\1/p')
[ -n "$score" ] || fail "no exposure level in: $out"
# Tenths, as integers: 1.6 is 16.
if [ "$(echo "$score" | tr -d .)" -ge 40 ]; then
	printf '%s\n' "$out" | grep '✗' || true
	fail "$unit: exposure $score, must stay under 4.0"
fi

# The value of KEY (the last, as systemd reads a key given twice; all of
# them for keys whose values add up).
value() { sed -n "s/^$1=//p" "$unit" | tail -n 1; }
values() { sed -n "s/^$1=//p" "$unit" | tr '\n' ' '; }
has() { printf ' %s ' "$1" | grep -q " $2 "; }

value ExecStart | grep -q '^/.*/elasticd \$ELASTICD_OPTIONS$' ||
	fail "ExecStart= does not run elasticd by its absolute path with \$ELASTICD_OPTIONS"
values ExecReload | grep -q '/elasticd --check-config \$ELASTICD_OPTIONS' ||
	fail "ExecReload= does not check the configuration first"
[ "$(value StateDirectory)" = elasticd ] ||
	fail "StateDirectory=elasticd is gone: /var/lib/elasticd would be read-only"
[ "$(value EnvironmentFile)" = -/etc/default/elasticd ] ||
	fail "EnvironmentFile=-/etc/default/elasticd is gone"
families=$(value RestrictAddressFamilies)
for f in AF_UNIX AF_INET AF_INET6; do
	has "$families" "$f" || fail "RestrictAddressFamilies= lacks $f (munged's socket and NSS: AF_UNIX; slurmctld, slurmd, the API: AF_INET, AF_INET6)"
done
case $families in "~"*) fail "RestrictAddressFamilies= is a deny list" ;; esac
filters=$(values SystemCallFilter)
has "$filters" @system-service ||
	fail "SystemCallFilter= does not allow @system-service"
denied=$(sed -n 's/^SystemCallFilter=~//p' "$unit" | tr '\n' ' ')
for g in @network-io @file-system @basic-io @io-event @signal @timer @process; do
	has "$denied" "$g" && fail "SystemCallFilter= denies $g, which elasticd uses"
done
[ "$(value SystemCallErrorNumber)" = EPERM ] ||
	fail "SystemCallErrorNumber=EPERM is gone: a refused call would kill elasticd"
[ "$(value ProtectSystem)" = strict ] ||
	fail "ProtectSystem=strict is gone"
for k in PrivateNetwork IPAddressDeny IPAddressAllow; do
	[ -z "$(value "$k")" ] ||
		fail "$k= is set: elasticd talks to slurmctld, the nodes and its clients"
done
# Paths it reads or connects to: none hidden; its state: not read-only.
# covers PATH NEED: PATH is NEED or a directory above it.
covers() {
	case ${2%/}/ in "${1%/}"/*) return 0 ;; esac
	return 1
}
# The paths of KEYS, without systemd's "-" and "+" prefixes and ":options".
paths() {
	for k in "$@"; do values "$k"; done | tr ' ' '\n' |
		sed -e 's/^[-+]*//' -e 's/:.*//' | grep . || true
}
for p in $(paths InaccessiblePaths TemporaryFileSystem); do
	for need in /etc/slurm /etc/passwd /run/munge /usr/lib /var/lib/elasticd; do
		covers "$p" "$need" && fail "$p is hidden: elasticd needs $need"
	done
done
for p in $(paths ReadOnlyPaths BindReadOnlyPaths); do
	covers "$p" /var/lib/elasticd && fail "$p is read-only: elasticd writes /var/lib/elasticd"
done
echo "test_service: PASS: exposure $score OK, the paths and sockets elasticd needs are there"
