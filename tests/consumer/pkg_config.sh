#!/bin/sh
# The pkg-config consumer: what a make or autotools project (Open MPI, UCX,
# NCCL plugins) does, plain compiler command lines. $CC and $CXX default to
# cc and c++; $CFLAGS, $CXXFLAGS and $LDFLAGS are the caller's.
#   pkg_config.sh PKGCONFIG_DIR SOURCE_DIR OUT_DIR
set -eu
pcdir=$1 src=$2 out=$3
# Only the package under test: no system .pc directory.
PKG_CONFIG_LIBDIR=$pcdir
PKG_CONFIG_PATH=
export PKG_CONFIG_LIBDIR PKG_CONFIG_PATH
CC=${CC:-cc} CXX=${CXX:-c++}

pkg-config --exists --print-errors 'vpcat >= 0.1' 'vpcat-c >= 0.1'
set -x
# C: vpcat-c gives the include path and the library (with the C++ runtime a static libvpcat.a needs).
$CC -std=c99 -Wall -Wextra -pedantic -Werror ${CFLAGS:-} $(pkg-config --cflags vpcat-c) "$src/embed.c" \
    -o "$out/embed_c" ${LDFLAGS:-} $(pkg-config --libs vpcat-c)
# C++: the header-only runtime needs the include path only.
$CXX -std=c++17 -Wall -Wextra -pedantic -Werror ${CXXFLAGS:-} $(pkg-config --cflags vpcat) "$src/embed.cpp" \
    -o "$out/embed_cpp" ${LDFLAGS:-} $(pkg-config --libs vpcat)
