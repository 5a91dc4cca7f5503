// The C API, node types: topology, symmetry, local patterns (vpcat.h, section of the same name).
#include "c_api.hpp"

using namespace vpcat_c;

// ---- node types ---------------------------------------------------------------------------------

vpcat_status vpcat_catalog_node_type(const vpcat_catalog* cat, std::uint32_t type, vpcat_node_type* out) {
  if (cat == nullptr || out == nullptr) return VPCAT_E_INVALID_ARGUMENT;
  if (!type_ok(cat, type)) return VPCAT_E_OUT_OF_RANGE;
  const vpcat::NodeTypeView t = cat->view.node_type(type);
  vpcat_node_type r{};
  r.name = cstr(t.name()), r.group_order = cstr(t.group_order());
  r.patterns_represented = cstr(t.patterns_represented());
  r.component_count = t.component_count(), r.gpu_count = t.gpu_count(), r.nic_count = t.nic_count();
  r.first_gpu = t.first_gpu(), r.first_nic = t.component_count() - t.nic_count();
  r.link_count = t.link_count(), r.route_count = t.route_count();
  r.generator_count = t.generator_count(), r.pattern_count = t.pattern_count();
  *out = r;
  return VPCAT_OK;
}

vpcat_status vpcat_catalog_component(const vpcat_catalog* cat, std::uint32_t type, std::uint32_t component,
                                     vpcat_component* out) {
  if (cat == nullptr || out == nullptr) return VPCAT_E_INVALID_ARGUMENT;
  if (!type_ok(cat, type)) return VPCAT_E_OUT_OF_RANGE;
  const vpcat::NodeTypeView t = cat->view.node_type(type);
  if (component >= t.component_count()) return VPCAT_E_OUT_OF_RANGE;
  const vpcat::ComponentView c = t.component(component);
  vpcat_component r{};
  r.id = c.id();
  r.kind = static_cast<vpcat_component_kind>(c.kind());
  r.parent = c.parent(), r.local_index = c.local_index(), r.orbit = c.orbit();
  r.gpudirect = c.gpudirect() ? 1u : 0u;
  r.forward_gbps = c.forward_gbps(), r.nic_gbps = c.nic_gbps();
  r.name = cstr(c.name()), r.model = cstr(c.model());
  r.pci_bus_id = cstr(c.pci_bus_id()), r.device_name = cstr(c.device_name());
  *out = r;
  return VPCAT_OK;
}

vpcat_status vpcat_catalog_link(const vpcat_catalog* cat, std::uint32_t type, std::uint32_t link, vpcat_link* out) {
  if (cat == nullptr || out == nullptr) return VPCAT_E_INVALID_ARGUMENT;
  if (!type_ok(cat, type)) return VPCAT_E_OUT_OF_RANGE;
  const vpcat::NodeTypeView t = cat->view.node_type(type);
  if (link >= t.link_count()) return VPCAT_E_OUT_OF_RANGE;
  const vpcat::LinkView l = t.link(link);
  vpcat_link r{};
  r.id = l.id(), r.src = l.src(), r.dst = l.dst(), r.reverse = l.reverse(), r.orbit = l.orbit();
  r.kind = static_cast<vpcat_link_kind>(l.kind());
  r.capacity_gbps = l.capacity_gbps();
  *out = r;
  return VPCAT_OK;
}

vpcat_status vpcat_catalog_find_link(const vpcat_catalog* cat, std::uint32_t type, std::uint32_t src,
                                     std::uint32_t dst, std::uint32_t* link) {
  if (cat == nullptr || link == nullptr) return VPCAT_E_INVALID_ARGUMENT;
  if (!type_ok(cat, type)) return VPCAT_E_OUT_OF_RANGE;
  const vpcat::NodeTypeView t = cat->view.node_type(type);
  if (src >= t.component_count() || dst >= t.component_count()) return VPCAT_E_OUT_OF_RANGE;
  const std::uint32_t l = t.find_link(src, dst);
  if (l == vpcat::kNone) return VPCAT_E_NOT_FOUND;
  *link = l;
  return VPCAT_OK;
}

namespace {
// VPCAT_OK when `from` -> `to` names a stored route of node type `type`.
vpcat_status check_route(const vpcat_catalog* cat, std::uint32_t type, std::uint32_t from, std::uint32_t to) noexcept {
  if (cat == nullptr) return VPCAT_E_INVALID_ARGUMENT;
  if (!type_ok(cat, type)) return VPCAT_E_OUT_OF_RANGE;
  const vpcat::NodeTypeView t = cat->view.node_type(type);
  if (!is_endpoint(t, from) || !is_endpoint(t, to) || from == to) return VPCAT_E_OUT_OF_RANGE;
  return VPCAT_OK;
}
}  // namespace

vpcat_status vpcat_catalog_route(const vpcat_catalog* cat, std::uint32_t type, std::uint32_t from, std::uint32_t to,
                                 vpcat_route* out) {
  if (out == nullptr) return VPCAT_E_INVALID_ARGUMENT;
  if (const vpcat_status s = check_route(cat, type, from, to); s != VPCAT_OK) return s;
  const vpcat::RouteView r = cat->view.node_type(type).route(from, to);
  vpcat_route o{};
  o.from = r.from(), o.to = r.to(), o.link_count = r.link_count(), o.forwarder_count = r.forwarder_count();
  o.solo_gbps = r.solo_gbps();
  *out = o;
  return VPCAT_OK;
}

