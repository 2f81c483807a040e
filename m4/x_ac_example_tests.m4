# X_AC_EXAMPLE_TESTS: --disable-example-tests leaves the examples' tests
# (contribs/examples: PyTorch, torchrun and MPI ranks on this machine, a
# minute of CPU or more) out of make check, and --disable-python-tests the
# slurm_elastic module's (contribs/python: real torch process groups, as
# long).  make distcheck passes both: ./quickstart check runs them in the
# source tree (and the module's in each leg).
AC_DEFUN([X_AC_EXAMPLE_TESTS], [
  AC_ARG_ENABLE([example-tests],
    [AS_HELP_STRING([--disable-example-tests],
      [leave the examples' tests out of make check (default: run them)])],
    [], [enable_example_tests=yes])
  AS_CASE([$enable_example_tests],
    [yes|no], [],
    [AC_MSG_ERROR([--enable-example-tests=$enable_example_tests: allowed yes or no])])
  AM_CONDITIONAL([EXAMPLE_TESTS], [test "x$enable_example_tests" = xyes])
])
AC_DEFUN([X_AC_PYTHON_TESTS], [
  AC_ARG_ENABLE([python-tests],
    [AS_HELP_STRING([--disable-python-tests],
      [leave the slurm_elastic module's tests out of make check (default: run them)])],
    [], [enable_python_tests=yes])
  AS_CASE([$enable_python_tests],
    [yes|no], [],
    [AC_MSG_ERROR([--enable-python-tests=$enable_python_tests: allowed yes or no])])
  AM_CONDITIONAL([PYTHON_TESTS], [test "x$enable_python_tests" = xyes])
])
