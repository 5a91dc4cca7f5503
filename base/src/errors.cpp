#include "vp/base/errors.hpp"

#include <utility>

namespace vp {

namespace {
std::string message(const std::string& file, int line, int column, const std::string& reason,
                    const std::string& excerpt) {
  std::string m = source_place(file, line, column) + ": " + reason;
  if (!excerpt.empty()) m += "\n" + excerpt;
  return m;
}
}  // namespace

std::string source_place(const std::string& file, int line, int column) {
  std::string where = file.empty() ? std::string("<input>") : file;
  if (line > 0) {
    where += ":" + std::to_string(line);
    if (column > 0) where += ":" + std::to_string(column);
  }
  return where;
}

InputError::InputError(std::string file, int line, std::string reason)
    : InputError(std::move(file), line, 0, std::move(reason), "") {}

InputError::InputError(std::string file, int line, int column, std::string reason, std::string excerpt)
    : ToolError(message(file, line, column, reason, excerpt)),
      file_(std::move(file)),
      line_(line),
      column_(column),
      reason_(std::move(reason)),
      excerpt_(std::move(excerpt)) {}

}  // namespace vp
