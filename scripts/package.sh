#!/usr/bin/env bash
# The Debian packages, built and tried as a user would; scripts/test.sh's
# `package` phase.
#
#   scripts/package.sh [BUILD_DIR]      (default build-test: the unit phase's)
#   scripts/package.sh build-release    (after scripts/setup.sh: no test built)
#
# 1. `cpack -G DEB` in BUILD_DIR (configured first when needed: with the
#    `release` preset for build-release, else the `test` preset; then built:
#    after the unit phase, or setup.sh's tools, little is left to build), into
#    BUILD_DIR/packages/: vpcat-runtime, vpcat-tools, vpcat-mpi (and
#    python3-vpcat when the Python module is built); cmake/VpPackaging.cmake.
# 2. Checks every package with dpkg-deb -I / -c: the files each must hold, and
#    Depends: vpcat-runtime on nothing heavy (no hwloc, bliss, GMP, fmt,
#    pugixml, Open MPI), vpcat-tools on the tools' libraries; lintian's
#    errors too, when lintian is installed.
# 3. Installs them: with dpkg -i into the running root when that is root and
#    CI=true (the clean room, .ci/run: dpkg then checks every Depends:), else
#    -- on a machine someone works on -- extracted with dpkg-deb -x into a
#    temporary prefix, which checks the files but not Depends: (said so).
# 4. From the installed files: vp-analyze --version, vp-sim --model
#    contention finding the installed contention table, the man page through
#    man -l, the bash completion sourced, the Python module imported and used
#    (python3-vpcat), and tests/consumer (find_package in C++ and C,
#    pkg-config) built and run against the installed runtime.
# 5. In the root: the packages removed again (dpkg --purge), pass or fail.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
dir=${1:-build-test}

log() { printf 'package: %s\n' "$*"; }
die() { printf 'package: error: %s\n' "$*" >&2; exit 1; }

if [[ ! -f $dir/CMakeCache.txt ]]; then
  preset=test
  [[ $(basename "$dir") == build-release ]] && preset=release
  log "configuring $dir with the $preset preset"
  cmake --preset $preset -B "$dir"
