# X_AC_SLURM: find Slurm's development headers, their version, and the
# directory Slurm loads plugins from.  Plugins must match the running Slurm
# to the micro version (plugin_version is checked by slurmctld).
AC_DEFUN([X_AC_SLURM], [
  AC_ARG_WITH([slurm],
    [AS_HELP_STRING([--with-slurm=PREFIX], [Slurm installation prefix (headers in PREFIX/include)])],
    [SLURM_CPPFLAGS="-I$withval/include"], [SLURM_CPPFLAGS=""])
  AC_SUBST([SLURM_CPPFLAGS])

  save_CPPFLAGS="$CPPFLAGS"
  CPPFLAGS="$CPPFLAGS $SLURM_CPPFLAGS"
  AC_CHECK_HEADERS([slurm/slurm.h slurm/spank.h slurm/slurm_version.h], [],
    [AC_MSG_ERROR([Slurm development headers not found (slurm/slurm.h, slurm/spank.h).
  On Debian or Ubuntu: apt-get install libslurm-dev
  Elsewhere: install Slurm's headers and pass --with-slurm=PREFIX])])

  AC_MSG_CHECKING([Slurm version])
  AC_COMPUTE_INT([slurm_version_number], [SLURM_VERSION_NUMBER],
    [#include <slurm/slurm_version.h>],
    [AC_MSG_ERROR([cannot read SLURM_VERSION_NUMBER from slurm/slurm_version.h])])
  SLURM_VERSION_STRING=$(printf "%d.%02d.%d" $(( slurm_version_number >> 16 )) $(( (slurm_version_number >> 8) & 255 )) $(( slurm_version_number & 255 )))
  AC_MSG_RESULT([$SLURM_VERSION_STRING])
  AS_IF([test $slurm_version_number -lt 1442048],
    [AC_MSG_ERROR([Slurm $SLURM_VERSION_STRING is too old: 22.05 or newer is required])])
  AC_SUBST([SLURM_VERSION_STRING])
  CPPFLAGS="$save_CPPFLAGS"

  AC_ARG_WITH([slurm-plugindir],
    [AS_HELP_STRING([--with-slurm-plugindir=DIR],
      [where Slurm loads plugins from (default: found from the installed Slurm)])],
    [SLURM_PLUGINDIR="$withval"], [SLURM_PLUGINDIR=""])
  AS_IF([test -z "$SLURM_PLUGINDIR"], [
    AC_MSG_CHECKING([Slurm plugin directory])
    for d in "$(pkg-config --variable=libdir slurm 2>/dev/null)/slurm" \
             /usr/lib/x86_64-linux-gnu/slurm-wlm /usr/lib/aarch64-linux-gnu/slurm-wlm \
             /usr/lib64/slurm /usr/lib/slurm /usr/local/lib/slurm; do
      AS_IF([test -f "$d/auth_munge.so" || test -f "$d/select_cons_tres.so"],
        [SLURM_PLUGINDIR="$d"; break])
    done
    AS_IF([test -z "$SLURM_PLUGINDIR"],
      [AC_MSG_RESULT([not found])
       AC_MSG_ERROR([cannot find Slurm's plugin directory; pass --with-slurm-plugindir=DIR])])
    AC_MSG_RESULT([$SLURM_PLUGINDIR])
  ])
  AC_SUBST([SLURM_PLUGINDIR])
])

# X_AC_SLURM_SYSCONFDIR: where elastic.conf is looked for when slurmctld does
# not tell us where its slurm.conf is.
AC_DEFUN([X_AC_SLURM_SYSCONFDIR], [
  AC_ARG_WITH([slurm-sysconfdir],
    [AS_HELP_STRING([--with-slurm-sysconfdir=DIR], [Slurm's configuration directory (default: /etc/slurm)])],
    [slurm_sysconfdir="$withval"], [slurm_sysconfdir=/etc/slurm])
  AC_DEFINE_UNQUOTED([SLURM_SYSCONFDIR], ["$slurm_sysconfdir"], [Slurm's configuration directory])
  AC_SUBST([slurm_sysconfdir])
])
