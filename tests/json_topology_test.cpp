// Our JSON topology document: exact round trips, the shape the schema
// describes, hand-authored documents, and every rejected document with its
// whole message.
#include "vp/import/json_topology.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "input_error.hpp"
#include "support.hpp"
#include "vp/import/import.hpp"
#include "vp/import/cluster_spec.hpp"
#include "vp/topology/cluster.hpp"
#include "vp/topology/errors.hpp"
#include "vp/topology/routes.hpp"
#include "vp/topology/synthetic.hpp"

namespace {

using Json = nlohmann::ordered_json;

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  REQUIRE(f);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

const std::string kPlatform = "platforms/pcie-gen4-2s4sw8g.json";

vp::Topology import_fixture(const std::string& relative, const vp::ImportOptions& opts = {}) {
  std::string path = vp::test::fixture(relative);
  return vp::import_json(path, slurp(path), opts);
}

// Export, import, export again: the model and the text come back identical.
void check_round_trip(const vp::Topology& t) {
  std::string text = vp::topology_to_json(t).dump(2);
  vp::Topology back = vp::import_json("round-trip.json", text, {});
  CHECK(back.same_as(t));
  CHECK(vp::topology_to_json(back).dump(2) == text);
}

// ---- a structural subset of JSON Schema 2020-12, enough to hold the
// exported documents to the schema's shape: type, const, enum, required,
// properties, additionalProperties, items, minItems, allOf/if/then/else,
// oneOf and local $ref. (Debian has no 2020-12 validator for C++.)
class SchemaCheck {
 public:
  explicit SchemaCheck(const std::string& schema_file) : root_(Json::parse(slurp(schema_file))) {}

  std::vector<std::string> errors(const Json& doc) {
    errors_.clear();
    check(root_, doc, "");
    return errors_;
  }

 private:
  const Json& resolve(const Json& s) const {
    if (!s.is_object() || !s.contains("$ref")) return s;
    std::string ref = s["$ref"];
    REQUIRE(ref.rfind("#/$defs/", 0) == 0);
    return root_["$defs"][ref.substr(8)];
  }
  static bool has_type(const Json& v, const std::string& type) {
    if (type == "object") return v.is_object();
    if (type == "array") return v.is_array();
    if (type == "string") return v.is_string();
    if (type == "integer") return v.is_number_integer();
    if (type == "number") return v.is_number();
    if (type == "boolean") return v.is_boolean();
    return v.is_null();
  }
  bool passes(const Json& schema, const Json& v) {
    auto saved = errors_;
    check(schema, v, "");
    bool ok = errors_.size() == saved.size();
    errors_ = std::move(saved);
    return ok;
  }
  void check(const Json& schema_or_ref, const Json& v, const std::string& at) {
    const Json& s = resolve(schema_or_ref);
    if (s.is_boolean()) {
      if (!s.get<bool>()) errors_.push_back(at + ": not allowed");
      return;
    }
    if (s.contains("type")) {
      Json types = s["type"].is_array() ? s["type"] : Json::array({s["type"]});
      bool ok =
          std::any_of(types.begin(), types.end(), [&](const Json& t) { return has_type(v, t.get<std::string>()); });
      if (!ok) errors_.push_back(at + ": wrong type");
    }
    if (s.contains("const") && v != s["const"]) errors_.push_back(at + ": not the constant");
    if (s.contains("enum") && std::find(s["enum"].begin(), s["enum"].end(), v) == s["enum"].end())
      errors_.push_back(at + ": not in the enum");
    if (v.is_object()) check_object(s, v, at);
    if (v.is_array() && s.contains("items"))
      for (std::size_t i = 0; i < v.size(); ++i) check(s["items"], v[i], at + "/" + std::to_string(i));
    if (v.is_array() && s.contains("minItems") && v.size() < s["minItems"].get<std::size_t>())
      errors_.push_back(at + ": too few items");
    for (const Json& sub : s.value("allOf", Json::array())) {
      if (!sub.contains("if"))
        check(sub, v, at);
      else if (passes(sub["if"], v))
        check(sub.value("then", Json(true)), v, at);
      else
        check(sub.value("else", Json(true)), v, at);
    }
    if (s.contains("oneOf")) {
      auto n = std::count_if(s["oneOf"].begin(), s["oneOf"].end(), [&](const Json& sub) { return passes(sub, v); });
      if (n != 1) errors_.push_back(at + ": matches " + std::to_string(n) + " of oneOf");
    }
  }
  void check_object(const Json& s, const Json& v, const std::string& at) {
    for (const Json& key : s.value("required", Json::array()))
      if (!v.contains(key.get<std::string>())) errors_.push_back(at + ": missing " + key.get<std::string>());
    const Json props = s.value("properties", Json::object());
    for (auto it = v.begin(); it != v.end(); ++it) {
      std::string where = at + "/" + it.key();
      if (props.contains(it.key()))
        check(props[it.key()], it.value(), where);
      else if (s.contains("additionalProperties"))
        check(s["additionalProperties"], it.value(), where);
    }
  }

