// `nvidia-smi topo -m` text -> a single-node Topology.
//
// The matrix gives, for every pair of devices (GPUs and NICs), the path type
// of NVML's vocabulary; it gives no bus ids and no link speeds. The PCIe tree
// is inferred from the path types alone (docs/importers.md, "nvidia-smi topo
// -m"): each path type bounds the component where two devices meet, so the
// devices fall into nested classes (same switch, same top switch, same host
// bridge, same socket) and one tree with exactly those classes reproduces the
// matrix. NV# entries (NVLink) constrain nothing. Three passes: MatrixReader
// parses the text, group() finds the classes and checks that the matrix is
// consistent, Builder emits the tree.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <map>
#include <numeric>

#include "pci_classify.hpp"
#include "vp/import/import.hpp"
#include "vp/topology/cluster.hpp"
#include "vp/topology/errors.hpp"

namespace vp {

namespace {

// ---------------------------------------------------------------------------
// The matrix

// NVML's path types, nearest first. `nvlink` (NV#) says nothing about PCIe.
enum class Rel : unsigned char { pix, pxb, phb, node, sys, self, nvlink };
// Levels of the grouping: classes of devices whose relation is at most
// pix, pxb, phb, node (a level is the Rel it admits). Two devices in
// different socket classes are `sys`.
constexpr int kSwitchLevel = 0, kTopSwitchLevel = 1, kBridgeLevel = 2, kSocketLevel = 3, kLevels = 4;
constexpr std::array<std::string_view, kLevels> kLevelMeaning{"under one PCIe switch (PIX)",
                                                              "under one top-level PCIe switch (PXB)",
                                                              "under one host bridge (PHB)", "on one socket (NODE)"};

struct Cell {
  Rel rel = Rel::self;
  std::string text;  // as printed, SOC spelled SYS
};

struct Device {
  std::string label;  // column header: "GPU3", "NIC1", "mlx5_0"
  bool gpu = false;
  int index = 0;     // among the GPUs / among the NICs
  std::string name;  // NIC device name ("mlx5_0"); empty for GPUs
  int line = 0;      // line of its row
  std::optional<int> numa;
};

struct Matrix {
  std::vector<Device> devices;
  std::vector<std::vector<Cell>> cells;  // [row][column]
  int nvlink_pairs = 0;

  bool known(std::size_t i, std::size_t j) const { return cells[i][j].rel != Rel::nvlink; }
  int level(std::size_t i, std::size_t j) const { return static_cast<int>(cells[i][j].rel); }
  std::size_t size() const { return devices.size(); }
};

// ---------------------------------------------------------------------------
// Text helpers

// Drop ANSI escape sequences (nvidia-smi underlines the header on a terminal)
// and carriage returns.
std::string clean(std::string_view line) {
  std::string out;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\x1b' && i + 1 < line.size() && line[i + 1] == '[') {
      i += 2;
      while (i < line.size() && !(line[i] >= '@' && line[i] <= '~')) ++i;
    } else if (line[i] != '\r') {
      out += line[i];
    }
  }
  return out;
}

// The lines of the text one at a time, cleaned: only the lines the reader
// needs are copied, so a file of many lines costs no more than its text.
class Lines {
 public:
  explicit Lines(std::string_view content) : s_(content) {}
  // The next line into `line`; false at the end of the text.
  bool next(std::string& line) {
    if (pos_ >= s_.size()) return false;
    const std::size_t end = std::min(s_.find('\n', pos_), s_.size());
    line = clean(s_.substr(pos_, end - pos_));
    pos_ = end + 1;
    ++number_;
    return true;
  }
  int number() const { return number_; }  // 1-based, of the line last read

 private:
  std::string_view s_;
  std::size_t pos_ = 0;
  int number_ = 0;
};

// The words of `line`, at most `most` of them (a longer line is cut: the
// caller, which knows how many it can use, refuses it), so that a line of
// millions of words never becomes millions of views.
std::vector<std::string_view> tokens(std::string_view line, std::size_t most) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (out.size() < most && (i = line.find_first_not_of(" \t", i)) != std::string_view::npos) {
    std::size_t end = std::min(line.find_first_of(" \t", i), line.size());
    out.push_back(line.substr(i, end - i));
    i = end;
  }
  return out;
}

