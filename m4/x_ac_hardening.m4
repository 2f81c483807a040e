# X_AC_HARDENING: plugins run inside slurmctld and slurmstepd as root.
AC_DEFUN([X_AC_HARDENING], [
  HARDENING_CFLAGS="-fstack-protector-strong -fno-strict-overflow"
  HARDENING_CPPFLAGS="-D_FORTIFY_SOURCE=2"
  HARDENING_LDFLAGS="-Wl,-z,relro -Wl,-z,now"
  AC_SUBST([HARDENING_CFLAGS])
  AC_SUBST([HARDENING_CPPFLAGS])
  AC_SUBST([HARDENING_LDFLAGS])
])
