#include "pci_classify.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <numeric>
#include <tuple>

namespace vp::pci {

namespace {

constexpr std::uint16_t kNvidia = 0x10de;
constexpr std::uint16_t kMellanox = 0x15b3;
constexpr std::uint16_t kAnyDevice = 0xffff;  // in kVirtualDisplays: every device of the vendor

struct Ids {
  std::uint16_t vendor, device;
};

// Display adapters of BMCs and hypervisors: never GPUs, whatever OS devices
// hwloc hangs below them (AWS g5's EC2 VGA carries a misattributed OpenCL device).
constexpr std::array<Ids, 11> kVirtualDisplays{{
    {0x1a03, kAnyDevice},  // ASPEED (BMC)
    {0x102b, kAnyDevice},  // Matrox G200 (BMC)
    {0x1013, kAnyDevice},  // Cirrus Logic (emulated by QEMU)
    {0x1234, kAnyDevice},  // QEMU / Bochs standard VGA
    {0x1af4, kAnyDevice},  // virtio GPU
    {0x15ad, kAnyDevice},  // VMware SVGA
    {0x1b36, 0x0100},      // Red Hat QXL
    {0x1d0f, 0x1111},      // Amazon EC2 VGA
    {0x1414, 0x5353},      // Microsoft Hyper-V synthetic video
    {0x80ee, 0xbeef},      // VirtualBox graphics
    {0x19e5, 0x1711},      // Huawei iBMC display (Hi171x)
}};

bool is_virtual_display(std::uint16_t vendor, std::uint16_t device) {
  return std::any_of(kVirtualDisplays.begin(), kVirtualDisplays.end(), [&](const Ids& v) {
    return v.vendor == vendor && (v.device == kAnyDevice || v.device == device);
  });
}

struct NicModel {
  Ids ids;
  std::string_view model;
  double gbitps;  // per port, the model's fastest; 0 = depends on the deployment (unknown)
  bool gpudirect;
};

// Line rates per port. EFA: 100 Gb/s per device as on p4d and p5 (4 x 100 and
// 32 x 100 Gb/s); later instance generations may differ, override them.
constexpr std::array<NicModel, 22> kNicModels{{
    {{0x15b3, 0x6746}, "ConnectX-2", 40, false},  // QDR; GPUDirect RDMA needs ConnectX-3 or later
    {{0x15b3, 0x1003}, "ConnectX-3", 56, true},
    {{0x15b3, 0x1007}, "ConnectX-3 Pro", 56, true},
    {{0x15b3, 0x1011}, "Connect-IB", 56, true},
    {{0x15b3, 0x1013}, "ConnectX-4", 100, true},
    {{0x15b3, 0x1015}, "ConnectX-4 Lx", 50, true},
    {{0x15b3, 0x1017}, "ConnectX-5", 100, true},
    {{0x15b3, 0x1019}, "ConnectX-5 Ex", 100, true},
    {{0x15b3, 0x101b}, "ConnectX-6", 200, true},
    {{0x15b3, 0x101d}, "ConnectX-6 Dx", 100, true},
    {{0x15b3, 0x101f}, "ConnectX-6 Lx", 25, true},
    {{0x15b3, 0x1021}, "ConnectX-7", 400, true},
    {{0x15b3, 0x1023}, "ConnectX-8", 800, true},
    {{0x15b3, 0xa2d6}, "BlueField-2", 100, true},
    {{0x15b3, 0xa2dc}, "BlueField-3", 400, true},
    {{0x14e4, 0x1760}, "BCM57608 Thor 2", 400, true},
    {{0x1d0f, 0xefa0}, "EFA", 100, true},
    {{0x1d0f, 0xefa1}, "EFA", 100, true},
    {{0x1d0f, 0xefa2}, "EFA", 100, true},
    {{0x1d0f, 0xec20}, "ENA", 0, false},  // plain Ethernet, no RDMA; rate set by the instance type
    {{0x8086, 0x10c9}, "82576", 1, false},
    {{0x8086, 0x1521}, "I350", 1, false},
}};

using Slot = std::tuple<std::uint32_t, std::uint8_t, std::uint8_t>;
Slot slot_of(const FunctionIds& f) { return {f.domain, f.bus, f.dev}; }
bool same_ids(const FunctionIds& a, const FunctionIds& b) { return a.vendor == b.vendor && a.device == b.device; }

}  // namespace

std::string_view explain(GpuVerdict v) {
  switch (v) {
    case GpuVerdict::virtual_display: return "a BMC or virtual display adapter";
    case GpuVerdict::nvswitch: return "an NVSwitch";
    case GpuVerdict::vga_without_compute: return "a VGA controller without a compute driver";
    case GpuVerdict::gpu:
    case GpuVerdict::not_gpu_class: return "";
  }
  return "";
}

GpuVerdict classify_gpu(const FunctionIds& f, bool nvswitch_subtype, bool has_compute_device) {
  if (nvswitch_subtype) return GpuVerdict::nvswitch;
  const unsigned base = f.class_id >> 8u;
  if (base != 0x03 && base != 0x12) return GpuVerdict::not_gpu_class;
  if (is_virtual_display(f.vendor, f.device)) return GpuVerdict::virtual_display;
  if (f.class_id != 0x0300 || f.vendor == kNvidia || has_compute_device) return GpuVerdict::gpu;
  return GpuVerdict::vga_without_compute;
}

bool is_nic_class(std::uint16_t class_id) { return (class_id >> 8u) == 0x02 || class_id == 0x0c06; }

std::vector<std::vector<std::size_t>> group_nic_functions(const std::vector<FunctionIds>& fns, bool port_bus) {
  std::vector<std::size_t> order(fns.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return std::make_tuple(slot_of(fns[a]), fns[a].func) < std::make_tuple(slot_of(fns[b]), fns[b].func);
  });
  std::vector<std::vector<std::size_t>> groups;
  std::map<Slot, std::size_t> group_of_slot;
  for (std::size_t i : order) {
    if (port_bus && !same_ids(fns[i], fns[order.front()])) continue;
    auto [it, fresh] = group_of_slot.emplace(slot_of(fns[i]), groups.size());
    if (fresh) {
      groups.push_back({i});
    } else if (same_ids(fns[i], fns[groups[it->second].front()])) {
      groups[it->second].push_back(i);
    }
  }
  return groups;
}

