# shellcheck shell=bash
# The packaging checks' report, sourced by deb-check and rpmspec-check:
# one PASS or FAIL line per check, then "NAME: N passed, M failed" and the
# exit status (1 on any failure).  Defines functions only.

passed=0 failed=0
# result STATUS WHAT: one check's line, STATUS 0 for a pass.
result() {
	local ok=$1
	shift
	if [ "$ok" = 0 ]; then
		echo "PASS: $*"
		passed=$((passed + 1))
	else
		echo "FAIL: $*"
		failed=$((failed + 1))
	fi
}
# finish NAME: the final line, and exit.
finish() {
	echo "$1: $passed passed, $failed failed"
	[ "$failed" = 0 ] && exit 0
	exit 1
}
