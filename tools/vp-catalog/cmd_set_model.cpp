// `vp-catalog set-model FILE (--table TABLE | --ideal | --class-default)
// --out OUT [--json-out J]`: the catalog with another machine model (its
// machine_model section, SPEC.md §6.13), everything else as it was; the
// file is written anew (checksums and header included) and atomically.
#include <fmt/format.h>

#include <cstdio>

#include "commands.hpp"
#include "machine_model_file.hpp"
#include "vp/base/errors.hpp"
#include "vp/catalog/json_mirror.hpp"
#include "vp/catalog/machine_model.hpp"
#include "vp/catalog/writer.hpp"
#include "vp/cli/catalog_file.hpp"
#include "vp/cli/output.hpp"

namespace vp::catalog_cli {

namespace {

struct SetModelOptions {
  std::string file, table, out, json_out;
  bool ideal = false, class_default = false;
};

// The model asked for, each value with its source.
catalog::MachineModelSpec model_of(const SetModelOptions& o) {
  if (o.ideal) return vp::sim_cli::read_machine_model_spec("ideal");
  if (o.class_default) return catalog::class_default_model();
  return vp::sim_cli::read_machine_model_spec(o.table);
}

int run(const SetModelOptions& o) {
  if (int(o.ideal) + int(o.class_default) + int(!o.table.empty()) != 1)
    throw UsageError("set-model: give exactly one of --table FILE, --ideal and --class-default");
  if (o.out == "-" && o.json_out == "-") throw UsageError("--out - --json-out -: only one output can go to standard output");
  vp::cli::check_binary_stdout("--out", o.out);
  catalog::MachineModelSpec model = model_of(o);  // a bad table fails before the catalog is read
  vp::cli::LoadedCatalog l = vp::cli::load_catalog(o.file);
  l.catalog.machine_model = std::move(model);
  const std::vector<std::uint8_t> bytes = catalog::write_catalog(l.catalog);
  std::vector<catalog::OutputFile> outputs{{o.out, bytes.data(), bytes.size()}};
  const std::string mirror = o.json_out.empty() ? std::string() : catalog::dump_json(l.catalog);
  if (!o.json_out.empty())
    outputs.push_back({o.json_out, reinterpret_cast<const std::uint8_t*>(mirror.data()), mirror.size()});
  vp::cli::write_outputs(outputs);
  std::FILE* summary_to = vp::cli::writes_stdout({o.out, o.json_out}) ? stderr : stdout;
  const char* what = o.ideal ? "the ideal model (every loss off)" : o.class_default ? "the class defaults" : nullptr;
  vp::cli::write_report(summary_to, fmt::format("{}: machine model {}\n", o.out == "-" ? "standard output" : o.out,
                                                what ? std::string(what) : "of table " + o.table));
  return 0;
}

}  // namespace

Runner setup_set_model(CLI::App& app) {
  auto o = std::make_shared<SetModelOptions>();
  CLI::App* cmd = app.add_subcommand(
      "set-model", "Write the catalog with another machine model (what sharing a resource costs; the planner plans under it)");
  cmd->add_option("FILE,--catalog", o->file, "The catalog (.vpcat or JSON mirror)")->required();
  cmd->add_option("--table", o->table,
                  "A contention table (schemas/contention.schema.json, as simulator/contention.json): its forwarder "
                  "curve and CPU families, NIC curve and chunk cost, each value's source \"table FILE\"")
      ->type_name("FILE");
  cmd->add_flag("--ideal", o->ideal, "Every loss off: the judge's ideal model (vp-sim --model ideal)");
  cmd->add_flag("--class-default", o->class_default,
                "The planner's class defaults (the committed calibrated table), sources cited: what vp-analyze writes");
  cmd->add_option("--out", o->out, "Output catalog, - for standard output")->required();
  cmd->add_option("--json-out", o->json_out, "Also write its JSON mirror here (- for standard output)");
  return [o] { return run(*o); };
}

}  // namespace vp::catalog_cli
