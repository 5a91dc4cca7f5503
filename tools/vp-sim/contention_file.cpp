#include "contention_file.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <stdexcept>
#include <vector>

#include "vp/base/errors.hpp"
#include "vp/base/input_file.hpp"
#include "vp/base/json_document.hpp"
#include "vp/topology/errors.hpp"

namespace vp::sim_cli {

namespace {

using json = vp::json::Json;

class Reader {
 public:
  explicit Reader(std::string path) : path_(std::move(path)) {}

  [[noreturn]] void fail(const std::string& reason) const { throw InputError(path_, 0, reason); }

  const json& object(const json& parent, const char* key, const std::string& where) const {
    auto it = parent.find(key);
    if (it == parent.end()) fail(fmt::format("{}: missing key \"{}\"", where.empty() ? "top level" : where, key));
    if (!it->is_object()) fail(fmt::format("{}{}: must be an object", where.empty() ? "" : where + ".", key));
    return *it;
  }

  bool flag(const json& parent, const std::string& where) const {
    auto it = parent.find("on");
    if (it == parent.end() || !it->is_boolean()) fail(where + ".on: must be true or false");
    return it->get<bool>();
  }

  // parent[key]["value"], a number in [lo, hi] (lo excluded when open_lo).
  double value(const json& parent, const char* key, const std::string& where, double lo, bool open_lo, double hi) const {
    const std::string name = where + "." + key;
    const json& p = object(parent, key, where);
    auto it = p.find("value");
    if (it == p.end() || !it->is_number()) fail(name + ".value: must be a number");
    const double v = it->get<double>();
    if (!(open_lo ? v > lo : v >= lo) || !(v <= hi))
      fail(fmt::format("{}.value: must be a number {} {}{}, got {}", name, open_lo ? ">" : ">=", lo,
                       hi < 1e300 ? fmt::format(" and <= {}", hi) : "", v));
    source(p, name);
    return v;
  }

  void source(const json& p, const std::string& name) const {
    auto src = p.find("source");
    if (src == p.end() || !src->is_string() || src->get<std::string>().empty())
      fail(name + ".source: every parameter needs its source (or \"no published figure: ...\")");
  }

  sim::EfficiencyCurve curve(const json& root, const char* key) const {
    const json& c = object(root, key, "");
    sim::EfficiencyCurve out;
    out.on = flag(c, key);
    out.slope = value(c, "slope", key, 0.0, false, 1e300);
    out.floor = value(c, "floor", key, 0.0, true, 1.0);
    return out;
  }

 private:
  std::string path_;
};

}  // namespace

sim::ContentionModel read_contention_file(const std::string& path) {
  Reader r(path);
  // The JSON front end: syntax errors at their line, the tree within its budget.
  const vp::json::Document doc = vp::json::Document::read_file(path);
  const json& root = doc.root();
  if (!root.is_object()) r.fail("top level: must be an object");
  if (root.value("format", std::string()) != "vp-contention") r.fail("format: must be \"vp-contention\"");
  if (!root.contains("version") || root["version"] != 1) r.fail("version: must be 1");
  sim::ContentionModel m;
  m.enabled = true;
  m.forwarder = r.curve(root, "forwarder");
  if (auto families = root["forwarder"].find("families"); families != root["forwarder"].end()) {
    if (!families->is_array()) r.fail("forwarder.families: must be an array");
    for (std::size_t i = 0; i < families->size(); ++i) {
      const json& f = (*families)[i];
      const std::string where = fmt::format("forwarder.families[{}]", i);
      if (!f.is_object()) r.fail(where + ": must be an object");
      auto match = f.find("match");
      if (match == f.end() || !match->is_string() || match->get<std::string>().empty())
        r.fail(where + ".match: must be a non-empty string (a substring of the socket's model)");
      m.forwarder_families.push_back(
          {match->get<std::string>(), r.value(f, "slope", where, 0.0, false, 1e300), r.value(f, "floor", where, 0.0, true, 1.0)});
    }
  }
  m.nic = r.curve(root, "nic");
  // Absent in tables written before the mechanism existed: off.
  if (root.contains("endpoint")) m.endpoint = r.curve(root, "endpoint");
  if (root.contains("port_arbitration")) {
    const json& arbitration = r.object(root, "port_arbitration", "");
    m.port_arbitration = r.flag(arbitration, "port_arbitration");
    r.source(arbitration, "port_arbitration");
  }
  const json& chunk = r.object(root, "chunk", "");
  m.chunk_on = r.flag(chunk, "chunk");
  m.chunk_bytes = r.value(chunk, "bytes", "chunk", 0.0, true, 1e300);
  m.chunk_overhead_us = r.value(chunk, "overhead_us", "chunk", 0.0, false, 1e300);
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
