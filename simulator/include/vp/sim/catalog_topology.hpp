// The simulated machine of a catalog: the whole cluster's Topology rebuilt
// from a .vpcat, with the global numbering of catalog_format/SPEC.md §7.1,
// so that the link ids of the planner's routes (vpcat::Planner::route_links)
// and of `vp-analyze topology --json` name the same links here.
//
// What is rebuilt, for every node in node order: its type's components
// (kind, parent, local index, name, model, PCI bus id, device name,
// forwarding capacity, GPUDirect flag) and internal links (kind, capacity,
// reverse), shifted by the previous nodes' counts; then the fabric: the
// non-spine switches (`switch0`, `rail0..`, `leaf0..`), the logical `spine`,
// for every NIC in global order its uplink and downlink at the NIC's port
// capacity (`nic_gbps`), and for every non-spine switch its uplink and
// downlink to the spine at `spine_uplink_gbps`.
//
// What the catalog does not hold, and what stands in for it:
// * capacity provenance (source, basis): every capacity reads source
//   `input`, basis "catalog";
// * PCIe generation and width, PCI vendor/device/class, NIC line rate and
//   port count, CPU family, node type of a host: left unknown;
// * the fabric link of a NIC without GPUDirect RDMA: the catalog gives it
//   no port (`nic_gbps` 0, it carries no GPU traffic in the model); the
//   link gets the capacity of the NIC's PCIe link to its parent instead, so
//   that a schedule routing through such a NIC (as a baseline's nearest-NIC
//   choice may) is charged a finite, plausible rate. The planner never uses
//   such a NIC.
// tests/sim_catalog_topology_test.cpp checks, for the platform fixtures,
// that ids, endpoints, kinds and capacities equal what vp::load_input
// builds from the same input.
#pragma once

#include <string>

#include "vp/catalog/catalog.hpp"
#include "vp/topology/topology.hpp"

namespace vp::sim {

// The cluster of `catalog`, finalized (derived indexes built). `origin`
// names the catalog in messages. Throws catalog::CatalogError (invalid, exit
// 3; the message starts with `origin`) when the catalog's node names do not
// expand to its node counts or the result is not a valid topology.
Topology catalog_topology(const catalog::Catalog& catalog, const std::string& origin = "catalog");

// read_catalog_file() + catalog_topology(). Throws catalog::CatalogError
// (with the reader's message, which starts with the path) on a bad file.
Topology load_catalog_topology(const std::string& path);

}  // namespace vp::sim
