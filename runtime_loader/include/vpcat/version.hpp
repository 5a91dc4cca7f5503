// vpcat library version and the version-tagged namespace.
//
// The library version (this header) is not the file format version
// (format.hpp: kFormatMajor / kFormatMinor): a library release may fix bugs
// or add accessors without changing a byte of the format.
//
// Everything lives in `namespace vpcat { inline namespace v0_1 { ... } }`, so
// that two incompatible copies of these headers linked into one process get
// distinct symbols instead of silently mixing (as nlohmann/json does). While
// the major version is 0 every minor version may break the ABI, so the tag
// carries major and minor (v0_1); from 1.0 on, the major alone.
#pragma once

#define VPCAT_VERSION_MAJOR 0
#define VPCAT_VERSION_MINOR 1
#define VPCAT_VERSION_PATCH 0

namespace vpcat {
inline namespace v0_1 {

inline constexpr int kLibraryVersionMajor = VPCAT_VERSION_MAJOR;
inline constexpr int kLibraryVersionMinor = VPCAT_VERSION_MINOR;
inline constexpr int kLibraryVersionPatch = VPCAT_VERSION_PATCH;

// Bumping the version without renaming the tag fails here.
static_assert(VPCAT_VERSION_MAJOR == 0 && VPCAT_VERSION_MINOR == 1,
              "the inline namespace must name the library version: rename v0_1 in every vpcat header");

}  // namespace v0_1
}  // namespace vpcat