  Json root_;
  std::vector<std::string> errors_;
};

std::string schema(const std::string& name) { return std::string(VP_SCHEMAS_DIR) + "/" + name; }

// ---- a small hand-authored document and its rejected variants

// Lines: 5 cpu, 6 host bridge, 7 switch, 8-9 GPUs, 12-15 links.
const std::string kSmall = R"({
  "format": "vp-topology",
  "version": 1,
  "components": [
    {"id": 0, "kind": "cpu", "cpu_family": "amd"},
    {"id": 1, "kind": "host_bridge", "parent": 0},
    {"id": 2, "kind": "pcie_switch", "parent": 1},
    {"id": 3, "kind": "gpu", "parent": 2, "pci_bus_id": "0000:03:00.0"},
    {"id": 4, "kind": "gpu", "parent": 2, "pci_bus_id": "0000:04:00.0"}
  ],
  "links": [
    {"id": 0, "src": 1, "dst": 0, "kind": "pcie", "pcie_gen": 4, "pcie_width": 16},
    {"id": 1, "src": 2, "dst": 1, "kind": "pcie", "pcie_gen": 4, "pcie_width": 16},
    {"id": 2, "src": 3, "dst": 2, "kind": "pcie", "pcie_gen": 4, "pcie_width": 16},
    {"id": 3, "src": 4, "dst": 2, "kind": "pcie", "pcie_gen": 4, "pcie_width": 16}
  ]
}
)";

// kSmall with the single occurrence of `from` replaced by `to`.
std::string edit(const std::string& from, const std::string& to) {
  std::size_t pos = kSmall.find(from);
  REQUIRE(pos != std::string::npos);
  REQUIRE(kSmall.find(from, pos + 1) == std::string::npos);
  return std::string(kSmall).replace(pos, from.size(), to);
}

// The whole message of the InputError that importing `text` raises.
std::string error_of(const std::string& text) {
  return vp::test::place_and_reason_of([&] { vp::import_json("doc.json", text, {}); });
}

}  // namespace

TEST_CASE("json: the 8-GPU platform fixture imports with the shape it describes") {
  vp::Topology t = import_fixture(kPlatform);
  CHECK(t.gpus.size() == 8);
  CHECK(t.nics.size() == 4);
  CHECK(t.switches.size() == 4);
  CHECK(t.host_bridges.size() == 2);
  CHECK(t.sockets.size() == 2);
  CHECK(t.nodes == std::vector<vp::NodeInfo>{{"node0", "pcie-gen4-2s4sw8g"}});
  // GPUs in bus order, CUDA names following it.
  for (std::size_t i = 0; i < t.gpus.size(); ++i)
    CHECK(t.components[t.gpus[i]].device_name == "cuda" + std::to_string(i));
  auto m = vp::path_type_matrix(t);
  CHECK(m[0][1] == vp::PathType::PIX);
  CHECK(m[0][2] == vp::PathType::PHB);
  CHECK(m[0][4] == vp::PathType::SYS);
  CHECK(vp::to_string(vp::path_type(t, t.gpus[0], t.nics[0])) == "PIX");
}

TEST_CASE("json: omitted capacities of the fixture come from the default table") {
  vp::CapacityDefaults d;
  vp::Topology t = import_fixture(kPlatform);
  for (const vp::Link& l : t.links) {
    if (l.kind == vp::LinkKind::inter_socket) CHECK(l.capacity == d.inter_socket("amd"));
    if (l.pcie_gen) CHECK(l.capacity == d.pcie(4, 16));
  }
  for (vp::ComponentId hb : t.host_bridges) CHECK(t.components[hb].forward == d.root_complex(d.pcie(4, 16).gbps));

  vp::ImportOptions opts;
  opts.defaults.set("pcie.gen4", 22, "--set");
  vp::Topology slow = import_fixture(kPlatform, opts);
  vp::LinkId l = slow.find_link(slow.gpus[0], slow.components[slow.gpus[0]].parent);
  CHECK(slow.links[l].capacity == opts.defaults.pcie(4, 16));
  CHECK(slow.links[l].capacity.source == vp::CapacitySource::user_override);
  CHECK(slow.defaults.overridden == std::set<std::string>{"pcie.gen4"});
  check_round_trip(slow);
}

