// hwloc XML (v1 or v2) or the live machine, read through libhwloc -> a
// single-node Topology.
//
// hwloc gives the whole I/O tree: host bridges, PCI-PCI bridges, PCI
// functions and the OS devices of their drivers. IoWalker turns each host
// bridge's subtree into a small tree of Attachments (GPU, NIC or PCIe switch,
// each with the chain of physical PCIe links up to its parent); Builder then
// emits sockets, host bridges, components and links, and canonicalize() fixes
// the order. Which functions are GPUs, NICs or SR-IOV virtual functions is
// decided in pci_classify.hpp.
//
// PCIe switches. hwloc shows every port as a bridge. Below a host bridge the
// roles alternate, as PCIe defines them: a bridge on the host bridge's bus is
// a root port; a bridge below a root port or a switch downstream port is the
// upstream port of a switch; a bridge below an upstream port is one of that
// switch's downstream ports. An upstream port and its downstream ports form
// one pcie_switch, so nested switches (DGX-2: a PEX9797 above two PEX9781)
// come out as nested pcie_switch components. Root ports never become
// components: the link they terminate joins the host bridge to what sits below.
// A switch with nothing relevant below it (no GPU, no NIC) is dropped; a switch
// with a single relevant child only passes traffic through (the GPU-internal
// bridges of an MI300X, a switch serving one NIC) and is collapsed into the
// link from its parent to that child.
//
// Link capacities. A physical PCIe link is reported by its lower end (a PCI
// function or a switch's upstream port) in hwloc's pci_link_speed (raw GB/s);
// when that end reports nothing, the port above it is asked. A component's
// link to its parent covers every physical link between them (after
// collapsing) and takes the slowest one's capacity.
//
// What hwloc cannot say, and what is assumed instead, is in Topology::warnings:
// I/O without CPU locality, links without a usable speed, GPU links that look
// throttled, NIC line rates (hwloc reports none; pci_classify.cpp has a table).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <hwloc.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string_view>
#include <system_error>

#include <sys/wait.h>
#include <unistd.h>

#include "hwloc_backend.hpp"
#include "pci_classify.hpp"
#include "vp/base/errors.hpp"
#include "vp/base/input_file.hpp"
#include "vp/import/import.hpp"
#include "vp/topology/cluster.hpp"
#include "vp/topology/errors.hpp"
#include "vpcat/pci_bus_id.hpp"

namespace vp {

namespace {

const std::string kLocalMachine = "local machine";
constexpr std::string_view kVerboseHint = "HWLOC_XML_VERBOSE=1 prints hwloc's diagnostics";
// A GPU link slower than this (raw GB/s, i.e. below PCIe Gen3 x4, Gen2 x8 or
// Gen1 x16) is implausible: an idle link trained down, or a hypervisor's figure.
constexpr double kImplausibleGpuRawGbps = 3.9;

// ---------------------------------------------------------------------------
// hwloc session

struct TopologyDeleter {
  void operator()(hwloc_topology_t t) const noexcept { hwloc_topology_destroy(t); }
};
using HwlocTopology = std::unique_ptr<hwloc_topology, TopologyDeleter>;

std::string errno_text(int err) { return std::generic_category().message(err); }

// Keep every I/O object (bridges, PCI functions, OS devices) and the resources
// outside the cgroup of the process that wrote the XML: the node's hardware,
// not one job's share of it. Returns false (errno set) when hwloc refuses.
bool configure(hwloc_topology_t topo) noexcept {
  bool io = hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_ALL) == 0 ||
            hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT) == 0;
  return io && hwloc_topology_set_flags(topo, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED) == 0;
}

HwlocTopology new_topology(const std::string& where) {
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0)
    throw InputError(where, 0, fmt::format("hwloc cannot create a topology ({})", errno_text(errno)));
  HwlocTopology topo(raw);
  if (!configure(raw)) throw InputError(where, 0, fmt::format("hwloc cannot keep I/O objects ({})", errno_text(errno)));
  return topo;
}

// libhwloc 2.9 trusts some attributes of an XML file: a damaged one (a
// misspelt complete_cpuset, say) makes it dereference a null pointer, lstopo
// included; and when it refuses a file it loses what it had set up (its
// libxml2 plugin's parser state for an undecodable file, the objects of
// hwloc_alloc_setup_object for an invalid topology). The bytes are therefore
// parsed and loaded once in a child process first, and only bytes the child
// loaded are given to hwloc here: a refused file leaks nothing and crashes
// nothing. Without a process to spare, they are loaded unguarded.
enum class Trial { loaded, malformed, refused, crashed, no_child };
constexpr unsigned kTrialSeconds = 60;

