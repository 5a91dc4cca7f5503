# Debian packages: `cpack -G DEB` in a configured build folder (after the
# build) makes one .deb per group of install components:
#
#   vpcat-runtime  vpcat_runtime + vpcat_development: the headers, libvpcat
#                  (static by default; libvpcat.so with BUILD_SHARED_LIBS=ON),
#                  find_package(vpcat) and pkg-config files, the licences.
#                  Depends on nothing heavy (the runtime is C++17 standard
#                  library only; with a shared libvpcat, libc/libstdc++).
#   vpcat-tools    vpcat_tools: vp-analyze, vp-catalog, vp-plan, vp-sim, the
#                  JSON schemas, the man pages, bash and zsh completion, the
#                  licences. Depends: dpkg-shlibdeps' libraries (hwloc, bliss,
#                  fmt, pugixml, GMP, Open MPI with `gather`), libhwloc-plugins
#                  (hwloc's libxml2 XML reader: without it hwloc falls back to
#                  a minimal parser that cannot read every valid XML file; only
#                  a Recommends of libhwloc15), plus vpcat-runtime (= the same
#                  version) when libvpcat is shared (the tools then link it; a
#                  static libvpcat is inside them).
#   vpcat-mpi      vpcat_mpi (with VP_BUILD_MPI): libvpcat_mpi, the PMPI
#                  interposer libvpcat_pmpi.so, vpcat_mpi.h, vpcat-mpi.pc and
#                  vpcat::mpi; Depends: vpcat-runtime (= version) and Open MPI.
#   python3-vpcat  vpcat_python, when the Python module's install rules
#                  (python/) declare that component: the place left for it.
#
# Any other install component gets its own package, vpcat-COMPONENT, and a
# configure warning: nothing is dropped from the packages silently.
# The packages install under /usr (CPACK_PACKAGING_INSTALL_PREFIX).

get_cmake_property(vp_install_components COMPONENTS)
set(vp_package_groups_vpcat_runtime runtime)
set(vp_package_groups_vpcat_development runtime)
set(vp_package_groups_vpcat_tools tools)
set(vp_package_groups_vpcat_mpi mpi)
set(vp_package_groups_vpcat_python python)
set(vp_packaged_components "")
foreach(component IN LISTS vp_install_components)
  if(NOT DEFINED vp_package_groups_${component})
    string(REPLACE "_" "-" package ${component})
    if(NOT package MATCHES "^vpcat-")
      set(package vpcat-${package})
    endif()
    message(WARNING "cmake/VpPackaging.cmake: install component '${component}' belongs to no package listed "
                    "there; it gets its own, ${package}, without a description")
    set(vp_package_groups_${component} ${component})
    string(TOUPPER ${component} upper)
    set(CPACK_DEBIAN_${upper}_PACKAGE_NAME ${package})
  endif()
  string(TOUPPER ${component} upper)
  set(CPACK_COMPONENT_${upper}_GROUP ${vp_package_groups_${component}})
  list(APPEND vp_packaged_components ${component})
endforeach()
set(CPACK_COMPONENTS_ALL ${vp_packaged_components})

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME vpcat)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "VarioPath")
# CPack's own default summary, which CPackDeb does not prepend to a package's
# description: each CPACK_DEBIAN_<GROUP>_DESCRIPTION starts with its own summary line.
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${CMAKE_PROJECT_NAME} built using CMake")
# The Maintainer: field; the repository's commit identity unless a distributor sets theirs.
set(VP_PACKAGE_MAINTAINER "VarioPath maintainers <maintainers@users.noreply.a-seed-a83f0e14.example>"
    CACHE STRING "Maintainer: of the Debian packages")
set(CPACK_PACKAGE_CONTACT "${VP_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR}/packages)

set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_GROUPING ONE_PER_GROUP)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # vpcat-tools_0.1.0_amd64.deb
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_STRIP_FILES ON)  # the test preset is RelWithDebInfo: no debug info in the packages
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(vp_same_version "${CPACK_PACKAGE_VERSION}-${CPACK_DEBIAN_PACKAGE_RELEASE}")

set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME vpcat-runtime)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_RUNTIME_DESCRIPTION "VarioPath catalog runtime: loader and online planner\nThe header-only C++17 loader and AlltoAllv planner for .vpcat catalogs,\nthe C API (libvpcat, vpcat.h), and the CMake (find_package(vpcat)) and\npkg-config (vpcat, vpcat-c) files to build against them.")

set(CPACK_DEBIAN_TOOLS_PACKAGE_NAME vpcat-tools)
set(CPACK_DEBIAN_TOOLS_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_TOOLS_DESCRIPTION "VarioPath catalog tools: analyzer, planner and simulator\nvp-analyze finds the contention-free transfer patterns of a PCIe GPU\ncluster and writes a .vpcat catalog; vp-catalog inspects, validates and\nconverts catalogs; vp-plan plans an AlltoAllv demand; vp-sim simulates\nplans and baselines. With man pages, bash and zsh completion and the\nJSON schemas of their outputs.")
set(CPACK_DEBIAN_TOOLS_PACKAGE_DEPENDS "libhwloc-plugins")
get_target_property(vp_libvpcat_type vpcat_c TYPE)
if(vp_libvpcat_type STREQUAL "SHARED_LIBRARY")
  set(CPACK_DEBIAN_TOOLS_PACKAGE_DEPENDS "libhwloc-plugins, vpcat-runtime (= ${vp_same_version})")
  set(CPACK_DEBIAN_RUNTIME_PACKAGE_CONTROL_EXTRA ${PROJECT_SOURCE_DIR}/cmake/debian/triggers)