TEST_CASE("json: export then import is exact for the platform fixture") { check_round_trip(import_fixture(kPlatform)); }

// The golden normalized form beside the fixture; regenerate it with
// `vp-analyze topology --input pcie-gen4-2s4sw8g.json --json` after a deliberate
// change of the format or the default table.
TEST_CASE("json: the platform fixture's normalized form is its expected output") {
  std::string expected = slurp(vp::test::fixture("platforms/pcie-gen4-2s4sw8g.expected.json"));
  CHECK(vp::topology_to_json(import_fixture(kPlatform)).dump(2) + "\n" == expected);
  CHECK(import_fixture("platforms/pcie-gen4-2s4sw8g.expected.json").same_as(import_fixture(kPlatform)));
}

TEST_CASE("json: export then import is exact for the expanded cluster fixtures") {
  for (const char* name :
       {"pcie-gen4-2s4sw8g-4n-switch", "pcie-gen4-2s4sw8g-16n-rail", "pcie-gen4-2s4sw8g-32n-leafspine2to1"}) {
    CAPTURE(name);
    vp::ClusterSpec spec =
        vp::load_cluster_spec(vp::test::fixture(std::string("platforms/") + name + ".cluster.json"), nullptr, {});
    check_round_trip(vp::expand_cluster(spec));
  }
}

TEST_CASE("json: export then import is exact for every real fixture that imports") {
  namespace fs = std::filesystem;
  int checked = 0;
  for (const char* dir : {"real/hwloc-xml", "real/nccl-topo"}) {
    for (const auto& entry : fs::directory_iterator(vp::test::fixture(dir))) {
      std::string path = entry.path().string();
      if (entry.path().extension() != ".xml") continue;
      CAPTURE(path);
      try {
        vp::detect_format(path, slurp(path));
      } catch (const vp::InputError&) {
        continue;  // not a topology (an NCCL graph file)
      }
      vp::Topology t;
      try {
        t = vp::import_topology(path, vp::InputFormat::auto_detect, {});
      } catch (const vp::InputError& e) {
        if (e.reason().find("no GPU") != std::string::npos) continue;
        FAIL_CHECK(e.what());
        continue;
      }
      check_round_trip(t);
      ++checked;
    }
  }
  CHECK(checked > 0);
}

TEST_CASE("json: exported documents have the shape of the schema") {
  SchemaCheck topology(schema("topology.schema.json"));
  vp::Topology node = import_fixture(kPlatform);
  Json doc = vp::topology_to_json(node);
  CHECK(topology.errors(doc).empty());
  std::vector<std::string> keys;
  for (auto it = doc.begin(); it != doc.end(); ++it) keys.push_back(it.key());
  CHECK(keys == std::vector<std::string>{"format", "version", "nodes", "fabric", "defaults", "components", "gpus",
                                         "nics", "switches", "sockets", "links", "path_types", "nic_path_types",
                                         "warnings"});
  vp::ClusterSpec spec = vp::load_cluster_spec(
      vp::test::fixture("platforms/pcie-gen4-2s4sw8g-32n-leafspine2to1.cluster.json"), nullptr, {});
  CHECK(topology.errors(vp::topology_to_json(vp::expand_cluster(spec))).empty());
  // The checker does reject: a component missing its kind, a gpu with ports.
  doc["components"][0].erase("kind");
  doc["components"][8]["ports"] = 1;
  CHECK(topology.errors(doc) ==
        std::vector<std::string>{"/components/0: missing kind", "/components/8/ports: not allowed"});
}

TEST_CASE("json: the hand-authored fixtures have the shape of their schemas") {
  SchemaCheck topology(schema("topology.schema.json")), cluster(schema("cluster.schema.json"));
  for (const auto& entry : std::filesystem::directory_iterator(vp::test::fixture("platforms"))) {
    std::string path = entry.path().string();
    if (entry.path().extension() != ".json") continue;
    CAPTURE(path);
    bool is_cluster = path.size() > 13 && path.substr(path.size() - 13) == ".cluster.json";
    CHECK((is_cluster ? cluster : topology).errors(Json::parse(slurp(path))).empty());
  }
}

