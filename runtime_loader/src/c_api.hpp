// What the files of the C API (vpcat.h) share: the handles behind its opaque
// types, the conversion of C++ statuses and options to C, and small helpers.
// Private to runtime_loader/src: one .cpp per section of vpcat.h
// (c_versions.cpp, c_open.cpp, c_catalog.cpp, c_gpus.cpp, c_node_types.cpp,
// c_planner.cpp, c_plans.cpp), and c_common.cpp for what is declared here.
//
// All of it is built with -fno-exceptions -fno-rtti: nothing here can throw,
// so nothing crosses the C boundary but return codes. Every precondition of
// the C++ views (an index below its count, a non-null pointer) is checked in
// the C functions and becomes a status; past these checks the calls are the
// C++ ones, unchanged. The definitions of the vpcat_* functions take their C
// linkage from the declarations in vpcat.h; -Wmissing-declarations catches
// one whose signature drifted.
#pragma once

#include <cstdint>
#include <string_view>

#include "vpcat.h"
#include "vpcat/catalog_view.hpp"
#include "vpcat/mapped_file.hpp"
#include "vpcat/planner.hpp"
#include "vpcat/status.hpp"
#include "vpcat/verify.hpp"

#if defined(__cpp_exceptions) || defined(__GXX_RTTI)
#error "the C API is built with -fno-exceptions -fno-rtti (runtime_loader/CMakeLists.txt)"
#endif

// ---- handles --------------------------------------------------------------------------------

struct vpcat_catalog {
  vpcat::MappedFile file;          // open_file: the mapping
  unsigned char* copy = nullptr;   // open_buffer with VPCAT_OPEN_COPY: the owned bytes
  vpcat::CatalogView view;         // points into file, copy or the caller's buffer
  // Partial nodes' derivations, kept for every subset planner of this
  // catalog (vpcat/derived_patterns.hpp; locked, so queries stay thread-safe).
  mutable vpcat::DerivedPatterns derived;
  ~vpcat_catalog() { ::operator delete(copy); }
};

struct vpcat_planner {
  vpcat::Planner planner;
  vpcat::detail::PodBuffer<vpcat::DemandEntry> entries;  // the sparse demand, copied
};

struct vpcat_plan {
  vpcat::Plan plan;
};

namespace vpcat_c {

// ---- errors ------------------------------------------------------------------------------

// The C status of `s`; fills `err` (when not NULL) on failure.
vpcat_status from(const vpcat::Status& s, vpcat_error* err) noexcept;
vpcat_status from(const vpcat::PlanStatus& s, vpcat_error* err) noexcept;

// A failure of the C layer: "where: base message (detail)".
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
vpcat_status fail(vpcat_error* err, vpcat_status code, const char* where, const char* detail, ...) noexcept;

// ---- options --------------------------------------------------------------------------------

// Copies the C options (NULL: the defaults) into `out`; false, with
// `*status` set and `err` filled, on a wrong struct_size or a bad field.
bool to_cpp(const vpcat_verify_options* o, vpcat::VerifyOptions* out, vpcat_error* err, const char* where,
            vpcat_status* status) noexcept;
bool to_cpp(const vpcat_plan_options* o, vpcat::PlanOptions* out, vpcat_error* err, const char* where,
            vpcat_status* status) noexcept;

// ---- transfers -------------------------------------------------------------------------------

vpcat::PlanTransfer to_cpp(const vpcat_transfer& t) noexcept;
vpcat_transfer to_c(const vpcat::PlanTransfer& p) noexcept;

// ---- small helpers ----------------------------------------------------------------------------

inline const char* cstr(std::string_view s) noexcept { return s.data(); }  // catalog strings are NUL-terminated (verified)

inline bool type_ok(const vpcat_catalog* cat, std::uint32_t type) noexcept { return type < cat->view.node_type_count(); }

inline bool is_endpoint(const vpcat::NodeTypeView& t, std::uint32_t c) noexcept {
  return c >= t.first_gpu() && c < t.component_count();
}

}  // namespace vpcat_c
