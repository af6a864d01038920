# The calls outside POSIX that rlwrap makes, each checked here; compat/
# has the fallback of each (docs/design.md, "Platforms").  Included by
# configure.ac.  --enable-portable takes every Linux-only call as missing.
AS_IF([test "x$enable_portable" = xyes], [
  AC_DEFINE([RLWRAP_PORTABLE], [1], [Define to build the POSIX fallbacks of compat/ on every platform.])
  for rlwrap_fn in splice tee ppoll pipe2 close_range memrchr explicit_bzero reallocarray \
      strlcpy strlcat strtonum setproctitle setproctitle_init getprogname setprogname \
      sigtimedwait sched_getaffinity pthread_condattr_setclock on_exit sigabbrev_np; do
    eval "ac_cv_func_$rlwrap_fn=no"
  done
  ac_cv_header_pty_h=no
  ac_cv_have_decl_PR_SET_PDEATHSIG=no
  ac_cv_have_decl_CPU_COUNT=no
])
rlwrap_save_CFLAGS=$CFLAGS
rlwrap_save_LIBS=$LIBS
CFLAGS="$CFLAGS $LIBBSD_CFLAGS"
LIBS="$LIBBSD_LIBS $LIBS"
AC_CHECK_HEADERS([pty.h util.h libutil.h sys/sysmacros.h sys/procctl.h sys/event.h sys/sysctl.h mach-o/dyld.h])
AC_CHECK_FUNCS([splice tee ppoll pipe2 close_range memrchr explicit_bzero reallocarray \
  strlcpy strlcat strtonum setproctitle setproctitle_init getprogname setprogname \
  sigtimedwait sched_getaffinity pthread_condattr_setclock on_exit sigabbrev_np kqueue procctl _NSGetExecutablePath \
  arc4random_buf arc4random_uniform])
AS_IF([test "x$ac_cv_func_arc4random_buf$ac_cv_func_arc4random_uniform" != xyesyes],
  [AC_MSG_ERROR([arc4random_buf and arc4random_uniform are in neither libc nor libbsd: install libbsd (libbsd-dev)])])
CFLAGS=$rlwrap_save_CFLAGS
LIBS=$rlwrap_save_LIBS
AC_CHECK_MEMBERS([struct stat.st_mtim, struct stat.st_mtimespec], [], [], [[#include <sys/stat.h>]])
AC_CHECK_DECLS([PR_SET_PDEATHSIG], [], [], [[#include <sys/prctl.h>]])
AC_CHECK_DECLS([PROC_PDEATHSIG_CTL], [], [], [[#include <sys/procctl.h>]])
AC_CHECK_DECLS([CPU_COUNT], [], [], [[#include <sched.h>]])
AC_CHECK_DECLS([KERN_PROC_PID, KERN_PROC_PATHNAME], [], [], [[#include <sys/types.h>
#include <sys/sysctl.h>]])
# Linux's /proc (its absence on macOS, and on FreeBSD without procfs, is
# what compat/proc_start.c and compat/exe_path.c are for).
AS_CASE([$host_os], [linux*], [AS_IF([test "x$enable_portable" != xyes],
  [AC_DEFINE([HAVE_LINUX_PROC], [1], [Define when /proc/PID/stat and /proc/self/exe are Linux's.])])])
AH_BOTTOM([#include "compat/compat.h"])