fi
cmake --build "$dir"
libdir=$(sed -n 's/^CMAKE_INSTALL_LIBDIR:[A-Z]*=//p' "$dir/CMakeCache.txt")
[[ -n $libdir ]] || die "$dir/CMakeCache.txt has no CMAKE_INSTALL_LIBDIR"
rm -rf "$dir/packages"
(cd "$dir" && cpack -G DEB)
mapfile -t debs < <(find "$dir/packages" -maxdepth 1 -name '*.deb' | sort)
((${#debs[@]} > 0)) || die "cpack made no .deb in $dir/packages"
deb_of() {
  local d
  for d in "${debs[@]}"; do
    [[ $(dpkg-deb -f "$d" Package) == "$1" ]] && { echo "$d"; return 0; }
  done
  die "no $1 package among ${debs[*]}"
}
runtime_deb=$(deb_of vpcat-runtime)
tools_deb=$(deb_of vpcat-tools)
version=$(dpkg-deb -f "$tools_deb" Version)

# ---- what each package holds, and its Depends: ---------------------------------
for d in "${debs[@]}"; do
  log "$(basename "$d"): $(dpkg-deb -f "$d" Package) $(dpkg-deb -f "$d" Version), Depends: $(dpkg-deb -f "$d" Depends)"
done
has_files() {  # has_files DEB PATH...
  local deb=$1 contents f
  shift
  contents=$(dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|')
  for f in "$@"; do
    grep -qx -- "$f" <<<"$contents" || die "$(basename "$deb") lacks $f"
  done
}
has_files "$runtime_deb" /usr/include/vpcat.h /usr/include/vpcat/planner.hpp /usr/$libdir/libvpcat.a \
  /usr/$libdir/cmake/vpcat/vpcatConfig.cmake /usr/$libdir/pkgconfig/vpcat.pc /usr/$libdir/pkgconfig/vpcat-c.pc \
  /usr/share/doc/vpcat/LICENSE
for tool in vp-analyze vp-catalog vp-plan vp-sim; do
  has_files "$tools_deb" /usr/bin/$tool /usr/share/man/man1/$tool.1.gz /usr/share/bash-completion/completions/$tool \
    /usr/share/zsh/vendor-completions/_$tool
done
has_files "$tools_deb" /usr/share/vpcat/schemas/catalog.schema.json /usr/share/vpcat/contention.json \
  /usr/share/doc/vpcat-tools/LICENSE \
  /usr/share/doc/vpcat-tools/THIRD-PARTY-NOTICES.md
# What --help and the man pages cite: the guides, the format's SPEC, the
# bundled platforms the guides' commands read.
has_files "$tools_deb" /usr/share/doc/vpcat-tools/docs/planner.md /usr/share/doc/vpcat-tools/docs/subsets.md \
  /usr/share/doc/vpcat-tools/docs/simulator.md /usr/share/doc/vpcat-tools/docs/pictures.md \
  /usr/share/doc/vpcat-tools/docs/catalog_format/SPEC.md \
  /usr/share/doc/vpcat-tools/examples/platforms/pcie-gen4-2s4sw8g.json \
  /usr/share/doc/vpcat-tools/examples/platforms/pcie-gen4-2s4sw8g-4n-switch.cluster.json
cited=$(grep -rhoE 'docs/[a-z-]+\.md' "$src/tools" "$src/analyzer/src" 2>/dev/null | sort -u)
for doc in $cited; do has_files "$tools_deb" "/usr/share/doc/vpcat-tools/$doc"; done
if dpkg-deb -c "$tools_deb" | grep -q '/usr/include/'; then die "vpcat-tools holds headers (the runtime's)"; fi
runtime_depends=$(dpkg-deb -f "$runtime_deb" Depends)
if grep -qiE 'hwloc|bliss|gmp|fmt|pugixml|openmpi|boost' <<<"$runtime_depends"; then
  die "vpcat-runtime depends on a heavy library: $runtime_depends"
fi
tools_depends=$(dpkg-deb -f "$tools_deb" Depends)
for lib in libhwloc libfmt libpugixml; do
  grep -q "$lib" <<<"$tools_depends" || die "vpcat-tools' Depends: lacks $lib (dpkg-shlibdeps did not run?): $tools_depends"
done
# hwloc's XML reader is a plugin that libhwloc15 only recommends.
grep -q "libhwloc-plugins" <<<"$tools_depends" || die "vpcat-tools' Depends: lacks libhwloc-plugins: $tools_depends"
if readelf -d "$dir/runtime_loader/libvpcat.so"* >/dev/null 2>&1; then  # a shared libvpcat: the tools need it
  grep -q "vpcat-runtime (= $version)" <<<"$tools_depends" || die "vpcat-tools does not depend on vpcat-runtime (= $version)"
fi
if command -v lintian >/dev/null; then
  log "lintian (errors only)"
  lintian --fail-on error "${debs[@]}" || die "lintian reports errors"
else
  log "lintian is not installed: skipped"
fi

# ---- install -------------------------------------------------------------------
if [[ $(id -u) == 0 && ${CI:-} == true ]]; then
  log "installing ${debs[*]##*/} into this root (dpkg -i)"
  packages=$(for d in "${debs[@]}"; do dpkg-deb -f "$d" Package; done)
  # Removed again however this script ends.
  trap 'log "removing the packages again"; dpkg --purge $packages >/dev/null' EXIT
  dpkg -i "${debs[@]}"
  prefix=/usr
else
  extracted=$(mktemp -d "${TMPDIR:-/tmp}/vpcat-package.XXXXXX")
  trap 'rm -rf "$extracted"' EXIT
  prefix=$extracted
  log "not root in CI (uid $(id -u), CI=${CI:-unset}): extracting into $prefix instead of installing;" \
    "Depends: are shown above but not checked by dpkg"
  for d in "${debs[@]}"; do dpkg-deb -x "$d" "$prefix"; done
  prefix=$prefix/usr
fi

# ---- use it --------------------------------------------------------------------
out=$("$prefix/bin/vp-analyze" --version)
log "installed vp-analyze --version: $(head -n1 <<<"$out")"
[[ $(head -n1 <<<"$out") == "vp-analyze ${version%-*}" ]] || die "vp-analyze --version printed '$out', expected version ${version%-*}"
for tool in vp-catalog vp-plan vp-sim; do "$prefix/bin/$tool" --version >/dev/null; done
# Without --contention, the installed vp-sim reads the table installed beside it.
out=$("$prefix/bin/vp-sim" --catalog "$src/fixtures/catalogs/format-1.0/quad-rail4.vpcat" --workload uniform \
  --schedulers fanout --model contention --json)
table=$(sed -n 's/^ *"file": "\(.*\)",$/\1/p' <<<"$out")
[[ $table == "$prefix/share/vpcat/contention.json" ]] ||
  die "the installed vp-sim --model contention read '$table', expected $prefix/share/vpcat/contention.json"
log "installed vp-sim --model contention: $table"
page=$(MANWIDTH=80 man -l "$prefix/share/man/man1/vp-analyze.1.gz" 2>&1 | tr -d '\b')
grep -q "gather\|topology" <<<"$page" || die "man -l of the installed vp-analyze.1.gz: $page"
bash -c 'source "$1" && complete -p vp-plan' _ "$prefix/share/bash-completion/completions/vp-plan" >/dev/null ||
  die "the installed bash completion of vp-plan does not register"

# The Python module, when it was packaged: imported from the installed tree
# and used on a catalog.
python_deb=""
for d in "${debs[@]}"; do [[ $(dpkg-deb -f "$d" Package) == python3-vpcat ]] && python_deb=$d; done
if [[ -n $python_deb ]]; then
  has_files "$python_deb" /usr/share/doc/python3-vpcat/copyright /usr/share/doc/python3-vpcat/examples/moe_router.py
  module=$(dpkg-deb -c "$python_deb" | awk '{print $6}' | grep -E '/vpcat[^/]*\.so$' | head -n1)
  [[ -n $module ]] || die "python3-vpcat holds no vpcat module"
  site=$prefix/${module#./usr/}
  site=${site%/*}
  python=$(sed -n 's/^Python3_EXECUTABLE:[A-Z]*=//p' "$dir/CMakeCache.txt")
  out=$(PYTHONPATH="$site" "${python:-python3}" -c 'import sys, vpcat
cat = vpcat.Catalog.open(sys.argv[1])
plan = vpcat.Planner(cat).plan([[0 if i == j else 1 << 20 for j in range(cat.gpu_count)] for i in range(cat.gpu_count)])
print(vpcat.__file__, cat.gpu_count, int(plan.bytes.sum()))' "$src/fixtures/catalogs/format-1.0/quad-rail4.vpcat") ||
    die "the installed Python module ($site) does not import or plan: $out"
  [[ $out == "$site/"*" 16 251658240" ]] || die "the installed Python module: '$out', expected $site/... 16 251658240"
  [[ -f $site/vpcat_torch.py ]] || die "python3-vpcat holds no vpcat_torch.py beside the module ($site)"
  log "installed python3-vpcat: $out"
fi

# tests/consumer/run.cmake's find_package and pkg_config steps against the installed runtime.
work=$(mktemp -d "${TMPDIR:-/tmp}/vpcat-consumer.XXXXXX")
for mode in find_package pkg_config; do
  cmake -DMODE=$mode -DSOURCE_DIR="$src" -DBUILD_DIR="$dir" -DWORK_DIR="$work" -DPREFIX="$prefix" -DLIBDIR="$libdir" \
    -DCATALOG="$src/fixtures/catalogs/format-1.0/quad-rail4.vpcat" \
    "-DEXPECT=16 GPUs, [0-9]+ steps, [0-9]+ transfers, 251658240 bytes delivered" -DGENERATOR=Ninja \
    -DC_COMPILER="$(command -v cc)" -DCXX_COMPILER="$(command -v c++)" -DNM="$(command -v nm)" \
    -P "$src/tests/consumer/run.cmake" || { rm -rf "$work"; die "the consumer ($mode) failed against the installed packages"; }
done
rm -rf "$work"
log "ok: ${#debs[@]} packages (${debs[*]##*/}) built, checked, installed and used"
