// Errors of the catalog library (writer, reader, JSON mirror, files).
//
// Every message reads "where: what (why)". The kind decides the exit code
// (exit_code(), used by every tool's run_main()): `unreadable` (cannot open
// or parse: exit 2) or `invalid` (read but breaks a format rule, or a
// mismatch: exit 3).
#pragma once

#include <string>

#include "vp/base/errors.hpp"
#include "vpcat/status.hpp"

namespace vp::catalog {

class CatalogError : public ToolError {
 public:
  enum class Kind { unreadable, invalid };

  CatalogError(Kind kind, const std::string& message, vpcat::Error code = vpcat::Error::ok)
      : ToolError(message), kind_(kind), code_(code) {}

  Kind kind() const noexcept { return kind_; }
  ExitCode exit_code() const noexcept override {
    return kind_ == Kind::unreadable ? ExitCode::bad_input : ExitCode::invalid;
  }
  // The verifier's code for binary input; ok for other failures.
  vpcat::Error code() const noexcept { return code_; }

 private:
  Kind kind_;
  vpcat::Error code_;
};

// A CatalogError from a failed vpcat::Status; `origin` (a path, or empty)
// prefixes the message. io_error and file_too_large are `unreadable`.
CatalogError status_error(const vpcat::Status& s, const std::string& origin);

}  // namespace vp::catalog
