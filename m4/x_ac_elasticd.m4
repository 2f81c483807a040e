# X_AC_ELASTICD: the libraries of elasticd's API and of elasticctl.
#   libmicrohttpd  the API's HTTP server (elasticd)
#   json-c         JSON bodies (elasticd, elasticctl)
#   libcurl        HTTP client (elasticctl)
#   libmunge       credentials: made by elasticctl, checked by elasticd
#   libcrypto      SHA-256 of the API's answers, which elasticd signs
# All are required: without them there is no elasticd to build.
AC_DEFUN([X_AC_ELASTICD], [
  PKG_CHECK_MODULES([MHD], [libmicrohttpd >= 0.9.71], [],
    [AC_MSG_ERROR([libmicrohttpd 0.9.71 or newer not found (elasticd's API).
  On Debian or Ubuntu: apt-get install libmicrohttpd-dev])])
  PKG_CHECK_MODULES([JSON_C], [json-c >= 0.13], [],
    [AC_MSG_ERROR([json-c 0.13 or newer not found (elasticd, elasticctl).
  On Debian or Ubuntu: apt-get install libjson-c-dev])])
  PKG_CHECK_MODULES([CURL], [libcurl >= 7.61], [],
    [AC_MSG_ERROR([libcurl 7.61 or newer not found (elasticctl).
  On Debian or Ubuntu: apt-get install libcurl4-openssl-dev])])

  PKG_CHECK_MODULES([CRYPTO], [libcrypto >= 1.1], [],
    [AC_MSG_ERROR([libcrypto (OpenSSL) 1.1 or newer not found (elasticd's signed answers).
  On Debian or Ubuntu: apt-get install libssl-dev])])

  AC_CHECK_HEADER([munge.h], [],
    [AC_MSG_ERROR([munge.h not found (elasticd, elasticctl).
  On Debian or Ubuntu: apt-get install libmunge-dev])])
  AC_CHECK_LIB([munge], [munge_decode], [MUNGE_LIBS=-lmunge],
    [AC_MSG_ERROR([libmunge not found (elasticd, elasticctl).
  On Debian or Ubuntu: apt-get install libmunge-dev])])
  AC_SUBST([MUNGE_LIBS])

  # The API test starts a private munged; the daemon is in Debian's munge.
  AC_PATH_PROG([MUNGED], [munged], [], [$PATH:/usr/sbin:/sbin])
  AC_PATH_PROG([MUNGEKEY], [mungekey], [], [$PATH:/usr/sbin:/sbin])
])

# X_AC_SYSTEMD: where "make install" puts elasticd.service.  The default
# stays under the prefix (systemd reads /usr/local/lib/systemd/system too),
# so that an unprivileged "make distcheck" can install it.
AC_DEFUN([X_AC_SYSTEMD], [
  AC_ARG_WITH([systemdsystemunitdir],
    [AS_HELP_STRING([--with-systemdsystemunitdir=DIR],
      [where to install elasticd.service (default: PREFIX/lib/systemd/system)])],
    [systemdsystemunitdir="$withval"],
    [systemdsystemunitdir='${prefix}/lib/systemd/system'])
  AC_SUBST([systemdsystemunitdir])
])