TEST_CASE("json: a component's fields are written only where they mean something") {
  Json doc = vp::topology_to_json(import_fixture(kPlatform));
  const Json& cpu = doc["components"][0];
  CHECK(cpu.dump() == R"({"id":0,"kind":"cpu","name":"cpu0","node":0,"parent":null,"local_index":0,)"
                      R"("model":"AMD EPYC 7763 64-Core Processor","cpu_family":"amd"})");
  const Json& nic = doc["components"][doc["nics"][0].get<std::size_t>()];
  CHECK(nic["pci_vendor"] == "0x15b3");
  CHECK(nic["pci_class"] == "0x020700");
  CHECK(nic["line_rate_gbitps"] == 200.0);
  CHECK(!nic.contains("cpu_family"));
  const Json& link = doc["links"][0];
  CHECK(link["capacity_source"] == "default");
  CHECK(link.contains("reverse"));
}

TEST_CASE("json: hand-authored documents: id labels, implicit reverses, derived arrays checked") {
  vp::Topology t = vp::import_json("doc.json", kSmall, {});
  CHECK(t.links.size() == 8);
  CHECK(t.nodes == std::vector<vp::NodeInfo>{{"node0", "doc"}});
  // Ids are labels: renumbering them changes nothing.
  std::string relabelled = edit(R"("id": 4, "kind": "gpu", "parent": 2)", R"("id": 40, "kind": "gpu", "parent": 2)");
  relabelled.replace(relabelled.find(R"("src": 4,)"), 9, R"("src": 40,)");
  CHECK(vp::import_json("doc.json", relabelled, {}).same_as(t));
  // Correct derived arrays are accepted.
  CHECK_NOTHROW(vp::import_json("doc.json", edit(R"("version": 1,)", R"("version": 1, "gpus": [3, 4],)"), {}));
  vp::ImportOptions opts;
  opts.node_type = "small";
  CHECK(vp::import_json("doc.json", kSmall, opts).nodes[0].type == "small");
}

TEST_CASE("json: malformed JSON names the line") {
  CHECK(error_of(edit(R"("version": 1,)", R"("version": 1)")) ==
        "doc.json:4: malformed JSON (syntax error while parsing object - unexpected string literal; expected '}')");
  CHECK(error_of(edit("pcie_width\": 16}\n  ]", "pcie_width\": 16},\n  ]")) ==
        "doc.json:16: malformed JSON (syntax error while parsing value - unexpected ']'; expected '[', '{', or a "
        "literal)");
  CHECK(error_of("") == "doc.json:1: malformed JSON (the file is empty)");
}

