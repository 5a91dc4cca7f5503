#include "vp/catalog/errors.hpp"

namespace vp::catalog {

CatalogError status_error(const vpcat::Status& s, const std::string& origin) {
  const bool unreadable = s.code() == vpcat::Error::io_error || s.code() == vpcat::Error::file_too_large;
  std::string message = origin.empty() ? std::string(s.message()) : origin + ": " + s.message();
  return CatalogError(unreadable ? CatalogError::Kind::unreadable : CatalogError::Kind::invalid, message, s.code());
}

}  // namespace vp::catalog
