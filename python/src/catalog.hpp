// vpcat.Catalog: a verified catalog, memory-mapped from a file (zero copy)
// or copied from a bytes-like object. Read-only after open, so any number of
// threads may use it.
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vpcat/derived_patterns.hpp"
#include "vpcat/mapped_file.hpp"

namespace vpcat_python {

class Catalog {
 public:
  // Map and verify `path` (the GIL released while verifying). Throws StatusError.
  static std::unique_ptr<Catalog> open(const std::string& path, const vpcat::VerifyOptions& options);
  // Copy `size` bytes and verify them. Throws StatusError.
  static std::unique_ptr<Catalog> from_bytes(const std::uint8_t* data, std::size_t size,
                                             const vpcat::VerifyOptions& options);

  Catalog(const Catalog&) = delete;
  Catalog& operator=(const Catalog&) = delete;

  const vpcat::CatalogView& view() const noexcept { return *view_; }
  const std::optional<std::string>& path() const noexcept { return path_; }
  // Partial nodes' derivations, kept for every subset Planner of this catalog
  // (vpcat/derived_patterns.hpp; locked), as the C API's catalog handle keeps
  // them: a job's next membership reuses them.
  vpcat::DerivedPatterns& derived() const noexcept { return derived_; }

 private:
  Catalog() = default;
  std::optional<std::string> path_;
  vpcat::CatalogFile file_;           // open(): the mapping and its view
  std::vector<std::uint8_t> bytes_;   // from_bytes(): the copy
  vpcat::CatalogView copied_view_;    // from_bytes(): its view
  const vpcat::CatalogView* view_ = nullptr;
  mutable vpcat::DerivedPatterns derived_;
};

void register_catalog(pybind11::module_& m);

}  // namespace vpcat_python
