// Catalog -> JSON mirror (schemas/catalog.schema.json).
#include <string>

#include "vp/catalog/json_mirror.hpp"
#include "vp/catalog/names.hpp"
#include "vpcat/format.hpp"

namespace vp::catalog {

namespace {

Json id_or_null(std::uint32_t id) { return id == kNone ? Json(nullptr) : Json(id); }

Json role_json(std::int32_t role) {
  if (role == kIdle) return nullptr;
  if (role >= kNicBase) return "nic" + std::to_string(role - kNicBase);
  return static_cast<std::uint32_t>(role);
}

Json component_json(const NodeType& t, std::size_t i) {
  const Component& c = t.components[i];
  return Json{{"id", i},
              {"kind", to_string(c.kind)},
              {"name", c.name},
              {"parent", id_or_null(c.parent)},
              {"local_index", c.local_index},
              {"orbit", t.component_orbit[i]},
              {"model", c.model},
              {"pci_bus_id", c.pci_bus_id},
              {"device_name", c.device_name},
              {"forward_gbps", c.forward_gbps},
              {"nic_gbps", c.nic_gbps},
              {"gpudirect", c.gpudirect}};
}

Json link_json(const NodeType& t, std::size_t i) {
  const Link& l = t.links[i];
  return Json{{"id", i},
              {"src", l.src},
              {"dst", l.dst},
              {"kind", to_string(l.kind)},
              {"capacity_gbps", l.capacity_gbps},
              {"reverse", l.reverse},
              {"orbit", t.link_orbit[i]}};
}

Json route_json(const Route& r) {
  return Json{{"from", r.from}, {"to", r.to}, {"solo_gbps", r.solo_gbps}, {"links", r.links}, {"forwarders", r.forwarders}};
}

Json pattern_json(const LocalPattern& p) {
  Json send = Json::array(), recv = Json::array();
  for (std::int32_t r : p.send) send.push_back(role_json(r));
  for (std::int32_t r : p.recv) recv.push_back(role_json(r));
  return Json{{"send", send}, {"recv", recv}, {"orbit_size", p.orbit_size}};
}

Json node_type_json(const NodeType& t) {
  Json components = Json::array(), links = Json::array(), routes = Json::array();
  for (std::size_t i = 0; i < t.components.size(); ++i) components.push_back(component_json(t, i));
  for (std::size_t i = 0; i < t.links.size(); ++i) links.push_back(link_json(t, i));
  for (const Route& r : t.routes) routes.push_back(route_json(r));
  Json generators = Json::array(), patterns = Json::array();
  for (const auto& g : t.generators) generators.push_back(cycles_text(g));
  for (const LocalPattern& p : t.patterns) patterns.push_back(pattern_json(p));
  return Json{{"name", t.name},
              {"components", components},
              {"links", links},
              {"routes", routes},
              {"symmetry", Json{{"group_order", t.group_order}, {"generators", generators}}},
              {"patterns", Json{{"represented", t.patterns_represented}, {"representatives", patterns}}}};
}

Json fabric_json(const Fabric& f) {
  return Json{{"kind", to_string(f.kind)},
              {"leaf_size", f.leaf_size},
              {"oversubscription", f.oversubscription},
              {"switches", f.switches},
              {"spine", f.spine},
              {"spine_uplink_gbps", f.spine_uplink_gbps},
              {"group_description", f.group_description},
              {"group_order", f.group_order}};
}

Json value_json(const ModelValue& v) { return Json{{"value", v.value}, {"source", v.source}}; }

Json curve_json(const ModelCurve& c) {
  return Json{{"on", c.on}, {"slope", value_json(c.slope)}, {"floor", value_json(c.floor)}};
}

// The shape of the judge's table (simulator/contention.json): the families
// under the forwarder, a {value, source} per parameter.
Json machine_model_json(const MachineModelSpec& m) {
  Json families = Json::array();
  for (const ModelFamily& f : m.families)
    families.push_back(Json{{"match", f.match}, {"slope", value_json(f.slope)}, {"floor", value_json(f.floor)}});
  Json forwarder = curve_json(m.forwarder);
  forwarder["families"] = families;
  return Json{{"forwarder", forwarder},
              {"nic", curve_json(m.nic)},
              {"chunk", Json{{"on", m.chunk_on},
                             {"bytes", value_json(m.chunk_bytes)},
                             {"overhead_us", value_json(m.chunk_overhead_us)}}}};
}

}  // namespace

Json to_json(const Catalog& c) {
  Json types = Json::array(), groups = Json::array(), defaults = Json::object();
  for (const NodeType& t : c.node_types) types.push_back(node_type_json(t));
  for (const NodeGroup& g : c.node_groups)
    groups.push_back(Json{{"node_type", g.node_type}, {"count", g.count}, {"names", g.names}});
  for (const auto& [key, value] : c.defaults) defaults[key] = value;
  const Provenance& p = c.provenance;
  // The binary's version: 1.2 with a machine model, 1.1 without (writer.cpp).
  const int minor = c.machine_model ? vpcat::kFormatMinor : 1;
  Json out{{"format", "vpcat-json"},
              {"format_version", std::to_string(vpcat::kFormatMajor) + "." + std::to_string(minor)},
              {"node_types", types},
              {"node_groups", groups},
              {"fabric", fabric_json(c.fabric)},
              {"cluster_group_order", c.cluster_group_order},
              {"defaults", defaults},
              {"provenance", Json{{"tool", p.tool},
                                  {"tool_version", p.tool_version},
                                  {"input_digest", p.input_digest},
                                  {"options", p.options},
                                  {"warnings", p.warnings}}}};
  if (c.machine_model) out["machine_model"] = machine_model_json(*c.machine_model);
  return out;
}

std::string dump_json(const Catalog& c) { return to_json(c).dump(2) + "\n"; }

}  // namespace vp::catalog
