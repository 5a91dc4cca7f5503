// vp::catalog::rebuild_catalog (vp/analysis/rebuild.hpp): the
// analysis `vp-analyze` would run today for a topology, a cluster and the
// options recorded in a catalog's provenance.
//
// The options text comes from a catalog, i.e. from untrusted bytes: every
// entry is checked against what vp-analyze's command line accepts before
// apply_options() sees it, so that a damaged or forged catalog is reported
// as invalid (never a float-to-integer overflow, never an analysis of
// absurd size, never a usage error blamed on the user).
#include "vp/analysis/rebuild.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <set>
#include <string_view>

#include "vp/analysis/build_catalog.hpp"
#include "vp/topology/capacity.hpp"
#include "vp/topology/errors.hpp"

namespace vp::catalog {

namespace {

[[noreturn]] void bad_options(const std::string& options, const std::string& what) {
  throw RecordedOptionsError(fmt::format("provenance options \"{}\": {}", options, what));
}

// A decimal integer in [lo, hi], no sign, no leading zero, as vp-analyze writes it.
bool integer_in(std::string_view text, std::uint64_t lo, std::uint64_t hi) {
  if (text.empty() || text.size() > 19 || (text.size() > 1 && text[0] == '0')) return false;
  std::uint64_t v = 0;
  for (char ch : text) {
    if (ch < '0' || ch > '9') return false;
    v = v * 10 + static_cast<std::uint64_t>(ch - '0');
  }
  return v >= lo && v <= hi;
}

// A finite number, the whole text (what apply_options' std::stod reads).
bool number(const std::string& text, double* out) {
  if (text.empty() || text.size() > 64) return false;
  std::size_t used = 0;
  try {
    *out = std::stod(text, &used);
  } catch (const std::exception&) {
    return false;
  }
  return used == text.size() && std::isfinite(*out);
}

// The grammar of SPEC.md §6.12; the ranges are those of vp-analyze's options
// (tools/vp-analyze/common.cpp, cmd_analyze.cpp): --nodes (recorded from 2
// nodes on), --leaf-size 1..1e6, --oversubscription 1..1000, --pattern-budget
// 1..2^50, and the enumerations of --fabric and --format.
void check_options(const std::string& options) {
  std::set<std::string> seen;
  std::size_t start = 0;
  while (start <= options.size()) {
    std::size_t end = options.find(';', start);
    if (end == std::string::npos) end = options.size();
    const std::string item = options.substr(start, end - start);
    start = end + 1;
    if (item.empty()) {
      if (end == options.size() && options.empty()) break;
      bad_options(options, "an empty entry (entries are KEY=VALUE joined by ';')");
    }
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) bad_options(options, fmt::format("entry \"{}\" is not KEY=VALUE", item));
    const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    if (!seen.insert(key).second) bad_options(options, fmt::format("key {} appears twice", key));
    auto out_of_range = [&](const char* range) {
      bad_options(options, fmt::format("{}={}: not {}", key, value, range));
    };
    double x = 0;
    if (key == "nodes") {
      if (!integer_in(value, 2, 1000000)) out_of_range("an integer in [2, 1000000]");
    } else if (key == "leaf_size") {
      if (!integer_in(value, 1, 1000000)) out_of_range("an integer in [1, 1000000]");
    } else if (key == "pattern_budget") {
      if (!integer_in(value, 1, std::uint64_t{1} << 50)) out_of_range("an integer in [1, 2^50]");
    } else if (key == "oversubscription") {
      if (!number(value, &x) || x < 1 || x > 1000) out_of_range("a number in [1, 1000]");
    } else if (key == "fabric") {
      if (value != "single_switch" && value != "rail" && value != "leaf_spine")
        out_of_range("single_switch, rail or leaf_spine");
    } else if (key == "format") {
      if (value != "auto" && value != "hwloc" && value != "nccl" && value != "nvidia-smi" && value != "json")
        out_of_range("auto, hwloc, nccl, nvidia-smi or json");
    } else if (key == "hosts") {
      try {
        expand_hostlist(value, "");
      } catch (const InputError& e) {
        bad_options(options, fmt::format("hosts={}: {}", value, e.reason()));
      }
    } else if (key.rfind("set.", 0) == 0) {
      if (!number(value, &x)) out_of_range("a finite number");
      try {
        CapacityDefaults probe;
        probe.set(key.substr(4), x, "provenance");
      } catch (const InputError& e) {
        bad_options(options, fmt::format("{}: {}", key, e.reason()));
      }
    } else {
      bad_options(options, fmt::format("unknown key {}", key));
    }
  }
}

}  // namespace

Catalog rebuild_catalog(const std::string& topology_path, const std::string& cluster_path, const std::string& options) {
  check_options(options);
  AnalysisRequest r;
  r.input = topology_path;
  r.cluster = cluster_path;
  try {
    apply_options(r, options);
  } catch (const UsageError& e) {  // only if check_options let through what apply_options refuses
    bad_options(options, e.what());
  }
  LoadedInput in = load_input(r);
  return build_catalog(in, r.search, canonical_options(r));
}

vp::Topology rebuild_node(const std::string& topology_path, const std::string& format, const std::string& options) {
  check_options(options);
  AnalysisRequest recorded;
  try {
    apply_options(recorded, options);
  } catch (const UsageError& e) {
    bad_options(options, e.what());
  }
  AnalysisRequest r;  // one node: only the capacity overrides carry over
  r.input = topology_path;
  r.format = format;
  r.sets = recorded.sets;
  LoadedInput in = load_input(r);
  if (in.topology.nodes.size() != 1)
    throw InputError(in.origin, 0,
                     fmt::format("describes a cluster of {} nodes; give the topology of one node",
                                 in.topology.nodes.size()));
  return std::move(in.topology);
}

}  // namespace vp::catalog