TEST_CASE("json: structural errors name the place and the line") {
  CHECK(error_of("[1, 2]") == "doc.json:1: document: must be an object, got an array");
  CHECK(error_of(edit(R"("format": "vp-topology",)", "")) == "doc.json:1: document: missing key \"format\"");
  CHECK(error_of(edit(R"("vp-topology")", R"("vp-cluster")")) ==
        "doc.json:2: format: expected \"vp-topology\", got \"vp-cluster\"");
  CHECK(error_of(edit(R"("version": 1)", R"("version": 2)")) ==
        "doc.json:3: version: unsupported version 2 (this reader knows version 1)");
  CHECK(error_of(edit(R"("version": 1)", R"("version": "1")")) ==
        "doc.json:3: version: must be an integer from 0 to 2147483647, got \"1\"");
  CHECK(error_of(edit(R"("version": 1,)", R"("version": 1, "colour": "red",)")) ==
        "doc.json:1: document: unknown key \"colour\"");
  CHECK(error_of(edit(R"({"id": 0, "kind": "cpu", )", R"({"id": 0, )")) ==
        "doc.json:5: components[0]: missing key \"kind\"");
  CHECK(error_of(edit(R"("kind": "cpu")", R"("kind": 3)")) ==
        "doc.json:5: components[0].kind: must be a string, got 3");
  CHECK(error_of(edit(R"("kind": "cpu")", R"("kind": "socket")")) ==
        "doc.json:5: components[0].kind: unknown component kind \"socket\" (expected cpu, host_bridge, pcie_switch, "
        "gpu, nic or net_switch)");
  CHECK(
      error_of(edit(R"("id": 4, "kind": "gpu", "parent": 2)", R"("id": 4, "kind": "gpu", "parent": 2, "ports": 1)")) ==
      "doc.json:9: components[4]: key \"ports\" applies only to kind nic");
  CHECK(error_of(edit(R"("id": 1, "kind": "host_bridge")", R"("id": 0, "kind": "host_bridge")")) ==
        "doc.json:6: components[1].id: 0 is already the id of components[0]");
  CHECK(error_of(edit(R"("pci_bus_id": "0000:04:00.0")", R"("pci_bus_id": "04:00.0")")) ==
        "doc.json:9: components[4].pci_bus_id: must be a PCI address such as \"0000:17:00.0\", got \"04:00.0\"");
  CHECK(error_of(edit(R"("pci_bus_id": "0000:04:00.0")", R"("pci_bus_id": "0000:04:20.0")")) ==
        "doc.json:9: components[4].pci_bus_id: must be a PCI address such as \"0000:17:00.0\", got \"0000:04:20.0\"");
  CHECK(error_of(edit(R"("pci_bus_id": "0000:04:00.0")", R"("pci_bus_id": "0000:04:00.8")")) ==
        "doc.json:9: components[4].pci_bus_id: must be a PCI address such as \"0000:17:00.0\", got \"0000:04:00.8\"");
  CHECK(error_of(edit(R"("cpu_family": "amd")", R"("cpu_family": "amd", "pci_vendor": "10de")")) ==
        "doc.json:5: components[0].pci_vendor: must be a hex string of 1 to 4 digits such as \"0x10de\", got \"10de\"");
  CHECK(error_of(edit(R"("version": 1,)", R"("version": 1, "warnings": {"a": 1},)")) ==
        "doc.json:3: warnings: must be an array, got an object");
}

TEST_CASE("json: model errors name the place and the line") {
  CHECK(error_of(edit(R"("src": 3, "dst": 2, "kind": "pcie", "pcie_gen": 4, "pcie_width": 16)",
                      R"("src": 3, "dst": 2, "kind": "pcie", "capacity_gbps": -3)")) ==
        "doc.json:14: links[2].capacity_gbps: must be a capacity from 0.001 to 1e+06 GB/s, got -3");
  CHECK(error_of(edit(R"("src": 3, "dst": 2, "kind": "pcie", "pcie_gen": 4, "pcie_width": 16)",
                      R"("src": 3, "dst": 2, "kind": "pcie", "capacity_gbps": 0)")) ==
        "doc.json:14: links[2].capacity_gbps: must be a capacity from 0.001 to 1e+06 GB/s, got 0");
  CHECK(error_of(edit(R"("id": 4, "kind": "gpu", "parent": 2)", R"("id": 4, "kind": "gpu", "parent": 99)")) ==
        "doc.json:9: components[4].parent: refers to component 99, which does not exist");
  CHECK(error_of(edit(R"("0000:04:00.0")", R"("0000:03:00.0")")) ==
        "doc.json:9: components[4].pci_bus_id: \"0000:03:00.0\" is already the bus id of component 3 in the same node");
  CHECK(error_of(edit(R"("kind": "pcie_switch", "parent": 1)", R"("kind": "pcie_switch", "parent": 3)")) ==
        "doc.json:7: components[2].parent: the parents form a cycle: 2 -> 3 -> 2");
  CHECK(error_of(edit(R"({"id": 3, "src": 4, "dst": 2, "kind": "pcie", "pcie_gen": 4, "pcie_width": 16})",
                      R"({"id": 3, "src": 3, "dst": 2, "kind": "pcie", "pcie_gen": 4, "pcie_width": 16})")) ==
        "doc.json:15: links[3]: duplicates links[2] (component 3 -> 2)");
  CHECK(error_of(edit(R"({"id": 3, "src": 4, "dst": 2, "kind": "pcie", "pcie_gen": 4, "pcie_width": 16})",
                      R"({"id": 3, "src": 2, "dst": 3, "kind": "pcie", "pcie_gen": 4, "pcie_width": 16})")) ==
        "doc.json:14: links[2]: its implicit reverse (component 2 -> 3) duplicates links[3]; pair the two with "
        "\"reverse\" or drop one");
  CHECK(error_of(edit(R"(,
    {"id": 3, "src": 4, "dst": 2, "kind": "pcie", "pcie_gen": 4, "pcie_width": 16})",
                      "")) == "doc.json:9: components[4].parent: no link joins component 4 to its parent 2");
  CHECK(error_of(edit(R"("src": 4, "dst": 2, "kind": "pcie", "pcie_gen": 4, "pcie_width": 16)",
                      R"("src": 4, "dst": 2, "kind": "pcie")")) ==
        "doc.json:15: links[3]: missing \"capacity_gbps\" (or \"pcie_gen\"/\"pcie_width\" to derive it)");
  CHECK(error_of(edit(R"("src": 4, "dst": 2, "kind": "pcie", "pcie_gen": 4, "pcie_width": 16)",
                      R"("src": 4, "dst": 2, "kind": "pcie", "pcie_gen": 4, "capacity_source": "input")")) ==
        "doc.json:15: links[3].capacity_source: must be \"default\" when \"capacity_gbps\" is absent (the table "
        "decides the figure)");
  CHECK(error_of(edit(R"("src": 4, "dst": 2, "kind": "pcie", "pcie_gen": 4, "pcie_width": 16)",
                      R"("src": 4, "dst": 9, "kind": "pcie", "pcie_gen": 4, "pcie_width": 16)")) ==
        "doc.json:15: links[3].dst: refers to component 9, which does not exist");
  CHECK(error_of(edit(R"("src": 4, "dst": 2, "kind": "pcie", "pcie_gen": 4, "pcie_width": 16)",
                      R"("src": 4, "dst": 2, "kind": "pcie", "pcie_gen": 4, "pcie_width": 16, "reverse": 2)")) ==
        "doc.json:15: links[3].reverse: link 2 goes from component 3 to 2, not from 2 to 4");
  CHECK(error_of(edit(R"("src": 4, "dst": 2, "kind": "pcie", "pcie_gen": 4, "pcie_width": 16)",
                      R"("src": 4, "dst": 2, "kind": "network", "pcie_gen": 4, "pcie_width": 16)")) ==
        "doc.json:15: links[3]: key \"pcie_gen\" applies only to kind pcie");
}