// Non-negative decimal number spelling `text` exactly.
std::optional<int> number(std::string_view text) {
  int v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v < 0) return std::nullopt;
  return v;
}

// `label` is `prefix` followed by a number.
std::optional<int> numbered(std::string_view label, std::string_view prefix) {
  if (label.substr(0, prefix.size()) != prefix) return std::nullopt;
  return number(label.substr(prefix.size()));
}

std::optional<Rel> parse_rel(std::string_view s) {
  static constexpr std::array<std::pair<std::string_view, Rel>, 7> kNames{{{"X", Rel::self},
                                                                           {"PIX", Rel::pix},
                                                                           {"PXB", Rel::pxb},
                                                                           {"PHB", Rel::phb},
                                                                           {"NODE", Rel::node},
                                                                           {"SYS", Rel::sys},
                                                                           {"SOC", Rel::sys}}};
  for (const auto& [name, rel] : kNames) {
    if (s == name) return rel;
  }
  if (numbered(s, "NV")) return Rel::nvlink;
  return std::nullopt;
}

// ---------------------------------------------------------------------------
// Pass 1: text -> Matrix

class MatrixReader {
 public:
  explicit MatrixReader(const std::string& path) : path_(path) {}

  Matrix read(std::string_view content) {
    Lines lines(content);
    std::string line;
    bool header = false;
    while (!header && lines.next(line)) header = !tokens(line, 1).empty();
    if (!header) throw InputError(path_, 0, "no `nvidia-smi topo -m` header row (the file is blank)");
    const int header_line = lines.number();
    read_header(tokens(line, max_header_words() + 1), header_line);
    m_.cells.assign(m_.size(), std::vector<Cell>(m_.size()));
    for (std::size_t i = 0; i < m_.size(); ++i) {
      const bool row = lines.next(line);
      m_.devices[i].line = header_line + 1 + static_cast<int>(i);
      read_row(i, row ? tokens(line, m_.size() + 2 + trailing_) : std::vector<std::string_view>{});
    }
    check_symmetry();
    read_nic_legend(lines);
    return std::move(m_);
  }

 private:
  [[noreturn]] void fail(int line, const std::string& reason) const { throw InputError(path_, line, reason); }

  // Device columns, then the trailing columns ("CPU Affinity", "NUMA
  // Affinity", "GPU NUMA ID"), whose names hold spaces.
  void read_header(const std::vector<std::string_view>& toks, int line) {
    static constexpr std::array<std::array<std::string_view, 3>, 3> kTrailing{
        {{"CPU", "Affinity", ""}, {"NUMA", "Affinity", ""}, {"GPU", "NUMA", "ID"}}};
    for (std::size_t i = 0; i < toks.size();) {
      auto named = std::find_if(kTrailing.begin(), kTrailing.end(), [&](const auto& words) {
        std::size_t n = words[2].empty() ? 2 : 3;
        return i + n <= toks.size() && std::equal(words.begin(), words.begin() + n, toks.begin() + i);
      });
      if (named != kTrailing.end()) {
        if (named == kTrailing.begin() + 1) numa_column_ = static_cast<int>(trailing_);
        ++trailing_;
        i += (*named)[2].empty() ? 2 : 3;
        continue;
      }
      if (trailing_ > 0)
        fail(line, fmt::format("header: unexpected column \"{}\" after the affinity columns", toks[i]));
      add_device(toks[i++], line);
    }
    if (gpus_ == 0)
      fail(line, "names no GPUs: the header row has no GPU0 column (expected `nvidia-smi topo -m` output)");
  }

  // Device columns within the limits of a node, and the trailing columns'
  // words: a longer header is refused before anything its size is built.
  static std::size_t max_header_words() {
    const AnalysisLimits& l = analysis_limits();
    return static_cast<std::size_t>(std::min<std::uint64_t>(l.max_node_gpus + l.max_node_nics, 1u << 20)) + 7;
  }

