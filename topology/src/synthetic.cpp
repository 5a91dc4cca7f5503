#include "vp/topology/synthetic.hpp"

#include <fmt/format.h>

#include <cctype>

#include "vp/topology/errors.hpp"

namespace vp {

namespace {

class ShapeParser {
 public:
  ShapeParser(std::string_view shape, const SyntheticOptions& opts, Topology& t)
      : s_(shape), opts_(opts), t_(t), link_(opts.defaults.pcie(opts.pcie_gen, 16)) {}

  void parse() {
    do {
      ComponentId cpu = t_.add_component(ComponentKind::cpu, 0);
      t_.components[cpu].cpu_family = opts_.cpu_family;
      ComponentId hb = add_child(ComponentKind::host_bridge, cpu);
      t_.components[hb].forward = opts_.defaults.root_complex(link_.gbps);
      items(hb, '|');
      sockets_.push_back(cpu);
    } while (eat('|'));
    if (pos_ != s_.size()) fail(fmt::format("unexpected '{}'", s_[pos_]));
    join_sockets();
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw InputError("shape", 0, fmt::format("at character {} of \"{}\": {}", pos_ + 1, s_, what));
  }
  bool eat(char c) {
    if (pos_ < s_.size() && s_[pos_] == c) return ++pos_, true;
    return false;
  }
  int number() {
    std::size_t start = pos_;
    int v = 0;
    while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_])) && pos_ - start < 6)
      v = v * 10 + (s_[pos_++] - '0');
    if (pos_ == start) fail("expected a count");
    return v;
  }
  ComponentId add_child(ComponentKind kind, ComponentId parent) {
    ComponentId c = t_.add_component(kind, 0);
    t_.components[c].parent = parent;
    const Capacity& cap = t_.components[parent].kind == ComponentKind::cpu
                              ? Capacity{link_.gbps * 4, link_.source, "socket to root complex (4 x16 links)"}
                              : link_;
    t_.add_duplex_link(c, parent, LinkKind::pcie, cap, opts_.pcie_gen, 16);
    return c;
  }
  // items until `end` or the end of the shape (a socket) / ']' (a switch).
  void items(ComponentId parent, char end) {
    do {
      if (eat('[')) {
        ComponentId sw = add_child(ComponentKind::pcie_switch, parent);
        t_.components[sw].model = "PCIe switch";
        items(sw, ']');
        if (!eat(']')) fail("expected ']'");
      } else if (eat('g')) {
        for (int n = number(); n > 0; --n) {
          ComponentId g = add_child(ComponentKind::gpu, parent);
          t_.components[g].model = opts_.gpu_model;
        }
      } else if (eat('n')) {
        for (int n = number(); n > 0; --n) {
          ComponentId nic = add_child(ComponentKind::nic, parent);
          Component& c = t_.components[nic];
          c.model = opts_.nic_model, c.line_rate_gbitps = opts_.nic_gbitps, c.ports = 1, c.gpudirect = true;
        }
      } else {
        fail("expected g<count>, n<count> or [");
      }
    } while (eat(','));
    if (end == '|' && pos_ < s_.size() && s_[pos_] != '|') fail("expected ',' or '|'");
  }
  void join_sockets() {
    for (std::size_t i = 0; i < sockets_.size(); ++i) {
      for (std::size_t j = i + 1; j < sockets_.size(); ++j)
        t_.add_duplex_link(sockets_[i], sockets_[j], LinkKind::inter_socket,
                           opts_.defaults.inter_socket(opts_.cpu_family));
      if (sockets_.size() > 1) t_.components[sockets_[i]].forward = opts_.defaults.root_complex(link_.gbps);
    }
  }

  std::string_view s_;
  const SyntheticOptions& opts_;
  Topology& t_;
  Capacity link_;
  std::size_t pos_ = 0;
  std::vector<ComponentId> sockets_;
};

}  // namespace

Topology make_node_from_shape(std::string_view shape, const SyntheticOptions& opts) {
  Topology t;
  t.defaults = opts.defaults;
  t.nodes.push_back(NodeInfo{"node0", opts.node_type});
  ShapeParser(shape, opts, t).parse();
  canonicalize(t, "shape");
  return t;
}

}  // namespace vp
