#include "vp/topology/capacity.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "vp/base/json_document.hpp"
#include "vp/topology/errors.hpp"

namespace vp {

bool in_capacity_range(double gbps) { return gbps >= kMinCapacityGbps && gbps <= kMaxCapacityGbps; }

std::string capacity_range_text() {
  return fmt::format("from {:g} to {:g} GB/s", kMinCapacityGbps, kMaxCapacityGbps);
}


std::string_view to_string(CapacitySource s) {
  switch (s) {
    case CapacitySource::input: return "input";
    case CapacitySource::default_table: return "default";
    case CapacitySource::user_override: return "override";
    case CapacitySource::measured: return "measured";
  }
  return "?";
}

std::optional<CapacitySource> parse_capacity_source(std::string_view s) {
  if (s == "input") return CapacitySource::input;
  if (s == "default") return CapacitySource::default_table;
  if (s == "override") return CapacitySource::user_override;
  if (s == "measured") return CapacitySource::measured;
  return std::nullopt;
}

namespace {

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

int parse_small_int(std::string_view s) {
  if (s.empty() || s.size() > 2) return -1;
  int v = 0;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return -1;
    v = v * 10 + (c - '0');
  }
  return v;
}

bool is_positive_integer(double v) { return v >= 1 && v <= 1024 && std::floor(v) == v; }

// Raw per-lane GB/s after line encoding, per generation (8b/10b up to Gen2,
// 128b/130b from Gen3; Gen6 counted at its raw 8 GB/s per lane).
constexpr std::array<double, 7> kRawLaneGbps{0.0, 0.25, 0.5, 0.984615, 1.969231, 3.938462, 7.876923};

}  // namespace

CapacitySource CapacityDefaults::source_for(const std::string& key) const {
  return overridden.count(key) ? CapacitySource::user_override : CapacitySource::default_table;
}

void CapacityDefaults::set(const std::string& key, double value, const std::string& origin) {
  const auto keys = entries();
  if (!keys.count(key)) {
    std::string list;
    for (const auto& [k, v] : keys) list += (list.empty() ? "" : ", ") + k;
    throw InputError(origin, 0, fmt::format("{}: unknown key (the keys are {})", key, list));
  }
  if (key == "nic.assume_gpudirect") {
    if (value != 0 && value != 1)
      throw InputError(origin, 0, fmt::format("{}: must be 1 (capable) or 0 (not), got {}", key, value));
    assume_gpudirect = value == 1;
    overridden.insert(key);
    return;
  }
  if (!std::isfinite(value) || value <= 0) {
    throw InputError(origin, 0, fmt::format("{}: must be a positive number, got {}", key, value));
  }
  const bool capacity_key = starts_with(key, "pcie.gen") || starts_with(key, "inter_socket.");
  if (capacity_key && !in_capacity_range(value))
    throw InputError(origin, 0, fmt::format("{}: must be a capacity {}, got {}", key, capacity_range_text(), value));
  if ((key == "root_complex_p2p_factor" && !(value >= 1e-3 && value <= 1e3)) ||
      (key == "nic_efficiency" && !(value >= 1e-3)))
    throw InputError(origin, 0, fmt::format("{}: must be at least 0.001{}, got {}", key,
                                            key == "nic_efficiency" ? "" : " and at most 1000", value));
  if (starts_with(key, "pcie.gen")) {
    pcie_x16_gbps[parse_small_int(std::string_view(key).substr(8))] = value;
  } else if (key == "pcie.unknown_gen") {
    if (!is_positive_integer(value) || !pcie_x16_gbps.count(static_cast<int>(value)))
      throw InputError(origin, 0, fmt::format("{}: must name a generation of the table, got {}", key, value));
    unknown_pcie_gen = static_cast<int>(value);
  } else if (key == "pcie.unknown_width") {
    if (!is_positive_integer(value)) throw InputError(origin, 0, fmt::format("{}: must be a lane count, got {}", key, value));
    unknown_pcie_width = static_cast<int>(value);
  } else if (starts_with(key, "inter_socket.")) {
    inter_socket_gbps[key.substr(13)] = value;
  } else if (key == "root_complex_p2p_factor") {
    root_complex_p2p_factor = value;
  } else if (key == "nic_efficiency") {
    if (value > 1) throw InputError(origin, 0, fmt::format("{}: must be at most 1, got {}", key, value));
    nic_efficiency = value;
  }
  overridden.insert(key);
}

void CapacityDefaults::load_file(const std::string& path) {
  // Errors point at the offending value (vp/base/json_document.hpp).
  const json::Document doc = json::Document::read_file(path);
  if (!doc.root().is_object()) throw doc.error_at({}, "expected an object of KEY: number");
  for (const auto& [key, value] : doc.root().items()) {
    if (!value.is_number()) throw doc.error_at({key}, fmt::format("{}: must be a number", key));
    try {
      set(key, value.get<double>(), path);
    } catch (const InputError& e) {
      throw doc.error_at({key}, e.reason());
    }
  }
}

std::map<std::string, double> CapacityDefaults::entries() const {
  std::map<std::string, double> out;
  for (const auto& [gen, gbps] : pcie_x16_gbps) out[fmt::format("pcie.gen{}", gen)] = gbps;
  out["pcie.unknown_gen"] = unknown_pcie_gen;
  out["pcie.unknown_width"] = unknown_pcie_width;
  for (const auto& [family, gbps] : inter_socket_gbps) out["inter_socket." + family] = gbps;
  out["root_complex_p2p_factor"] = root_complex_p2p_factor;
  out["nic_efficiency"] = nic_efficiency;
  out["nic.assume_gpudirect"] = assume_gpudirect ? 1.0 : 0.0;
  return out;
}

