// `nvidia-smi topo -m` importer (analyzer/src/import/nvsmi_import.cpp).
//
// The central property: the inferred PCIe tree reproduces the input path-type
// matrix exactly (every GPU and NIC pair, SOC read as SYS). The test reads the
// matrix with its own small parser, independent of the importer's.
#include <doctest/doctest.h>

#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "input_error.hpp"
#include "support.hpp"
#include "vp/base/input_file.hpp"
#include "vp/import/import.hpp"
#include "vp/topology/errors.hpp"
#include "vp/topology/routes.hpp"

namespace {

using vp::ComponentId;
using vp::Topology;

std::string fixture_path(const std::string& name) { return vp::test::fixture("nvidia-smi/" + name); }

Topology load(const std::string& name) {
  std::string path = fixture_path(name);
  return vp::import_nvidia_smi(path, vp::read_input_file(path), {});
}

// The fixture as printed: device labels, the matrix, and the NIC legend.
struct Printed {
  std::vector<std::string> labels;
  std::vector<std::vector<std::string>> cells;
  std::map<std::string, std::string> nic_names;  // "NIC0" -> "mlx5_0"
};

std::vector<std::string> words(const std::string& line) {
  std::istringstream in(std::regex_replace(line, std::regex("\x1b\\[[0-9;]*m"), ""));
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

Printed read_printed(const std::string& name) {
  std::istringstream in(vp::read_input_file(fixture_path(name)));
  std::string line;
  std::getline(in, line);
  Printed p;
  for (const std::string& w : words(line)) {
    if (w == "CPU") break;
    p.labels.push_back(w);
  }
  for (std::size_t i = 0; i < p.labels.size() && std::getline(in, line); ++i) {
    std::vector<std::string> w = words(line);
    p.cells.emplace_back(w.begin() + 1, w.begin() + 1 + static_cast<std::ptrdiff_t>(p.labels.size()));
  }
  while (std::getline(in, line)) {
    std::vector<std::string> w = words(line);
    if (w.size() == 2 && w[0].rfind("NIC", 0) == 0 && w[0].back() == ':')
      p.nic_names[w[0].substr(0, w[0].size() - 1)] = w[1];
  }
  return p;
}

// The component a printed label stands for: GPUk is GPU index k, a NIC is
// found by its device name.
ComponentId component_for(const Topology& t, const Printed& p, const std::string& label) {
  if (label.rfind("GPU", 0) == 0) return t.gpus.at(std::stoul(label.substr(3)));
  std::string name = p.nic_names.count(label) ? p.nic_names.at(label) : label;
  for (ComponentId n : t.nics) {
    if (t.components[n].device_name == name) return n;
  }
  FAIL("no NIC named " << name);
  return vp::kNone;
}

// Every entry the inferred tree reproduces, as "GPU0-GPU1 PIX" lines, except
// NV# entries (the model is PCIe only), which are returned separately.
struct RoundTrip {
  std::vector<std::string> mismatches;
  std::vector<std::string> nvlink;  // "GPU0-GPU1 NV4 -> PIX"
};

RoundTrip round_trip(const std::string& name) {
  Topology t = load(name);
  Printed p = read_printed(name);
  RoundTrip r;
  for (std::size_t i = 0; i < p.labels.size(); ++i) {
    for (std::size_t j = 0; j < p.labels.size(); ++j) {
      std::string printed = p.cells[i][j] == "X" ? "LOC" : p.cells[i][j] == "SOC" ? "SYS" : p.cells[i][j];
      std::string inferred(
          vp::to_string(vp::path_type(t, component_for(t, p, p.labels[i]), component_for(t, p, p.labels[j]))));
      std::string pair = p.labels[i] + "-" + p.labels[j] + " " + printed;
      if (printed.rfind("NV", 0) == 0)
        r.nvlink.push_back(pair + " -> " + inferred);
      else if (printed != inferred)
        r.mismatches.push_back(pair + " inferred " + inferred);
    }
  }
  return r;
}

struct Counts {
  std::size_t gpus, nics, sockets, host_bridges, switches;
  friend bool operator==(const Counts&, const Counts&) = default;
};
Counts counts(const Topology& t) {
  return {t.gpus.size(), t.nics.size(), t.sockets.size(), t.host_bridges.size(), t.switches.size()};
}

int socket_of(const Topology& t, ComponentId c) {
  while (t.components[c].parent != vp::kNone) c = t.components[c].parent;
  return t.components[c].local_index;
}

std::string import_error(const std::string& content) {
  return vp::test::message_of([&] { vp::import_nvidia_smi("topo.txt", content, {}); });
}

const std::string kPcieWarning =
    "nvidia-smi gives no bus ids and no link speeds: the PCIe tree is inferred from the path types and every PCIe "
    "link is taken as unknown generation, assumed PCIe Gen3 x16";
const std::string kNicWarning =
    "nvidia-smi gives no NIC model, line rate or port count: each NIC (an RDMA device) assumed one 100 Gb/s port, "
    "GPUDirect RDMA capable (--set nic.assume_gpudirect=0 if not)";
const std::string kSocketWarning = "nvidia-smi names no CPU model: inter-socket links use inter_socket.unknown";

}  // namespace

TEST_CASE("nvsmi: 2 sockets, 4 switches with 2 GPUs + 1 NIC each (current driver, NIC legend)") {
  const std::string name = "pcie-2s4sw8g4n.txt";
  Topology t = load(name);
  CHECK(counts(t) == Counts{8, 4, 2, 4, 4});
  CHECK(round_trip(name).mismatches.empty());
  for (int g = 0; g < 8; ++g) CHECK(socket_of(t, t.gpus[g]) == g / 4);
  for (int n = 0; n < 4; ++n) {
    const vp::Component& nic = t.components[t.nics[n]];
    CHECK(nic.device_name == "mlx5_" + std::to_string(n));
    CHECK(vp::nearest_nic(t, t.gpus[2 * n]) == nic.id);
  }
  // Each switch sits on its own host bridge (NODE between switches of a socket).
  for (ComponentId sw : t.switches) CHECK(t.components[t.components[sw].parent].kind == vp::ComponentKind::host_bridge);
  CHECK(t.links[t.find_link(t.gpus[0], t.components[t.gpus[0]].parent)].capacity == t.defaults.pcie(0, 0));
  CHECK(t.warnings == std::vector<std::string>{kPcieWarning, kNicWarning, kSocketWarning});
  CHECK(t.nodes == std::vector<vp::NodeInfo>{{"node0", "pcie-2s4sw8g4n"}});
}

TEST_CASE("nvsmi: old driver output (SOC, NIC named in the header, no NUMA Affinity)") {
  const std::string name = "old-driver-soc-2s4g1n.txt";
  Topology t = load(name);
  // GPU0/GPU1 share a switch; the NIC and that switch share socket 0's host
  // bridge; GPU2 and GPU3 hang directly below socket 1's host bridge.
  CHECK(counts(t) == Counts{4, 1, 2, 2, 1});
  CHECK(round_trip(name).mismatches.empty());
  CHECK(t.components[t.nics[0]].device_name == "mlx5_0");
  CHECK(socket_of(t, t.nics[0]) == 0);
  CHECK(socket_of(t, t.gpus[2]) == 1);
  CHECK(t.components[t.components[t.gpus[2]].parent].kind == vp::ComponentKind::host_bridge);
}

TEST_CASE("nvsmi: NVLink pairs are ignored, their PCIe path comes from the other entries") {
  const std::string name = "nvlink-bridges-2s4g2n.txt";
  Topology t = load(name);
  CHECK(counts(t) == Counts{4, 2, 2, 3, 1});
  RoundTrip r = round_trip(name);
  CHECK(r.mismatches.empty());
  // GPU0 and GPU1 are both PIX to NIC0: one switch. GPU2 is PHB to NIC1 and
  // GPU3 NODE to it: two host bridges of socket 1.
  CHECK(r.nvlink == std::vector<std::string>{"GPU0-GPU1 NV4 -> PIX", "GPU1-GPU0 NV4 -> PIX", "GPU2-GPU3 NV4 -> NODE",
                                             "GPU3-GPU2 NV4 -> NODE"});
  CHECK(t.warnings == std::vector<std::string>{
                          kPcieWarning,
                          "2 NVLink (NV#) entries ignored (the model is PCIe only): the PCIe path of those pairs is "
                          "inferred from the other entries, or taken as NODE where nothing else places them",
                          kNicWarning, kSocketWarning});
}

TEST_CASE("nvsmi: an NVLink pair that nothing else places shares a socket unless an entry keeps it apart") {
  Topology alone = vp::import_nvidia_smi("nv.txt",
                                         "\tGPU0\tGPU1\tCPU Affinity\n"
                                         "GPU0\t X \tNV2\t0-23\n"
                                         "GPU1\tNV2\t X \t0-23\n",
                                         {});
  CHECK(counts(alone) == Counts{2, 0, 1, 2, 0});
  CHECK(vp::path_type(alone, alone.gpus[0], alone.gpus[1]) == vp::PathType::NODE);
  // GPU1 is SYS to the NIC that shares a switch with GPU0: different sockets.
  Topology apart = vp::import_nvidia_smi("nv.txt",
                                         "\tGPU0\tGPU1\tmlx5_0\tCPU Affinity\n"
                                         "GPU0\t X \tNV1\tPIX\t0-23\n"
                                         "GPU1\tNV1\t X \tSYS\t24-47\n"
                                         "mlx5_0\tPIX\tSYS\t X \n",
                                         {});
  CHECK(counts(apart) == Counts{2, 1, 2, 2, 1});
  CHECK(vp::path_type(apart, apart.gpus[0], apart.gpus[1]) == vp::PathType::SYS);
}

TEST_CASE("nvsmi: a top switch over two leaf switches (PXB), header underlined by the terminal") {
  const std::string name = "two-level-switch-1s8g2n.txt";
  Topology t = load(name);
  CHECK(counts(t) == Counts{8, 2, 1, 1, 3});
  CHECK(round_trip(name).mismatches.empty());
  ComponentId leaf = t.components[t.gpus[0]].parent, top = t.components[leaf].parent;
  CHECK(t.components[top].kind == vp::ComponentKind::pcie_switch);
  CHECK(t.components[t.components[top].parent].kind == vp::ComponentKind::host_bridge);
  CHECK(t.components[t.gpus[4]].parent != leaf);
  CHECK(t.components[t.components[t.gpus[4]].parent].parent == top);
}

TEST_CASE("nvsmi: a host bridge's forwarding capacity and its link to the socket") {
  Topology t = load("pcie-2s4sw8g4n.txt");
  const vp::Component& hb = t.components[t.host_bridges[0]];
  CHECK(hb.forward == t.defaults.root_complex(t.defaults.pcie(0, 0).gbps));
  CHECK(t.components[t.sockets[0]].forward == hb.forward);
  // One switch below it: its socket link carries the switch uplink's capacity.
  CHECK(t.links[t.find_link(hb.id, hb.parent)].capacity.gbps == t.defaults.pcie(0, 0).gbps);
  vp::LinkId across = t.find_link(t.sockets[0], t.sockets[1]);
  REQUIRE(across != vp::kNone);
  CHECK(t.links[across].capacity == t.defaults.inter_socket("unknown"));
}

TEST_CASE("nvsmi: the assumed PCIe link follows the default table's overrides") {
  vp::ImportOptions opts;
  opts.defaults.set("pcie.unknown_gen", 4, "test");
  std::string path = fixture_path("pcie-2s4sw8g4n.txt");
  Topology t = vp::import_nvidia_smi(path, vp::read_input_file(path), opts);
  const vp::Capacity& link = t.links[t.find_link(t.gpus[0], t.components[t.gpus[0]].parent)].capacity;
  CHECK(link.gbps == 24.0);
  CHECK(link.source == vp::CapacitySource::user_override);
  CHECK(t.warnings.front() ==
        "nvidia-smi gives no bus ids and no link speeds: the PCIe tree is inferred from the path types and every PCIe "
        "link is taken as unknown generation, assumed PCIe Gen4 x16");
}

TEST_CASE("nvsmi: malformed matrices name the line and the reason") {
  const std::string header = "\tGPU0\tGPU1\tNIC0\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n";
  const std::string gpu0 = "GPU0\t X \tPIX\tPIX\t0-7\t0\t\tN/A\n";
  const std::string gpu1 = "GPU1\tPIX\t X \tPIX\t0-7\t0\t\tN/A\n";
  const std::string nic0 = "NIC0\tPIX\tPIX\t X \n";
  CHECK(import_error(header + gpu0 + gpu1 + nic0) == vp::test::kNoError);  // the pieces below break it one at a time

  CHECK(import_error("\n\n") == "topo.txt: no `nvidia-smi topo -m` header row (the file is blank)");
  CHECK(import_error("\tNIC0\tNIC1\nNIC0\t X \tPIX\nNIC1\tPIX\t X \n") ==
        "topo.txt:1: names no GPUs: the header row has no GPU0 column (expected `nvidia-smi topo -m` output)");
  CHECK(import_error("No devices were found\n") ==
        "topo.txt:1: names no GPUs: the header row has no GPU0 column (expected `nvidia-smi topo -m` output)");
  CHECK(import_error("\tGPU0\tGPU2\n") == "topo.txt:1: header: expected GPU1, got GPU2");
  CHECK(import_error("\tGPU0\tNIC0\tNIC0\n") == "topo.txt:1: header: duplicate column NIC0");
  CHECK(import_error("\tGPU0\tCPU Affinity\tNIC0\n") ==
        "topo.txt:1: header: unexpected column \"NIC0\" after the affinity columns");
  CHECK(import_error(header + gpu0 + "GPU1\tPIX\t X \t0-7\t0\t\tN/A\n" + nic0) ==
        "topo.txt:3: unknown path type \"0-7\" (GPU1 to NIC0; expected X, PIX, PXB, PHB, NODE, SYS, SOC or NV#)");
  CHECK(import_error(header + gpu0 + "GPU1\tPIX\t X \n") == "topo.txt:3: ragged row: GPU1 has 2 entries, expected 3");
  CHECK(import_error(header + gpu0 + "GPU1\tPIX\t X \tPIX\t0-7\t0\tN/A\t1\n") ==
        "topo.txt:3: ragged row: GPU1 has more than 3 fields after its 3 entries, expected at most 3");
  CHECK(import_error(header + gpu0 + gpu1) == "topo.txt:4: expected the row of NIC0, got \"\"");
  CHECK(import_error(header + gpu0 + nic0 + gpu1) == "topo.txt:3: expected the row of GPU1, got \"NIC0\"");
  CHECK(import_error(header + gpu0 + gpu1 + "NIC0\tPIX\tPIX\tPIX\n") ==
        "topo.txt:4: NIC0 to itself must be X, got PIX");
  CHECK(import_error(header + gpu0 + gpu1 + "NIC0\tX\tPIX\t X \n") ==
        "topo.txt:4: X between two devices (NIC0 to GPU0)");
  CHECK(import_error(header + gpu0 + gpu1 + "NIC0\tPHB\tPIX\t X \n") ==
        "topo.txt:4: asymmetric matrix: NIC0 to GPU0 is PHB, but GPU0 to NIC0 is PIX");
  CHECK(import_error(header + gpu0 + gpu1 + "NIC0\tPIX\tFOO\t X \n") ==
        "topo.txt:4: unknown path type \"FOO\" (NIC0 to GPU1; expected X, PIX, PXB, PHB, NODE, SYS, SOC or NV#)");
}

TEST_CASE("nvsmi: matrices that no PCIe tree can produce are refused") {
  // GPU0-GPU1 and GPU1-GPU2 share a switch, so GPU0-GPU2 cannot be PHB.
  CHECK(import_error("\tGPU0\tGPU1\tGPU2\n"
                     "GPU0\t X \tPIX\tPHB\n"
                     "GPU1\tPIX\t X \tPIX\n"
                     "GPU2\tPHB\tPIX\t X \n") ==
        "topo.txt:4: inconsistent matrix: GPU2 to GPU0 is PHB, yet other entries put them under one PCIe switch (PIX)");
  // Same NUMA node, yet SYS.
  CHECK(import_error("\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\n"
                     "GPU0\t X \tSYS\t0-7\t0\n"
                     "GPU1\tSYS\t X \t0-7\t0\n") ==
        "topo.txt:3: inconsistent matrix: GPU1 to GPU0 is SYS, yet other entries or NUMA Affinity put them on one "
        "socket (NODE)");
  // NODE, yet different NUMA nodes.
  CHECK(import_error("\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\n"
                     "GPU0\t X \tNODE\t0-7\t0\n"
                     "GPU1\tNODE\t X \t8-15\t1\n") ==
        "topo.txt:3: inconsistent matrix: GPU0 (NUMA Affinity 0) and GPU1 (NUMA Affinity 1) are on one socket by "
        "the path types");
}
