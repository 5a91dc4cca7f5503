// vpcat library version and the version-tagged namespace.
//
// The library version (this header) is not the file format version
// (format.hpp: kFormatMajor / kFormatMinor): a library release may fix bugs
// or add accessors without changing a byte of the format.
//
// Everything lives in `namespace vpcat { inline namespace v1 { ... } }`, so
// that two incompatible copies of these headers linked into one process get
// distinct symbols instead of silently mixing (as nlohmann/json does).
#pragma once

#define VPCAT_VERSION_MAJOR 0
#define VPCAT_VERSION_MINOR 1
#define VPCAT_VERSION_PATCH 0

namespace vpcat {
inline namespace v1 {

inline constexpr int kLibraryVersionMajor = VPCAT_VERSION_MAJOR;
inline constexpr int kLibraryVersionMinor = VPCAT_VERSION_MINOR;
inline constexpr int kLibraryVersionPatch = VPCAT_VERSION_PATCH;

}  // namespace v1
}  // namespace vpcat
