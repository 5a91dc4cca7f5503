// The main() of every vp-* tool:
//
//   int main(int argc, char** argv) {
//     CLI::App app{"vp-plan: ...", "vp-plan"};
//     ... add options ...
//     return vp::cli::run_main({"vp-plan", vp::cli::Catalogs::read}, app, argc, argv, [&] { return run(o); });
//   }
//
// run_main() adds --version and the input limits (--max-input-bytes,
// --max-input-wait: vp::input_limits()), parses the command line and runs
// `body`; every error is printed as "tool: error: where: what (why)" on
// stderr and mapped to its exit code (vp::ExitCode): CLI11's usage errors and vp::UsageError 1,
// vp::InputError 2, a catalog::CatalogError 2 (unreadable) or 3 (invalid),
// anything else "tool: internal error: ..." and 4.
#pragma once

#include <CLI/CLI.hpp>
#include <exception>
#include <functional>
#include <string>

namespace vp::cli {

// What a tool does with catalogs, for --version.
enum class Catalogs { read, read_write };

struct Tool {
  const char* name;  // "vp-plan"
  Catalogs catalogs;
};

// The --version text: "vp-plan 0.1.0", then the catalog format versions the
// tool reads (and writes).
std::string version_text(const Tool& tool);

// The exit code of an exception that reached main(), after printing it.
int report_error(const Tool& tool, const std::exception& e);

// The input-limit options, in their own group of --help (run_main adds them).
void add_input_limit_options(CLI::App& app);

int run_main(const Tool& tool, CLI::App& app, int argc, char** argv, const std::function<int()>& body);

}  // namespace vp::cli
