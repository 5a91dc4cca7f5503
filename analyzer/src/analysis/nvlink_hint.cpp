#include "vp/analysis/nvlink_hint.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <vector>

namespace vp {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// NVIDIA PCI device ids of SXM boards (V100 SXM2/SXM3, A100 SXM4, H100 SXM5).
bool sxm_device(std::uint16_t vendor, std::uint16_t device) {
  static constexpr std::array<std::uint16_t, 6> kSxm{0x1db1, 0x1db5, 0x1db8, 0x20b0, 0x20b2, 0x2330};
  return vendor == 0x10de && std::find(kSxm.begin(), kSxm.end(), device) != kSxm.end();
}

// The alphanumeric words of a lower-case name: "aws-p5.48xl-topo" -> aws, p5, 48xl, topo.
std::vector<std::string> words(const std::string& s) {
  std::vector<std::string> out(1);
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c))) out.back() += c;
    else if (!out.back().empty()) out.emplace_back();
  }
  if (out.back().empty()) out.pop_back();
  return out;
}

// The word of `name` that names an NVLink system or instance type, or "".
std::string nvlink_word(std::string_view name) {
  static constexpr std::array<std::string_view, 8> kInstances{"p4d", "p4de", "p5", "p5e", "p5en", "ndv2", "ndv4", "ndv5"};
  for (const std::string& w : words(lower(name))) {
    if (std::find(kInstances.begin(), kInstances.end(), w) != kInstances.end()) return w;
    if (w.rfind("dgx", 0) == 0 || w.rfind("hgx", 0) == 0 || w.rfind("nd96", 0) == 0) return w;
    if (w.find("dgx") != std::string::npos) return w;  // "nvidiadgx2"
  }
  return {};
}

}  // namespace

std::string nvlink_warning(std::string_view name, const Topology& node) {
  std::string why;
  for (ComponentId g : node.gpus) {
    const Component& c = node.components[g];
    const std::string model = lower(c.model);
    if (model.find("sxm") != std::string::npos || model.find("dgx") != std::string::npos ||
        model.find("hgx") != std::string::npos) {
      why = fmt::format("its GPUs are {}", c.model);
      break;
    }
    if (sxm_device(c.pci_vendor, c.pci_device)) {
      why = fmt::format("its GPUs are SXM boards (PCI id {:04x}:{:04x})", c.pci_vendor, c.pci_device);
      break;
    }
  }
  if (why.empty()) {
    const std::string word = nvlink_word(name);
    if (word.empty()) return {};
    why = fmt::format("its name says {}", word);
  }
  return fmt::format("node type {}: an NVLink machine ({}): analysed and drawn as PCIe-only (the model has no "
                     "NVLink); its GPU-to-GPU figures are PCIe's",
                     name, why);
}

}  // namespace vp
