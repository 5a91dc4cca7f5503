#include "workload_spec.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string_view>

#include "vp/sim/workloads.hpp"
#include "vp/base/errors.hpp"

namespace vp::sim_cli {

namespace {

// The integers the generators take as counts (a whole double up to 2^53).
constexpr double kNoCap = 1e15;
// Caps on what sets the work and memory of a generator, each far above the
// largest case of docs/ and scripts/evaluate.sh (tokens 32768, hidden 4096,
// 128 experts, 50 calls: the 256-GPU drift sequence takes 3 min), so that a
// slip (calls=1e8) is a usage error and not a run of days: the work of a call
// grows with GPUs x tokens x topk, its memory with experts.
constexpr double kMaxTokens = 1 << 20;
constexpr double kMaxHidden = 1 << 20;
constexpr double kMaxExperts = 1 << 16;
constexpr double kMaxElem = 64;
constexpr double kMaxCalls = 1000;

constexpr double kP2pmarkBytes = 64.0 * 1024 * 1024;

struct Key {
  const char* name;
  double value;   // default
  bool integer;   // must be a whole number >= 0 (> 0 where 0 makes no sense)
  double min;     // smallest allowed value
  double max = std::numeric_limits<double>::infinity();  // largest allowed value
};

const std::map<std::string, std::vector<Key>>& workloads() {
  static const std::map<std::string, std::vector<Key>> table{
      {"uniform", {{"bytes", 1048576, true, 0}}},
      // lukealonso/p2pmark's transfers: TRANSFER_SIZE = 64 MiB.
      {"p2pmark", {{"bytes", kP2pmarkBytes, true, 0}}},
      {"shift", {{"k", 1, true, 1}, {"bytes", kP2pmarkBytes, true, 0}}},
      {"incast", {{"reader", 0, true, 0}, {"bytes", kP2pmarkBytes, true, 0}}},
      {"hotspot", {{"bytes", 1048576, true, 0}, {"hot", 0, true, 0}, {"factor", 10, false, 0}}},
      {"moe",
       {{"zipf", 1.0, false, 0},
        {"hidden", 2048, true, 1, kMaxHidden},
        {"experts", 128, true, 1, kMaxExperts},
        {"topk", 8, true, 1, kMaxExperts},
        {"tokens", 4096, true, 0, kMaxTokens},
        {"elem", 2, true, 1, kMaxElem},
        {"seed", 1, true, 0}}},
      {"seqpar",
       {{"tokens", 32768, true, 0, kMaxTokens}, {"hidden", 4096, true, 1, kMaxHidden}, {"elem", 2, true, 1, kMaxElem}}},
      {"drift",
       {{"calls", 50, true, 1, kMaxCalls},
        {"hidden", 2048, true, 1, kMaxHidden},
        {"experts", 128, true, 1, kMaxExperts},
        {"topk", 8, true, 1, kMaxExperts},
        {"tokens", 4096, true, 0, kMaxTokens},
        {"elem", 2, true, 1, kMaxElem},
        {"seed", 1, true, 0}}},
  };
  return table;
}

std::string names(const std::vector<Key>& keys) {
  std::string s;
  for (const Key& k : keys) s += (s.empty() ? "" : ", ") + std::string(k.name);
  return s;
}

[[noreturn]] void fail(const std::string& what) { throw UsageError("--workload " + what); }

std::size_t size(const WorkloadSpec& w, const char* key) { return static_cast<std::size_t>(w.values.at(key)); }

sim::MoeOptions moe_options(const WorkloadSpec& w) {
  sim::MoeOptions o;
  o.experts = size(w, "experts");
  o.top_k = size(w, "topk");
  o.tokens_per_gpu = size(w, "tokens");
  o.hidden = size(w, "hidden");
  o.bytes_per_element = size(w, "elem");
  o.seed = static_cast<std::uint64_t>(w.values.at("seed"));
  if (w.values.count("zipf")) o.zipf_exponent = w.values.at("zipf");
  if (o.top_k > o.experts) fail(fmt::format("{}: topk={} is more than experts={}", w.name, o.top_k, o.experts));
  return o;
}

// The one entry that a product of parameters sets, checked with the
// parameters (a usage error, not a demand the planner refuses later): the
// hot GPU of hotspot receives bytes x factor from each GPU, held to what
// `bytes` may be alone.
void check_largest_entry(const WorkloadSpec& w) {
  if (w.name != "hotspot") return;
  const double entry = w.values.at("bytes") * w.values.at("factor");
  if (entry > kNoCap)
    fail(fmt::format("hotspot: bytes x factor = {:g} x {:g} = {:g} bytes per entry is above the limit of {:g}",
                     w.values.at("bytes"), w.values.at("factor"), entry, kNoCap));
}

// Whole bytes, rounded down, as the planner reads them.
sim::Demand whole(const sim::Demand& d) {
  sim::Demand out(d.size());
  for (std::size_t s = 0; s < d.size(); ++s)
    for (std::size_t t = 0; t < d.size(); ++t)
      if (s != t) out.set(s, t, std::floor(d.at(s, t)));
  return out;
}

}  // namespace

std::string WorkloadSpec::text() const {
  std::string s = name;
  char sep = ':';
  for (const auto& [key, value] : values) {
    s += fmt::format("{}{}={}", sep, key, value);  // shortest exact form: bytes=1048577, zipf=1.2
    sep = ',';
  }
  return s;
}

WorkloadSpec parse_workload(const std::string& spec) {
  const std::string::size_type colon = spec.find(':');
  WorkloadSpec w;
  w.name = spec.substr(0, colon);
  auto it = workloads().find(w.name);
  if (it == workloads().end())
    fail(fmt::format("\"{}\": unknown workload (expected uniform, p2pmark, shift, incast, hotspot, moe, seqpar or drift)", w.name));
  const std::vector<Key>& keys = it->second;
  for (const Key& k : keys) w.values[k.name] = k.value;
  if (colon == std::string::npos) return w;  // the defaults are within every limit
  const std::string rest = spec.substr(colon + 1);
  std::map<std::string, bool> seen;
  std::string::size_type at = 0;
  while (at <= rest.size()) {
    std::string::size_type comma = rest.find(',', at);
    if (comma == std::string::npos) comma = rest.size();
    const std::string item = rest.substr(at, comma - at);
    at = comma + 1;
    const std::string::size_type eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      fail(fmt::format("{}: \"{}\" is not KEY=VALUE (keys: {})", w.name, item, names(keys)));
    const std::string key = item.substr(0, eq), text = item.substr(eq + 1);
    const Key* k = nullptr;
    for (const Key& c : keys)
      if (key == c.name) k = &c;
    if (!k) fail(fmt::format("{}: unknown key \"{}\" (expected {})", w.name, key, names(keys)));
    if (seen[key]) fail(fmt::format("{}: {} is given twice", w.name, key));
    seen[key] = true;
    char* end = nullptr;
    const double v = text.empty() ? NAN : std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || !std::isfinite(v))
      fail(fmt::format("{}: {}={} is not a number", w.name, key, text));
    if (v < k->min || (k->integer && (v != std::floor(v) || v > kNoCap)))
      fail(fmt::format("{}: {}={} must be {} >= {:g}", w.name, key, text, k->integer ? "a whole number" : "a number",
                       k->min));
    if (v > k->max)
      fail(fmt::format("{}: {}={} is above the limit of {} (a cap that keeps a run within minutes)", w.name, key,
                       text, k->max));
    w.values[key] = v;
  }
  check_largest_entry(w);
  return w;
}

