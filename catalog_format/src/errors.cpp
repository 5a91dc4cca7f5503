#include "vp/catalog/errors.hpp"

#include "vp/base/errors.hpp"

namespace vp::catalog {

CatalogError status_error(const vpcat::Status& s, const std::string& origin) {
  const bool unreadable = s.code() == vpcat::Error::io_error || s.code() == vpcat::Error::file_too_large;
  // One line, whatever bytes the file's name holds (the runtime's messages name it raw).
  std::string message = printable_line(origin.empty() ? std::string(s.message()) : origin + ": " + s.message());
  return CatalogError(unreadable ? CatalogError::Kind::unreadable : CatalogError::Kind::invalid, message, s.code());
}

}  // namespace vp::catalog
