# X_AC_SANITIZERS: --enable-sanitizers builds everything with AddressSanitizer
# and UndefinedBehaviorSanitizer, for the unit tests and for elasticd and
# elasticctl under the integration tests (TEST_ELASTICD, TEST_ELASTICCTL).
# The plugins of such a build cannot be loaded by slurmctld or slurmstepd
# (which are not built with the sanitizers): test them from a plain build.
AC_DEFUN([X_AC_SANITIZERS], [
  AC_ARG_ENABLE([sanitizers],
    [AS_HELP_STRING([--enable-sanitizers],
      [build with ASan and UBSan (tests only; plugins unusable)])],
    [], [enable_sanitizers=no])
  AS_IF([test "$enable_sanitizers" = yes], [
    san="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
    CFLAGS="$CFLAGS $san"
    LDFLAGS="$LDFLAGS $san"
    # _FORTIFY_SOURCE and ASan check the same calls twice.
    HARDENING_CPPFLAGS=""
  ])
])
