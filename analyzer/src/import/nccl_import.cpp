// NCCL topology XML (<system version="1">, as written by NCCL_TOPO_DUMP_FILE
// or hand-written for NCCL_TOPO_FILE) -> a single-node Topology.
//
// The file is read in two passes: read_system() turns the XML into a small
// tree of plain structs (checking attributes and reporting errors with their
// line), then Builder emits components and links. What is inferred, and the
// limits, are described in docs/importers.md ("NCCL topology XML").
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <map>
#include <optional>
#include <pugixml.hpp>

#include "pci_classify.hpp"
#include "vp/import/import.hpp"
#include "vp/topology/errors.hpp"
#include "vpcat/pci_bus_id.hpp"

namespace vp {

namespace {

// ---------------------------------------------------------------------------
// The file as plain structs

enum class PciRole : unsigned char { gpu, nic, bridge, other };

struct Port {  // one <net> of a <nic>
  std::string name;
  double gbitps = 0.0;      // 0 = not stated
  std::optional<bool> gdr;  // <net gdr>; nullopt = not stated
};

struct PciDevice {
  int line = 0;
  std::string bus_id;  // lower case; empty for a <nic> without a PCI location
  PciRole role = PciRole::other;
  std::uint32_t pci_class = 0;
  std::uint16_t vendor = 0, device = 0;
  int gen = 0, width = 0;           // 0 = unknown
  int cuda_dev = -1;                // <gpu dev=>
  std::vector<Port> ports;          // nic
  std::vector<PciDevice> children;  // bridge
};

struct Socket {
  int line = 0;
  int numa_id = 0;
  std::string family;  // inter_socket key
  std::string model;
  std::vector<PciDevice> devices;
};

// ---------------------------------------------------------------------------
// Small text helpers

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// Byte offset -> 1-based line number.
class LineIndex {
 public:
  explicit LineIndex(std::string_view text) {
    for (std::size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '\n') newlines_.push_back(i);
    }
  }
  int line_of(std::ptrdiff_t offset) const {
    if (offset < 0) return 0;
    auto it = std::lower_bound(newlines_.begin(), newlines_.end(), static_cast<std::size_t>(offset));
    return static_cast<int>(it - newlines_.begin()) + 1;
  }

 private:
  std::vector<std::size_t> newlines_;
};

// ---------------------------------------------------------------------------
// Pass 1: XML -> structs

class Reader {
 public:
  Reader(const std::string& path, std::string_view content) : path_(path), content_(content), lines_(content) {}

  // Parse the document; throws on malformed XML or a root other than <system>.
  void parse() {
    pugi::xml_parse_result r = doc_.load_buffer(content_.data(), content_.size());
    if (!r) throw InputError(path_, lines_.line_of(r.offset), fmt::format("malformed XML ({})", r.description()));
    pugi::xml_node root = doc_.document_element();
    if (std::string_view(root.name()) != "system")
      fail(root, fmt::format("root element <{}>, expected <system> (an NCCL topology: NCCL_TOPO_DUMP_FILE output "
                             "or an NCCL_TOPO_FILE)",
                             root.name()));
  }

  // The <cpu> elements of <system>, in numaid order.
  std::vector<Socket> sockets() {
    std::vector<Socket> out;
    std::map<int, int> seen;  // numaid -> line
    for (pugi::xml_node cpu : doc_.document_element().children("cpu")) {
      Socket s = read_socket(cpu);
      if (auto [it, fresh] = seen.emplace(s.numa_id, s.line); !fresh)
        fail(cpu, fmt::format("duplicate <cpu numaid=\"{}\"> (first at line {})", s.numa_id, it->second));
      out.push_back(std::move(s));
    }
    std::sort(out.begin(), out.end(), [](const Socket& a, const Socket& b) { return a.numa_id < b.numa_id; });
    return out;
  }

