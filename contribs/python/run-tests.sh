#!/bin/sh
# The Python module's unit tests as TAP.  A missing interpreter is a
# failure, not a skip: fewer tests must never pass for all of them.
here=$(dirname "$0")
case ${PYTHON:-:} in
:) PYTHON=/usr/bin/python3 ;;
esac
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 7))' 2>/dev/null; then
	echo "1..1"
	echo "not ok 1 - no Python 3.7 or later at $PYTHON (apt-get install python3), the slurm_elastic tests cannot run"
	exit 1
fi
exec "$PYTHON" "$here/tests/tap.py"