  void add_device(std::string_view label, int line) {
    const AnalysisLimits& l = analysis_limits();
    Device d;
    d.label = std::string(label);
    // "GPU" and digits is a GPU column, even when the number overflows an int.
    const bool gpu_label = label.size() > 3 && label.substr(0, 3) == "GPU" &&
                           label.find_first_not_of("0123456789", 3) == std::string_view::npos;
    if (gpu_label) {
      if (label != fmt::format("GPU{}", gpus_)) fail(line, fmt::format("header: expected GPU{}, got {}", gpus_, label));
      d.gpu = true;
      d.index = gpus_++;
      if (static_cast<std::uint64_t>(gpus_) > l.max_node_gpus)
        fail(line, fmt::format("header: more than {} GPUs, the limit of GPUs of a node (--max-node-gpus)",
                               l.max_node_gpus));
    } else {
      d.index = nics_++;
      if (static_cast<std::uint64_t>(nics_) > l.max_node_nics)
        fail(line, fmt::format("header: more than {} NICs, the limit of NICs of a node (--max-node-nics)",
                               l.max_node_nics));
      d.name = d.label;  // old drivers name NICs by device; NICk is renamed by the NIC Legend
    }
    if (std::any_of(m_.devices.begin(), m_.devices.end(), [&](const Device& o) { return o.label == label; }))
      fail(line, fmt::format("header: duplicate column {}", label));
    m_.devices.push_back(std::move(d));
  }

  void read_row(std::size_t i, const std::vector<std::string_view>& toks) {
    Device& d = m_.devices[i];
    const std::size_t n = m_.size();
    if (toks.empty() || toks.front() != d.label)
      fail(d.line, fmt::format("expected the row of {}, got \"{}\"", d.label, toks.empty() ? "" : toks.front()));
    if (toks.size() < n + 1)
      fail(d.line, fmt::format("ragged row: {} has {} entries, expected {}", d.label, toks.size() - 1, n));
    if (toks.size() > n + 1 + trailing_)
      fail(d.line, fmt::format("ragged row: {} has {}{} fields after its {} entries, expected at most {}", d.label,
                               toks.size() == n + 2 + trailing_ ? "more than " : "",
                               toks.size() == n + 2 + trailing_ ? trailing_ : toks.size() - n - 1, n, trailing_));
    for (std::size_t j = 0; j < n; ++j) m_.cells[i][j] = read_cell(i, j, toks[j + 1]);
    std::size_t numa_at = n + 1 + static_cast<std::size_t>(numa_column_);
    if (d.gpu && numa_column_ >= 0 && numa_at < toks.size()) d.numa = number(toks[numa_at]);
  }

  Cell read_cell(std::size_t i, std::size_t j, std::string_view text) const {
    const Device &a = m_.devices[i], &b = m_.devices[j];
    std::optional<Rel> rel = parse_rel(text);
    if (!rel)
      fail(a.line, fmt::format("unknown path type \"{}\" ({} to {}; expected X, PIX, PXB, PHB, NODE, SYS, SOC or NV#)",
                               text, a.label, b.label));
    if ((*rel == Rel::self) != (i == j))
      fail(a.line, i == j ? fmt::format("{} to itself must be X, got {}", a.label, text)
                          : fmt::format("X between two devices ({} to {})", a.label, b.label));
    return Cell{*rel, *rel == Rel::sys ? std::string("SYS") : std::string(text)};
  }

  void check_symmetry() {
    for (std::size_t i = 0; i < m_.size(); ++i) {
      for (std::size_t j = 0; j < i; ++j) {
        const Cell &here = m_.cells[i][j], &there = m_.cells[j][i];
        if (here.text != there.text)
          fail(m_.devices[i].line,
               fmt::format("asymmetric matrix: {} to {} is {}, but {} to {} is {}", m_.devices[i].label,
                           m_.devices[j].label, here.text, m_.devices[j].label, m_.devices[i].label, there.text));
        m_.nvlink_pairs += here.rel == Rel::nvlink;
      }
    }
  }

