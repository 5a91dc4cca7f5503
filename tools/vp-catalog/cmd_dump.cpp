// `vp-catalog dump FILE [--annotate]`: the bytes of a catalog, plain (16 a
// line, like xxd) or annotated with the SPEC.md field names and values.
// Dumps damaged files as far as they go; exit 0 whenever the file was read.
#include <fmt/format.h>

#include "annotate.hpp"
#include "commands.hpp"
#include "vp/cli/catalog_file.hpp"
#include "vp/catalog/reader.hpp"

namespace vp::catalog_cli {

namespace {

struct DumpOptions {
  std::string file;
  bool annotate = false;
};

std::string plain(const std::vector<std::uint8_t>& bytes) {
  std::string out;
  for (std::size_t at = 0; at < bytes.size(); at += 16) {
    std::string hex, text;
    for (std::size_t i = at; i < std::min(bytes.size(), at + 16); ++i) {
      hex += fmt::format("{:02x}{}", bytes[i], i % 2 ? " " : "");
      text += bytes[i] >= 0x20 && bytes[i] < 0x7F ? static_cast<char>(bytes[i]) : '.';
    }
    out += fmt::format("{:08x}: {:<40} {}\n", at, hex, text);
  }
  return out;
}

int run(const DumpOptions& o) {
  const std::vector<std::uint8_t> bytes = cli::read_catalog_bytes(o.file);
  fmt::print("{}", o.annotate ? annotate(bytes.data(), bytes.size()) : plain(bytes));
  return 0;
}

}  // namespace

Runner setup_dump(CLI::App& app) {
  auto o = std::make_shared<DumpOptions>();
  CLI::App* cmd = app.add_subcommand("dump", "Hex dump of a catalog, with --annotate the spec's field names beside the bytes");
  cmd->add_option("FILE,--catalog", o->file, "The .vpcat file")->required();
  cmd->add_flag("--annotate", o->annotate, "Name every field and decode its value");
  return [o] { return run(*o); };
}

}  // namespace vp::catalog_cli
