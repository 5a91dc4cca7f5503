// `vp-catalog convert FILE --to json|binary --out OUT`: between the binary
// and its JSON mirror (either way; OUT "-" is standard output). The output
// file is replaced atomically.
#include <fmt/format.h>

#include <cstdio>

#include "commands.hpp"
#include "vp/catalog/json_mirror.hpp"
#include "vp/catalog/writer.hpp"
#include "vp/cli/catalog_file.hpp"
#include "vp/cli/output.hpp"

namespace vp::catalog_cli {

namespace {

struct ConvertOptions {
  std::string file, to, out;
};

int run(const ConvertOptions& o) {
  if (o.to == "binary") vp::cli::check_binary_stdout("--out", o.out);
  const vp::cli::LoadedCatalog l = vp::cli::load_catalog(o.file);
  std::vector<std::uint8_t> bytes;
  if (o.to == "json") {
    const std::string text = catalog::dump_json(l.catalog);
    bytes.assign(text.begin(), text.end());
  } else {
    bytes = catalog::write_catalog(l.catalog);
  }
  vp::cli::write_outputs({{o.out, bytes.data(), bytes.size()}});
  return 0;
}

}  // namespace

Runner setup_convert(CLI::App& app) {
  auto o = std::make_shared<ConvertOptions>();
  CLI::App* cmd = app.add_subcommand("convert", "Convert between the binary catalog and its JSON mirror");
  cmd->add_option("FILE,--catalog", o->file, "The catalog (.vpcat or JSON mirror)")->required();
  cmd->add_option("--to", o->to, "Output form")->required()->check(CLI::IsMember({"json", "binary"}));
  cmd->add_option("--out", o->out, "Output file, - for standard output")->required();
  return [o] { return run(*o); };
}

}  // namespace vp::catalog_cli
