#include "vp/cli/run_main.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "vp/base/errors.hpp"
#include "vpcat/format.hpp"
#include "vpcat/version.hpp"

namespace vp::cli {

std::string version_text(const Tool& tool) {
  const std::string format = fmt::format("{}.{}", vpcat::kFormatMajor, vpcat::kFormatMinor);
  const std::string reads =
      fmt::format("reads {}.x files that need at most a {} reader (SPEC.md \"Compatibility\")", vpcat::kFormatMajor,
                  format);
  return fmt::format("{} {}.{}.{}\ncatalog format: {}{}", tool.name, vpcat::kLibraryVersionMajor,
                     vpcat::kLibraryVersionMinor, vpcat::kLibraryVersionPatch,
                     tool.catalogs == Catalogs::read_write ? "writes " + format + "; " : std::string(), reads);
}

namespace {

// Output lost on a full disk (or any failed write to standard output) is an
// error, never a silent success: exit 2, as for a file that cannot be written.
int lost_output(const Tool& tool, int err) {
  fmt::print(stderr, "{}: error: standard output: cannot write ({})\n", tool.name, std::strerror(err != 0 ? err : EIO));
  return static_cast<int>(ExitCode::bad_input);
}

}  // namespace

int report_error(const Tool& tool, const std::exception& e) {
  // fmt::print throws when a write to stdout fails: that is the output lost,
  // not a bug.
  if (std::ferror(stdout)) return lost_output(tool, errno);
  if (const auto* known = dynamic_cast<const ToolError*>(&e)) {
    fmt::print(stderr, "{}: error: {}\n", tool.name, known->what());
    return static_cast<int>(known->exit_code());
  }
  fmt::print(stderr, "{}: internal error: {}\n", tool.name, e.what());
  return static_cast<int>(ExitCode::internal);
}

int run_main(const Tool& tool, CLI::App& app, int argc, char** argv, const std::function<int()>& body) {
  app.set_version_flag("--version", version_text(tool), "Print the tool's version and the catalog format versions");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e);  // --help, --version
    fmt::print(stderr, "{}: error: {} (run '{} --help' for the options)\n", tool.name, e.what(), tool.name);
    return static_cast<int>(ExitCode::usage);
  }
  int code = 0;
  try {
    code = body();
  } catch (const std::exception& e) {
    return report_error(tool, e);
  }
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) return lost_output(tool, errno);
  return code;
}

}  // namespace vp::cli
