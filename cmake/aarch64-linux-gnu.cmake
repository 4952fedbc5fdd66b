# Cross-compiling for aarch64 (arm64) Linux with Debian's cross compiler
# (gcc-aarch64-linux-gnu), tests run under qemu-user:
#   tools/fetch_aarch64_sysroot.sh
#   cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
# TEXMEM_AARCH64_SYSROOT (cache or environment; default
# ~/.cache/texmem/aarch64-sysroot) is the arm64 root that script unpacks:
# Criterion for the tests and the libraries qemu-aarch64 loads (-L).
# The library itself needs only the cross libc: the GL backend dlopens EGL.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

if(NOT TEXMEM_AARCH64_SYSROOT)
  if(DEFINED ENV{TEXMEM_AARCH64_SYSROOT})
    set(TEXMEM_AARCH64_SYSROOT "$ENV{TEXMEM_AARCH64_SYSROOT}")
  else()
    set(TEXMEM_AARCH64_SYSROOT "$ENV{HOME}/.cache/texmem/aarch64-sysroot")
  endif()
endif()
# try_compile projects read this file again: hand them the setting.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES TEXMEM_AARCH64_SYSROOT)

# Libraries and headers from the cross toolchain and the sysroot only;
# programs (glad, python) from the host.
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu "${TEXMEM_AARCH64_SYSROOT}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# pkg-config (Criterion, tests/CMakeLists.txt) looks in the sysroot only.
set(ENV{PKG_CONFIG_LIBDIR} "${TEXMEM_AARCH64_SYSROOT}/usr/lib/aarch64-linux-gnu/pkgconfig")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "${TEXMEM_AARCH64_SYSROOT}")
# Criterion's own dependencies (libgit2, nanomsg...) resolved at link time.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-Wl,-rpath-link,${TEXMEM_AARCH64_SYSROOT}/usr/lib/aarch64-linux-gnu\
 -Wl,-rpath-link,${TEXMEM_AARCH64_SYSROOT}/lib/aarch64-linux-gnu")

# ctest runs the tests under qemu-user with the sysroot as its root for
# the dynamic loader and libraries.
find_program(TEXMEM_QEMU_AARCH64 NAMES qemu-aarch64 qemu-aarch64-static)
if(TEXMEM_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR "${TEXMEM_QEMU_AARCH64};-L;${TEXMEM_AARCH64_SYSROOT}")
endif()
