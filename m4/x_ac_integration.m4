# X_AC_INTEGRATION: integration tests start a real Slurm (slurmctld, slurmd,
# slurmdbd, MariaDB, munged) and need root.  "auto" enables them when the
# daemons are installed and we are root; "yes" makes their absence an error.
AC_DEFUN([X_AC_INTEGRATION], [
  AC_ARG_ENABLE([integration-tests],
    [AS_HELP_STRING([--enable-integration-tests@<:@=yes|no|auto@:>@],
      [run tests against a real embedded Slurm cluster (default: auto)])],
    [], [enable_integration_tests=auto])
  missing=""
  for p in slurmctld slurmd slurmdbd munged mariadbd mariadb-install-db sbatch scontrol squeue sacct; do
    AS_IF([test -x "/usr/sbin/$p" || command -v "$p" >/dev/null 2>&1], [], [missing="$missing $p"])
  done
  AS_IF([test "$(id -u)" != 0], [missing="$missing (root)"])
  AS_CASE([$enable_integration_tests],
    [yes], [AS_IF([test -n "$missing"],
              [AC_MSG_ERROR([integration tests need:$missing (run ./quickstart check as root on Debian 12)])])],
    [auto], [AS_IF([test -n "$missing"],
              [enable_integration_tests=no
               AC_MSG_WARN([integration tests disabled; missing:$missing])],
              [enable_integration_tests=yes])])
  AM_CONDITIONAL([ENABLE_INTEGRATION], [test "x$enable_integration_tests" = xyes])
])

# X_AC_FUZZ: clang with libFuzzer for testsuite/fuzz ("make fuzz").
AC_DEFUN([X_AC_FUZZ], [
  AC_ARG_VAR([FUZZ_CC], [clang with libFuzzer, for make fuzz (default: clang)])
  AS_IF([test -z "$FUZZ_CC"], [AC_PATH_PROG([FUZZ_CC], [clang])])
  have_fuzz_cc=no
  AS_IF([test -n "$FUZZ_CC"], [
    AC_MSG_CHECKING([whether $FUZZ_CC builds libFuzzer harnesses])
    cat >conftest-fuzz.c <<_EOF
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }
_EOF
    AS_IF([$FUZZ_CC -fsanitize=fuzzer,address,undefined conftest-fuzz.c -o conftest-fuzz >&AS_MESSAGE_LOG_FD 2>&1],
      [have_fuzz_cc=yes])
    rm -f conftest-fuzz.c conftest-fuzz
    AC_MSG_RESULT([$have_fuzz_cc])
  ])
  AM_CONDITIONAL([HAVE_FUZZ_CC], [test "$have_fuzz_cc" = yes])
])
