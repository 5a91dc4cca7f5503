#include "vp/topology/errors.hpp"

#include <utility>

namespace vp {

namespace {
std::string where_what(const std::string& file, int line, const std::string& reason) {
  std::string where = file.empty() ? std::string("<input>") : file;
  if (line > 0) where += ":" + std::to_string(line);
  return where + ": " + reason;
}
}  // namespace

InputError::InputError(std::string file, int line, std::string reason)
    : std::runtime_error(where_what(file, line, reason)),
      file_(std::move(file)),
      line_(line),
      reason_(std::move(reason)) {}

}  // namespace vp
