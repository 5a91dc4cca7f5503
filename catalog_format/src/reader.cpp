// .vpcat -> Catalog through the runtime's verifier and view.
#include "vp/catalog/reader.hpp"

#include "vp/catalog/errors.hpp"
#include "vpcat/mapped_file.hpp"

namespace vp::catalog {

namespace {

std::string str(std::string_view s) { return std::string(s); }

Component to_component(const vpcat::ComponentView& v) {
  Component c;
  c.kind = static_cast<Kind>(v.kind());
  c.parent = v.parent();
  c.local_index = v.local_index();
  c.name = str(v.name());
  c.model = str(v.model());
  c.pci_bus_id = str(v.pci_bus_id());
  c.device_name = str(v.device_name());
  c.forward_gbps = v.forward_gbps();
  c.nic_gbps = v.nic_gbps();
  c.gpudirect = v.gpudirect();
  return c;
}

Route to_route(const vpcat::RouteView& v) {
  Route r;
  r.from = v.from();
  r.to = v.to();
  r.solo_gbps = v.solo_gbps();
  for (std::uint32_t k = 0; k < v.link_count(); ++k) r.links.push_back(v.link(k));
  for (std::uint32_t k = 0; k < v.forwarder_count(); ++k) r.forwarders.push_back(v.forwarder(k));
  return r;
}

NodeType to_node_type(const vpcat::NodeTypeView& v) {
  NodeType t;
  t.name = str(v.name());
  for (std::uint32_t i = 0; i < v.component_count(); ++i) {
    t.components.push_back(to_component(v.component(i)));
    t.component_orbit.push_back(v.component(i).orbit());
  }
  for (std::uint32_t i = 0; i < v.link_count(); ++i) {
    const vpcat::LinkView l = v.link(i);
    t.links.push_back(Link{l.src(), l.dst(), static_cast<LinkKind>(l.kind()), l.capacity_gbps(), l.reverse()});
    t.link_orbit.push_back(l.orbit());
  }
  for (std::uint32_t i = 0; i < v.route_count(); ++i) t.routes.push_back(to_route(v.route_at(i)));
  for (std::uint32_t g = 0; g < v.generator_count(); ++g) {
    std::vector<std::uint32_t> images;
    for (std::uint32_t c = 0; c < v.component_count(); ++c) images.push_back(v.generator(g).image(c));
    t.generators.push_back(std::move(images));
  }
  t.group_order = str(v.group_order());
  for (std::uint32_t p = 0; p < v.pattern_count(); ++p) {
    const vpcat::PatternView pv = v.pattern(p);
    LocalPattern lp;
    for (std::uint32_t g = 0; g < pv.gpu_count(); ++g) lp.send.push_back(pv.send(g));
    for (std::uint32_t g = 0; g < pv.gpu_count(); ++g) lp.recv.push_back(pv.recv(g));
    lp.orbit_size = pv.orbit_size();
    t.patterns.push_back(std::move(lp));
  }
  t.patterns_represented = str(v.patterns_represented());
  return t;
}

// The verified records in their order: forwarder, families, nic, chunk.
MachineModelSpec to_model(const vpcat::CatalogView& v) {
  MachineModelSpec m;
  for (std::uint32_t i = 0; i < v.model_entry_count(); ++i) {
    const vpcat::ModelEntryView e = v.model_entry(i);
    const ModelValue a{e.a, str(e.a_source)}, b{e.b, str(e.b_source)};
    switch (e.part) {
      case vpcat::ModelPart::forwarder: m.forwarder = ModelCurve{e.on, a, b}; break;
      case vpcat::ModelPart::family: m.families.push_back(ModelFamily{str(e.match), a, b}); break;
      case vpcat::ModelPart::nic: m.nic = ModelCurve{e.on, a, b}; break;
      case vpcat::ModelPart::chunk:
        m.chunk_on = e.on;
        m.chunk_bytes = a;
        m.chunk_overhead_us = b;
        break;
    }
  }
  return m;
}

}  // namespace

Catalog to_catalog(const vpcat::CatalogView& v) {
  Catalog c;
  for (std::uint32_t t = 0; t < v.node_type_count(); ++t) c.node_types.push_back(to_node_type(v.node_type(t)));
  for (std::uint32_t g = 0; g < v.node_group_count(); ++g) {
    const vpcat::NodeGroupView ng = v.node_group(g);
    c.node_groups.push_back(NodeGroup{ng.node_type, ng.count, str(ng.names)});
  }
  const vpcat::FabricView f = v.fabric();
  c.fabric.kind = static_cast<FabricKind>(f.kind);
  c.fabric.leaf_size = f.leaf_size;
  c.fabric.oversubscription = f.oversubscription;
  c.fabric.switches = f.switches;
  c.fabric.spine = f.spine;
  for (std::uint32_t k = 0; k < f.switches; ++k) c.fabric.spine_uplink_gbps.push_back(v.spine_uplink_gbps(k));
  c.fabric.group_description = str(f.group_description);
  c.fabric.group_order = str(f.group_order);
  for (std::uint32_t i = 0; i < v.default_count(); ++i) {
    const vpcat::DefaultEntry d = v.default_at(i);
    c.defaults.emplace_back(str(d.key), d.value);
  }
  c.cluster_group_order = str(v.cluster_group_order());
  const vpcat::ProvenanceView p = v.provenance();
  c.provenance = Provenance{str(p.tool), str(p.tool_version), str(p.input_digest), str(p.options), str(p.warnings)};
  if (v.has_machine_model()) c.machine_model = to_model(v);
  return c;
}

Catalog read_catalog(const std::uint8_t* data, std::size_t size, const vpcat::VerifyOptions& options) {
  vpcat::CatalogView view;
  if (vpcat::Status s = vpcat::CatalogView::open(data, size, &view, options); !s.ok()) throw status_error(s, "");
  return to_catalog(view);
}

Catalog read_catalog(const std::vector<std::uint8_t>& bytes, const vpcat::VerifyOptions& options) {
  return read_catalog(bytes.data(), bytes.size(), options);
}

std::vector<std::uint8_t> read_file_bytes(const std::string& path) {
  vpcat::MappedFile file;
  if (vpcat::Status s = vpcat::MappedFile::open(path.c_str(), &file); !s.ok()) throw status_error(s, "");
  return std::vector<std::uint8_t>(file.data(), file.data() + file.size());
}

Catalog read_catalog_file(const std::string& path, const vpcat::VerifyOptions& options) {
  vpcat::CatalogFile file;
  if (vpcat::Status s = vpcat::CatalogFile::open(path.c_str(), &file, options); !s.ok()) {
    // MappedFile errors already name the path.
    const bool named = s.code() == vpcat::Error::io_error || s.code() == vpcat::Error::file_too_large;
    throw status_error(s, named ? "" : path);
  }
  return to_catalog(file.view());
}

}  // namespace vp::catalog
