# The runtime's public surface (runtime_loader/include/vpcat/vpcat.hpp):
# 1. vpcat.hpp includes every public header (vpcat/*.hpp, vpcat/planner/*.hpp)
#    and nothing else: a header added without being listed, or listed after
#    it moved, fails here;
# 2. no C or C++ file outside runtime_loader/ includes a header of a detail/
#    folder of the runtime or names vpcat::detail: tools, libraries, the MPI
#    executor, the Python binding, benchmarks and tests use the public
#    headers only. Two white-box tests are allowed below, with their reasons;
# 3. no public header defines a class or struct in namespace detail: every
#    detail class lives under a detail/ folder (small detail functions and
#    tables beside the public code they serve may stay).
# The target vp_runtime_headers (tests/CMakeLists.txt) compiles each public
# header alone.
#
#   cmake -DSOURCE_DIR=<repository> -P check_runtime_surface.cmake
cmake_minimum_required(VERSION 3.20)
set(include_dir "${SOURCE_DIR}/runtime_loader/include")

# White-box tests of the runtime's internals, each with the reason it needs them.
set(allowed
    # the subset's stored patterns are derived from the type's exactly
    # (vpcat::detail::StoredPatterns, SubsetLayout): no public call shows them
    tests/planner_subset_test.cpp
    # the shifted candidate's one-pass sums against a pass per group size
    # (ShiftedGroups, ShiftedSteps): no public call shows a losing candidate's
    tests/planner_shifted_test.cpp)

set(problems "")

# ---- 1. the umbrella header names every public header ------------------------------------
file(GLOB public RELATIVE "${include_dir}" "${include_dir}/vpcat/*.hpp" "${include_dir}/vpcat/planner/*.hpp")
list(REMOVE_ITEM public vpcat/vpcat.hpp)
file(STRINGS "${include_dir}/vpcat/vpcat.hpp" umbrella_lines REGEX "^#include \"")
set(umbrella "")
foreach(line IN LISTS umbrella_lines)
  string(REGEX REPLACE "^#include \"([^\"]+)\".*$" "\\1" header "${line}")
  list(APPEND umbrella "${header}")
endforeach()
list(LENGTH public public_count)
if(public_count LESS 15)
  message(FATAL_ERROR "only ${public_count} public headers found under ${include_dir}: wrong SOURCE_DIR?")
endif()
foreach(header IN LISTS public)
  if(NOT header IN_LIST umbrella)
    string(APPEND problems "vpcat/vpcat.hpp: does not include the public header ${header}\n")
  endif()
endforeach()
foreach(header IN LISTS umbrella)
  if(NOT header IN_LIST public)
    string(APPEND problems "vpcat/vpcat.hpp: includes ${header}, which is not a public header\n")
  endif()
endforeach()

# ---- 2. nobody outside the runtime reaches into detail/ -----------------------------------
set(sources "")
file(GLOB top RELATIVE "${SOURCE_DIR}" "${SOURCE_DIR}/*")
foreach(dir IN LISTS top)
  if(NOT IS_DIRECTORY "${SOURCE_DIR}/${dir}" OR dir STREQUAL "runtime_loader" OR dir MATCHES "^(\\.|build)")
    continue()
  endif()
  file(GLOB_RECURSE found RELATIVE "${SOURCE_DIR}" "${SOURCE_DIR}/${dir}/*.cpp" "${SOURCE_DIR}/${dir}/*.hpp"
       "${SOURCE_DIR}/${dir}/*.cc" "${SOURCE_DIR}/${dir}/*.h" "${SOURCE_DIR}/${dir}/*.c")
  list(APPEND sources ${found})
endforeach()
list(LENGTH sources source_count)
if(source_count LESS 100)
  message(FATAL_ERROR "only ${source_count} sources found under ${SOURCE_DIR}: wrong SOURCE_DIR?")
endif()
foreach(file IN LISTS sources)
  if(file IN_LIST allowed)
    continue()
  endif()
  file(STRINGS "${SOURCE_DIR}/${file}" hits REGEX "#[ \t]*include[ \t]*[<\"]vpcat/(.*/)?detail/|vpcat::(v0_[0-9]+::)?detail::")
  foreach(hit IN LISTS hits)
    string(STRIP "${hit}" hit)
    string(APPEND problems "${file}: reaches the runtime's internals: ${hit}\n")
  endforeach()
endforeach()

# ---- 3. every detail class under detail/ --------------------------------------------------
foreach(header IN LISTS public)
  file(READ "${include_dir}/${header}" text)
  # A list of lines: no ';' may split one, no '[' or ']' may join two.
  string(REPLACE ";" "," text "${text}")
  string(REPLACE "[" "(" text "${text}")
  string(REPLACE "]" ")" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(in_detail OFF)
  set(line_no 0)
  foreach(line IN LISTS lines)
    math(EXPR line_no "${line_no} + 1")
    if(line MATCHES "^namespace detail {")
      set(in_detail ON)
    elseif(line MATCHES "^}  // namespace detail")
      set(in_detail OFF)
    elseif(in_detail AND line MATCHES "^(template <.*> *)?(class|struct) [A-Za-z_][A-Za-z_0-9]*( final)?( :.*)? *{?$")
      string(APPEND problems "${header}:${line_no}: a detail class in a public header (move it under detail/): ${line}\n")
    endif()
  endforeach()
endforeach()

if(problems)
  message(FATAL_ERROR "the runtime's public surface (runtime_loader/include/vpcat/vpcat.hpp):\n${problems}")
endif()
list(LENGTH umbrella umbrella_count)
message(STATUS "${umbrella_count} public headers, all in vpcat/vpcat.hpp; ${source_count} sources outside the runtime, none reaches into detail/")
