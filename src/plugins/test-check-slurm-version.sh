#!/bin/sh
# check-slurm-version against stand-ins: daemons that print a release
# (slurmctld -V) and plugin files that carry a build mark, in slurm.confs
# that load them or not.  TAP.
set -u
prog=${builddir:-.}/check-slurm-version
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
mkdir -p "$t/bin" "$t/plugins"
daemon() { # daemon NAME RELEASE
	printf '#!/bin/sh\necho "slurm-wlm %s"\n' "$2" >"$t/bin/$1"
	chmod 755 "$t/bin/$1"
}
plugin() { printf 'ELF...slurm-elastic-built-for-slurm=%s...\n' "$2" >"$t/plugins/$1"; }
conf() { # conf JOBSUBMIT PLUGSTACK-LINE
	printf 'ClusterName=t\nJobSubmitPlugins=%s # site\nPluginDir=%s/none:%s/plugins:%s/later\nPlugStackConfig=%s/plugstack.conf\n' \
		"$1" "$t" "$t" "$t" "$t" >"$t/slurm.conf"
	echo "$2" >"$t/plugstack.conf"
}
n=0
check() { # check NAME DAEMON WANT-RC WANT-OUTPUT-REGEX ('' for none)
	n=$((n + 1))
	out=$(PATH="$t/bin:$PATH" SLURM_CONF=$t/slurm.conf "$prog" "$2" 2>&1)
	rc=$?
	if [ "$rc" != "$3" ]; then
		echo "not ok $n - $1: exit $rc, not $3 ($out)"
	elif [ -z "$4" ] && [ -n "$out" ]; then
		echo "not ok $n - $1: said \"$out\""
	elif [ -n "$4" ] && ! echo "$out" | grep -qE "$4"; then
		echo "not ok $n - $1: \"$out\" does not match $4"
	elif [ -n "$4" ] && [ "$(echo "$out" | wc -l)" != 1 ]; then
		echo "not ok $n - $1: more than one line: $out"
	else
		echo "ok $n - $1"
	fi
}
echo "1..10"
daemon slurmctld 22.05.8
daemon slurmd 22.05.8
plugin job_submit_elastic.so 0x160508
plugin spank_elastic.so 0x160507
conf "lua,elastic" "required spank_elastic.so"
check "job_submit plugin of slurmctld's release" slurmctld 0 ''
plugin job_submit_elastic.so 0x160507
check "built for 22.05.7, slurmctld 22.05.8: stopped, the fix named" slurmctld 1 \
	'job_submit_elastic.so is built for Slurm 22.05.7 and slurmctld is 22.05.8: .*install slurm-elastic built for Slurm 22.05.8 .*or take elastic out of JobSubmitPlugins'
conf "job_submit/elastic" "required spank_elastic.so"
check "... named job_submit/elastic" slurmctld 1 'built for Slurm 22.05.7'
mkdir -p "$t/later"
printf 'ELF...slurm-elastic-built-for-slurm=0x160508...\n' >"$t/later/job_submit_elastic.so"
check "... and one of slurmctld's release later in PluginDir: Slurm loads that one" slurmctld 0 ''
rm -r "$t/later"
conf "lua" "required spank_elastic.so"
check "... not in JobSubmitPlugins: not loaded, nothing said" slurmctld 0 ''
check "SPANK plugin of another micro release: loaded" slurmd 0 ''
daemon slurmd 24.11.5
check "SPANK plugin of 22.05 in a 24.11 slurmd, required: stopped" slurmd 1 \
	'spank_elastic.so is built for Slurm 22.05.7 and slurmd is 24.11.5: .*or mark the plugin optional in'
conf "lua" "optional $t/plugins/spank_elastic.so"
check "... optional: started, with a warning" slurmd 0 'Slurm skips this optional SPANK plugin'
conf "lua" "# required spank_elastic.so"
check "... not in plugstack.conf: nothing said" slurmd 0 ''
printf 'no mark here\n' >"$t/plugins/job_submit_elastic.so"
conf "elastic" ""
check "a plugin without a mark (an older build): nothing to compare" slurmctld 0 ''
