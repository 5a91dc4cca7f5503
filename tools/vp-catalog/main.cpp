// vp-catalog: inspect, validate, compare, convert and dump .vpcat catalogs.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>

#include "commands.hpp"
#include "vp/catalog/errors.hpp"
#include "vp/topology/errors.hpp"

int main(int argc, char** argv) {
  using vp::ExitCode;
  CLI::App app{"vp-catalog: inspect, validate, compare, convert and dump VarioPath catalogs (.vpcat)", "vp-catalog"};
  app.require_subcommand(1);
  const vp::catalog_cli::Runner inspect = vp::catalog_cli::setup_inspect(app);
  const vp::catalog_cli::Runner validate = vp::catalog_cli::setup_validate(app);
  const vp::catalog_cli::Runner diff = vp::catalog_cli::setup_diff(app);
  const vp::catalog_cli::Runner convert = vp::catalog_cli::setup_convert(app);
  const vp::catalog_cli::Runner dump = vp::catalog_cli::setup_dump(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : static_cast<int>(ExitCode::usage);
  }
  try {
    if (app.got_subcommand("inspect")) return inspect();
    if (app.got_subcommand("validate")) return validate();
    if (app.got_subcommand("diff")) return diff();
    if (app.got_subcommand("convert")) return convert();
    return dump();
  } catch (const vp::catalog::CatalogError& e) {
    fmt::print(stderr, "vp-catalog: error: {}\n", e.what());
    return static_cast<int>(e.kind() == vp::catalog::CatalogError::Kind::unreadable ? ExitCode::bad_input
                                                                                    : ExitCode::invalid);
  } catch (const vp::InputError& e) {
    fmt::print(stderr, "vp-catalog: error: {}\n", e.what());
    return static_cast<int>(ExitCode::bad_input);
  } catch (const vp::UsageError& e) {
    fmt::print(stderr, "vp-catalog: error: {}\n", e.what());
    return static_cast<int>(ExitCode::usage);
  } catch (const std::exception& e) {
    fmt::print(stderr, "vp-catalog: internal error: {}\n", e.what());
    return static_cast<int>(ExitCode::internal);
  }
}