vpcat_status vpcat_catalog_route_links(const vpcat_catalog* cat, std::uint32_t type, std::uint32_t from,
                                       std::uint32_t to, std::uint32_t* links, std::size_t capacity,
                                       std::size_t* count) {
  if (count == nullptr || (links == nullptr && capacity != 0)) return VPCAT_E_INVALID_ARGUMENT;
  if (const vpcat_status s = check_route(cat, type, from, to); s != VPCAT_OK) return s;
  const vpcat::RouteView r = cat->view.node_type(type).route(from, to);
  const std::uint32_t n = r.link_count();
  for (std::uint32_t k = 0; k < n && k < capacity; ++k) links[k] = r.link(k);
  *count = n;
  return n <= capacity ? VPCAT_OK : VPCAT_E_BUFFER_TOO_SMALL;
}

vpcat_status vpcat_catalog_route_forwarders(const vpcat_catalog* cat, std::uint32_t type, std::uint32_t from,
                                            std::uint32_t to, std::uint32_t* components, std::size_t capacity,
                                            std::size_t* count) {
  if (count == nullptr || (components == nullptr && capacity != 0)) return VPCAT_E_INVALID_ARGUMENT;
  if (const vpcat_status s = check_route(cat, type, from, to); s != VPCAT_OK) return s;
  const vpcat::RouteView r = cat->view.node_type(type).route(from, to);
  const std::uint32_t n = r.forwarder_count();
  for (std::uint32_t k = 0; k < n && k < capacity; ++k) components[k] = r.forwarder(k);
  *count = n;
  return n <= capacity ? VPCAT_OK : VPCAT_E_BUFFER_TOO_SMALL;
}

vpcat_status vpcat_catalog_generator(const vpcat_catalog* cat, std::uint32_t type, std::uint32_t generator,
                                     std::uint32_t* images, std::size_t capacity, std::size_t* count) {
  if (cat == nullptr || count == nullptr || (images == nullptr && capacity != 0)) return VPCAT_E_INVALID_ARGUMENT;
  if (!type_ok(cat, type)) return VPCAT_E_OUT_OF_RANGE;
  const vpcat::NodeTypeView t = cat->view.node_type(type);
  if (generator >= t.generator_count()) return VPCAT_E_OUT_OF_RANGE;
  const vpcat::GeneratorView g = t.generator(generator);
  for (std::uint32_t c = 0; c < g.size() && c < capacity; ++c) images[c] = g.image(c);
  *count = g.size();
  return g.size() <= capacity ? VPCAT_OK : VPCAT_E_BUFFER_TOO_SMALL;
}

vpcat_status vpcat_catalog_pattern_orbit_size(const vpcat_catalog* cat, std::uint32_t type, std::uint32_t pattern,
                                              std::uint64_t* orbit_size) {
  if (cat == nullptr || orbit_size == nullptr) return VPCAT_E_INVALID_ARGUMENT;
  if (!type_ok(cat, type)) return VPCAT_E_OUT_OF_RANGE;
  const vpcat::NodeTypeView t = cat->view.node_type(type);
  if (pattern >= t.pattern_count()) return VPCAT_E_OUT_OF_RANGE;
  *orbit_size = t.pattern(pattern).orbit_size();
  return VPCAT_OK;
}

vpcat_status vpcat_catalog_pattern_roles(const vpcat_catalog* cat, std::uint32_t type, std::uint32_t pattern,
                                         const std::uint32_t* word, std::size_t word_len, std::int32_t* send,
                                         std::int32_t* recv, std::size_t capacity, std::size_t* count) {
  if (cat == nullptr || count == nullptr) return VPCAT_E_INVALID_ARGUMENT;
  if (word == nullptr) word_len = 0;
  if (!type_ok(cat, type)) return VPCAT_E_OUT_OF_RANGE;
  const vpcat::NodeTypeView t = cat->view.node_type(type);
  if (pattern >= t.pattern_count()) return VPCAT_E_OUT_OF_RANGE;
  for (std::size_t i = 0; i < word_len; ++i)
    if (word[i] >= t.generator_count()) return VPCAT_E_OUT_OF_RANGE;
  const std::uint32_t gpus = t.gpu_count();
  if (capacity != 0 && (send == nullptr || recv == nullptr)) return VPCAT_E_INVALID_ARGUMENT;
  *count = gpus;
  if (capacity < gpus) return VPCAT_E_BUFFER_TOO_SMALL;  // all or nothing: a partial image means nothing

  // The group element sigma = word[len-1] o ... o word[0] on local component
  // ids; generators preserve kinds, so GPUs map to GPUs and NICs to NICs.
  const std::uint32_t first_nic = t.component_count() - t.nic_count();
  const auto apply = [&](std::uint32_t c) {
    for (std::size_t i = 0; i < word_len; ++i) c = t.generator(word[i]).image(c);
    return c;
  };
  const auto map_role = [&](std::int32_t role) -> std::int32_t {
    if (role == vpcat::kIdle) return role;
    if (role >= vpcat::kNicBase)
      return vpcat::kNicBase + static_cast<std::int32_t>(apply(first_nic + static_cast<std::uint32_t>(role - vpcat::kNicBase)) - first_nic);
    return static_cast<std::int32_t>(apply(t.gpu(static_cast<std::uint32_t>(role))) - t.first_gpu());
  };
  const vpcat::PatternView p = t.pattern(pattern);
  for (std::uint32_t g = 0; g < gpus; ++g) {
    const std::uint32_t image = apply(t.gpu(g)) - t.first_gpu();  // sigma(g), a local GPU index
    send[image] = map_role(p.send(g));
    recv[image] = map_role(p.recv(g));
  }
  return VPCAT_OK;
}

