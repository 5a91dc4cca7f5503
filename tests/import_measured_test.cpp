// Measured capacities: nvbandwidth -j and p2pBandwidthLatencyTest readers,
// the GPU mapping, malformed input, and how figures become capacities
// (vp/import/measured.hpp). Fixtures: fixtures/measured/ (README.md says
// which are real captures and which are hand-made).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "input_error.hpp"
#include "support.hpp"
#include "vp/base/input_file.hpp"
#include "vp/import/import.hpp"
#include "vp/import/json_topology.hpp"
#include "vp/import/measured.hpp"
#include "vp/topology/errors.hpp"
#include "vp/topology/routes.hpp"

using vp::Measurement;
using vp::test::fixture;

namespace {

double figure(const Measurement& m, int src, int dst) {
  for (const vp::PairMeasurement& p : m.pairs)
    if (p.src == src && p.dst == dst) return p.gbps;
  return -1;
}

vp::Topology gen4_node() {
  return vp::import_topology(fixture("platforms/pcie-gen4-2s4sw8g.json"), vp::InputFormat::auto_detect, {});
}

// The InputError of parsing `text` (as file "m.txt"); fails the test if none.
vp::InputError parse_error(const std::string& text) {
  CAPTURE(text);
  return vp::test::input_error_of([&] { vp::parse_measurement("m.txt", text); });
}

bool contains(const std::vector<std::string>& lines, const std::string& what) {
  for (const std::string& l : lines)
    if (l.find(what) != std::string::npos) return true;
  return false;
}

const char* kHeader = "Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)\n";

}  // namespace

TEST_CASE("measured: p2pBandwidthLatencyTest, a real capture with device lines (tinygrad#44)") {
  const Measurement m = vp::read_measurement(fixture("measured/p2p-2x4090-tinygrad44.txt"));
  CHECK(m.format == "p2pBandwidthLatencyTest");
  CHECK(m.matrix == "Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)");
  CHECK(m.device_count == 2);
  REQUIRE(m.devices.size() == 2);
  CHECK(m.devices[0].pci_bus_id == "0000:02:00.0");
  CHECK(m.devices[1].pci_bus_id == "0000:17:00.0");
  CHECK(m.devices[1].name == "NVIDIA GeForce RTX 4090");
  CHECK(m.devices[1].line == 3);
  REQUIRE(m.pairs.size() == 2);  // the diagonal (device memory) is no pair
  CHECK(figure(m, 0, 1) == 6.60);
  CHECK(figure(m, 1, 0) == 6.60);
  CHECK(m.pairs[0].line == 20);
  // The P2P=Disabled matrices are named as not used.
  CHECK(contains(m.notes, "Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)\" not used"));
}

TEST_CASE("measured: writes are row -> column, reads column -> row (nccl#814, no device lines)") {
  const Measurement w = vp::read_measurement(fixture("measured/p2p-6gpu-nccl814.txt"));
  CHECK(w.devices.empty());
  CHECK(w.device_count == 6);
  CHECK(w.pairs.size() == 30);
  CHECK(figure(w, 4, 1) == 9.64);  // row 4, column 1 of the writes
  CHECK(figure(w, 3, 0) == 10.23);
  // Without the writes matrix the reads are used: row 3 read from column 2.
  std::string text = vp::read_input_file(fixture("measured/p2p-6gpu-nccl814.txt"));
  text.replace(text.find("(P2P Writes) "), 13, "(P2P Wxites) ");
  text.replace(text.find("Unidirectional P2P=Enabled Bandwidth (P2P Wxites)"), 14, "Scrambled.....");
  const Measurement r = vp::parse_measurement("r.txt", text);
  CHECK(r.matrix == "Unidirectional P2P=Enabled Bandwidth (P2P Reads) Matrix (GB/s)");
  CHECK(figure(r, 2, 3) == 10.45);  // row 3, column 2: GPU2 -> GPU3
  CHECK(figure(r, 3, 2) == 10.22);
}

TEST_CASE("measured: only a bidirectional matrix: each direction is half (nccl#1127)") {
  const Measurement m = vp::read_measurement(fixture("measured/p2p-8x3090-bidir-nccl1127.txt"));
  CHECK(m.matrix == "Bidirectional P2P=Enabled Bandwidth Matrix (GB/s)");
  CHECK(figure(m, 0, 4) == doctest::Approx(8.59 / 2));
  CHECK(contains(m.notes, "half of the bidirectional figure"));
}