  std::vector<std::string> take_warnings() { return std::move(warnings_); }
  [[noreturn]] void fail_at(const PciDevice& d, const std::string& reason) const {
    throw InputError(path_, d.line, reason);
  }

 private:
  [[noreturn]] void fail(const pugi::xml_node& n, const std::string& reason) const {
    throw InputError(path_, line(n), reason);
  }
  int line(const pugi::xml_node& n) const { return lines_.line_of(n.offset_debug()); }

  // Decimal integer attribute; `fallback` when absent or empty.
  int int_attr(const pugi::xml_node& n, const char* name, int fallback) const {
    std::string_view v = n.attribute(name).value();
    if (v.empty()) return fallback;
    int out = 0;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
    if (ec != std::errc() || end != v.data() + v.size())
      fail(n, fmt::format("<{} {}=\"{}\">: not an integer", n.name(), name, v));
    return out;
  }
  // "0x10de"-style attribute of at most `bits` bits; 0 when absent or empty.
  std::uint32_t hex_attr(const pugi::xml_node& n, const char* name, int bits) const {
    std::string_view v = n.attribute(name).value();
    if (v.empty()) return 0;
    std::string_view digits = v.substr(0, 2) == "0x" || v.substr(0, 2) == "0X" ? v.substr(2) : v;
    std::uint32_t out = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), out, 16);
    if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() || (out >> bits) != 0)
      fail(n, fmt::format("<{} {}=\"{}\">: not a {}-bit hexadecimal number", n.name(), name, v, bits));
    return out;
  }

  Socket read_socket(const pugi::xml_node& cpu) {
    Socket s;
    s.line = line(cpu);
    if (cpu.attribute("numaid").empty()) fail(cpu, "<cpu> without numaid");
    s.numa_id = int_attr(cpu, "numaid", 0);
    std::string vendor = cpu.attribute("vendor").value();
    int family_id = int_attr(cpu, "familyid", -1), model_id = int_attr(cpu, "modelid", -1);
    // cpu_family_key() reads NCCL's `arch` words (arm64 -> arm, ppc64 -> power9).
    s.family = cpu_family_key(vendor, cpu.attribute("arch").value(), family_id, model_id);
    if (!vendor.empty())
      s.model =
          family_id < 0 || model_id < 0 ? vendor : fmt::format("{} family {} model {}", vendor, family_id, model_id);
    for (pugi::xml_node child : cpu.children()) {
      std::string_view name = child.name();
      if (name == "pci") s.devices.push_back(read_pci(child, 1));
      if (name == "nic") s.devices.push_back(read_cpu_nic(child));
    }
    return s;
  }

  // A <nic> directly under <cpu>: a NIC without a PCI location.
  PciDevice read_cpu_nic(const pugi::xml_node& nic) {
    PciDevice d;
    d.line = line(nic);
    d.role = PciRole::nic;
    d.ports = read_ports(nic);
    return d;
  }

  // `level`: 1 for a <pci> of a <cpu>. Below the socket sits the host bridge
  // that stands for its root complex, so level L is L + 1 parent steps deep;
  // refusing what a catalog cannot hold also bounds this recursion.
  PciDevice read_pci(const pugi::xml_node& pci, std::uint32_t level) {
    if (level + 1 > kMaxTreeDepth)
      fail(pci, fmt::format("<pci> nested {} levels deep: a catalog holds PCIe trees of at most {} levels below the "
                            "socket (the root complex is one)",
                            level, kMaxTreeDepth));
    PciDevice d;
    d.line = line(pci);
    d.bus_id = lower(pci.attribute("busid").value());
    if (d.bus_id.empty()) fail(pci, "<pci> without busid");
    if (vpcat::PciBusId id; !vpcat::parse_pci_bus_id(d.bus_id, id))
      fail(pci, fmt::format("busid \"{}\" is not a PCI address (DDDD:BB:DD.F, device 00-1f, function 0-7)", d.bus_id));
    d.pci_class = hex_attr(pci, "class", 24);
    d.vendor = static_cast<std::uint16_t>(hex_attr(pci, "vendor", 16));
    d.device = static_cast<std::uint16_t>(hex_attr(pci, "device", 16));
    d.width = int_attr(pci, "link_width", 0);
    if (d.width < 0 || d.width > 32) fail(pci, fmt::format("link_width {} is not a PCIe lane count", d.width));
    d.gen = read_gen(pci);
    pugi::xml_node gpu = pci.child("gpu"), nic = pci.child("nic");
    d.role = role_of(d.pci_class, gpu, nic, pci.child("pci"));
    if (gpu) d.cuda_dev = int_attr(gpu, "dev", -1);
    if (gpu && gpu.child("nvlink"))
      warn_once(nvlink_warned_, "NVLink connections are ignored (the model is PCIe only)");
    if (d.role == PciRole::nic && nic) d.ports = read_ports(nic);
    if (d.role == PciRole::bridge) {
      for (pugi::xml_node sub : pci.children("pci")) d.children.push_back(read_pci(sub, level + 1));
    } else if (pci.child("pci")) {
      fail(pci, fmt::format("{} has PCI devices below it, but only bridges can", d.bus_id));
    }
    return d;
  }

  int read_gen(const pugi::xml_node& pci) {
    std::string_view speed = pci.attribute("link_speed").value();
    int gen = CapacityDefaults::pcie_gen_from_transfer_rate(speed);
    if (gen == 0 && !speed.empty())
      warnings_.push_back(
          fmt::format("line {}: link_speed \"{}\" not understood: PCIe generation unknown", line(pci), speed));
    return gen;
  }

  // NCCL's classes (src/graph/topo.cc): a <gpu> or <nic> child decides; then
  // the class code; any other device with devices below it groups them.
  static PciRole role_of(std::uint32_t pci_class, const pugi::xml_node& gpu, const pugi::xml_node& nic,
                         const pugi::xml_node& first_child) {
    std::uint32_t base = pci_class >> 16;
    if (gpu || base == 0x03 || base == 0x12) return PciRole::gpu;
    if (nic || base == 0x02) return PciRole::nic;
    if ((pci_class >> 8) == 0x0604 || first_child) return PciRole::bridge;
    return PciRole::other;
  }

  std::vector<Port> read_ports(const pugi::xml_node& nic) {
    std::vector<Port> ports;
    for (pugi::xml_node net : nic.children("net")) {
      int mbps = int_attr(net, "speed", 0);
      std::optional<bool> gdr;
      if (!net.attribute("gdr").empty()) gdr = int_attr(net, "gdr", 0) != 0;
      ports.push_back(Port{net.attribute("name").value(), mbps > 0 ? mbps / 1000.0 : 0.0, gdr});
    }
    return ports;
  }

  void warn_once(bool& done, const std::string& text) {
    if (!done) warnings_.push_back(text);
    done = true;
  }

  const std::string& path_;
  std::string_view content_;
  LineIndex lines_;
  pugi::xml_document doc_;
  std::vector<std::string> warnings_;
  bool nvlink_warned_ = false;
};