const char* const kWorkloadHelp =
    "A generated demand instead: uniform[:bytes=B] | p2pmark[:bytes=B] | shift[:k=K,bytes=B] | "
    "incast[:reader=G,bytes=B] | hotspot[:bytes=B,hot=G,factor=F] | "
    "moe[:zipf=S,hidden=H,experts=E,topk=K,tokens=T,elem=2,seed=1] | seqpar[:tokens=T,hidden=H,elem=2] | "
    "drift[:calls=50,hidden=H,experts=E,topk=K,tokens=T,elem=2,seed=1] (defaults: docs/simulator.md)";

std::vector<sim::Demand> make_demands(const WorkloadSpec& w, std::size_t gpus) {
  std::vector<sim::Demand> out;
  try {
    if (w.name == "uniform" || w.name == "p2pmark") {
      out.push_back(sim::uniform_demand(gpus, w.values.at("bytes")));
    } else if (w.name == "shift") {
      const std::size_t k = size(w, "k");
      if (k % gpus == 0) fail(fmt::format("shift: k={} is a multiple of the {} GPUs (every GPU would read from itself)", k, gpus));
      out.push_back(sim::shift_demand(gpus, k, w.values.at("bytes")));
    } else if (w.name == "incast") {
      const std::size_t reader = size(w, "reader");
      if (reader >= gpus) fail(fmt::format("incast: reader={} is not a GPU (the catalog has {})", reader, gpus));
      out.push_back(sim::incast_demand(gpus, reader, w.values.at("bytes")));
    } else if (w.name == "hotspot") {
      const std::size_t hot = size(w, "hot");
      if (hot >= gpus) fail(fmt::format("hotspot: hot={} is not a GPU (the catalog has {})", hot, gpus));
      out.push_back(whole(sim::hot_spot_demand(gpus, w.values.at("bytes"), hot, w.values.at("factor"))));
    } else if (w.name == "moe") {
      out.push_back(sim::moe_dispatch_demand(gpus, moe_options(w)));
    } else if (w.name == "seqpar") {
      sim::SequenceParallelOptions o;
      o.tokens_per_gpu = size(w, "tokens");
      o.hidden = size(w, "hidden");
      o.bytes_per_element = size(w, "elem");
      out.push_back(whole(sim::sequence_parallel_demand(gpus, o)));
    } else if (w.name == "drift") {
      out = sim::drifting_moe_sequence(gpus, moe_options(w), size(w, "calls"));
    }
  } catch (const UsageError& e) {
    // A generator's option out of range gets the spec's name; this
    // function's own refusals (fail()) already have it.
    if (std::string_view(e.what()).rfind("--workload ", 0) == 0) throw;
    fail(fmt::format("{}: {}", w.name, e.what()));
  }
  return out;
}

}  // namespace vp::sim_cli
