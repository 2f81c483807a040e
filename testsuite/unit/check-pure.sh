#!/bin/sh
# libcommon is pure: none of its objects may fork, exec, touch the file
# system, write a log or call Slurm (what does goes in libcommonio).  TAP, one test per
# library checked: libcommon, libtrace, elasticctl's libcheck (check's
# decisions) and libreport (report's text and gnuplot script) must have
# none of these symbols; libcommonio, the check's
# own control, must have some (else the check sees nothing).
top=${top_builddir:-../..}
libs="$top/src/common/.libs"
bad='^(fork|vfork|execv|execvp|execve|execl|execlp|posix_spawn|posix_spawnp|system|popen|open|open64|openat|openat64|creat|fopen|fopen64|freopen|opendir|fdopendir|readdir|readdir64|unlink|unlinkat|rename|renameat|mkdir|mkdirat|rmdir|stat|stat64|lstat|fstatat|fstatat64|readlink|readlinkat|printf|vprintf|fprintf|vfprintf|__printf_chk|__fprintf_chk|__vfprintf_chk|puts|fputs|fwrite|write|stderr|stdout|syslog|vsyslog|slurm_.*)$'
echo "1..5"
if ! command -v nm >/dev/null 2>&1; then
	echo "not ok 1 - nm (binutils) is needed to read libcommon's symbols"
	echo "not ok 2 - nm (binutils) is needed to read libcommonio's symbols"
	echo "not ok 3 - nm (binutils) is needed to read libtrace's symbols"
	echo "not ok 4 - nm (binutils) is needed to read libcheck's symbols"
	echo "not ok 5 - nm (binutils) is needed to read libreport's symbols"
	exit 0
fi
undefined() { nm -u "$1" 2>/dev/null | awk '{ print $NF }' | sed 's/@.*//' | grep -E "$bad" | sort -u | tr '\n' ' '; }
pure() {
	lib=${4:-$libs}/$2.a
	if [ ! -f "$lib" ]; then
		echo "not ok $1 - $lib: not built"
		return
	fi
	found=$(undefined "$lib")
	if [ -z "$found" ]; then
		echo "ok $1 - $2 calls no fork, exec, file, log or Slurm function"
	else
		echo "not ok $1 - $2 calls: $found($3)"
	fi
}
pure 1 libcommon "move them to libcommonio"
found=$(undefined "$libs/libcommonio.a")
if [ -n "$found" ]; then
	echo "ok 2 - the check sees libcommonio's: $found"
else
	echo "not ok 2 - the check sees none of libcommonio's calls: it cannot see libcommon's either"
fi
pure 3 libtrace "files are read with libcommonio's parse_read_file()"
pure 4 libcheck "elasticctl's check_read.c and check_probe.c do the looking" "$top/src/elasticctl/.libs"
pure 5 libreport "elasticctl's report.c and gnuplot.c do the files and gnuplot" "$top/src/elasticctl/.libs"