// ---------------------------------------------------------------------------
// Checks on the structs

void check_bus_ids(const Reader& r, const std::vector<PciDevice>& devices, std::map<std::string, int>& seen) {
  for (const PciDevice& d : devices) {
    if (!d.bus_id.empty()) {
      if (auto [it, fresh] = seen.emplace(d.bus_id, d.line); !fresh)
        r.fail_at(d, fmt::format("duplicate PCI bus id {} (first at line {})", d.bus_id, it->second));
    }
    check_bus_ids(r, d.children, seen);
  }
}

std::size_t count_gpus(const std::vector<PciDevice>& devices) {
  std::size_t n = 0;
  for (const PciDevice& d : devices) n += (d.role == PciRole::gpu) + count_gpus(d.children);
  return n;
}

bool has_endpoint(const PciDevice& d) {
  if (d.role == PciRole::gpu || d.role == PciRole::nic) return true;
  return std::any_of(d.children.begin(), d.children.end(), has_endpoint);
}

// ---------------------------------------------------------------------------
// Pass 2: structs -> Topology


class Builder {
 public:
  Builder(Topology& t, const CapacityDefaults& d) : t_(t), d_(d) {}

  void add_sockets(const std::vector<Socket>& sockets) {
    for (std::size_t i = 0; i < sockets.size(); ++i) add_socket(sockets[i], static_cast<std::int32_t>(i));
    join_sockets(sockets);
  }