  // "NIC Legend:" followed by lines "NIC0: mlx5_0".
  void read_nic_legend(Lines& lines) {
    std::string line;
    bool legend = false;
    while (!legend && lines.next(line)) legend = tokens(line, 3) == std::vector<std::string_view>{"NIC", "Legend:"};
    while (legend && lines.next(line)) {
      std::vector<std::string_view> toks = tokens(line, 3);
      if (toks.empty()) continue;
      if (toks.size() != 2 || toks[0].empty() || toks[0].back() != ':') break;
      std::string_view label = toks[0].substr(0, toks[0].size() - 1);
      for (Device& d : m_.devices) {
        if (!d.gpu && d.label == label) d.name = std::string(toks[1]);
      }
    }
  }

  const std::string& path_;
  Matrix m_;
  std::size_t trailing_ = 0;
  int numa_column_ = -1;
  int gpus_ = 0, nics_ = 0;
};

// ---------------------------------------------------------------------------
// Pass 2: the classes

class DisjointSets {
 public:
  explicit DisjointSets(std::size_t n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0); }
  std::size_t find(std::size_t x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  // The lower index becomes the representative.
  void unite(std::size_t a, std::size_t b) {
    a = find(a), b = find(b);
    parent_[std::max(a, b)] = std::min(a, b);
  }

 private:
  std::vector<std::size_t> parent_;
};

// class_of[L][i]: the lowest-indexed device of i's class at level L.
using Classes = std::array<std::vector<std::size_t>, kLevels>;

// Level L joins every known pair whose relation is at most L; the socket
// level also joins GPUs of one NUMA node. NV# pairs join nothing here.
std::vector<std::size_t> join(const Matrix& m, int level) {
  const std::size_t n = m.size();
  DisjointSets sets(n);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      bool same_numa = m.devices[i].numa && m.devices[i].numa == m.devices[j].numa;
      if ((m.known(i, j) && m.level(i, j) <= level) || (level == kSocketLevel && same_numa)) sets.unite(i, j);
    }
  }
  std::vector<std::size_t> class_of(n);
  for (std::size_t i = 0; i < n; ++i) class_of[i] = sets.find(i);
  return class_of;
}

// The matrix is consistent when no known pair inside a class is farther
// apart than the level allows.
void check_level(const Matrix& m, const std::vector<std::size_t>& class_of, int level, const std::string& path) {
  for (std::size_t i = 0; i < m.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (m.known(i, j) && m.level(i, j) > level && class_of[i] == class_of[j])
        throw InputError(path, m.devices[i].line,
                         fmt::format("inconsistent matrix: {} to {} is {}, yet other entries{} put them {}",
                                     m.devices[i].label, m.devices[j].label, m.cells[i][j].text,
                                     level == kSocketLevel ? " or NUMA Affinity" : "", kLevelMeaning[level]));
    }
  }
}

// A socket's GPUs must share one NUMA node.
void check_numa(const Matrix& m, const std::vector<std::size_t>& socket_of, const std::string& path) {
  for (std::size_t i = 0; i < m.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      const Device &a = m.devices[j], &b = m.devices[i];
      if (socket_of[i] == socket_of[j] && a.numa && b.numa && a.numa != b.numa)
        throw InputError(path, b.line,
                         fmt::format("inconsistent matrix: {} (NUMA Affinity {}) and {} (NUMA Affinity {}) are on "
                                     "one socket by the path types",
                                     a.label, *a.numa, b.label, *b.numa));
    }
  }
}

// Whether the socket classes of a and b may be one socket: no SYS entry and
// no two NUMA nodes between them.
bool may_share_socket(const Matrix& m, const std::vector<std::size_t>& socket_of, std::size_t a, std::size_t b) {
  for (std::size_t i = 0; i < m.size(); ++i) {
    for (std::size_t j = 0; j < m.size(); ++j) {
      if (socket_of[i] != socket_of[a] || socket_of[j] != socket_of[b]) continue;
      const Device &x = m.devices[i], &y = m.devices[j];
      if ((m.known(i, j) && m.cells[i][j].rel == Rel::sys) || (x.numa && y.numa && x.numa != y.numa)) return false;
    }
  }
  return true;
}

