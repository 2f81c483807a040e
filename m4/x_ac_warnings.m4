# X_AC_WARNINGS: -Wall -Wextra -Werror unless --disable-werror.
AC_DEFUN([X_AC_WARNINGS], [
  AC_ARG_ENABLE([werror],
    [AS_HELP_STRING([--disable-werror], [do not treat warnings as errors])],
    [], [enable_werror=yes])
  WARNING_CFLAGS="-Wall -Wextra -Wshadow -Wformat=2 -Wno-unused-parameter"
  AS_IF([test "x$enable_werror" = xyes],
    [WARNING_CFLAGS="$WARNING_CFLAGS -Werror"])
  AC_SUBST([WARNING_CFLAGS])
])
