# X_AC_EXAMPLE_TESTS: --disable-example-tests leaves the examples' tests
# (contribs/examples: PyTorch, torchrun and MPI ranks on this machine, a
# minute of CPU or more) out of make check.  make distcheck passes it:
# ./quickstart check runs them in the source tree and in each leg.
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
