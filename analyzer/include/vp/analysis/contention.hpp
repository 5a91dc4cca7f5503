// The contention checker (docs/design.md §3): the one function that decides
// whether a set of concurrent transfers is a channel. The analyzer, the
// simulator, the planner's tests and every other test use it.
//
// Model: every transfer runs at its route's solo rate; the set is
// contention-free when no directed link and no forwarding component carries
// more than its capacity, and every GPU is the source of at most `ports`
// transfers and the destination of at most `ports` (the one-port model by
// default). Transfer endpoints may be GPUs or NICs (a local pattern's
// network roles end at a NIC); only GPU endpoints count against ports.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "vp/topology/routes.hpp"
#include "vp/topology/topology.hpp"

namespace vp {

struct Transfer {
  ComponentId src = kNone, dst = kNone;
  Route route;
};

struct ContentionOptions {
  int ports_per_gpu = 1;
  // Relative slack on capacities, to absorb floating-point sums.
  double tolerance = 1e-9;
};

struct ContentionReport {
  enum class Kind : unsigned char { none, link, forwarder, send_ports, receive_ports };
  Kind kind = Kind::none;  // what is overloaded; none = contention-free
  std::uint32_t element = kNone;  // link id, or component id
  double load = 0.0;              // GB/s (link, forwarder) or transfer count (ports)
  double capacity = 0.0;          // GB/s, or ports
  std::string message;            // "link gpu0 -> pcie_switch0 carries 48 GB/s over its 24 GB/s"

  bool ok() const { return kind == Kind::none; }
};

// Check the transfers; on contention, name the first overloaded element in a
// fixed order (links by id, then forwarders by id, then GPU ports by id).
ContentionReport check_contention(const Topology& t, std::span<const Transfer> transfers,
                                  const ContentionOptions& opts = {});

}  // namespace vp
