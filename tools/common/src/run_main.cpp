#include "vp/cli/run_main.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <new>
#include <optional>
#include <string_view>
#include <vector>

#include "vp/base/errors.hpp"
#include "vp/base/input_file.hpp"
#include "vp/base/messages.hpp"
#include "vp/cli/cli_docs.hpp"
#include "vp/cli/near_miss.hpp"
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
  vp::error(tool.name, fmt::format("standard output: cannot write ({})", std::strerror(err != 0 ? err : EIO)));
  return static_cast<int>(ExitCode::bad_input);
}

// Whether everything written to standard output so far reached it (CLI11
// writes --help and --version through std::cout, which shares stdout's buffer).
bool stdout_lost() {
  std::cout.flush();
  return !std::cout || std::fflush(stdout) != 0 || std::ferror(stdout);
}

}  // namespace

int report_error(const Tool& tool, const std::exception& e) {
  // fmt::print throws when a write to stdout fails: that is the output lost,
  // not a bug.
  if (std::ferror(stdout)) return lost_output(tool, errno);
  if (const auto* known = dynamic_cast<const ToolError*>(&e)) {
    if (known->exit_code() == ExitCode::internal) {
      vp::write_message(stderr, fmt::format("{}: internal error: {}\n", tool.name, known->what()));
    } else {
      vp::error(tool.name, known->what());
    }
    return static_cast<int>(known->exit_code());
  }
  // The readers name the input that ran out of memory (vp::reading_input);
  // this is the rest: work on inputs too large for the memory given.
  if (dynamic_cast<const std::bad_alloc*>(&e) != nullptr) {
    vp::error(tool.name, "out of memory (the inputs need more memory than this machine or its ulimit gives)");
    return static_cast<int>(ExitCode::bad_input);
  }
  vp::write_message(stderr, fmt::format("{}: internal error: {}\n", tool.name, e.what()));
  return static_cast<int>(ExitCode::internal);
}

void add_input_limit_options(CLI::App& app) {
  InputLimits& limits = input_limits();
  app.add_option("--max-input-bytes", limits.max_bytes,
                 "Refuse an input file larger than this (bytes, or with a unit: 64MiB, 2GiB; default 1GiB)")
      ->transform(CLI::AsSizeValue(false))
      ->group("Input limits");
  app.add_option_function<double>(
         "--max-input-wait",
         [&limits](double seconds) {
           limits.max_wait = std::chrono::milliseconds(static_cast<std::int64_t>(seconds * 1000.0 + 0.5));
         },
         "Refuse a pipe or device input that has not ended this many seconds after it was opened (default 60)")
      ->check(CLI::Range(0.001, 86400.0))
      ->group("Input limits");
  app.add_option("--max-json-memory", limits.max_json_memory,
                 "Refuse a JSON input whose parsed form would take more memory than this (bytes, or with a unit: "
                 "512MiB; default 2GiB)")
      ->transform(CLI::AsSizeValue(false))
      ->group("Input limits");
}

int run_main(const Tool& tool, CLI::App& app, int argc, char** argv, const std::function<int()>& body) {
  app.set_version_flag("--version", version_text(tool), "Print the tool's version and the catalog format versions");
  if (app.get_option_no_throw("--max-input-bytes") == nullptr) add_input_limit_options(app);
  // A subcommand passes options it does not know (the limits) to the tool.
  // (CLI11 copies fallthrough only into subcommands made after it is set.)
  std::function<void(CLI::App&)> fall_through = [&](CLI::App& a) {
    a.fallthrough();
    for (CLI::App* sub : a.get_subcommands([](CLI::App*) { return true; })) fall_through(*sub);
  };
  fall_through(app);
  // The build's hidden entry (cli_docs.hpp): the man page and the shell
  // completion of the App as built above, never shown by --help.
  if (argc == 3 && std::string_view(argv[1]) == kGenerateDocsFlag) {
    try {
      write_cli_docs(tool, app, argv[2]);
    } catch (const std::exception& e) {
      return report_error(tool, e);
    }
    return 0;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) {  // --help, --version
      const int code = app.exit(e);
      return stdout_lost() ? lost_output(tool, errno) : code;
    }
    // A word the tool does not know says more than what CLI11 made of it
    // ("--catalg x" is "--catalog is required" to CLI11).
    const std::optional<std::string> unknown = unknown_word(app, std::vector<std::string>(argv + 1, argv + argc));
    vp::error(tool.name, fmt::format("{} (run '{} --help' for the options)", unknown ? *unknown : std::string(e.what()),
                                     tool.name));
    return static_cast<int>(ExitCode::usage);
  }
  int code = 0;
  try {
    code = body();
  } catch (const std::exception& e) {
    return report_error(tool, e);
  }
  if (stdout_lost()) return lost_output(tool, errno);
  return code;
}

}  // namespace vp::cli
