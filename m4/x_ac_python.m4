# X_AC_PYTHON: the interpreter the slurm_elastic module is installed for and
# tested with.  Debian's own /usr/bin/python3 by default, not whatever
# python3 comes first on PATH: only Debian's sees python3-torch.  PYTHON=...
# overrides.  Without Python the module is not installed and "make check"
# fails rather than skip its tests.
#
# pythondir: automake picks PREFIX/lib/python3.X/site-packages, which
# Debian's python3 does not search; use its dist-packages instead
# (PREFIX/lib/python3/dist-packages for /usr, else
# PREFIX/lib/python3.X/dist-packages, which it searches for /usr/local).
AC_DEFUN([X_AC_PYTHON], [
  AS_IF([test -z "$PYTHON" && test -x /usr/bin/python3], [PYTHON=/usr/bin/python3])
  AM_PATH_PYTHON([3.7], [have_python=yes], [have_python=no])
  AM_CONDITIONAL([HAVE_PYTHON], [test "x$have_python" = xyes])
  AC_ARG_WITH([pythondir],
    [AS_HELP_STRING([--with-pythondir=DIR],
      [where to install the slurm_elastic Python module (default: the site directory of PYTHON under PREFIX)])],
    [pythondir="$withval"],
    [AS_IF([test "x$have_python" = xyes &&
            "$PYTHON" -c 'import sys, sysconfig; sys.exit("deb_system" not in sysconfig.get_scheme_names())' 2>/dev/null],
      [AS_CASE(["$prefix"],
        [/usr], [pythondir='${prefix}/lib/python3/dist-packages'],
        [pythondir='${prefix}/lib/python'"$PYTHON_VERSION"'/dist-packages'])])])
])