  std::vector<std::string> take_warnings() {
    if (assumed_rates_ > 0)
      warnings_.push_back(
          fmt::format("line rate of {} NIC{} assumed: {:g} Gb/s per port (no <net speed>, PCI ids "
                      "of no known model)",
                      assumed_rates_, assumed_rates_ == 1 ? "" : "s", pci::kUnknownNicGbitps));
    if (guessed_gpudirect_ > 0) warnings_.push_back(pci::gpudirect_warning(guessed_gpudirect_, d_.assume_gpudirect));
    return std::move(warnings_);
  }

 private:
  void add_socket(const Socket& s, std::int32_t index) {
    ComponentId cpu = add(ComponentKind::cpu, kNone);
    t_.components[cpu].local_index = index;
    t_.components[cpu].cpu_family = s.family;
    t_.components[cpu].model = s.model;
    cpus_.push_back(cpu);
    if (std::none_of(s.devices.begin(), s.devices.end(), has_endpoint)) return;
    // NCCL XML has no host bridges: one per socket stands for its root complex.
    ComponentId hb = add(ComponentKind::host_bridge, cpu);
    t_.components[hb].local_index = index;
    std::vector<Capacity> downstream;
    for (const PciDevice& d : s.devices) {
      if (auto cap = add_device(d, hb)) downstream.push_back(*cap);
    }
    double fastest = 0.0;
    for (const Capacity& c : downstream) fastest = std::max(fastest, c.gbps);
    t_.components[hb].forward = d_.root_complex(fastest);
    t_.components[cpu].forward = d_.root_complex(fastest);
    t_.add_duplex_link(hb, cpu, LinkKind::pcie, sum_of_downstream(downstream));
  }

  // Adds `d` (and what is below it) under `parent`; returns the capacity of
  // its uplink, or nullopt when the device is skipped (neither GPU, NIC nor a
  // bridge with one of them below it).
  std::optional<Capacity> add_device(const PciDevice& d, ComponentId parent) {
    if (!has_endpoint(d)) {
      warnings_.push_back(
          fmt::format("line {}: ignored PCI device {} (class 0x{:06x}): no GPU or NIC", d.line, d.bus_id, d.pci_class));
      return std::nullopt;
    }
    ComponentId c = add(kind_of(d.role), parent);
    fill(t_.components[c], d);
    for (const PciDevice& child : d.children) add_device(child, c);
    Capacity cap = d_.pcie(d.gen, d.width);
    t_.add_duplex_link(c, parent, LinkKind::pcie, cap, d.gen, d.width);
    return cap;
  }

  static ComponentKind kind_of(PciRole role) {
    if (role == PciRole::gpu) return ComponentKind::gpu;
    if (role == PciRole::nic) return ComponentKind::nic;
    return ComponentKind::pcie_switch;
  }

  void fill(Component& c, const PciDevice& d) {
    c.pci_bus_id = d.bus_id;
    c.pci_class = d.pci_class;
    c.pci_vendor = d.vendor;
    c.pci_device = d.device;
    if (d.cuda_dev >= 0) c.device_name = fmt::format("cuda{}", d.cuda_dev);
    if (d.role == PciRole::nic) fill_nic(c, d);
  }