Capacity CapacityDefaults::pcie(int gen, int width) const {
  std::string gen_key = "pcie.gen" + std::to_string(gen);
  CapacitySource src = source_for(gen_key);
  std::string basis;
  if (gen <= 0 || !pcie_x16_gbps.count(gen)) {
    gen = unknown_pcie_gen;
    gen_key = "pcie.gen" + std::to_string(gen);
    src = (overridden.count("pcie.unknown_gen") || overridden.count(gen_key)) ? CapacitySource::user_override
                                                                               : CapacitySource::default_table;
    basis = "unknown generation, assumed ";
  }
  if (width <= 0) {
    width = unknown_pcie_width;
    if (overridden.count("pcie.unknown_width")) src = CapacitySource::user_override;
    basis += basis.empty() ? "unknown width, assumed " : "";
  }
  basis += fmt::format("PCIe Gen{} x{}", gen, width);
  return Capacity{pcie_x16_gbps.at(gen) * width / 16.0, src, basis};
}

Capacity CapacityDefaults::nic(double line_rate_gbitps, int ports) const {
  int n = std::max(ports, 1);
  CapacitySource src = source_for("nic_efficiency");
  std::string basis = n == 1 ? fmt::format("{:g} Gb/s NIC", line_rate_gbitps)
                             : fmt::format("{} x {:g} Gb/s NIC ports", n, line_rate_gbitps);
  return Capacity{line_rate_gbitps / 8.0 * nic_efficiency * n, src, basis};
}

Capacity CapacityDefaults::inter_socket(const std::string& family) const {
  std::string key = inter_socket_gbps.count(family) ? family : std::string("unknown");
  return Capacity{inter_socket_gbps.at(key), source_for("inter_socket." + key), "inter-socket " + key};
}

Capacity CapacityDefaults::root_complex(double fastest_link_gbps) const {
  return Capacity{fastest_link_gbps * root_complex_p2p_factor, source_for("root_complex_p2p_factor"),
                  fmt::format("root complex P2P, {:g} x {:g} GB/s link", root_complex_p2p_factor,
                              fastest_link_gbps)};
}

std::optional<std::pair<int, int>> CapacityDefaults::decode_raw_pcie_gbps(double raw_gbps) {
  if (!(raw_gbps > 0) || !std::isfinite(raw_gbps)) return std::nullopt;
  for (int width : {16, 8, 4, 32, 2, 1}) {
    for (int gen = 1; gen < static_cast<int>(kRawLaneGbps.size()); ++gen) {
      double expect = kRawLaneGbps[gen] * width;
      if (std::fabs(raw_gbps - expect) <= 0.01 * expect) return std::make_pair(gen, width);
    }
  }
  return std::nullopt;
}

int CapacityDefaults::pcie_gen_from_transfer_rate(std::string_view text) {
  // GT/s per lane: Gen1 2.5, Gen2 5, Gen3 8, Gen4 16, Gen5 32, Gen6 64.
  double rate = 0;
  std::string s(text);
  std::istringstream in(s);
  if (!(in >> rate)) return 0;
  constexpr std::array<std::pair<double, int>, 6> table{
      {{2.5, 1}, {5, 2}, {8, 3}, {16, 4}, {32, 5}, {64, 6}}};
  for (const auto& [gts, gen] : table) {
    if (std::fabs(rate - gts) < 0.1 * gts) return gen;
  }
  return 0;
}

Capacity sum_of_downstream(const std::vector<Capacity>& parts) {
  Capacity out{0.0, CapacitySource::input,
               fmt::format("sum of {} downstream link{}", parts.size(), parts.size() == 1 ? "" : "s")};
  for (const Capacity& c : parts) {
    out.gbps += c.gbps;
    out.source = std::max(out.source, c.source);
  }
  return out;
}

std::string cpu_family_key(std::string_view vendor, std::string_view model_name, int family_id, int model_id) {
  std::string model(model_name);
  std::transform(model.begin(), model.end(), model.begin(), [](unsigned char c) { return std::tolower(c); });
  // An architecture word (NCCL's <cpu arch>, uname -m) names no model: decide
  // on it alone, and never let "amd64" read as an AMD CPU.
  if (model == "arm64" || model == "aarch64") return "arm";
  if (model == "ppc64" || model == "ppc64le") return "power9";  // NCCL: P9_BW for every POWER CPU
  if (model == "x86_64" || model == "amd64" || model == "i686" || model == "i386") model.clear();
  auto has = [&](std::string_view word) { return model.find(word) != std::string::npos; };
  if (vendor == "AuthenticAMD" || vendor == "HygonGenuine" || has("epyc") || has("amd")) return "amd";
  if (vendor == "CentaurHauls" || vendor == "  Shanghai  " || has("zhaoxin")) return "zhaoxin";
  if (has("power9") || has("power10")) return "power9";
  if (has("power")) return "unknown";
  if (vendor == "ARM" || has("neoverse") || has("grace") || has("aarch64")) return "arm";
  if (vendor == "GenuineIntel" || has("intel") || has("xeon")) {
    // Family 6 model numbers as NCCL uses them (src/graph/topo.h).
    if (family_id == 6 && model_id >= 0) {
      if (model_id == 0xCF) return "intel_emerald_rapids";
      if (model_id == 0x8F) return "intel_sapphire_rapids";
      if (model_id >= 0x55) return "intel_skylake";
      return "intel_broadwell";
    }
    if (has("platinum 85") || has("gold 65") || has("emerald")) return "intel_emerald_rapids";
    if (has("platinum 84") || has("gold 64") || has("sapphire")) return "intel_sapphire_rapids";
    if (has("platinum") || has("gold") || has("silver") || has("bronze")) return "intel_skylake";
    return "intel";
  }
  return "unknown";
}

}  // namespace vp
