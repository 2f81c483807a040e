# X_AC_MPI: the MPI compiler wrapper and launcher for the MPI example
# (contribs/examples/mpi), Open MPI's as Debian ships them (openmpi-bin,
# libopenmpi-dev).  MPICC=... and MPIRUN=... override.  The example and its
# test are built only when both are found; with --enable-integration-tests
# their absence is an error, since the integration suite runs MPI jobs
# across the allocations of an elastic group.
AC_DEFUN([X_AC_MPI], [
  AC_REQUIRE([X_AC_INTEGRATION])
  AC_ARG_VAR([MPICC], [MPI C compiler wrapper (default: mpicc on PATH)])
  AC_ARG_VAR([MPIRUN], [MPI launcher (default: mpirun on PATH)])
  AC_PATH_PROG([MPICC], [mpicc])
  AC_PATH_PROG([MPIRUN], [mpirun])
  have_mpi=no
  AS_IF([test -n "$MPICC" && test -n "$MPIRUN"], [
    AC_MSG_CHECKING([whether $MPICC builds an MPI program])
    save_CC=$CC
    CC=$MPICC
    AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <mpi.h>]],
        [[int n; MPI_Init(0, 0); MPI_Comm_size(MPI_COMM_WORLD, &n); MPI_Finalize();]])],
      [have_mpi=yes], [])
    CC=$save_CC
    AC_MSG_RESULT([$have_mpi])
  ])
  AS_IF([test "x$have_mpi" != xyes && test "x$enable_integration_tests" = xyes],
    [AC_MSG_ERROR([integration tests need MPI: mpicc and mpirun that build and run an MPI program (apt-get install openmpi-bin libopenmpi-dev)])])
  AM_CONDITIONAL([HAVE_MPI], [test "x$have_mpi" = xyes])
])