endif()

set(CPACK_DEBIAN_MPI_PACKAGE_NAME vpcat-mpi)
set(CPACK_DEBIAN_MPI_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_MPI_PACKAGE_DEPENDS "vpcat-runtime (= ${vp_same_version})")
# A package with a shared library in /usr/lib activates the ldconfig trigger (Debian's policy 8.1.1).
set(CPACK_DEBIAN_MPI_PACKAGE_CONTROL_EXTRA ${PROJECT_SOURCE_DIR}/cmake/debian/triggers)
set(CPACK_DEBIAN_MPI_DESCRIPTION "VarioPath catalog MPI executor and PMPI interposer\nlibvpcat_mpi runs AlltoAllv through catalog plans over MPI (vpcat_mpi.h,\nvpcat::mpi, vpcat-mpi.pc); libvpcat_pmpi.so is LD_PRELOADed into an\nunmodified MPI program.")

set(CPACK_DEBIAN_PYTHON_PACKAGE_NAME python3-vpcat)
set(CPACK_DEBIAN_PYTHON_PACKAGE_SECTION python)
# The module is built for one CPython minor version (its file name says
# cpython-3XY): the package needs exactly that python3.
set(vp_python_depends "python3")
if(Python3_EXECUTABLE)
  execute_process(COMMAND ${Python3_EXECUTABLE} -c "import sys; print('%d.%d' % sys.version_info[:2])"
                  OUTPUT_VARIABLE vp_python_version OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE vp_python_rc)
  if(vp_python_rc EQUAL 0 AND vp_python_version MATCHES "^([0-9]+)\\.([0-9]+)$")
    math(EXPR vp_python_next "${CMAKE_MATCH_2} + 1")
    set(vp_python_depends "python3 (>= ${vp_python_version}), python3 (<< ${CMAKE_MATCH_1}.${vp_python_next})")
  endif()
endif()
set(CPACK_DEBIAN_PYTHON_PACKAGE_DEPENDS "${vp_python_depends}, python3-numpy")
# vpcat.torch (vpcat_torch.py) needs PyTorch only when it is used.
set(CPACK_DEBIAN_PYTHON_PACKAGE_SUGGESTS "python3-torch")
set(CPACK_DEBIAN_PYTHON_DESCRIPTION "VarioPath catalog Python binding\nimport vpcat: open a .vpcat catalog and plan AlltoAllv demands from NumPy.")

# What Debian's policy (and lintian) asks of every package: a copyright file
# (cmake/debian-copyright, machine-readable, pointing at common-licenses) and a changelog in /usr/share/doc/PACKAGE/. The changelog's date honours
# SOURCE_DATE_EPOCH (reproducible packages).
find_program(VP_GZIP gzip)
string(TIMESTAMP vp_changelog_date "%a, %d %b %Y %H:%M:%S +0000" UTC)
set(vp_changelog ${PROJECT_BINARY_DIR}/packaging/changelog.Debian)
file(CONFIGURE OUTPUT ${vp_changelog} CONTENT
"vpcat (${vp_same_version}) unstable; urgency=medium

  * Built from the VarioPath catalog source tree, version ${PROJECT_VERSION}
    (cmake/VpPackaging.cmake).

 -- ${VP_PACKAGE_MAINTAINER}  ${vp_changelog_date}
")
if(VP_GZIP)
  add_custom_command(OUTPUT ${vp_changelog}.gz
                     COMMAND sh -c "\"$0\" -9nc \"$1\" > \"$1.gz\"" ${VP_GZIP} ${vp_changelog}
                     DEPENDS ${vp_changelog} VERBATIM)
  add_custom_target(vp_package_changelog ALL DEPENDS ${vp_changelog}.gz)
  set(vp_changelog ${vp_changelog}.gz)
  set(vp_changelog_name changelog.Debian.gz)
else()
  set(vp_changelog_name changelog.Debian)
endif()
foreach(pair IN ITEMS vpcat_runtime:vpcat-runtime vpcat_tools:vpcat-tools vpcat_mpi:vpcat-mpi vpcat_python:python3-vpcat)
  string(REPLACE ":" ";" pair "${pair}")
  list(GET pair 0 component)
  list(GET pair 1 package)
  if(component IN_LIST vp_packaged_components)
    install(FILES ${PROJECT_SOURCE_DIR}/cmake/debian-copyright DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/${package}
            RENAME copyright COMPONENT ${component})
    install(FILES ${vp_changelog} DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/${package}
            RENAME ${vp_changelog_name} COMPONENT ${component})
  endif()
endforeach()

include(CPack)
