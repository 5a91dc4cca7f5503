// vpcat statuses as Python exceptions.
//
//   vpcat.Error                      every failure: .code (int, status_codes.def),
//   ├── vpcat.CatalogError           .name ("bad_magic"), .message ("where: what
//   └── vpcat.PlanError              (why)"), .section/.offset (catalog) or .cell
//       ├── vpcat.DemandError        (demand); DemandError and OptionsError are
//       └── vpcat.OptionsError       also ValueErrors.
//
// C++ code throws StatusError (from a Status or a PlanStatus); the translator
// registered by register_errors() turns it into the matching Python class.
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <utility>

#include "vpcat/planner/status.hpp"
#include "vpcat/status.hpp"

namespace vpcat_python {

class StatusError : public std::exception {
 public:
  explicit StatusError(const vpcat::Status& s);
  explicit StatusError(const vpcat::PlanStatus& s);
  const char* what() const noexcept override { return message_.c_str(); }

  int code() const noexcept { return code_; }
  const std::string& name() const noexcept { return name_; }
  const std::string& message() const noexcept { return message_; }
  const std::optional<std::string>& section() const noexcept { return section_; }
  const std::optional<std::uint64_t>& offset() const noexcept { return offset_; }
  const std::optional<std::pair<std::uint64_t, std::uint64_t>>& cell() const noexcept { return cell_; }

 private:
  int code_;
  std::string name_, message_;
  std::optional<std::string> section_;
  std::optional<std::uint64_t> offset_;
  std::optional<std::pair<std::uint64_t, std::uint64_t>> cell_;
};

// Defines the exception classes in `m` and registers the translator.
void register_errors(pybind11::module_& m);

}  // namespace vpcat_python