// An NV# pair that nothing keeps apart is put on one socket: its PCIe path
// is then NODE (one socket, different host bridges) unless other entries
// put the two closer.
void join_nvlink_pairs(const Matrix& m, std::vector<std::size_t>& socket_of) {
  for (std::size_t i = 0; i < m.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (m.known(i, j) || socket_of[i] == socket_of[j] || !may_share_socket(m, socket_of, i, j)) continue;
      std::size_t from = std::max(socket_of[i], socket_of[j]), to = std::min(socket_of[i], socket_of[j]);
      std::replace(socket_of.begin(), socket_of.end(), from, to);
    }
  }
}

Classes group(const Matrix& m, const std::string& path) {
  Classes classes;
  for (int level = 0; level < kLevels; ++level) {
    classes[level] = join(m, level);
    check_level(m, classes[level], level, path);
  }
  check_numa(m, classes[kSocketLevel], path);
  join_nvlink_pairs(m, classes[kSocketLevel]);
  return classes;
}

// `items` split by class, classes in order of their representative.
std::vector<std::vector<std::size_t>> partition(const std::vector<std::size_t>& items,
                                                const std::vector<std::size_t>& class_of) {
  std::map<std::size_t, std::vector<std::size_t>> by_class;
  for (std::size_t i : items) by_class[class_of[i]].push_back(i);
  std::vector<std::vector<std::size_t>> out;
  for (auto& [rep, members] : by_class) out.push_back(std::move(members));
  return out;
}

// ---------------------------------------------------------------------------
// Pass 3: classes -> Topology

class Builder {
 public:
  Builder(Topology& t, const Matrix& m, const Classes& c, const CapacityDefaults& d)
      : t_(t), m_(m), c_(c), d_(d), link_(d.pcie(0, 0)) {}

  void build() {
    std::vector<std::size_t> all(m_.size());
    std::iota(all.begin(), all.end(), 0);
    std::vector<std::vector<std::size_t>> sockets = partition(all, c_[kSocketLevel]);
    std::stable_sort(sockets.begin(), sockets.end(),
                     [&](const auto& a, const auto& b) { return numa_key(a) < numa_key(b); });
    std::vector<ComponentId> cpus;
    for (std::size_t s = 0; s < sockets.size(); ++s) cpus.push_back(add_socket(sockets[s], s));
    for (std::size_t i = 0; i < cpus.size(); ++i) {
      for (std::size_t j = i + 1; j < cpus.size(); ++j)
        t_.add_duplex_link(cpus[i], cpus[j], LinkKind::inter_socket, d_.inter_socket("unknown"));
    }
  }

 private:
  // Sockets with a GPU's NUMA node first, in NUMA order; then the others.
  int numa_key(const std::vector<std::size_t>& members) const {
    for (std::size_t i : members) {
      if (m_.devices[i].numa) return *m_.devices[i].numa;
    }
    return std::numeric_limits<int>::max();
  }

  ComponentId add_socket(const std::vector<std::size_t>& members, std::size_t index) {
    ComponentId cpu = add(ComponentKind::cpu, kNone, static_cast<std::int32_t>(index));
    t_.components[cpu].cpu_family = "unknown";
    t_.components[cpu].forward = d_.root_complex(link_.gbps);
    for (const auto& bridge : partition(members, c_[kBridgeLevel])) {
      ComponentId hb = add(ComponentKind::host_bridge, cpu, host_bridges_++);
      t_.components[hb].forward = d_.root_complex(link_.gbps);
      std::vector<std::vector<std::size_t>> tops = partition(bridge, c_[kTopSwitchLevel]);
      for (const auto& top : tops) add_top(top, hb);
      t_.add_duplex_link(hb, cpu, LinkKind::pcie, sum_of_downstream(std::vector<Capacity>(tops.size(), link_)));
    }
    return cpu;
  }

