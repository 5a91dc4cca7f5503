// The C API, GPUs (vpcat.h, section of the same name).
#include "c_api.hpp"
#include "vpcat/pci_bus_id.hpp"

using namespace vpcat_c;

// ---- GPUs ---------------------------------------------------------------------------------------

namespace {

// The C description of global GPU `gpu` (< the catalog's GPU count).
void fill_gpu(const vpcat::CatalogView& v, std::uint64_t gpu, vpcat_gpu* out) noexcept {
  std::uint32_t node = 0, local = 0;
  v.locate_gpu(gpu, &node, &local);
  const vpcat::NodeRef n = v.node(node);
  const vpcat::NodeTypeView t = v.node_type(n.node_type);
  const vpcat::ComponentView c = t.component(t.gpu(local));
  vpcat_gpu g{};
  g.gpu = gpu;
  g.node = node;
  g.node_type = n.node_type;
  g.local_index = local;
  g.component = c.id();
  g.orbit = c.orbit();
  g.global_component = n.first_component + c.id();
  g.name = cstr(c.name());
  g.model = cstr(c.model());
  g.pci_bus_id = cstr(c.pci_bus_id());
  g.device_name = cstr(c.device_name());
  *out = g;
}

}  // namespace

vpcat_status vpcat_catalog_gpu(const vpcat_catalog* cat, std::uint64_t gpu, vpcat_gpu* out) {
  if (cat == nullptr || out == nullptr) return VPCAT_E_INVALID_ARGUMENT;
  if (gpu >= cat->view.gpu_count()) return VPCAT_E_OUT_OF_RANGE;
  fill_gpu(cat->view, gpu, out);
  return VPCAT_OK;
}

vpcat_status vpcat_catalog_node_of_gpu(const vpcat_catalog* cat, std::uint64_t gpu, std::uint32_t* node) {
  if (cat == nullptr || node == nullptr) return VPCAT_E_INVALID_ARGUMENT;
  if (gpu >= cat->view.gpu_count()) return VPCAT_E_OUT_OF_RANGE;
  std::uint32_t local = 0;
  cat->view.locate_gpu(gpu, node, &local);
  return VPCAT_OK;
}

namespace {
template <class Match>
vpcat_status find_gpu(const vpcat_catalog* cat, std::uint32_t node, const char* key, std::uint64_t* gpu,
                      Match match) noexcept {
  if (cat == nullptr || key == nullptr || gpu == nullptr) return VPCAT_E_INVALID_ARGUMENT;
  if (node >= cat->view.node_count()) return VPCAT_E_OUT_OF_RANGE;
  const vpcat::NodeRef n = cat->view.node(node);
  const vpcat::NodeTypeView t = cat->view.node_type(n.node_type);
  for (std::uint32_t g = 0; g < t.gpu_count(); ++g)
    if (match(t.component(t.gpu(g)), key)) {
      *gpu = n.first_gpu + g;
      return VPCAT_OK;
    }
  return VPCAT_E_NOT_FOUND;
}
}  // namespace

vpcat_status vpcat_catalog_gpu_by_bus_id(const vpcat_catalog* cat, std::uint32_t node, const char* bus_id,
                                         std::uint64_t* gpu) {
  return find_gpu(cat, node, bus_id, gpu, [](const vpcat::ComponentView& c, const char* key) {
    return !c.pci_bus_id().empty() && vpcat::same_pci_bus_id(c.pci_bus_id(), key);
  });
}

vpcat_status vpcat_catalog_gpu_by_device_name(const vpcat_catalog* cat, std::uint32_t node, const char* device_name,
                                              std::uint64_t* gpu) {
  return find_gpu(cat, node, device_name, gpu, [](const vpcat::ComponentView& c, const char* key) {
    return !c.device_name().empty() && c.device_name() == std::string_view(key);
  });
}

