// The C API, the catalog: file and cluster (vpcat.h, section of the same name).
#include "c_api.hpp"

using namespace vpcat_c;

// ---- catalog: file and cluster ----------------------------------------------------------------

vpcat_status vpcat_catalog_get_info(const vpcat_catalog* cat, vpcat_catalog_info* out) {
  if (cat == nullptr || out == nullptr) return VPCAT_E_INVALID_ARGUMENT;
  const vpcat::CatalogView& v = cat->view;
  const vpcat::Layout& l = v.layout();
  const vpcat::ProvenanceView p = v.provenance();
  vpcat_catalog_info i{};
  i.format_major = l.format_major, i.format_minor = l.format_minor, i.min_reader_minor = l.min_reader_minor;
  i.writer_major = l.writer_major, i.writer_minor = l.writer_minor, i.writer_patch = l.writer_patch;
  i.file_size = v.file_size();
  i.section_count = v.section_count();
  i.node_type_count = v.node_type_count();
  i.node_group_count = v.node_group_count();
  i.node_count = v.node_count();
  i.gpu_count = v.gpu_count();
  i.nic_count = v.nic_count();
  i.global_component_count = v.global_component_count();
  i.global_link_count = v.global_link_count();
  i.default_count = v.default_count();
  i.cluster_group_order = cstr(v.cluster_group_order());
  i.tool = cstr(p.tool), i.tool_version = cstr(p.tool_version);
  i.input_digest = cstr(p.input_digest), i.tool_options = cstr(p.options);
  *out = i;
  return VPCAT_OK;
}

vpcat_status vpcat_catalog_gpu_count(const vpcat_catalog* cat, std::uint64_t* out) {
  if (cat == nullptr || out == nullptr) return VPCAT_E_INVALID_ARGUMENT;
  *out = cat->view.gpu_count();
  return VPCAT_OK;
}

vpcat_status vpcat_catalog_node_count(const vpcat_catalog* cat, std::uint32_t* out) {
  if (cat == nullptr || out == nullptr) return VPCAT_E_INVALID_ARGUMENT;
  *out = cat->view.node_count();
  return VPCAT_OK;
}

vpcat_status vpcat_catalog_node_type_count(const vpcat_catalog* cat, std::uint32_t* out) {
  if (cat == nullptr || out == nullptr) return VPCAT_E_INVALID_ARGUMENT;
  *out = cat->view.node_type_count();
  return VPCAT_OK;
}

vpcat_status vpcat_catalog_section(const vpcat_catalog* cat, std::uint32_t i, vpcat_section* out) {
  if (cat == nullptr || out == nullptr) return VPCAT_E_INVALID_ARGUMENT;
  if (i >= cat->view.section_count()) return VPCAT_E_OUT_OF_RANGE;
  const vpcat::SectionEntry e = cat->view.section(i);
  vpcat_section s{};
  s.type = e.type, s.flags = e.flags, s.name = e.name, s.offset = e.offset, s.size = e.size, s.checksum = e.checksum;
  *out = s;
  return VPCAT_OK;
}

vpcat_status vpcat_catalog_default(const vpcat_catalog* cat, std::uint32_t i, const char** key, double* value) {
  if (cat == nullptr || key == nullptr || value == nullptr) return VPCAT_E_INVALID_ARGUMENT;
  if (i >= cat->view.default_count()) return VPCAT_E_OUT_OF_RANGE;
  const vpcat::DefaultEntry e = cat->view.default_at(i);
  *key = cstr(e.key);
  *value = e.value;
  return VPCAT_OK;
}

vpcat_status vpcat_catalog_fabric(const vpcat_catalog* cat, vpcat_fabric* out) {
  if (cat == nullptr || out == nullptr) return VPCAT_E_INVALID_ARGUMENT;
  const vpcat::FabricView f = cat->view.fabric();
  vpcat_fabric r{};
  r.kind = static_cast<vpcat_fabric_kind>(f.kind);
  r.leaf_size = f.leaf_size;
  r.oversubscription = f.oversubscription;
  r.switches = f.switches;
  r.spine = f.spine ? 1u : 0u;
  r.group_description = cstr(f.group_description);
  r.group_order = cstr(f.group_order);
  *out = r;
  return VPCAT_OK;
}

vpcat_status vpcat_catalog_nic_switch(const vpcat_catalog* cat, std::uint32_t node, std::uint32_t nic,
                                      std::uint32_t* out) {
  if (cat == nullptr || out == nullptr) return VPCAT_E_INVALID_ARGUMENT;
  const vpcat::CatalogView& v = cat->view;
  if (node >= v.node_count()) return VPCAT_E_OUT_OF_RANGE;
  if (nic >= v.node_type(v.node(node).node_type).nic_count()) return VPCAT_E_OUT_OF_RANGE;
  if (v.fabric().kind == vpcat::FabricKind::none) return VPCAT_E_NOT_FOUND;
  *out = v.switch_of_nic(node, nic);
  return VPCAT_OK;
}

vpcat_status vpcat_catalog_spine_uplink_gbps(const vpcat_catalog* cat, std::uint32_t k, double* out) {
  if (cat == nullptr || out == nullptr) return VPCAT_E_INVALID_ARGUMENT;
  const vpcat::FabricView f = cat->view.fabric();
  if (k >= f.switches) return VPCAT_E_OUT_OF_RANGE;
  if (!f.spine) return VPCAT_E_NOT_FOUND;
  *out = cat->view.spine_uplink_gbps(k);
  return VPCAT_OK;
}

vpcat_status vpcat_catalog_node_group(const vpcat_catalog* cat, std::uint32_t group, vpcat_node_group* out) {
  if (cat == nullptr || out == nullptr) return VPCAT_E_INVALID_ARGUMENT;
  if (group >= cat->view.node_group_count()) return VPCAT_E_OUT_OF_RANGE;
  const vpcat::NodeGroupView g = cat->view.node_group(group);
  vpcat_node_group r{};
  r.node_type = g.node_type, r.count = g.count, r.names = cstr(g.names), r.first_node = g.first_node;
  r.first_component = g.first_component, r.first_link = g.first_link;
  r.first_gpu = g.first_gpu, r.first_nic = g.first_nic;
  *out = r;
  return VPCAT_OK;
}

vpcat_status vpcat_catalog_node(const vpcat_catalog* cat, std::uint32_t node, vpcat_node* out) {
  if (cat == nullptr || out == nullptr) return VPCAT_E_INVALID_ARGUMENT;
  if (node >= cat->view.node_count()) return VPCAT_E_OUT_OF_RANGE;
  const vpcat::NodeRef n = cat->view.node(node);
  const vpcat::NodeTypeView t = cat->view.node_type(n.node_type);
  vpcat_node r{};
  r.node = n.node, r.node_type = n.node_type, r.group = n.group;
  r.gpu_count = t.gpu_count(), r.nic_count = t.nic_count();
  r.first_component = n.first_component, r.first_link = n.first_link;
  r.first_gpu = n.first_gpu, r.first_nic = n.first_nic;
  *out = r;
  return VPCAT_OK;
}