// hwloc reads a buffer with its terminating NUL counted (`xml` has one).
int set_xml_buffer(hwloc_topology_t topo, const std::string& xml) noexcept {
  return hwloc_topology_set_xmlbuffer(topo, xml.c_str(), static_cast<int>(xml.size() + 1));
}

Trial trial_load(const std::string& xml) {
  // The child's exit codes; anything else (a signal, a sanitizer's report) is a crash.
  enum : int { kLoaded = 0, kMalformed = 3, kRefused = 4 };
  pid_t child = fork();
  if (child < 0) return Trial::no_child;
  if (child == 0) {  // only C calls and _exit here: nothing may unwind into the parent's code
    for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT}) signal(sig, SIG_DFL);  // no host crash handler
    alarm(kTrialSeconds);
    hwloc_topology_t topo = nullptr;
    if (hwloc_topology_init(&topo) != 0 || !configure(topo)) _exit(kLoaded);  // the parent will say why
    if (set_xml_buffer(topo, xml) != 0) _exit(kMalformed);
    _exit(hwloc_topology_load(topo) == 0 ? kLoaded : kRefused);  // _exit: no leak check, no atexit handlers
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) return Trial::no_child;
  }
  if (!WIFEXITED(status)) return Trial::crashed;
  switch (WEXITSTATUS(status)) {
    case kLoaded: return Trial::loaded;
    case kMalformed: return Trial::malformed;
    case kRefused: return Trial::refused;
    default: return Trial::crashed;
  }
}

