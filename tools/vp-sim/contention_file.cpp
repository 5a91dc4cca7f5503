#include "contention_file.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <limits>
#include <vector>

#include "vp/base/errors.hpp"
#include "vp/base/input_file.hpp"
#include "vp/base/json_document.hpp"
#include "vp/base/json_field.hpp"
#include "vp/topology/errors.hpp"

namespace vp::sim_cli {

namespace {

using vp::json::Field;

constexpr double kNoMax = std::numeric_limits<double>::infinity();

void source(const Field& parameter) {
  const Field src = parameter.at("source");
  if (src.text().empty()) src.fail("every parameter needs its source (or \"no published figure: ...\")");
}

// A parameter: {"value": number in [lo, hi] ((lo, hi] when open_low),
// "source": text}. Every value names its source (or says it has none).
double value(const Field& parameter, double lo, bool open_low, double hi) {
  const double v = parameter.at("value").number_in(lo, hi, open_low);
  source(parameter);
  return v;
}

sim::EfficiencyCurve curve(const Field& c) {
  sim::EfficiencyCurve out;
  out.on = c.at("on").boolean();
  out.slope = value(c.at("slope"), 0.0, false, kNoMax);
  out.floor = value(c.at("floor"), 0.0, true, 1.0);
  return out;
}

}  // namespace

sim::ContentionModel read_contention_file(const std::string& path) {
  // The JSON front end: every error at its line and column, the tree within
  // its budget. Keys the model does not read (description, sweep_max,
  // fitted_on, ...) are the table's own documentation: ignored.
  const vp::json::Document doc = vp::json::Document::read_file(path);
  const Field root(doc);
  root.expect_object();
  const Field format = root.at("format");
  if (format.text() != "vp-contention") format.fail("must be \"vp-contention\", got " + vp::json::describe(format.json()));
  root.at("version").integer(1, 1);
  sim::ContentionModel m;
  m.enabled = true;
  const Field forwarder = root.at("forwarder");
  m.forwarder = curve(forwarder);
  if (auto families = forwarder.find("families")) {
    for (const Field& f : families->items()) {
      const Field match = f.at("match");
      if (match.text().empty()) match.fail("must be a non-empty string (a substring of the socket's model)");
      m.forwarder_families.push_back({match.text(), value(f.at("slope"), 0.0, false, kNoMax),
                                      value(f.at("floor"), 0.0, true, 1.0)});
    }
  }
  m.nic = curve(root.at("nic"));
  // Absent in tables written before the mechanism existed: off.
  if (auto endpoint = root.find("endpoint")) m.endpoint = curve(*endpoint);
  if (auto arbitration = root.find("port_arbitration")) {
    m.port_arbitration = arbitration->at("on").boolean();
    source(*arbitration);
  }
  const Field chunk = root.at("chunk");
  m.chunk_on = chunk.at("on").boolean();
  m.chunk_bytes = value(chunk.at("bytes"), 0.0, true, kNoMax);
  m.chunk_overhead_us = value(chunk.at("overhead_us"), 0.0, false, kNoMax);
  return m;
}

std::string default_contention_file() {
  namespace fs = std::filesystem;
  std::vector<fs::path> tried;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) tried.push_back((exe.parent_path() / ".." / "share" / "vpcat" / "contention.json").lexically_normal());
  tried.emplace_back(VP_SOURCE_CONTENTION_TABLE);
  std::string names;
  for (const fs::path& p : tried) {
    if (fs::is_regular_file(p, ec)) return p.string();
    names += (names.empty() ? "" : " nor ") + p.string();
  }
  throw UsageError(fmt::format("--model contention: no contention table at {} (give --contention FILE)", names));
}

}  // namespace vp::sim_cli
