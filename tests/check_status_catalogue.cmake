# The error catalogue (runtime_loader/include/vpcat/status_codes.def) against
# the places that must list its codes but cannot include it: vpcat.h (a
# self-contained C99 header), docs/c-api.md, catalog_format/SPEC.md (reader
# codes) and docs/planner.md (planner codes). src/c_versions.cpp asserts the
# other direction at compile time (each catalogue code is a vpcat.h constant
# of the same value).
#
#   cmake -DSOURCE_DIR=<repository> -P check_status_catalogue.cmake
file(READ "${SOURCE_DIR}/runtime_loader/include/vpcat/status_codes.def" def)
file(READ "${SOURCE_DIR}/runtime_loader/include/vpcat.h" header)
file(READ "${SOURCE_DIR}/docs/c-api.md" c_api)
file(READ "${SOURCE_DIR}/catalog_format/SPEC.md" spec)
file(READ "${SOURCE_DIR}/docs/planner.md" planner)

set(problems "")
set(constants "")
string(REGEX MATCHALL "\nVPCAT_(READER|PLAN|C)_STATUS\\([a-z_0-9]+, [A-Z_0-9]+, [0-9]+, \"[^\"]*\"\\)" entries "${def}")
list(LENGTH entries count)
if(count LESS 50)
  message(FATAL_ERROR "status_codes.def: only ${count} entries read; the line format changed?")
endif()
foreach(entry IN LISTS entries)
  string(REGEX REPLACE "^\nVPCAT_([A-Z]+)_STATUS\\(([a-z_0-9]+), ([A-Z_0-9]+), ([0-9]+), \"([^\"]*)\"\\)$"
                       "\\1;\\2;\\3;\\4;\\5" fields "${entry}")
  list(GET fields 0 kind)
  list(GET fields 1 name)
  list(GET fields 2 constant)
  list(GET fields 3 code)
  list(GET fields 4 message)
  list(APPEND constants ${constant})
  if(NOT header MATCHES "[ \n]${constant} = ${code}[, \n]")
    string(APPEND problems "  vpcat.h: no ${constant} = ${code}\n")
  endif()
  string(FIND "${c_api}" "| ${code} | `${constant}` | `${name}` | ${message} |" at)
  if(at EQUAL -1)
    string(APPEND problems "  docs/c-api.md: no row \"| ${code} | `${constant}` | `${name}` | ${message} |\"\n")
  endif()
  if(kind STREQUAL "READER")
    string(FIND "${spec}" "| ${code} | `${name}` | ${message} |" at)
    if(at EQUAL -1)
      string(APPEND problems "  catalog_format/SPEC.md: no row \"| ${code} | `${name}` | ${message} |\"\n")
    endif()
  elseif(kind STREQUAL "PLAN")
    string(FIND "${planner}" "`${name}`" at)
    if(at EQUAL -1)
      string(APPEND problems "  docs/planner.md: ${name} (${code}) is not listed\n")
    endif()
  endif()
endforeach()

# Every status constant of vpcat.h is in the catalogue.
string(REGEX MATCHALL "VPCAT_(OK|E_[A-Z_0-9]+) = [0-9]+" declared "${header}")
foreach(d IN LISTS declared)
  string(REGEX REPLACE " = .*" "" constant "${d}")
  list(FIND constants ${constant} at)
  if(at EQUAL -1)
    string(APPEND problems "  vpcat.h: ${d} is not in status_codes.def\n")
  endif()
endforeach()

if(problems)
  message(FATAL_ERROR "the error catalogue (runtime_loader/include/vpcat/status_codes.def) disagrees with:\n${problems}")
endif()
message(STATUS "status catalogue: ${count} codes, vpcat.h and the docs agree")