// hwloc prints its XML diagnostics only when HWLOC_XML_VERBOSE is set; without
// it a bad file fails silently, hence the hint in the messages.
// Without libxml2 (hwloc_backend.hpp) a failure may be the minimalistic
// parser's, not the file's: the message says so and names the package.
void load_xml(hwloc_topology_t topo, const std::string& path, const std::string& xml) {
  auto fail = [&](std::string_view what) {
    HwlocXmlBackend backend = hwloc_xml_backend();
    if (backend.libxml2) throw InputError(path, 0, fmt::format("hwloc cannot load the XML ({}; {})", what, kVerboseHint));
    throw InputError(path, 0,
                     fmt::format("hwloc cannot load the XML (hwloc's minimalistic XML parser failed: hwloc's libxml2 "
                                 "backend is {}; the file may be valid; {})",
                                 backend.why_not, kVerboseHint));
  };
  if (xml.size() >= static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw InputError(path, 0, fmt::format("{} bytes: libhwloc reads XML of less than 2 GiB", xml.size()));
  switch (trial_load(xml)) {
    case Trial::crashed:
      throw InputError(path, 0, "hwloc cannot load the XML (hwloc crashed reading it: the file is damaged)");
    case Trial::malformed:
      fail("malformed XML");
      break;
    case Trial::refused:
      fail("not a valid hwloc topology");
      break;
    case Trial::loaded:
    case Trial::no_child:
      break;
  }
  if (set_xml_buffer(topo, xml) != 0) fail("malformed XML");
  if (hwloc_topology_load(topo) != 0) fail("not a valid hwloc topology");
}

// ---------------------------------------------------------------------------
// Reading hwloc objects

std::string_view info(hwloc_obj_t o, const char* name) {
  const char* v = hwloc_obj_get_info_by_name(o, name);
  return v ? std::string_view(v) : std::string_view();
}

int int_info(hwloc_obj_t o, const char* name) {
  std::string_view v = info(o, name);
  if (v.empty() || v.size() > 9 || !std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return -1;
  return std::stoi(std::string(v));
}

std::string trimmed(std::string_view s) {
  auto first = s.find_first_not_of(' ');
  if (first == std::string_view::npos) return {};
  return std::string(s.substr(first, s.find_last_not_of(' ') - first + 1));
}

// A bridge type as its number. hwloc's XML reader stores whatever number the
// file's bridge_type="U-D" says into the enum fields; loading a value outside
// the enum's range through the enum type is undefined behaviour, so read the
// bytes (check_bridge_types() refuses such files first).
unsigned bridge_type_number(const hwloc_obj_bridge_type_t& field) {
  static_assert(sizeof(field) == sizeof(unsigned), "hwloc_obj_bridge_type_t is an int-sized enum");
  unsigned v = 0;
  std::memcpy(&v, &field, sizeof v);
  return v;
}

bool is_host_bridge_upstream(hwloc_obj_t b) { return bridge_type_number(b->attr->bridge.upstream_type) == HWLOC_OBJ_BRIDGE_HOST; }

bool is_pci_bridge(hwloc_obj_t o) {
  return o && o->type == HWLOC_OBJ_BRIDGE && bridge_type_number(o->attr->bridge.upstream_type) == HWLOC_OBJ_BRIDGE_PCI;
}

// Every bridge's types must be hwloc's: 0 (host) or 1 (PCI).
void check_bridge_types(hwloc_topology_t topo, const std::string& where) {
  for (hwloc_obj_t b = hwloc_get_next_bridge(topo, nullptr); b; b = hwloc_get_next_bridge(topo, b)) {
    unsigned up = bridge_type_number(b->attr->bridge.upstream_type);
    unsigned down = bridge_type_number(b->attr->bridge.downstream_type);
    if (up > HWLOC_OBJ_BRIDGE_PCI || down > HWLOC_OBJ_BRIDGE_PCI)
      throw InputError(where, 0,
                       fmt::format("bridge (gp_index {}): bridge_type \"{}-{}\" is not a hwloc bridge type (0 host, "
                                   "1 PCI)",
                                   b->gp_index, up, down));
  }
}

using PciAttr = hwloc_obj_attr_u::hwloc_pcidev_attr_s;

// The PCI attributes of a PCI function or of a PCI-PCI bridge.
const PciAttr& pci_of(hwloc_obj_t o) {
  return o->type == HWLOC_OBJ_BRIDGE ? o->attr->bridge.upstream.pci : o->attr->pcidev;
}

std::string bus_id(hwloc_obj_t o) {
  const PciAttr& p = pci_of(o);
  return fmt::format("{:04x}:{:02x}:{:02x}.{:x}", p.domain, p.bus, p.dev, p.func);
}

// Every PCI function's address must be one (vpcat/pci_bus_id.hpp): hwloc's XML
// reader keeps whatever device and function numbers pci_busid="..." states,
// and the catalog and the JSON topology carry the address as text.
void check_pci_addresses(hwloc_topology_t topo, const std::string& where) {
  auto check = [&](hwloc_obj_t o) {
    if (vpcat::PciBusId id; !vpcat::parse_pci_bus_id(bus_id(o), id))
      throw InputError(where, 0,
                       fmt::format("PCI object (gp_index {}): pci_busid \"{}\" is not a PCI address (device 00-1f, "
                                   "function 0-7)",
                                   o->gp_index, bus_id(o)));
  };
  for (hwloc_obj_t o = hwloc_get_next_pcidev(topo, nullptr); o; o = hwloc_get_next_pcidev(topo, o)) check(o);
  for (hwloc_obj_t b = hwloc_get_next_bridge(topo, nullptr); b; b = hwloc_get_next_bridge(topo, b))
    if (is_pci_bridge(b)) check(b);
}

pci::FunctionIds ids_of(hwloc_obj_t o) {
  const PciAttr& p = pci_of(o);
  return pci::FunctionIds{p.domain, p.bus, p.dev, p.func, p.class_id, p.vendor_id, p.device_id};
}

std::string hex_ids(hwloc_obj_t o) { return fmt::format("{:04x}:{:04x}", pci_of(o).vendor_id, pci_of(o).device_id); }

// The name pci.ids gives the function ("GA102GL [A10G]"), else "10de:2237".
std::string pci_model(hwloc_obj_t o) {
  std::string_view name = info(o, "PCIDevice");
  return name.empty() ? hex_ids(o) : std::string(name);
}

// An OS device's name ("cuda0", "mlx5_0"); empty when the file gives none.
std::string_view name_of(hwloc_obj_t osdev) { return osdev->name ? std::string_view(osdev->name) : std::string_view(); }

std::vector<hwloc_obj_t> os_devices(hwloc_obj_t pci_function) {
  std::vector<hwloc_obj_t> out;
  for (hwloc_obj_t c = pci_function->io_first_child; c; c = c->next_sibling) {
    if (c->type == HWLOC_OBJ_OS_DEVICE) out.push_back(c);
  }
  return out;
}

// Rank of a GPU OS device by the driver that names it: CUDA, ROCm SMI, NVML,
// OpenCL, Level Zero (compute drivers, in order of preference), then the rest
// (DRM "card1", "renderD128").
constexpr std::array<std::string_view, 5> kComputePrefixes{"cuda", "rsmi", "nvml", "opencl", "ze"};
std::size_t compute_rank(hwloc_obj_t osdev) {
  std::string_view name = name_of(osdev);
  for (std::size_t i = 0; i < kComputePrefixes.size(); ++i) {
    if (name.substr(0, kComputePrefixes[i].size()) == kComputePrefixes[i]) return i;
  }
  return kComputePrefixes.size();
}

// The GPU's OS devices, preferred first (stable: hwloc order within a rank).
std::vector<hwloc_obj_t> gpu_os_devices(hwloc_obj_t gpu) {
  std::vector<hwloc_obj_t> devs = os_devices(gpu);
  std::stable_sort(devs.begin(), devs.end(),
                   [](hwloc_obj_t a, hwloc_obj_t b) { return compute_rank(a) < compute_rank(b); });
  return devs;
}

bool has_compute_device(hwloc_obj_t gpu) {
  auto devs = os_devices(gpu);
  return std::any_of(devs.begin(), devs.end(), [](hwloc_obj_t d) { return compute_rank(d) < kComputePrefixes.size(); });
}

// The GPUModel a driver reports ("Tesla V100-SXM3-32GB-H"), else pci_model().
std::string gpu_model(hwloc_obj_t gpu) {
  for (hwloc_obj_t d : gpu_os_devices(gpu)) {
    if (std::string_view m = info(d, "GPUModel"); !m.empty()) return trimmed(m);
  }
  return pci_model(gpu);
}

std::string gpu_device_name(hwloc_obj_t gpu) {
  auto devs = gpu_os_devices(gpu);
  return devs.empty() ? std::string() : std::string(name_of(devs.front()));
}

// The RDMA device ("mlx5_0", "bnxt_re0", "rdmap79s0"), else the network
// interface ("ens5"), else nothing.
std::string nic_device_name(hwloc_obj_t nic) {
  std::string_view netdev;
  for (hwloc_obj_t d : os_devices(nic)) {
    if (d->attr->osdev.type == HWLOC_OBJ_OSDEV_OPENFABRICS) return std::string(name_of(d));
    if (d->attr->osdev.type == HWLOC_OBJ_OSDEV_NETWORK && netdev.empty()) netdev = name_of(d);
  }
  return std::string(netdev);
}

// ---------------------------------------------------------------------------
// Pass 1: the I/O tree -> Attachments

// Who owns a PCI bus: its role decides the role of the bridges on it (see the
// file comment).
enum class BusOwner : unsigned char { host_bridge, root_port, upstream_port, downstream_port };

BusOwner role_of_bridge_below(BusOwner owner) {
  switch (owner) {
    case BusOwner::host_bridge: return BusOwner::root_port;
    case BusOwner::upstream_port: return BusOwner::downstream_port;
    case BusOwner::root_port:
    case BusOwner::downstream_port: return BusOwner::upstream_port;
  }
  return BusOwner::upstream_port;
}

// One physical PCIe link, named by its lower end.
struct RawLink {
  double raw_gbps = 0.0;  // hwloc's figure; 0 = none
  std::string lower_end;  // bus id
};

// The link above `lower` (a PCI function or a switch's upstream port): its own
// figure, else that of the port above it, which reports the same link.
RawLink link_above(hwloc_obj_t lower) {
  double raw = pci_of(lower).linkspeed;
  if (!(raw > 0) && is_pci_bridge(lower->parent)) raw = pci_of(lower->parent).linkspeed;
  return RawLink{raw, bus_id(lower)};
}

struct Attachment {
  ComponentKind kind = ComponentKind::gpu;
  hwloc_obj_t obj = nullptr;         // the GPU, a NIC's lowest function, a switch's upstream port
  std::uint32_t ports = 1;           // nic: the functions merged into it
  std::vector<RawLink> uplink;       // physical links up to the parent component, own link first
  std::vector<Attachment> children;  // pcie_switch
};

class IoWalker {
 public:
  // The GPUs, NICs and switches on the bus that `owner` (playing `role`) owns,
  // and below it.
  std::vector<Attachment> bus(hwloc_obj_t owner, BusOwner role) {
    std::vector<Attachment> out;
    std::vector<hwloc_obj_t> nic_functions;
    for (hwloc_obj_t c = owner->io_first_child; c; c = c->next_sibling) {
      if (is_pci_bridge(c)) {
        std::vector<Attachment> below = bridge(c, role_of_bridge_below(role));
        std::move(below.begin(), below.end(), std::back_inserter(out));
      } else if (c->type == HWLOC_OBJ_PCI_DEVICE && pci::is_nic_class(pci_of(c).class_id)) {
        nic_functions.push_back(c);
      } else if (c->type == HWLOC_OBJ_PCI_DEVICE && is_gpu(c)) {
        out.push_back(Attachment{ComponentKind::gpu, c, 1, {link_above(c)}, {}});
      }
    }
    add_nics(nic_functions, role != BusOwner::host_bridge, out);
    return out;
  }

  // "0000:01:00.0 [1002:515e] is a VGA controller without a compute driver",
  // one per GPU-class function that is not a GPU.
  const std::vector<std::string>& rejected() const { return rejected_; }

 private:
  std::vector<Attachment> bridge(hwloc_obj_t b, BusOwner role) {
    std::vector<Attachment> below = bus(b, role);
    if (role != BusOwner::upstream_port || below.empty()) return below;  // a port; or an empty switch
    if (below.size() == 1) {                                             // a pass-through switch: collapsed
      below.front().uplink.push_back(link_above(b));
      return below;
    }
    return {Attachment{ComponentKind::pcie_switch, b, 1, {link_above(b)}, std::move(below)}};
  }

  bool is_gpu(hwloc_obj_t f) {
    bool nvswitch = f->subtype && std::string_view(f->subtype) == "NVSwitch";
    pci::GpuVerdict v = pci::classify_gpu(ids_of(f), nvswitch, has_compute_device(f));
    if (std::string_view why = pci::explain(v); !why.empty())
      rejected_.push_back(fmt::format("{} [{}] is {}", bus_id(f), hex_ids(f), why));
    return v == pci::GpuVerdict::gpu;
  }

  static void add_nics(const std::vector<hwloc_obj_t>& functions, bool port_bus, std::vector<Attachment>& out) {
    std::vector<pci::FunctionIds> ids;
    for (hwloc_obj_t f : functions) ids.push_back(ids_of(f));
    for (const auto& group : pci::group_nic_functions(ids, port_bus)) {
      hwloc_obj_t lowest = functions[group.front()];
      out.push_back(
          Attachment{ComponentKind::nic, lowest, static_cast<std::uint32_t>(group.size()), {link_above(lowest)}, {}});
    }
  }

  std::vector<std::string> rejected_;
};

// ---------------------------------------------------------------------------
// Pass 2: Attachments -> Topology

struct ChosenLink {
  Capacity cap;
  int gen = 0, width = 0;
};

std::string plural(std::size_t n, std::string_view word) { return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s"); }


class Builder {
 public:
  Builder(hwloc_topology_t topo, const CapacityDefaults& defaults, Topology& t)
      : topo_(topo), defaults_(defaults), t_(t) {}

  // One cpu per Package, in hwloc's order, each joined to every other (as
  // NCCL does); a single cpu when hwloc knows no Package.
  void add_sockets() {
    int packages = hwloc_get_nbobjs_by_type(topo_, HWLOC_OBJ_PACKAGE);
    if (packages <= 0) {
      add_socket(hwloc_get_root_obj(topo_));
    } else {
      for (int i = 0; i < packages; ++i)
        add_socket(hwloc_get_obj_by_type(topo_, HWLOC_OBJ_PACKAGE, static_cast<unsigned>(i)));
    }
    for (std::size_t i = 0; i < cpus_.size(); ++i) {
      for (std::size_t j = i + 1; j < cpus_.size(); ++j) {
        const std::string& a = t_.components[cpus_[i]].cpu_family;
        const std::string& b = t_.components[cpus_[j]].cpu_family;
        t_.add_duplex_link(cpus_[i], cpus_[j], LinkKind::inter_socket, defaults_.inter_socket(a == b ? a : "unknown"));
      }
    }
  }

  // A host_bridge below the socket hwloc places `hb` in, with `below` under it.
  void add_host_bridge(hwloc_obj_t hb, const std::vector<Attachment>& below) {
    ComponentId cpu = socket_of(hb);
    ComponentId h = add(ComponentKind::host_bridge, cpu);
    t_.components[h].local_index = host_bridges_added_++;
    std::vector<Capacity> downstream;
    double fastest = 0.0;
    for (const Attachment& a : below) {
      downstream.push_back(emit(a, h));
      fastest = std::max(fastest, downstream.back().gbps);
    }
    t_.components[h].forward = defaults_.root_complex(fastest);
    t_.add_duplex_link(h, cpu, LinkKind::pcie, sum_of_downstream(downstream));
    SocketIo& io = socket_io_[cpu];
    ++io.host_bridges;
    io.fastest_gbps = std::max(io.fastest_gbps, fastest);
  }

  // A socket forwards between its host bridges, and towards other sockets, at
  // the root-complex capacity of the fastest PCIe link below any of its host
  // bridges.
  void set_socket_forwarding() {
    for (const auto& [cpu, io] : socket_io_) {
      if (io.host_bridges > 1 || cpus_.size() > 1) t_.components[cpu].forward = defaults_.root_complex(io.fastest_gbps);
    }
  }

  std::vector<std::string> warnings() const {
    std::vector<std::string> out;
    if (no_locality_) out.push_back("I/O devices have no CPU locality in the input; attached to socket 0");
    if (!unknown_links_.empty())
      out.push_back(
          fmt::format("hwloc reports no usable PCIe link speed for {} (first: {}): assumed PCIe Gen{} x{} "
                      "(pcie.unknown_gen, pcie.unknown_width)",
                      plural(unknown_links_.size(), "link"), *unknown_links_.begin(), defaults_.unknown_pcie_gen,
                      defaults_.unknown_pcie_width));
    if (!slow_gpus_.empty())
      out.push_back(fmt::format(
          "{} report an implausibly slow PCIe link (first: {} at {:g} GB/s raw, below {:g}): kept as reported; "
          "an idle link trained down or a hypervisor's figure may understate it",
          plural(slow_gpus_.size(), "GPU"), slow_gpus_.front().lower_end, slow_gpus_.front().raw_gbps,
          kImplausibleGpuRawGbps));
    for (const auto& [model, count] : assumed_rates_)
      out.push_back(fmt::format("line rate of {} {} assumed: {:g} Gb/s per port (hwloc reports no line rate)",
                                plural(count, "NIC"), model, pci::kUnknownNicGbitps));
    if (guessed_gpudirect_ > 0) out.push_back(pci::gpudirect_warning(guessed_gpudirect_, defaults_.assume_gpudirect));
    return out;
  }

 private:
  struct SocketIo {
    int host_bridges = 0;
    double fastest_gbps = 0.0;
  };

  void add_socket(hwloc_obj_t o) {
    ComponentId cpu = add(ComponentKind::cpu, kNone);
    Component& c = t_.components[cpu];
    c.local_index = static_cast<std::int32_t>(cpus_.size());
    c.model = trimmed(info(o, "CPUModel"));
    c.cpu_family = cpu_family_key(info(o, "CPUVendor"), info(o, "CPUModel"), int_info(o, "CPUFamilyNumber"),
                                  int_info(o, "CPUModelNumber"));
    if (o->type == HWLOC_OBJ_PACKAGE) socket_of_package_[o] = cpu;
    cpus_.push_back(cpu);
  }

  // The Package above `hb`; socket 0 (with a warning) when hwloc attaches the
  // I/O to an object above the packages (the Machine, or a Group of packages).
  ComponentId socket_of(hwloc_obj_t hb) {
    auto it = socket_of_package_.find(hwloc_get_ancestor_obj_by_type(topo_, HWLOC_OBJ_PACKAGE, hb));
    if (it != socket_of_package_.end()) return it->second;
    no_locality_ = true;
    return cpus_.front();
  }

  ComponentId add(ComponentKind kind, ComponentId parent) {
    ComponentId c = t_.add_component(kind, 0);
    t_.components[c].parent = parent;
    return c;
  }

  // Adds `a` below `parent` with its link and its subtree; returns the link's capacity.
  Capacity emit(const Attachment& a, ComponentId parent) {
    ComponentId c = add(a.kind, parent);
    describe(t_.components[c], a);
    ChosenLink link = slowest(a.uplink);
    t_.add_duplex_link(c, parent, LinkKind::pcie, link.cap, link.gen, link.width);
    if (a.kind == ComponentKind::gpu) check_gpu_link(a.uplink.front());
    for (const Attachment& child : a.children) emit(child, c);
    return link.cap;
  }

  void describe(Component& c, const Attachment& a) {
    const PciAttr& p = pci_of(a.obj);
    c.pci_bus_id = bus_id(a.obj);
    c.pci_vendor = p.vendor_id;
    c.pci_device = p.device_id;
    c.pci_class = static_cast<std::uint32_t>(p.class_id) << 8;  // hwloc keeps no programming interface
    switch (a.kind) {
      case ComponentKind::gpu:
        c.model = gpu_model(a.obj);
        c.device_name = gpu_device_name(a.obj);
        break;
      case ComponentKind::nic: describe_nic(c, a); break;
      default: c.model = pci_model(a.obj); break;
    }
  }

  static std::uint16_t p_class(const Component& c) { return static_cast<std::uint16_t>(c.pci_class >> 8); }

  void describe_nic(Component& c, const Attachment& a) {
    pci::NicFacts facts = pci::nic_facts(c.pci_vendor, c.pci_device);
    c.model = facts.model.empty() ? pci_model(a.obj) : std::string(facts.model);
    c.device_name = nic_device_name(a.obj);
    c.line_rate_gbitps = facts.line_rate_gbitps;
    c.ports = a.ports;
    pci::UnstatedGpudirect gdr = pci::unstated_gpudirect(p_class(c), c.pci_vendor, c.pci_device,
                                                         defaults_.assume_gpudirect);
    c.gpudirect = gdr.gpudirect;
    if (gdr.guessed) ++guessed_gpudirect_;
    if (!facts.rate_known) ++assumed_rates_[fmt::format("{} ({})", c.model, hex_ids(a.obj))];
  }

  // The slowest physical link of a chain.
  ChosenLink slowest(const std::vector<RawLink>& chain) {
    std::optional<ChosenLink> best;
    for (const RawLink& l : chain) {
      ChosenLink c = pcie_link(l);
      if (!best || c.cap.gbps < best->cap.gbps) best = std::move(c);
    }
    return *best;
  }

  ChosenLink pcie_link(const RawLink& l) {
    std::optional<std::pair<int, int>> decoded = CapacityDefaults::decode_raw_pcie_gbps(l.raw_gbps);
    if (!decoded) {
      unknown_links_.insert(l.lower_end);
      Capacity cap = defaults_.pcie(0, 0);
      cap.basis += l.raw_gbps > 0
                       ? fmt::format(" (hwloc: {:g} GB/s raw matches no PCIe generation and width)", l.raw_gbps)
                       : std::string(" (hwloc: no link speed)");
      return ChosenLink{cap, 0, 0};
    }
    auto [gen, width] = *decoded;
    Capacity cap = defaults_.pcie(gen, width);
    cap.basis += fmt::format(" (hwloc: {:.2f} GB/s raw)", l.raw_gbps);
    return ChosenLink{cap, gen, width};
  }

  void check_gpu_link(const RawLink& own) {
    if (own.raw_gbps > 0 && own.raw_gbps < kImplausibleGpuRawGbps) slow_gpus_.push_back(own);
  }

  hwloc_topology_t topo_;
  const CapacityDefaults& defaults_;
  Topology& t_;
  std::vector<ComponentId> cpus_;
  std::int32_t host_bridges_added_ = 0;
  std::map<hwloc_obj_t, ComponentId> socket_of_package_;
  std::map<ComponentId, SocketIo> socket_io_;
  bool no_locality_ = false;
  int guessed_gpudirect_ = 0;
  std::set<std::string> unknown_links_;
  std::vector<RawLink> slow_gpus_;
  std::map<std::string, std::size_t> assumed_rates_;
};

// ---------------------------------------------------------------------------

// "(18 PCI devices, none of a GPU class)"; the functions of a GPU class that
// are not GPUs are named, the first kMaxNamed of them.
constexpr std::size_t kMaxNamed = 3;
std::string pci_census(hwloc_topology_t topo, const std::vector<std::string>& rejected) {
  int n = std::max(hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PCI_DEVICE), 0);
  if (n == 0) return "(no PCI device at all: hwloc ran without I/O discovery)";
  std::string devices = plural(static_cast<std::size_t>(n), "PCI device");
  if (rejected.empty()) return fmt::format("({}, none of a GPU class)", devices);
  auto named = std::min(rejected.size(), kMaxNamed);
  std::string more = rejected.size() > named ? fmt::format("; and {} more", rejected.size() - named) : "";
  return fmt::format("({}, none a GPU: {}{})", devices,
                     fmt::join(rejected.begin(), rejected.begin() + static_cast<std::ptrdiff_t>(named), "; "), more);
}

bool has_gpu(const Topology& t) {
  return std::any_of(t.components.begin(), t.components.end(),
                     [](const Component& c) { return c.kind == ComponentKind::gpu; });
}

// The host name an hwloc topology records (the root object's HostName info
// attribute, which lstopo writes), or "" when it has none or one that is
// not a host name (then *warning says so).
std::string recorded_host_name(hwloc_topology_t topo, std::string* warning) {
  const std::string_view name = info(hwloc_get_root_obj(topo), "HostName");
  if (name.empty()) return {};
  if (!is_host_name(name)) {
    *warning = fmt::format("HostName \"{}\" is not a host name (letters, digits, '-', '.' and '_'): the node is "
                           "named node0 (name it with --hostname)",
                           printable_line(std::string(name)));
    return {};
  }
  return std::string(name);
}

// This machine's name (gethostname), or "" when it has none that is a host name.
std::string this_host_name() {
  char name[256] = {0};
  if (gethostname(name, sizeof name - 1) != 0 || !is_host_name(name)) return {};
  return name;
}

// The whole import of a loaded hwloc topology. `where` names the input in
// errors ("local machine" for a probe).
// The node is named after its host: this machine's name for a probe, else
// the HostName the file records, else node0.
Topology import_loaded(hwloc_topology_t topo, const ImportOptions& opts, const std::string& where,
                       const std::string& node_type) {
  check_bridge_types(topo, where);
  check_pci_addresses(topo, where);
  std::string host_warning;
  std::string host = where == kLocalMachine ? this_host_name() : std::string();
  if (host.empty()) host = recorded_host_name(topo, &host_warning);
  Topology t;
  t.defaults = opts.defaults;
  t.nodes.push_back(NodeInfo{host.empty() ? "node0" : host, node_type});
  Builder builder(topo, opts.defaults, t);
  builder.add_sockets();
  IoWalker walker;
  for (hwloc_obj_t b = hwloc_get_next_bridge(topo, nullptr); b; b = hwloc_get_next_bridge(topo, b)) {
    if (!is_host_bridge_upstream(b)) continue;
    std::vector<Attachment> below = walker.bus(b, BusOwner::host_bridge);
    if (!below.empty()) builder.add_host_bridge(b, below);
  }
  if (!has_gpu(t)) {
    std::string census = pci_census(topo, walker.rejected());
    throw InputError(where, 0,
                     where == kLocalMachine
                         ? fmt::format("no GPU found: this machine has no GPU visible to hwloc {}; run vp-analyze "
                                       "on a GPU node, or give a GPU node's topology with --input FILE (hwloc "
                                       "XML from `lstopo node.xml`, an NCCL_TOPO_DUMP_FILE, `nvidia-smi topo -m` "
                                       "output or vp JSON)",
                                       census)
                         : fmt::format("no GPU found {}", census));
  }
  builder.set_socket_forwarding();
  t.warnings = builder.warnings();
  if (!host_warning.empty()) t.warnings.push_back(host_warning);
  canonicalize(t, where);
  return t;
}

}  // namespace

Topology import_hwloc_xml(const std::string& path, std::string_view content, const ImportOptions& opts) {
  HwlocTopology topo = new_topology(path);
  load_xml(topo.get(), path, std::string(content));
  std::string type = opts.node_type.empty() ? std::filesystem::path(path).stem().string() : opts.node_type;
  return import_loaded(topo.get(), opts, path, type);
}

Topology import_hwloc_xml(const std::string& path, const ImportOptions& opts) {
  return import_hwloc_xml(path, read_input_file(path), opts);
}

Topology probe_local_machine(const ImportOptions& opts) {
  HwlocTopology topo = new_topology(kLocalMachine);
  if (hwloc_topology_load(topo.get()) != 0)
    throw InputError(kLocalMachine, 0, fmt::format("hwloc cannot discover this machine ({})", errno_text(errno)));
  return import_loaded(topo.get(), opts, kLocalMachine, opts.node_type.empty() ? "local" : opts.node_type);
}

}  // namespace vp