  // A class of devices below one host bridge that meet below it: one device
  // on its own root port, one switch, or a top switch over one leaf switch
  // per PIX class.
  void add_top(const std::vector<std::size_t>& top, ComponentId hb) {
    if (top.size() == 1) {
      add_device(top.front(), hb);
      return;
    }
    std::vector<std::vector<std::size_t>> leaves = partition(top, c_[kSwitchLevel]);
    ComponentId parent = add_switch(hb);
    for (const auto& leaf : leaves) {
      ComponentId sw = leaves.size() == 1 ? parent : add_switch(parent);
      for (std::size_t i : leaf) add_device(i, sw);
    }
  }

  ComponentId add_switch(ComponentId parent) {
    ComponentId sw = add(ComponentKind::pcie_switch, parent, switches_++);
    t_.add_duplex_link(sw, parent, LinkKind::pcie, link_);
    return sw;
  }

  void add_device(std::size_t i, ComponentId parent) {
    const Device& d = m_.devices[i];
    ComponentId c = add(d.gpu ? ComponentKind::gpu : ComponentKind::nic, parent, d.index);
    if (!d.gpu) {
      Component& nic = t_.components[c];
      nic.device_name = d.name;
      nic.ports = 1;
      nic.line_rate_gbitps = pci::kUnknownNicGbitps;
      nic.gpudirect = d_.assume_gpudirect;  // nvidia-smi lists RDMA (verbs) devices
    }
    t_.add_duplex_link(c, parent, LinkKind::pcie, link_);
  }

  ComponentId add(ComponentKind kind, ComponentId parent, std::int32_t local_index) {
    ComponentId c = t_.add_component(kind, 0);
    t_.components[c].parent = parent;
    t_.components[c].local_index = local_index;
    return c;
  }

  Topology& t_;
  const Matrix& m_;
  const Classes& c_;
  const CapacityDefaults& d_;
  Capacity link_;
  std::int32_t host_bridges_ = 0, switches_ = 0;
};

std::vector<std::string> warnings_for(const Topology& t, const Matrix& m) {
  std::vector<std::string> w{fmt::format(
      "nvidia-smi gives no bus ids and no link speeds: the PCIe tree is inferred from the path types and every "
      "PCIe link is taken as {}",
      t.defaults.pcie(0, 0).basis)};
  if (m.nvlink_pairs > 0)
    w.push_back(
        fmt::format("{} NVLink (NV#) entr{} ignored (the model is PCIe only): the PCIe path of those pairs "
                    "is inferred from the other entries, or taken as NODE where nothing else places them",
                    m.nvlink_pairs, m.nvlink_pairs == 1 ? "y" : "ies"));
  if (!t.nics.empty())
    w.push_back(
        fmt::format("nvidia-smi gives no NIC model, line rate or port count: each NIC (an RDMA device) "
                    "assumed one {:g} Gb/s port, {}",
                    pci::kUnknownNicGbitps,
                    t.defaults.assume_gpudirect
                        ? "GPUDirect RDMA capable (--set nic.assume_gpudirect=0 if not)"
                        : "without GPUDirect RDMA (nic.assume_gpudirect=0)"));
  if (t.sockets.size() > 1) w.push_back("nvidia-smi names no CPU model: inter-socket links use inter_socket.unknown");
  return w;
}

}  // namespace

Topology import_nvidia_smi(const std::string& path, std::string_view content, const ImportOptions& opts) {
  Matrix m = MatrixReader(path).read(content);
  Classes classes = group(m, path);

  Topology t;
  t.defaults = opts.defaults;
  t.nodes.push_back(
      NodeInfo{"node0", opts.node_type.empty() ? std::filesystem::path(path).stem().string() : opts.node_type});
  Builder(t, m, classes, opts.defaults).build();
  canonicalize(t, path);
  t.warnings = warnings_for(t, m);
  return t;
}

}  // namespace vp