TEST_CASE("measured: nvbandwidth -j, the write testcase, devices by bus id in CUDA order") {
  const Measurement m = vp::read_measurement(fixture("measured/nvbandwidth-pcie-gen4-2s4sw8g.json"));
  CHECK(m.format == "nvbandwidth");
  CHECK(m.matrix == "device_to_device_memcpy_write_ce");
  REQUIRE(m.devices.size() == 8);
  CHECK(m.devices[0].pci_bus_id == "0000:83:00.0");
  CHECK(m.devices[0].name == "NVIDIA L40S");
  CHECK(m.pairs.size() == 56);   // "N/A" on the diagonal
  CHECK(figure(m, 0, 1) == 25.0312);  // devices 0, 1: one switch of socket 1
  CHECK(figure(m, 0, 4) == 13.0078);  // across sockets
  CHECK(contains(m.notes, "device_to_device_memcpy_read_ce not used"));
  // CUDA device 0 is the topology's GPU4 (bus 83).
  const vp::Topology t = gen4_node();
  std::string how;
  const std::vector<std::size_t> map = vp::map_measured_devices(t, m, &how);
  CHECK(map == std::vector<std::size_t>{4, 5, 6, 7, 0, 1, 2, 3});
  CHECK(how == "matched by PCI bus id");
}

TEST_CASE("measured: without bus ids CUDA device i is GPU i, and the counts must agree") {
  const vp::Topology t = gen4_node();
  std::string how;
  Measurement m = vp::read_measurement(fixture("measured/p2p-8x3090-bidir-nccl1127.txt"));
  CHECK(vp::map_measured_devices(t, m, &how) == std::vector<std::size_t>{0, 1, 2, 3, 4, 5, 6, 7});
  CHECK(how.find("CUDA device i taken as GPU i") != std::string::npos);
  m = vp::read_measurement(fixture("measured/p2p-6gpu-nccl814.txt"));
  CHECK_THROWS_WITH_AS(vp::map_measured_devices(t, m, nullptr),
                       doctest::Contains("6 devices measured but the topology has 8 GPUs"), vp::InputError);
  // A bus id that is no GPU of the topology: named, at its line.
  m = vp::read_measurement(fixture("measured/p2p-2x4090-tinygrad44.txt"));
  const vp::InputError e = vp::test::input_error_of([&] { vp::map_measured_devices(t, m, nullptr); });
  CHECK(e.line() == 2);
  CHECK(std::string(e.what()).find("p2p-2x4090-tinygrad44.txt:2: device 0 (0000:02:00.0) is not a GPU of the "
                                   "topology") != std::string::npos);
}

TEST_CASE("measured: malformed input is an InputError at its line") {
  CHECK(parse_error("hello\n").reason().find("not a measurement this tool reads") != std::string::npos);
  CHECK(parse_error("nvbandwidth Version: v0.8\n").reason().find("run nvbandwidth with -j") != std::string::npos);
  // A short row.
  vp::InputError e = parse_error(std::string(kHeader) + "   D\\D     0      1\n     0 900.0  6.6\n     1  6.6\n");
  CHECK(e.line() == 4);
  CHECK(e.reason().find("expected row 1 with 2 figures") != std::string::npos);
  // Not a number.
  e = parse_error(std::string(kHeader) + "   D\\D     0      1\n     0 900.0  six\n     1  6.6 900.0\n");
  CHECK(e.line() == 3);
  CHECK(e.reason().find("\"six\" in row 0, column 1: not a rate in GB/s") != std::string::npos);
  // Cut off.
  e = parse_error(std::string(kHeader) + "   D\\D     0      1\n     0 900.0  6.6\n");
  CHECK(e.reason().find("1 of 2 rows (cut off?)") != std::string::npos);
  // No column header.
  e = parse_error(std::string(kHeader) + "     0 900.0  6.6\n");
  CHECK(e.line() == 2);
  // Only P2P=Disabled.
  e = parse_error("Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)\n   D\\D     0      1\n     0 9 6\n     1 6 9\n");
  CHECK(e.reason().find("no P2P=Enabled bandwidth matrix") != std::string::npos);
  // Device lines and matrix disagree.
  e = parse_error("Device: 0, X, pciBusID: 3, pciDeviceID: 0, pciDomainID:0\n" + std::string(kHeader) +
                  "   D\\D     0      1\n     0 900.0  6.6\n     1  6.6 900.0\n");
  CHECK(e.reason().find("the matrix has 2 rows but the file lists 1 devices") != std::string::npos);
  // nvbandwidth: a bad cell is reported at its line and column.
  e = parse_error("{\"nvbandwidth\": {\"testcases\": [\n {\"name\": \"device_to_device_memcpy_write_ce\",\n"
                  "  \"bandwidth_matrix\": [[\"N/A\", \"25.1\"],\n   [\"x\", \"N/A\"]]}]}}\n");
  CHECK(e.line() == 4);
  CHECK(e.reason().find("bandwidth_matrix[1][0]") != std::string::npos);
  e = parse_error("{\"nvbandwidth\": {\"testcases\": [{\"name\": \"host_to_device_memcpy_ce\"}]}}");
  CHECK(e.reason().find("no device-to-device memcpy testcase") != std::string::npos);
  e = parse_error("{\"nvbandwidth\": {\"testcases\": [{\"name\": \"device_to_device_memcpy_write_ce\", "
                  "\"bandwidth_matrix\": [[\"N/A\", \"1\"]]}]}}");
  CHECK(e.reason().find("must be a row of 1 cells") != std::string::npos);
  e = parse_error("{\"nvbandwidth\": {\"testcases\": [\n");
  CHECK(e.reason().find("malformed JSON") != std::string::npos);
  // Typed fields (vp/base/json_field.hpp): each error names the value's path.
  e = parse_error("{\"nvbandwidth\": {\"GPU Device list\": [7], \"testcases\": []}}");
  CHECK(e.reason() == "nvbandwidth.GPU Device list[0]: must be a string, got 7");
  e = parse_error("{\"nvbandwidth\": {\"testcases\": [{\"name\": \"device_to_device_memcpy_write_ce\", "
                  "\"bandwidth_matrix\": [[\"N/A\", true], [1, \"N/A\"]]}]}}");
  CHECK(e.reason() == "nvbandwidth.testcases[0].bandwidth_matrix[0][1]: must be a rate in GB/s (a number >= 0 or "
                      "\"N/A\"), got true");
  e = parse_error("{\"nvbandwidth\": []}");
  CHECK(e.reason() == "document: not nvbandwidth --json output (no \"nvbandwidth\" object)");
}

