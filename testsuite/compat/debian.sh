# shellcheck shell=bash
# Debian's registry as this machine's apt is set up to reach it, for the
# tools that fetch another Debian release's packages (slurm-headers, leg).
# Sourced; defines functions only.

# debian_mirror: the URI of the machine's first source of Debian's main
# archive (deb822 .sources or one-line .list), not its security archive.
debian_mirror() {
	local f uri
	for f in /etc/apt/sources.list.d/*.sources /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -r "$f" ] || continue
		uri=$(awk '
			/^URIs:/ { for (i = 2; i <= NF; i++) if ($i ~ /\/debian\/?$/) { print $i; exit } }
			/^deb[ \t]/ { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\// && $i ~ /\/debian\/?$/) { print $i; exit } }
		' "$f")
		if [ -n "$uri" ]; then
			echo "${uri%/}"
			return 0
		fi
	done
	echo "no Debian archive among this machine's apt sources (/etc/apt/sources.list*)" >&2
	return 1
}
