# The consumer tests' driver (cmake -P), one step per MODE:
#   install           cmake --install the build tree into PREFIX (emptied first) and check the tree
#   find_package      build find_package/ and find_package_c/ against PREFIX, run the examples
#   add_subdirectory  build add_subdirectory/ over the source tree (shared vpcat::c), run the examples
#   pkg_config        pkg_config.sh: plain cc / c++ command lines with pkg-config
# Every example plans the same catalog; the C and C++ outputs must agree and
# show every byte delivered. Any failure is FATAL_ERROR with the output.
cmake_minimum_required(VERSION 3.22)

foreach(var IN ITEMS MODE SOURCE_DIR BUILD_DIR WORK_DIR PREFIX LIBDIR CATALOG EXPECT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run.cmake: -D${var}=... is required")
  endif()
endforeach()
set(consumer_dir "${SOURCE_DIR}/tests/consumer")

function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " cmd "${ARGN}")
    message(FATAL_ERROR "${what} failed (${rc}):\n  ${cmd}\n${out}\n${err}")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

# Run the examples of one build and check their summary lines.
function(check_examples dir)
  set(lines "")
  foreach(example IN LISTS ARGN)
    run_step("${example} (${dir})" "${dir}/${example}" "${CATALOG}")
    if(NOT step_output MATCHES "^${EXPECT}\n$")
      message(FATAL_ERROR "${dir}/${example} printed '${step_output}', expected '${EXPECT}'")
    endif()
    list(APPEND lines "${step_output}")
  endforeach()
  list(REMOVE_DUPLICATES lines)
  list(LENGTH lines distinct)
  if(NOT distinct EQUAL 1)
    message(FATAL_ERROR "the C and C++ examples disagree: ${lines}")
  endif()
  message(STATUS "${dir}: ${step_output}")
endfunction()

# The main build's toolchain and flags (sanitizers included), for every consumer build.
set(toolchain_args
  -G "${GENERATOR}"
  "-DCMAKE_C_COMPILER=${C_COMPILER}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
  "-DCMAKE_C_FLAGS=${C_FLAGS}" "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}"
  "-DCMAKE_EXE_LINKER_FLAGS=${EXE_LINKER_FLAGS}" "-DCMAKE_SHARED_LINKER_FLAGS=${SHARED_LINKER_FLAGS}")

if(MODE STREQUAL "install")
  file(REMOVE_RECURSE "${PREFIX}")
  run_step("cmake --install" "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${PREFIX}")
  foreach(file IN ITEMS include/vpcat.h include/vpcat/planner.hpp include/vpcat/planner/plan.hpp
                        include/vpcat/mapped_file.hpp include/vpcat/detail/verify_structure.hpp
                        include/vpcat/status_codes.def
                        ${LIBDIR}/libvpcat.a ${LIBDIR}/cmake/vpcat/vpcatConfig.cmake
                        ${LIBDIR}/cmake/vpcat/vpcatConfigVersion.cmake ${LIBDIR}/cmake/vpcat/vpcatTargets.cmake
                        ${LIBDIR}/pkgconfig/vpcat.pc ${LIBDIR}/pkgconfig/vpcat-c.pc
                        bin/vp-analyze bin/vp-catalog bin/vp-plan
                        share/doc/vpcat/LICENSE share/doc/vpcat/THIRD-PARTY-NOTICES.md
                        # the tools' man pages, completion and schemas (cmake/VpCliDocs.cmake)
                        share/man/man1/vp-plan.1.gz share/bash-completion/completions/vp-plan
                        share/zsh/vendor-completions/_vp-plan share/vpcat/schemas/catalog.schema.json)
    if(NOT EXISTS "${PREFIX}/${file}")
      message(FATAL_ERROR "cmake --install did not install ${file}")
    endif()
  endforeach()
  # The runtime's headers only: nothing of the analyzer or the tools.
  file(GLOB_RECURSE stray RELATIVE "${PREFIX}/include" "${PREFIX}/include/*")
  list(FILTER stray EXCLUDE REGEX "^(vpcat\\.h|vpcat_mpi\\.h|vpcat/.*\\.hpp|vpcat/status_codes\\.def)$")  # vpcat_mpi.h: with MPI (mpi/)
  if(stray)
    message(FATAL_ERROR "headers that are not the runtime's were installed: ${stray}")
  endif()

elseif(MODE STREQUAL "find_package")
  foreach(project IN ITEMS find_package find_package_c)
    set(build "${WORK_DIR}/${project}")
    file(REMOVE_RECURSE "${build}")
    run_step("configure ${project}" "${CMAKE_COMMAND}" -S "${consumer_dir}/${project}" -B "${build}" ${toolchain_args}
             "-DCMAKE_PREFIX_PATH=${PREFIX}" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
    file(STRINGS "${build}/CMakeCache.txt" found REGEX "^vpcat_DIR:")
    if(NOT found STREQUAL "vpcat_DIR:PATH=${PREFIX}/${LIBDIR}/cmake/vpcat")
      message(FATAL_ERROR "find_package(vpcat) found another package: ${found}")
    endif()
    run_step("build ${project}" "${CMAKE_COMMAND}" --build "${build}")
  endforeach()
  check_examples("${WORK_DIR}/find_package" embed_cpp embed_c)
  check_examples("${WORK_DIR}/find_package_c" embed_c)

elseif(MODE STREQUAL "add_subdirectory")
  # BUILD_SHARED_LIBS=ON: the shared flavour of vpcat::c, whose exported
  # symbols must be the vpcat_* functions of vpcat.h and nothing else.
  set(build "${WORK_DIR}/add_subdirectory")
  file(REMOVE_RECURSE "${build}")
  run_step("configure add_subdirectory" "${CMAKE_COMMAND}" -S "${consumer_dir}/add_subdirectory" -B "${build}"
           ${toolchain_args} "-DVPCAT_SOURCE_DIR=${SOURCE_DIR}" -DBUILD_SHARED_LIBS=ON)
  run_step("build add_subdirectory" "${CMAKE_COMMAND}" --build "${build}")
  check_examples("${build}" embed_cpp embed_c)
  file(GLOB_RECURSE shared "${build}/vpcat/*libvpcat.so")
  if(NOT shared)
    message(FATAL_ERROR "BUILD_SHARED_LIBS=ON built no libvpcat.so")
  endif()
  list(GET shared 0 shared)
  run_step("nm -D" "${NM}" -D --defined-only "${shared}")
  string(REGEX MATCHALL "[^\n]+" symbols "${step_output}")
  set(exported 0)
  foreach(line IN LISTS symbols)
    if(line MATCHES " T (.+)$")
      set(name "${CMAKE_MATCH_1}")
      if(NOT name MATCHES "^vpcat_[a-z0-9_]+$")
        message(FATAL_ERROR "libvpcat.so exports ${name}: only the vpcat_* API may be visible")
      endif()
      math(EXPR exported "${exported} + 1")
    elseif(line MATCHES " [WVuBD] (.+)$")
      message(FATAL_ERROR "libvpcat.so exports ${CMAKE_MATCH_1} (${line}): only the vpcat_* API may be visible")
    endif()
  endforeach()
  file(STRINGS "${SOURCE_DIR}/runtime_loader/include/vpcat.h" declared REGEX "^VPCAT_API ")
  list(LENGTH declared declared)
  if(NOT exported EQUAL declared)
    message(FATAL_ERROR "libvpcat.so exports ${exported} functions, vpcat.h declares ${declared}")
  endif()
  message(STATUS "libvpcat.so exports the ${exported} functions of vpcat.h and nothing else")

elseif(MODE STREQUAL "pkg_config")
  set(build "${WORK_DIR}/pkg_config")
  file(REMOVE_RECURSE "${build}")
  file(MAKE_DIRECTORY "${build}")
  set(ENV{CC} "${C_COMPILER}")
  set(ENV{CXX} "${CXX_COMPILER}")
  set(ENV{CFLAGS} "${C_FLAGS}")
  set(ENV{CXXFLAGS} "${CXX_FLAGS}")
  set(ENV{LDFLAGS} "${EXE_LINKER_FLAGS}")
  run_step("pkg_config.sh" sh "${consumer_dir}/pkg_config.sh" "${PREFIX}/${LIBDIR}/pkgconfig" "${consumer_dir}" "${build}")
  message(STATUS "${step_output}")
  check_examples("${build}" embed_cpp embed_c)

else()
  message(FATAL_ERROR "run.cmake: unknown MODE '${MODE}'")
endif()