TEST_CASE("json: the defaults and the output-only arrays are checked") {
  CHECK(error_of(edit(R"("version": 1,)", R"("version": 1, "defaults": {"pcie.gen4": -1},)")) ==
        "doc.json:3: defaults.pcie.gen4: must be a positive number, got -1");
  const std::string unknown_reason =
      vp::test::reason_of([] { vp::CapacityDefaults().set("pcie.bogus", 1, ""); }).substr(std::string("pcie.bogus: ").size());
  CHECK(error_of(edit(R"("version": 1,)", R"("version": 1, "defaults": {"pcie.bogus": 1},)")) ==
        "doc.json:3: defaults.pcie.bogus: " + unknown_reason);
  CHECK(error_of(edit(R"("version": 1,)", R"("version": 1, "defaults": {"overridden": ["x"]},)")) ==
        "doc.json:3: defaults.overridden[0]: \"x\" is not a key of the default table");
  CHECK(error_of(edit(R"("version": 1,)", R"("version": 1, "gpus": [4, 3],)")) ==
        "doc.json:3: gpus[0]: is 4, but the model gives 3");
  CHECK(error_of(edit(R"("version": 1,)", R"("version": 1, "gpus": [3],)")) ==
        "doc.json:3: gpus: has length 1, but the model has 2 (this array is output-only and may be omitted)");
  CHECK(error_of(edit(R"("version": 1,)", R"("version": 1, "path_types": [["LOC", "PIX"], ["PIX", "PHB"]],)")) ==
        "doc.json:3: path_types[1][1]: is \"PHB\", but the model gives \"LOC\"");
}