TEST_CASE("measured: nvbandwidth's other keys are ignored (another tool's format)") {
  const Measurement m = vp::parse_measurement(
      "m.json",
      "{\"nvbandwidth\": {\"version\": \"v0.8\", \"CUDA Runtime Version\": 12080, \"git_version\": \"x\",\n"
      " \"testcases\": [{\"name\": \"device_to_device_memcpy_write_ce\", \"status\": \"Passed\", \"sum\": 50.2,\n"
      "  \"bandwidth_matrix\": [[\"N/A\", \"25.1\"], [\"25.1\", \"N/A\"]], \"extra\": {\"a\": 1}}]}, \"other\": 1}\n");
  CHECK(m.format == "nvbandwidth");
  CHECK(m.pairs.size() == 2);
  CHECK(m.pairs[0].line == 3);
}

TEST_CASE("measured: figures become capacities so that every route's solo rate is its figure") {
  vp::Topology t = gen4_node();
  const Measurement m = vp::read_measurement(fixture("measured/p2p-pcie-gen4-2s4sw8g.txt"));
  const std::vector<std::string> warnings = vp::apply_measurements(t, {m}, {});
  CHECK(contains(warnings, "capacities measured: p2p-pcie-gen4-2s4sw8g.txt (p2pBandwidthLatencyTest"));
  CHECK(contains(t.warnings, "capacities measured: p2p-pcie-gen4-2s4sw8g.txt"));
  const std::size_t n = t.gpus.size();
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      if (i == j) continue;
      CAPTURE(i);
      CAPTURE(j);
      const vp::Route r = vp::intra_node_route(t, t.gpus[i], t.gpus[j]);
      const double want = i / 2 == j / 2 ? (i == 7 && j == 6 ? 26.30 : 26.10) : i / 4 == j / 4 ? 20.50 : 14.20;
      CHECK(r.solo_gbps == doctest::Approx(want).epsilon(1e-12));
    }
  // The carriers: a switch's GPU links (above the Gen4 table's 24), the host
  // bridge's forwarding capacity, the inter-socket link; `measured`, the file
  // in the basis.
  const vp::Link& up = t.links[t.find_link(t.gpus[0], t.components[t.gpus[0]].parent)];
  CHECK(up.capacity.gbps == 26.10);
  CHECK(up.capacity.source == vp::CapacitySource::measured);
  CHECK(up.capacity.basis.find("p2p-pcie-gen4-2s4sw8g.txt") != std::string::npos);
  const vp::Component& hb = t.components[t.host_bridges[0]];
  REQUIRE(hb.forward);
  CHECK(hb.forward->gbps == 20.50);
  CHECK(hb.forward->source == vp::CapacitySource::measured);
  const vp::Link& sys = t.links[t.find_link(t.sockets[0], t.sockets[1])];
  CHECK(sys.capacity.gbps == 14.20);
  CHECK(sys.capacity.source == vp::CapacitySource::measured);
  // A switch's uplink is no carrier and stays what the table says (24 >= 20.5).
  const vp::ComponentId sw = t.components[t.gpus[0]].parent;
  const vp::Link& swup = t.links[t.find_link(sw, t.components[sw].parent)];
  CHECK(swup.capacity.gbps == 24.0);
  CHECK(swup.capacity.source == vp::CapacitySource::default_table);
}