  // Ports = <net> elements; the line rate is the slowest stated port's, and
  // GPUDirect RDMA any port's gdr flag. What the <net>s do not state comes
  // from the PCI ids and class, as in the hwloc importer (pci_classify.hpp):
  // Azure's NDv4/NDv5 files have no <net> at all.
  void fill_nic(Component& c, const PciDevice& d) {
    pci::NicFacts facts = pci::nic_facts(d.vendor, d.device);
    c.model = std::string(facts.model);
    c.ports = static_cast<std::uint32_t>(std::max<std::size_t>(d.ports.size(), 1));
    if (!d.ports.empty()) c.device_name = d.ports.front().name;
    bool gdr_stated = false;
    for (const Port& p : d.ports) {
      if (p.gbitps > 0 && (c.line_rate_gbitps == 0 || p.gbitps < c.line_rate_gbitps)) c.line_rate_gbitps = p.gbitps;
      gdr_stated = gdr_stated || p.gdr.has_value();
      c.gpudirect = c.gpudirect || p.gdr.value_or(false);
    }
    if (!gdr_stated) {
      pci::UnstatedGpudirect gdr = pci::unstated_gpudirect(static_cast<std::uint16_t>(d.pci_class >> 8), d.vendor,
                                                           d.device, d_.assume_gpudirect);
      c.gpudirect = gdr.gpudirect;
      guessed_gpudirect_ += gdr.guessed;
    }
    if (c.line_rate_gbitps > 0) return;
    c.line_rate_gbitps = facts.line_rate_gbitps;
    if (!facts.rate_known) ++assumed_rates_;
  }

  // Every pair of sockets is joined (NCCL's ncclTopoConnectCpus).
  void join_sockets(const std::vector<Socket>& sockets) {
    for (std::size_t i = 0; i < cpus_.size(); ++i) {
      for (std::size_t j = i + 1; j < cpus_.size(); ++j) {
        std::string family = sockets[i].family == sockets[j].family ? sockets[i].family : "unknown";
        t_.add_duplex_link(cpus_[i], cpus_[j], LinkKind::inter_socket, d_.inter_socket(family));
      }
    }
  }

  ComponentId add(ComponentKind kind, ComponentId parent) {
    ComponentId c = t_.add_component(kind, 0);
    t_.components[c].parent = parent;
    return c;
  }

  Topology& t_;
  const CapacityDefaults& d_;
  std::vector<ComponentId> cpus_;
  std::vector<std::string> warnings_;
  int assumed_rates_ = 0;
  int guessed_gpudirect_ = 0;
};

}  // namespace

Topology import_nccl_xml(const std::string& path, std::string_view content, const ImportOptions& opts) {
  Reader reader(path, content);
  reader.parse();
  std::vector<Socket> sockets = reader.sockets();
  std::map<std::string, int> seen;
  std::size_t gpus = 0;
  for (const Socket& s : sockets) {
    check_bus_ids(reader, s.devices, seen);
    gpus += count_gpus(s.devices);
  }
  if (gpus == 0)
    throw InputError(path, 0,
                     "names no GPUs: this is an NCCL topology hint file (bus ids to merge with NCCL's live "
                     "detection), not a full topology; run vp-analyze on the machine itself (--probe) or give a "
                     "full dump (NCCL_TOPO_DUMP_FILE)");

  Topology t;
  t.defaults = opts.defaults;
  t.nodes.push_back(
      NodeInfo{"node0", opts.node_type.empty() ? std::filesystem::path(path).stem().string() : opts.node_type});
  Builder builder(t, opts.defaults);
  builder.add_sockets(sockets);
  t.warnings = reader.take_warnings();
  for (std::string& w : builder.take_warnings()) t.warnings.push_back(std::move(w));
  canonicalize(t, path);
  return t;
}

}  // namespace vp