TEST_CASE("json: nic_path_types is the GPU x NIC matrix; the reader checks it against the model") {
  const vp::Topology t = import_fixture(kPlatform);
  Json doc = vp::topology_to_json(t);
  // GPU0 and GPU1 under NIC0's switch, GPU2/3 under NIC1's (same host
  // bridge), NIC2/3 on the other socket.
  REQUIRE(doc.at("nic_path_types").size() == 8);
  CHECK(doc["nic_path_types"][0] == Json({"PIX", "PHB", "SYS", "SYS"}));
  CHECK(doc["nic_path_types"][3] == Json({"PHB", "PIX", "SYS", "SYS"}));
  CHECK(doc["nic_path_types"][6] == Json({"SYS", "SYS", "PHB", "PIX"}));
  // Accepted as printed (the round trip), rejected where it disagrees.
  CHECK_NOTHROW(vp::import_json("doc.json", doc.dump(2), {}));
  auto reason = [](const Json& d) { return vp::test::reason_of([&] { vp::import_json("doc.json", d.dump(), {}); }); };
  Json wrong_cell = doc;
  wrong_cell["nic_path_types"][1][2] = "NODE";
  CHECK(reason(wrong_cell) == "nic_path_types[1][2]: is \"NODE\", but the model gives \"SYS\"");
  Json short_row = doc;
  short_row["nic_path_types"][5].erase(3);
  CHECK(reason(short_row) == "nic_path_types[5]: has length 3, but the model has 4 NICs");
  Json wrong_rows = doc;
  wrong_rows["nic_path_types"].erase(7);
  CHECK(reason(wrong_rows) ==
        "nic_path_types: has length 7, but the model has 8 GPUs (this array is output-only and may be omitted)");
  Json omitted = doc;
  omitted.erase("nic_path_types");
  CHECK(vp::import_json("doc.json", omitted.dump(), {}).same_as(t));
  // Without NICs: one empty row per GPU, checked as such.
  CHECK(error_of(edit(R"("version": 1,)", R"("version": 1, "nic_path_types": [[], []],)")) == vp::test::kNoError);
  CHECK(error_of(edit(R"("version": 1,)", R"("version": 1, "nic_path_types": [[], ["PIX"]],)")) ==
        "doc.json:3: nic_path_types[1]: has length 1, but the model has 0 NICs");
  CHECK(vp::topology_to_json(vp::import_json("doc.json", kSmall, {}))["nic_path_types"] ==
        Json({Json::array(), Json::array()}));
}

TEST_CASE("json: each path-type matrix is written up to kMaxPathTypeCells cells") {
  // 129 nodes of 8 GPUs: 1,032 GPUs, over kMaxPathTypeGpus, so no GPU x GPU
  // matrix; with 4 NICs a node the GPU x NIC matrix has 532,512 cells and is
  // written, with 8 NICs a node 1,065,024 cells and is not.
  static_assert(vp::kMaxPathTypeCells == 1024u * 1024u);
  for (const char* shape : {"[g2,n1],[g2,n1]|[g2,n1],[g2,n1]", "[g2,n2],[g2,n2]|[g2,n2],[g2,n2]"}) {
    CAPTURE(shape);
    vp::Topology node = vp::make_node_from_shape(shape, {});
    vp::Topology big = vp::expand_cluster(vp::cluster_from_shortcut(node, 129, vp::FabricKind::single_switch, 0, 1.0));
    REQUIRE(big.gpus.size() == 1032);
    Json doc = vp::topology_to_json(big);
    CHECK(!doc.contains("path_types"));
    bool small_enough = big.gpus.size() * big.nics.size() <= vp::kMaxPathTypeCells;
    CHECK(small_enough == (big.nics.size() == 516));
    REQUIRE(doc.contains("nic_path_types") == small_enough);
    if (small_enough) {
      CHECK(doc["nic_path_types"].size() == 1032);
      CHECK(doc["nic_path_types"][1031][515] == "PIX");
      CHECK(doc["nic_path_types"][1031][0] == "NET");
    }
  }
}

TEST_CASE("json: nodes and the fabric are checked") {
  const std::string two_nodes = R"("version": 1, "nodes": [{"name": "a", "type": "t"}, {"name": "b", "type": "t"}],)";
  CHECK(error_of(edit(R"("version": 1,)", two_nodes)) ==
        "doc.json:5: components[0]: missing key \"node\" "
        "(the document has 2 nodes)");
  CHECK(error_of(edit(R"("version": 1,)",
                      R"("version": 1, "nodes": [{"name": "a", "type": "t"}, {"name": "a", "type": "t"}],)")) ==
        "doc.json:3: nodes[1].name: \"a\" is already the name of nodes[0]");
  CHECK(error_of(edit(R"({"id": 0, "kind": "cpu", )", R"({"id": 0, "kind": "cpu", "node": 1, )")) ==
        "doc.json:5: components[0].node: must be an integer from 0 to 0, got 1");
  CHECK(error_of(edit(R"("version": 1,)", R"("version": 1, "fabric": {"kind": "torus"},)")) ==
        "doc.json:3: fabric.kind: unknown fabric kind \"torus\" (expected none, single_switch, rail or leaf_spine)");
}