TEST_CASE("measured: a pair whose carrier has a faster measurement is reported with both figures") {
  vp::Topology t = gen4_node();
  const Measurement m = vp::read_measurement(fixture("measured/p2p-pcie-gen4-2s4sw8g-disagree.txt"));
  const std::vector<std::string> warnings = vp::apply_measurements(t, {m}, {});
  CHECK(contains(warnings, "GPU2->GPU0 (p2p-pcie-gen4-2s4sw8g-disagree.txt:81) measured 12.00 GB/s, but the model "
                           "gives 20.50 GB/s: its route turns where GPU"));
  // Orbits given: the pair's orbit (here: all same-socket cross-switch pairs)
  // is reported with its lowest and highest figure and takes the mean.
  t = gen4_node();
  const std::size_t n = t.gpus.size();
  std::vector<std::uint32_t> orbit(n * n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) orbit[i * n + j] = i / 2 == j / 2 ? 0 : i / 4 == j / 4 ? 1 : 2;
  const std::vector<std::string> w2 = vp::apply_measurements(t, {m}, orbit);
  CHECK(contains(w2, "GPU2->GPU0 (p2p-pcie-gen4-2s4sw8g-disagree.txt:81) 12.00 GB/s and GPU0->GPU2"));
  CHECK(contains(w2, "are symmetric (one orbit of the topology) but measured 71% apart; the orbit's 16 pairs take "
                     "the mean 19.97 GB/s"));
  const double mean = (15 * 20.50 + 12.00) / 16;
  CHECK(vp::intra_node_route(t, t.gpus[2], t.gpus[0]).solo_gbps == doctest::Approx(mean).epsilon(1e-12));
  CHECK(vp::intra_node_route(t, t.gpus[7], t.gpus[4]).solo_gbps == doctest::Approx(mean).epsilon(1e-12));
  // The same-switch orbit takes the mean of 26.10 x 7 and 26.30: every pair alike.
  CHECK(vp::intra_node_route(t, t.gpus[0], t.gpus[1]).solo_gbps == doctest::Approx((7 * 26.10 + 26.30) / 8));
  CHECK(vp::intra_node_route(t, t.gpus[7], t.gpus[6]).solo_gbps == doctest::Approx((7 * 26.10 + 26.30) / 8));
}

TEST_CASE("measured: the source is a capacity source, and survives the topology's JSON") {
  CHECK(vp::to_string(vp::CapacitySource::measured) == "measured");
  CHECK(vp::parse_capacity_source("measured") == vp::CapacitySource::measured);
  vp::Topology t = gen4_node();
  vp::apply_measurements(t, {vp::read_measurement(fixture("measured/p2p-pcie-gen4-2s4sw8g.txt"))}, {});
  const std::string text = vp::topology_to_json(t).dump();
  const vp::Topology back = vp::import_json("t.json", text, {});
  CHECK(back.same_as(t));
  const vp::Component& hb = back.components[back.host_bridges[1]];
  REQUIRE(hb.forward);
  CHECK(hb.forward->source == vp::CapacitySource::measured);
  CHECK(hb.forward->basis == "pair GPU4->GPU6 (p2p-pcie-gen4-2s4sw8g.txt:83)");
  CHECK(vp::intra_node_route(back, back.gpus[7], back.gpus[6]).solo_gbps == 26.30);
}

// Fuzz finding (tests/fuzz/corpus/measured/crash-cc688b...): a matrix title
// that is not used, quoted in a note, held bytes that are not UTF-8; the note
// became a warning, and `vp-analyze topology --json` ended in nlohmann's
// type_error.316 (exit 4). Every text taken from the file is now printable.
TEST_CASE("measured: bytes that are not UTF-8 in a title, a device name or the file name stay text") {
  std::string text = vp::read_input_file(fixture("measured/p2p-pcie-gen4-2s4sw8g.txt"));
  const std::size_t title = text.find("Bidirectional P2P=Enabled Bandwidth Matrix (GB/s)");
  REQUIRE(title != std::string::npos);
  text.insert(title + 2, "\xf1\xff\x01");
  const std::size_t device = text.find("NVIDIA L40S");
  REQUIRE(device != std::string::npos);
  text.insert(device + 6, "\xc3");
  const Measurement m = vp::parse_measurement("dir/m\xfe.txt", text);
  CHECK(m.name == "m\\xfe.txt");
  CHECK(m.devices.at(0).name == "NVIDIA\\xc3 L40S");
  bool quoted = false;
  for (const std::string& note : m.notes) {
    CHECK(note == vp::printable(note));
    quoted = quoted || note.find("Bi\\xf1\\xff\\x01directional") != std::string::npos;
  }
  CHECK(quoted);
  vp::Topology t = gen4_node();
  vp::apply_measurements(t, {m}, {});
  CHECK_NOTHROW((void)vp::topology_to_json(t).dump(2));
}
