// vp-analyze topology --svg: one node's PCIe tree (topology_picture.hpp).
// Layout: each subtree is a block; a component's children's blocks side by
// side in depth-first order, the component centred over them, one row per
// tree depth; children that would make a row wider than kWrapW wrap into
// further rows below (as lstopo wraps a wide level), reached by a bus from
// the component's left; the sockets side by side, inter-socket links as
// brackets above them; the orbit legend below.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "vp/render/svg.hpp"
#include "vp/render/topology_picture.hpp"

namespace vp::render {

namespace {

constexpr double kBoxW = 104, kBoxH = 46, kGap = 12, kSocketGap = 28, kRowH = 92, kMargin = 16;
// Children wider than this together wrap into rows; a wrapped block is
// indented by kIndent for its bus.
constexpr double kWrapW = 1200, kIndent = 20, kBusAbove = 14;

// A subtree's block: its size, and where its root's box and its children's
// blocks sit in it (offsets from the block's top left).
struct Block {
  double w = kBoxW, h = kBoxH;
  double root_dx = 0;
  std::vector<std::pair<double, double>> child_at;  // per child: dx, dy
  bool wrapped = false;
};

// The blocks of every component, children before parents (the order of
// decreasing depth: no recursion on an untrusted depth).
std::vector<Block> layout_blocks(const Topology& t, const std::vector<int>& depth, int max_depth) {
  const std::size_t n = t.components.size();
  std::vector<Block> b(n);
  for (int d = max_depth; d >= 0; --d) {
    for (ComponentId c = 0; c < n; ++c) {
      if (depth[c] != d || t.children[c].empty()) continue;
      const std::vector<ComponentId>& kids = t.children[c];
      Block& me = b[c];
      double widest = 0;
      for (ComponentId k : kids) widest = std::max(widest, b[k].w);
      const double limit = std::max(kWrapW, widest);
      // Rows of children, greedily.
      std::vector<std::vector<ComponentId>> rows(1);
      double row_w = 0;
      for (ComponentId k : kids) {
        const double add = (rows.back().empty() ? 0 : kGap) + b[k].w;
        if (!rows.back().empty() && row_w + add > limit) rows.emplace_back(), row_w = 0;
        row_w += (rows.back().empty() ? 0 : kGap) + b[k].w;
        rows.back().push_back(k);
      }
      me.wrapped = rows.size() > 1;
      const double left = me.wrapped ? kIndent : 0;
      double y = kRowH, w = kBoxW;
      me.child_at.reserve(kids.size());
      for (const std::vector<ComponentId>& row : rows) {
        double x = left, h = 0;
        for (ComponentId k : row) {
          me.child_at.emplace_back(x, y);
          x += b[k].w + kGap;
          h = std::max(h, b[k].h);
        }
        w = std::max(w, x - kGap);
        y += h + (kRowH - kBoxH);
      }
      me.w = w;
      me.h = y - (kRowH - kBoxH);
      if (me.wrapped) {
        me.root_dx = 0;
      } else {  // centred over its children's roots
        const double first = me.child_at.front().first + b[kids.front()].root_dx;
        const double last = me.child_at.back().first + b[kids.back()].root_dx;
        me.root_dx = (first + last) / 2;
      }
    }
  }
  return b;
}

std::string capacity_label(const Topology& t, const Link& l) {
  const bool has_reverse = l.reverse != kNone && l.reverse < t.links.size();
  if (!has_reverse || t.links[l.reverse].capacity.gbps == l.capacity.gbps) return fmt::format("{:g}", l.capacity.gbps);
  return fmt::format("{:g}/{:g}", l.capacity.gbps, t.links[l.reverse].capacity.gbps);
}

// The third line of a component's box: what matters about it.
std::string detail_line(const Component& c) {
  std::string s;
  if (c.kind == ComponentKind::nic)
    s = fmt::format("{:g} Gb/s{}{}", c.line_rate_gbitps, c.ports > 1 ? fmt::format(" x{}", c.ports) : "",
                    c.gpudirect ? " GDR" : "");
  else if (c.forward)
    s = fmt::format("fwd {:g} GB/s", c.forward->gbps);
  else
    s = c.pci_bus_id;
  return s;
}

}  // namespace

std::string topology_svg(const TopologyPicture& p) {
  const Topology& t = *p.node;
  const std::size_t n = t.components.size();
  // Orbit numbers in order of their first component.
  std::vector<std::size_t> orbit_no(n, 0);
  std::map<std::uint32_t, std::size_t> number_of;
  std::vector<std::vector<ComponentId>> members;
  for (ComponentId c = 0; c < n; ++c) {
    const std::uint32_t rep = c < p.component_orbit.size() ? p.component_orbit[c] : c;
    auto [it, fresh] = number_of.emplace(rep, members.size());
    if (fresh) members.emplace_back();
    orbit_no[c] = it->second;
    members[it->second].push_back(c);
  }

  // Depths and leaf order.
  std::vector<int> depth(n, 0);
  int max_depth = 0;
  for (ComponentId c = 0; c < n; ++c) {
    int d = 0;
    for (ComponentId q = t.components[c].parent; q != kNone && d <= static_cast<int>(kMaxTreeDepth); q = t.components[q].parent) ++d;
    depth[c] = d;
    max_depth = std::max(max_depth, d);
  }
  const std::vector<Block> blocks = layout_blocks(t, depth, max_depth);
  std::vector<ComponentId> roots;
  for (ComponentId c = 0; c < n; ++c)
    if (t.components[c].parent == kNone && t.components[c].kind != ComponentKind::net_switch) roots.push_back(c);
  // Box positions relative to the tree's top: each block's root at its block's
  // offset, top-down (parents come before children in the order of depth).
  std::vector<double> cx(n, 0.0), dy(n, 0.0), block_x(n, 0.0);
  double next_x = kMargin, tree_h = kBoxH;
  for (ComponentId r : roots) {
    if (r != roots.front()) next_x += kSocketGap;
    block_x[r] = next_x;
    next_x += blocks[r].w + kGap;
    tree_h = std::max(tree_h, blocks[r].h);
  }
  for (int d = 0; d <= max_depth; ++d)
    for (ComponentId c = 0; c < n; ++c) {
      if (depth[c] != d) continue;
      cx[c] = block_x[c] + blocks[c].root_dx + kBoxW / 2;
      const std::vector<ComponentId>& kids = t.children[c];
      for (std::size_t i = 0; i < kids.size(); ++i) {
        block_x[kids[i]] = block_x[c] + blocks[c].child_at[i].first;
        dy[kids[i]] = dy[c] + blocks[c].child_at[i].second;
      }
    }

  std::size_t inter_socket = 0;
  for (const Link& l : t.links) inter_socket += l.kind == LinkKind::inter_socket && l.id < l.reverse;
  const double title_h = 24 + 15 * static_cast<double>(p.notes.size()) + 14;
  const double top = kMargin + title_h + (inter_socket ? 28 + 8 * static_cast<double>(inter_socket) : 8);
  auto ybox = [&](ComponentId c) { return top + dy[c]; };
  const double tree_bottom = top + tree_h;

  // The legend: one entry per orbit, in columns.
  const double legend_top = tree_bottom + 34;
  const double entry_w = 350, entry_h = 16;
  double width = std::max(next_x - kGap + kMargin, 2 * kMargin + 2 * entry_w);
  for (const std::string& s : p.notes) width = std::max(width, 2 * kMargin + text_width(s, 11));
  width = std::max(width, 2 * kMargin + text_width(p.title, 14));
  const auto columns = static_cast<std::size_t>(std::max(1.0, (width - 2 * kMargin) / entry_w));
  const std::size_t legend_rows = (members.size() + columns - 1) / columns;
  const double height = legend_top + 22 + entry_h * static_cast<double>(legend_rows) + 30;

  SvgDoc d(width, height, p.title);
  d.text(kMargin, kMargin + 14, p.title, 14, "start", "bold");
  for (std::size_t i = 0; i < p.notes.size(); ++i)
    d.text(kMargin, kMargin + 32 + 15 * static_cast<double>(i), p.notes[i], 11, "start", "normal", "#444");
  d.text(kMargin, kMargin + title_h + 2, "link labels: GB/s per direction (a/b when the directions differ); fill: automorphism orbit", 10, "start", "normal", "#555");

  // A wrapped block's bus: a trunk down the block's left edge from its root,
  // a rail above each row of children.
  for (ComponentId c = 0; c < n; ++c) {
    if (!blocks[c].wrapped) continue;
    const double trunk_x = block_x[c] + kIndent / 2;
    double lowest = 0;
    std::map<double, double> rail_end;  // per row's top: the rightmost child's centre
    for (ComponentId k : t.children[c]) {
      const double y = ybox(k);
      rail_end[y] = std::max(rail_end[y], cx[k]);
      lowest = std::max(lowest, y);
    }
    d.line(trunk_x, ybox(c) + kBoxH, trunk_x, lowest - kBusAbove, "#666666", 1.2, {}, "bus");
    for (const auto& [y, x] : rail_end) d.line(trunk_x, y - kBusAbove, x, y - kBusAbove, "#666666", 1.2, {}, "bus");
  }
  // PCIe links: parent to child (in a wrapped block, the child's drop from its
  // rail), the capacity label near the child end.
  for (const Link& l : t.links) {
    if (l.kind != LinkKind::pcie || l.src >= n || l.dst >= n) continue;
    if (t.components[l.dst].parent != l.src) continue;  // draw each physical link once, from the parent's side
    const bool drop = blocks[l.src].wrapped;
    const double x2 = cx[l.dst], y2 = ybox(l.dst);
    const double x1 = drop ? x2 : cx[l.src], y1 = drop ? y2 - kBusAbove : ybox(l.src) + kBoxH;
    d.line(x1, y1, x2, y2, "#666666", 1.2, {}, "link");
    const double f = drop ? 0 : std::min(0.8, std::max(0.5, 1.0 - 22.0 / std::max(y2 - y1, 1.0)));
    const double lx = x1 + (x2 - x1) * f, ly = y1 + (y2 - y1) * f;
    const std::string label = capacity_label(t, l);
    const double w = text_width(label, 9) + 6;
    d.rect(lx - w / 2, ly - 7, w, 12, "#ffffff", "#cccccc", {}, {}, "rx=\"3\"");
    d.text(lx, ly + 2.5, label, 9, "middle", "normal", "#333");
  }
  // Inter-socket links: a bracket above the two sockets, one level per link.
  std::size_t level = 0;
  for (const Link& l : t.links) {
    if (l.kind != LinkKind::inter_socket || !(l.id < l.reverse) || l.src >= n || l.dst >= n) continue;
    const double ya = ybox(l.src), yb = ybox(l.dst);
    const double yt = std::min(ya, yb) - 14 - 8 * static_cast<double>(level++);
    d.raw(fmt::format("<path d=\"M {:.1f} {:.1f} V {:.1f} H {:.1f} V {:.1f}\" fill=\"none\" stroke=\"#8b0000\" "
                      "stroke-width=\"2\" class=\"link\"/>\n",
                      cx[l.src], ya, yt, cx[l.dst], yb));
    const std::string label = fmt::format("{} GB/s inter-socket", capacity_label(t, l));
    const double mx = (cx[l.src] + cx[l.dst]) / 2, w = text_width(label, 9) + 8;
    d.rect(mx - w / 2, yt - 7, w, 13, "#ffffff", "#8b0000", {}, {}, "rx=\"3\"");
    d.text(mx, yt + 3, label, 9, "middle", "normal", "#8b0000");
  }

  // Component boxes.
  for (ComponentId c = 0; c < n; ++c) {
    const Component& comp = t.components[c];
    if (comp.kind == ComponentKind::net_switch) continue;
    const double x = cx[c] - kBoxW / 2, y = ybox(c);
    const std::string kind(to_string(comp.kind));
    const bool endpoint = comp.kind == ComponentKind::gpu || comp.kind == ComponentKind::nic;
    std::string tip = fmt::format("{} ({}), orbit {}", t.display_name(c), kind, orbit_no[c] + 1);
    if (!comp.model.empty()) tip += ", " + comp.model;
    if (!comp.pci_bus_id.empty()) tip += ", " + comp.pci_bus_id;
    if (!comp.device_name.empty()) tip += ", " + comp.device_name;
    d.rect(x, y, kBoxW, kBoxH, orbit_colour(orbit_no[c]), endpoint ? "#222222" : "#777777", "component " + kind, tip,
           endpoint ? "rx=\"7\" stroke-width=\"1.6\"" : "rx=\"2\" stroke-width=\"1\"");
    d.text(cx[c], y + 14, fit_text(comp.name, 11, kBoxW - 8), 11, "middle", "bold");
    d.text(cx[c], y + 27, fit_text(comp.model.empty() ? kind : comp.model, 9, kBoxW - 8), 9, "middle");
    d.text(cx[c], y + 39, fit_text(detail_line(comp), 9, kBoxW - 8), 9, "middle", "normal", "#333");
  }

  // Legend.
  d.text(kMargin, legend_top, fmt::format("Automorphism orbits ({}): components of one colour are interchangeable",
                                          members.size()),
         11, "start", "bold");
  for (std::size_t o = 0; o < members.size(); ++o) {
    const double x = kMargin + entry_w * static_cast<double>(o % columns);
    const double y = legend_top + 10 + entry_h * static_cast<double>(o / columns);
    const std::vector<ComponentId>& m = members[o];
    d.rect(x, y, 14, 11, orbit_colour(o), "#555555", "orbit");
    std::string names = t.components[m.front()].name;
    if (m.size() == 2) names += ", " + t.components[m.back()].name;
    else if (m.size() > 2) names += " \xE2\x80\xA6 " + t.components[m.back()].name;
    d.text(x + 19, y + 10,
           fit_text(fmt::format("{}: {} x {}: {}", o + 1, m.size(), to_string(t.components[m.front()].kind), names), 10,
                    entry_w - 24),
           10);
  }
  return d.finish();
}

}  // namespace vp::render
