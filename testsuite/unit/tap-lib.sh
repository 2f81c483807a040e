# What the check-*.sh scripts share, sourced: their TAP lines.  The
# script sets n=0 and, for each case, the command's output in $dir/out
# and $dir/err and its status in $rc.
# shellcheck shell=sh disable=SC2154 # dir and rc are the script's

# ok_if DESCRIPTION CONDITION...: one TAP line, and the output on failure.
ok_if() {
	what=$1
	shift
	n=$((n + 1))
	if "$@"; then
		echo "ok $n - $what"
	else
		echo "not ok $n - $what"
		sed 's/^/# stdout: /' "$dir/out" | head -n 60
		sed 's/^/# stderr: /' "$dir/err" | head -n 60
		echo "# status: $rc"
	fi
}
