// What a PCI function is, from its class code and ids alone: a GPU, a NIC or
// neither; which NIC functions are SR-IOV virtual functions; and the facts a
// NIC's ids imply (model, line rate, GPUDirect RDMA). Private to the
// importers; no hwloc types here so that the rules read (and test) on their own.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace vp::pci {

// The ids hwloc reports for one PCI function. `class_id` is the 16-bit
// base class and subclass (0x0302 = 3D controller); hwloc does not keep the
// programming interface.
struct FunctionIds {
  std::uint32_t domain = 0;
  std::uint8_t bus = 0, dev = 0, func = 0;
  std::uint16_t class_id = 0, vendor = 0, device = 0;
};

// ---- GPUs -----------------------------------------------------------------

enum class GpuVerdict : unsigned char {
  gpu,
  not_gpu_class,        // not a display (03xx) or processing-accelerator (12xx) class
  virtual_display,      // a BMC or hypervisor display adapter (ASPEED, Matrox, QEMU, ...)
  nvswitch,             // an NVSwitch: a bridge-class NVIDIA device, never a GPU
  vga_without_compute,  // a VGA controller of another vendor than NVIDIA with no compute driver
};

// Why a GPU-class function is not a GPU, for error messages ("a BMC or
// virtual display adapter"); empty for `gpu` and `not_gpu_class`.
std::string_view explain(GpuVerdict v);

// Rules, in order:
//  1. hwloc's subtype "NVSwitch" -> nvswitch (whatever the class says);
//  2. class not 03xx (display) nor 12xx (processing accelerator) -> not_gpu_class;
//  3. vendor:device in the table of BMC / virtual display adapters -> virtual_display;
//  4. 3D (0302), other display (0380) and accelerators (12xx) -> gpu;
//  5. VGA (0300): NVIDIA -> gpu; other vendors only when a compute driver
//     (CUDA, ROCm SMI, NVML, OpenCL, Level Zero) exposes it, since a VGA function
//     without one is a board's display controller (ATI ES1000 on HP servers,
//     integrated graphics) far more often than a compute GPU.
GpuVerdict classify_gpu(const FunctionIds& f, bool nvswitch_subtype, bool has_compute_device);

// ---- NICs -----------------------------------------------------------------

// Ethernet, InfiniBand, other network controllers (02xx) and the older
// InfiniBand serial-bus class (0c06, e.g. ConnectX-2).
bool is_nic_class(std::uint16_t class_id);

// Groups the NIC functions of one PCI bus into physical NICs and drops SR-IOV
// virtual functions. hwloc does not say which functions are VFs, so:
//  * Functions of one slot (domain:bus:device) with one vendor:device are the
//    ports of one NIC (NCCL merges them the same way: one PCIe link).
//  * In a slot, a function whose vendor:device differs from the slot's lowest
//    function is a VF placed in its PF's slot (ARI), e.g. Cisco usNIC VFs
//    1137:00cf beside their PF 1137:0043: skipped.
//  * On the secondary bus of a PCIe port (`port_bus`), the link carries a single
//    physical device, so NIC functions whose vendor:device differs from the
//    bus's lowest NIC function are that device's VFs (Intel I350 VFs 8086:1520
//    at 02:10.x beside the PF 8086:1521 at 02:00.x): skipped. On a host
//    bridge's root bus (integrated devices, a virtual machine's passthrough
//    devices) devices of different ids are distinct NICs (AWS ENA + EFA), and a
//    VF given to a virtual machine without its PF is the machine's NIC.
// `fns` must be in bus-id order; returns indexes into `fns`, one group per
// NIC, lowest function first.
std::vector<std::vector<std::size_t>> group_nic_functions(const std::vector<FunctionIds>& fns, bool port_bus);

// What the ids of a NIC imply. hwloc reports no line rate, so it comes from
// this table (per port, the fastest the model supports); unknown models get
// kUnknownNicGbitps and `rate_known` false.
struct NicFacts {
  std::string_view model;  // "ConnectX-7"; empty when the ids are not in the table
  double line_rate_gbitps = 0.0;
  bool rate_known = false;
  bool gpudirect = false;  // GPUDirect RDMA capable
};
inline constexpr double kUnknownNicGbitps = 100.0;
NicFacts nic_facts(std::uint16_t vendor, std::uint16_t device);

// GPUDirect RDMA of a NIC whose input does not state it. An RDMA NIC (a model
// of the table that has it, unknown Mellanox ids, or any NIC of the
// InfiniBand class 0x0207) gets `assume` (nic.assume_gpudirect); any other NIC
// has none. `guessed`: an RDMA NIC of no known model (the importer warns).
struct UnstatedGpudirect {
  bool gpudirect = false;
  bool guessed = false;
};
UnstatedGpudirect unstated_gpudirect(std::uint16_t class_id, std::uint16_t vendor, std::uint16_t device, bool assume);
// The warning for `count` guessed NICs: what was assumed and how to override it.
std::string gpudirect_warning(int count, bool assume);

}  // namespace vp::pci
