# X_AC_CMOCKA: unit tests need cmocka.  Without it "make check" fails
# rather than silently running fewer tests.
AC_DEFUN([X_AC_CMOCKA], [
  PKG_CHECK_MODULES([CMOCKA], [cmocka >= 1.1], [have_cmocka=yes], [have_cmocka=no])
  AM_CONDITIONAL([HAVE_CMOCKA], [test "x$have_cmocka" = xyes])
])