NicFacts nic_facts(std::uint16_t vendor, std::uint16_t device) {
  for (const NicModel& m : kNicModels) {
    if (m.ids.vendor == vendor && m.ids.device == device) {
      bool known = m.gbitps > 0;
      return NicFacts{m.model, known ? m.gbitps : kUnknownNicGbitps, known, m.gpudirect};
    }
  }
  // Unknown Mellanox ids are most likely newer ConnectX generations.
  return NicFacts{{}, kUnknownNicGbitps, false, vendor == kMellanox};
}

UnstatedGpudirect unstated_gpudirect(std::uint16_t class_id, std::uint16_t vendor, std::uint16_t device, bool assume) {
  NicFacts facts = nic_facts(vendor, device);
  bool rdma = facts.gpudirect || (facts.model.empty() && class_id == 0x0207);
  return UnstatedGpudirect{rdma && assume, rdma && facts.model.empty()};
}

std::string gpudirect_warning(int count, bool assume) {
  return fmt::format("GPUDirect RDMA of {} RDMA NIC{} (InfiniBand class or Mellanox ids, no known model) not stated "
                     "by the input: {} (nic.assume_gpudirect={}; --set nic.assume_gpudirect={} if not)",
                     count, count == 1 ? "" : "s", assume ? "assumed capable" : "taken as absent", assume ? 1 : 0,
                     assume ? 0 : 1);
}

}  // namespace vp::pci
