// vp-analyze topology --dot: the same node as a Graphviz graph
// (topology_picture.hpp); `dot -Tsvg` lays it out.
#include <fmt/format.h>

#include <map>

#include "vp/render/svg.hpp"
#include "vp/render/topology_picture.hpp"

namespace vp::render {

std::string topology_dot(const TopologyPicture& p) {
  const Topology& t = *p.node;
  std::string out;
  auto it = std::back_inserter(out);
  std::string label = p.title;
  for (const std::string& s : p.notes) label += "\n" + s;
  fmt::format_to(it, "graph topology {{\n  label=\"{}\";\n  labelloc=t;\n  rankdir=TB;\n"
                     "  node [shape=box, style=\"filled,rounded\", fontname=\"DejaVu Sans\", fontsize=10];\n"
                     "  edge [fontname=\"DejaVu Sans\", fontsize=9];\n",
                 escape_dot(label));
  std::map<std::uint32_t, std::size_t> orbit_of;
  for (ComponentId c = 0; c < t.components.size(); ++c) {
    const Component& comp = t.components[c];
    const std::uint32_t rep = c < p.component_orbit.size() ? p.component_orbit[c] : c;
    const std::size_t orbit = orbit_of.emplace(rep, orbit_of.size()).first->second;
    std::string text = comp.name + "\n" + (comp.model.empty() ? std::string(to_string(comp.kind)) : comp.model);
    if (comp.forward) text += fmt::format("\nfwd {:g} GB/s", comp.forward->gbps);
    if (comp.kind == ComponentKind::nic) text += fmt::format("\n{:g} Gb/s", comp.line_rate_gbitps);
    fmt::format_to(it, "  c{} [label=\"{}\", fillcolor=\"{}\", tooltip=\"{} orbit {}\"];\n", c, escape_dot(text),
                   orbit_colour(orbit), to_string(comp.kind), orbit + 1);
  }
  for (const Link& l : t.links) {
    const bool paired = l.reverse != kNone && l.reverse < t.links.size();
    if (paired && l.reverse < l.id) continue;  // one edge per physical link
    std::string cap = fmt::format("{:g}", l.capacity.gbps);
    if (paired && t.links[l.reverse].capacity.gbps != l.capacity.gbps)
      cap += fmt::format(" / {:g}", t.links[l.reverse].capacity.gbps);
    fmt::format_to(it, "  c{} -- c{} [label=\"{} GB/s\"{}];\n", l.src, l.dst, cap,
                   l.kind == LinkKind::inter_socket ? ", color=\"#8b0000\", penwidth=2" : "");
  }
  out += "}\n";
  return out;
}

}  // namespace vp::render
