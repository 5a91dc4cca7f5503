// Determinism: the same machine, its devices listed in another
// order and under other document ids, gives a byte-identical catalog, alone
// and in a cluster. The reordered documents are made here from
// fixtures/platforms/pcie-gen4-2s4sw8g.json with fixed seeds; each one is
// checked to really list its GPUs and NICs in another order, so that the
// comparison cannot pass by comparing an input with itself.
#include <doctest/doctest.h>

#include <cstdint>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <vector>

#include "support.hpp"

namespace {

using Json = nlohmann::json;

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// Fisher-Yates with mt19937's specified output (std::shuffle's algorithm is
// the library's choice; this one is the same everywhere).
template <typename T>
void shuffle(std::vector<T>& v, std::mt19937& rng) {
  for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng() % i]);
}

std::vector<std::string> bus_ids_of(const Json& doc, const char* kind) {
  std::vector<std::string> out;
  for (const Json& c : doc["components"])
    if (c["kind"] == kind) out.push_back(c["pci_bus_id"]);
  return out;
}

// The same machine: the GPUs shuffled among the GPUs' places in the list,
// the NICs among the NICs' places, then the whole component and link lists
// shuffled, and every document id replaced through a random bijection.
Json reorder(const Json& original, std::uint32_t seed) {
  std::mt19937 rng(seed);
  Json doc = original;
  Json& comps = doc["components"];
  for (const char* kind : {"gpu", "nic"}) {
    std::vector<std::size_t> places;
    for (std::size_t i = 0; i < comps.size(); ++i)
      if (comps[i]["kind"] == kind) places.push_back(i);
    std::vector<Json> items;
    for (std::size_t i : places) items.push_back(comps[i]);
    shuffle(items, rng);
    for (std::size_t k = 0; k < places.size(); ++k) comps[places[k]] = items[k];
  }
  std::vector<Json> clist(comps.begin(), comps.end()), llist(doc["links"].begin(), doc["links"].end());
  shuffle(clist, rng);
  shuffle(llist, rng);
  auto fresh_ids = [&](const std::vector<Json>& items) {
    std::vector<std::int64_t> ids;
    for (std::size_t i = 0; i < items.size(); ++i) ids.push_back(static_cast<std::int64_t>(1000 + 7 * i));
    shuffle(ids, rng);
    std::map<std::int64_t, std::int64_t> m;
    for (std::size_t i = 0; i < items.size(); ++i) m[items[i]["id"].get<std::int64_t>()] = ids[i];
    return m;
  };
  const auto cid = fresh_ids(clist), lid = fresh_ids(llist);
  for (Json& c : clist) {
    c["id"] = cid.at(c["id"].get<std::int64_t>());
    if (c.contains("parent") && !c["parent"].is_null()) c["parent"] = cid.at(c["parent"].get<std::int64_t>());
  }
  for (Json& l : llist) {
    l["id"] = lid.at(l["id"].get<std::int64_t>());
    l["src"] = cid.at(l["src"].get<std::int64_t>());
    l["dst"] = cid.at(l["dst"].get<std::int64_t>());
    if (l.contains("reverse") && !l["reverse"].is_null()) l["reverse"] = lid.at(l["reverse"].get<std::int64_t>());
  }
  doc["components"] = clist;
  doc["links"] = llist;
  return doc;
}

std::string analyze(const std::string& args, const std::string& out) {
  const vp::test::RunResult r = vp::test::run(std::string(VP_ANALYZE_BIN) + " " + args + " --out " + out);
  INFO(args, "\n", r.err);
  REQUIRE(r.exit_code == 0);
  return slurp(out);
}

}  // namespace

TEST_CASE("determinism: devices listed in another order give a byte-identical catalog, alone and in a cluster") {
  vp::test::TempDir dir;
  const std::string node = vp::test::fixture("platforms/pcie-gen4-2s4sw8g.json");
  const std::string cluster_file = vp::test::fixture("platforms/pcie-gen4-2s4sw8g-4n-switch.cluster.json");
  const std::string single = analyze("--input " + node, dir.path() + "/single.vpcat");
  const std::string cluster = analyze("--input " + node + " --cluster " + cluster_file, dir.path() + "/cluster.vpcat");
  REQUIRE(single.size() > 64);
  CHECK(single != cluster);

  const Json original = Json::parse(slurp(node));
  for (std::uint32_t seed : {1u, 2u, 3u}) {
    CAPTURE(seed);
    const Json doc = reorder(original, seed);
    // The reordering is real: GPUs and NICs come in another order.
    REQUIRE(bus_ids_of(doc, "gpu") != bus_ids_of(original, "gpu"));
    REQUIRE(bus_ids_of(doc, "nic") != bus_ids_of(original, "nic"));
    const std::string name = "reordered-" + std::to_string(seed);
    const std::string input = dir.write(name + ".json", doc.dump(1));
    CHECK(analyze("--input " + input, dir.path() + "/" + name + ".vpcat") == single);

    Json spec = Json::parse(slurp(cluster_file));
    spec["node_types"][0]["input"] = input;
    const std::string spec_path = dir.write(name + ".cluster.json", spec.dump());
    CHECK(analyze("--input " + input + " --cluster " + spec_path, dir.path() + "/" + name + "-4n.vpcat") == cluster);
  }
}

TEST_CASE("determinism: the same input and options give the same bytes on every run") {
  vp::test::TempDir dir;
  const std::string args = "--input " + vp::test::fixture("platforms/pcie-gen4-2s4sw8g.json") +
                           " --nodes 4 --fabric rail --set pcie.gen4=22";
  const std::string a = analyze(args, dir.path() + "/a.vpcat");
  CHECK(analyze(args, dir.path() + "/b.vpcat") == a);
  // Options that change the result change the bytes (the comparison above is not vacuous).
  CHECK(analyze(args + " --set root_complex_p2p_factor=0.5", dir.path() + "/c.vpcat") != a);
}
