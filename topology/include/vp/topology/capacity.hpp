// Capacities and the documented default table.
//
// Units: every bandwidth in this project is in gigabytes per second and its
// name ends in `_gbps`; link rates quoted in gigabits (NIC line rates) end in
// `_gbitps`.
//
// A capacity always records where it came from: the input file stated it in
// GB/s (`input`), it was derived from facts of the input (PCIe generation and
// width, NIC line rate, CPU family) through the default table (`default`), or
// a user override decided it (`override`), or a measurement of the machine
// (`measured`: nvbandwidth or p2pBandwidthLatencyTest output given with
// `vp-analyze --measured FILE`, vp/import/measured.hpp). `basis` says, in
// words, what the figure rests on ("PCIe Gen4 x16", "200 Gb/s NIC",
// "inter-socket amd", "measured p2p.txt GPU0->GPU1").
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace vp {

// The range of every capacity the tools accept, in GB/s: from 1 MB/s to
// 1 PB/s, far beyond any real link on either side. A figure outside it is an
// input error, not a model: 1e-300 GB/s would make every time the tools print
// a 300-digit number, 1e308 overflows the first sum of two links.
inline constexpr double kMinCapacityGbps = 1e-3;
inline constexpr double kMaxCapacityGbps = 1e6;
// Whether `gbps` is in that range (false for NaN); the range in words.
bool in_capacity_range(double gbps);
std::string capacity_range_text();  // "from 0.001 to 1e+06 GB/s"

// Ordered by strength: a figure derived from several (sum_of_downstream) takes
// the strongest of its parts' sources.
enum class CapacitySource : unsigned char { input, default_table, user_override, measured };

std::string_view to_string(CapacitySource s);                 // "input" | "default" | "override" | "measured"
std::optional<CapacitySource> parse_capacity_source(std::string_view s);

struct Capacity {
  double gbps = 0.0;
  CapacitySource source = CapacitySource::input;
  std::string basis;

  friend bool operator==(const Capacity& a, const Capacity& b) {
    return a.gbps == b.gbps && a.source == b.source && a.basis == b.basis;
  }
  friend bool operator!=(const Capacity& a, const Capacity& b) { return !(a == b); }
};

// The default table. Every entry has a key (`pcie.gen4`, `inter_socket.amd`,
// `root_complex_p2p_factor`, ...) by which the user overrides it from the
// command line (`--set KEY=VALUE`) or a JSON file (`--defaults FILE`, an
// object of KEY: number). Values are NCCL's effective figures (src/graph/topo.h)
// unless the comment says otherwise.
struct CapacityDefaults {
  // Effective GB/s of an x16 link per PCIe generation; an xW link gets W/16 of it.
  // key: pcie.gen1 .. pcie.gen6
  std::map<int, double> pcie_x16_gbps{{1, 3.0}, {2, 6.0}, {3, 12.0}, {4, 24.0}, {5, 48.0}, {6, 96.0}};
  // Assumed when the input does not state a link's generation / width.
  // keys: pcie.unknown_gen, pcie.unknown_width
  int unknown_pcie_gen = 3;
  int unknown_pcie_width = 16;
  // Inter-socket link GB/s by CPU family. key: inter_socket.FAMILY
  std::map<std::string, double> inter_socket_gbps{
      {"intel", 6.0},                   // QPI_BW
      {"intel_broadwell", 6.0},         // BDW_QPI_BW
      {"intel_skylake", 10.0},          // SKL_QPI_BW
      {"intel_sapphire_rapids", 22.0},  // SRP_QPI_BW
      {"intel_emerald_rapids", 40.0},   // ERP_QPI_BW
      {"amd", 16.0},                    // AMD_BW
      {"power9", 32.0},                 // P9_BW
      {"arm", 6.0},                     // ARM_BW
      {"zhaoxin", 6.0},                 // ZPI_BW
      {"unknown", 6.0},
  };
  // Peer-to-peer forwarding capacity of a root complex (a host bridge, or a
  // CPU socket between its host bridges) as a fraction of the fastest PCIe
  // link attached to it. 1.0 = forwards at link rate; consumer CPUs collapse
  // far below. key: root_complex_p2p_factor. Our choice (docs/design.md §8: Gen5
  // server P2P measured 53-56 GB/s in a socket against 48 effective).
  double root_complex_p2p_factor = 1.0;
  // Fraction of a NIC's line rate usable for payload: GB/s = Gb/s / 8 * eff.
  // key: nic_efficiency (NCCL: NET_BW 12 GB/s for 100 Gb/s = 0.96; we keep 1.0
  // so that 100 Gb/s = 12.5 GB/s as docs/design.md §2 states).
  double nic_efficiency = 1.0;
  // GPUDirect RDMA of an RDMA NIC (InfiniBand, RoCE, EFA) whose input does
  // not state it (hwloc never does; NCCL XML without <net gdr>; nvidia-smi):
  // true = capable, as RDMA NICs of GPU servers are set up; false = not (no
  // nvidia-peermem / dmabuf). key: nic.assume_gpudirect, 1 or 0.
  bool assume_gpudirect = true;

  // Keys the user changed; a capacity derived from one of them is `override`.
  std::set<std::string> overridden;

  // Apply one override `key=value`. Throws InputError(origin, 0, reason) on a
  // key that is not in the table (the reason lists the keys) or a value out of
  // its range: capacities in_capacity_range(), root_complex_p2p_factor from
  // 0.001 to 1000, nic_efficiency from 0.001 to 1, widths and generations
  // positive integers, nic.assume_gpudirect 0 or 1.
  void set(const std::string& key, double value, const std::string& origin);
  // Apply a JSON file of overrides ({"pcie.gen4": 22.5, ...}).
  void load_file(const std::string& path);
  // All entries as KEY -> value, in key order (for printing and JSON output).
  std::map<std::string, double> entries() const;

  // --- derivations used by importers ---------------------------------------
  // PCIe link of generation `gen` (0 = unknown) and width `width` (0 = unknown).
  Capacity pcie(int gen, int width) const;
  // NIC line rate in Gb/s (per port) times ports.
  Capacity nic(double line_rate_gbitps, int ports) const;
  // Inter-socket link for a CPU family key ("amd", "intel_skylake", ...);
  // unknown families fall back to "unknown".
  Capacity inter_socket(const std::string& family) const;
  // Root-complex forwarding capacity given the fastest attached link.
  Capacity root_complex(double fastest_link_gbps) const;

  // Decode a raw PCIe link speed in GB/s as reported by hwloc (lanes x raw
  // per-lane rate after encoding) into (generation, width); picks the widest
  // standard width that matches within 1% (x16 first). nullopt if nothing matches.
  static std::optional<std::pair<int, int>> decode_raw_pcie_gbps(double raw_gbps);
  // "8 GT/s", "16.0 GT/s PCIe", "32 GT/s" -> generation; 0 if unknown.
  static int pcie_gen_from_transfer_rate(std::string_view text);

 private:
  CapacitySource source_for(const std::string& key) const;
};

// The link from a root complex to its socket as the sum of the root
// complex's downstream links, so that it never binds before they do. Its
// source is the strongest of the parts' (override over default over input);
// basis "sum of N downstream links".
Capacity sum_of_downstream(const std::vector<Capacity>& parts);

// Map a CPU vendor/family/model description to an inter_socket family key.
// `vendor` like "GenuineIntel"/"AuthenticAMD", `model_name` free text such as
// "Intel(R) Xeon(R) Platinum 8480+"; `family_id`/`model_id` as in NCCL XML (-1
// if unknown).
std::string cpu_family_key(std::string_view vendor, std::string_view model_name, int family_id,
                           int model_id);

}  // namespace vp
