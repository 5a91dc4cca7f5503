// The C API (vpcat.h): every function, against the C++ API it wraps (same
// answers, same codes, same messages), and with bad inputs: NULL pointers,
// indexes out of range, short buffers, corrupt catalogs, bad demands and
// options each get their status, never a crash. This binary replaces the
// global operator new with a counting one (counting_new.cpp) to check that planning again
// through the C API allocates nothing.
#include <doctest/doctest.h>

#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <new>
#include <set>
#include <string>
#include <vector>

#include "counting_new.hpp"
#include "vpcat.h"
#include "vpcat/mapped_file.hpp"
#include "vpcat/planner.hpp"

extern "C" int vpcat_c_api_test_from_c(const char* path, char* out, size_t out_size);

namespace fs = std::filesystem;

namespace {

const std::string kFixtures = VP_FIXTURES_DIR;
const std::string kGolden = kFixtures + "/catalogs/format-1.0/quad-rail4.vpcat";

std::vector<unsigned char> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string vp_read_expected(fs::path vpcat) {
  std::ifstream in(vpcat.replace_extension(".expected"), std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

// An error struct that a call must not touch on success.
vpcat_error poisoned() {
  vpcat_error e;
  std::memset(&e, 0x5a, sizeof e);
  e.message[sizeof e.message - 1] = '\0';
  return e;
}
bool untouched(const vpcat_error& e) { return e.message[0] == 0x5a && e.offset == 0x5a5a5a5a5a5a5a5aull; }

// The golden catalog through both APIs.
struct Both {
  vpcat::CatalogFile cpp;
  vpcat_catalog* c = nullptr;
  Both() {
    REQUIRE(vpcat::CatalogFile::open(kGolden.c_str(), &cpp).ok());
    vpcat_error err;
    REQUIRE(vpcat_catalog_open_file(kGolden.c_str(), nullptr, &c, &err) == VPCAT_OK);
  }
  ~Both() { vpcat_catalog_destroy(c); }
  const vpcat::CatalogView& view() const { return cpp.view(); }
};

}  // namespace

TEST_CASE("versions: library and format, separately") {
  CHECK(vpcat_version_number() == VPCAT_VERSION_NUMBER);
  CHECK(vpcat_version_number() ==
        unsigned(vpcat::kLibraryVersionMajor * 10000 + vpcat::kLibraryVersionMinor * 100 + vpcat::kLibraryVersionPatch));
  CHECK(std::string(vpcat_version_string()) == std::to_string(vpcat::kLibraryVersionMajor) + "." +
                                                   std::to_string(vpcat::kLibraryVersionMinor) + "." +
                                                   std::to_string(vpcat::kLibraryVersionPatch));
  CHECK(vpcat_format_major() == vpcat::kFormatMajor);
  CHECK(vpcat_format_minor() == vpcat::kFormatMinor);
  CHECK(vpcat_format_major() == VPCAT_FORMAT_MAJOR);
}

TEST_CASE("status codes: the C++ codes, names and messages; C layer codes from 200") {
  for (const vpcat::ErrorInfo& e : vpcat::kErrors) {
    const auto code = static_cast<vpcat_status>(e.code);
    CHECK(std::string(vpcat_status_name(code)) == e.name);
    CHECK(std::string(vpcat_status_message(code)) == e.message);
  }
  for (const vpcat::PlanErrorInfo& e : vpcat::kPlanErrors) {
    const auto code = static_cast<vpcat_status>(e.code);
    CHECK(std::string(vpcat_status_name(code)) == e.name);
    CHECK(std::string(vpcat_status_message(code)) == e.message);
  }
  CHECK(std::string(vpcat_status_name(VPCAT_E_INVALID_ARGUMENT)) == "invalid_argument");
  CHECK(std::string(vpcat_status_name(VPCAT_E_OUT_OF_RANGE)) == "out_of_range");
  CHECK(std::string(vpcat_status_name(VPCAT_E_BUFFER_TOO_SMALL)) == "buffer_too_small");
  CHECK(std::string(vpcat_status_name(VPCAT_E_NOT_FOUND)) == "not_found");
  CHECK(std::string(vpcat_status_message(VPCAT_E_NOT_FOUND)) == "not found");
  for (int unknown : {-1, 47, 99, 113, 199, 204, 1000}) {  // 47, 113: the first reader and planner codes not (yet) defined
    CHECK(std::string(vpcat_status_name(static_cast<vpcat_status>(unknown))) == "unknown");
    CHECK(std::string(vpcat_status_message(static_cast<vpcat_status>(unknown))) == "unknown status code");
  }
}

TEST_CASE("open a file: the C++ answers; bad arguments get a status and a message") {
  Both b;
  vpcat_catalog_info info;
  REQUIRE(vpcat_catalog_get_info(b.c, &info) == VPCAT_OK);
  const vpcat::CatalogView& v = b.view();
  CHECK(info.format_major == v.layout().format_major);
  CHECK(info.format_minor == v.layout().format_minor);
  CHECK(info.min_reader_minor == v.layout().min_reader_minor);
  CHECK(info.writer_major == v.layout().writer_major);
  CHECK(info.writer_minor == v.layout().writer_minor);
  CHECK(info.writer_patch == v.layout().writer_patch);
  CHECK(info.file_size == v.file_size());
  CHECK(info.section_count == v.section_count());
  CHECK(info.node_type_count == v.node_type_count());
  CHECK(info.node_group_count == v.node_group_count());
  CHECK(info.node_count == v.node_count());
  CHECK(info.gpu_count == v.gpu_count());
  CHECK(info.nic_count == v.nic_count());
  CHECK(info.global_component_count == v.global_component_count());
  CHECK(info.global_link_count == v.global_link_count());
  CHECK(info.default_count == v.default_count());
  CHECK(std::string(info.cluster_group_order) == v.cluster_group_order());
  CHECK(std::string(info.tool) == v.provenance().tool);
  CHECK(std::string(info.tool_version) == v.provenance().tool_version);
  CHECK(std::string(info.input_digest) == v.provenance().input_digest);
  CHECK(std::string(info.tool_options) == v.provenance().options);
  CHECK(info.gpu_count == 16);

  std::uint64_t gpus = 0;
  std::uint32_t nodes = 0, types = 0;
  CHECK(vpcat_catalog_gpu_count(b.c, &gpus) == VPCAT_OK);
  CHECK(vpcat_catalog_node_count(b.c, &nodes) == VPCAT_OK);
  CHECK(vpcat_catalog_node_type_count(b.c, &types) == VPCAT_OK);
  CHECK(gpus == v.gpu_count());
  CHECK(nodes == v.node_count());
  CHECK(types == v.node_type_count());
  CHECK(vpcat_catalog_get_info(nullptr, &info) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_catalog_get_info(b.c, nullptr) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_catalog_gpu_count(nullptr, &gpus) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_catalog_gpu_count(b.c, nullptr) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_catalog_node_count(nullptr, &nodes) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_catalog_node_count(b.c, nullptr) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_catalog_node_type_count(nullptr, &types) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_catalog_node_type_count(b.c, nullptr) == VPCAT_E_INVALID_ARGUMENT);

  vpcat_catalog* cat = nullptr;
  vpcat_error err = poisoned();
  CHECK(vpcat_catalog_open_file(kGolden.c_str(), nullptr, &cat, &err) == VPCAT_OK);
  CHECK(untouched(err));  // success leaves the error alone
  vpcat_catalog_destroy(cat);
  cat = nullptr;
  CHECK(vpcat_catalog_open_file(kGolden.c_str(), nullptr, &cat, nullptr) == VPCAT_OK);  // err is optional
  vpcat_catalog_destroy(cat);
  vpcat_catalog_destroy(nullptr);

  cat = nullptr;
  CHECK(vpcat_catalog_open_file(nullptr, nullptr, &cat, &err) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(std::string(err.message) == "vpcat_catalog_open_file: invalid argument (path is NULL)");
  CHECK(err.code == VPCAT_E_INVALID_ARGUMENT);
  CHECK(err.offset == VPCAT_NO_OFFSET);
  CHECK(vpcat_catalog_open_file(kGolden.c_str(), nullptr, nullptr, &err) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(std::string(err.message) == "vpcat_catalog_open_file: invalid argument (out is NULL)");
  CHECK(vpcat_catalog_open_file(nullptr, nullptr, &cat, nullptr) == VPCAT_E_INVALID_ARGUMENT);

  const std::string missing = kFixtures + "/no-such-file.vpcat";
  CHECK(vpcat_catalog_open_file(missing.c_str(), nullptr, &cat, &err) == VPCAT_E_IO_ERROR);
  CHECK(std::string(err.message) == missing + ": cannot read the file (open: No such file or directory)");
  CHECK(vpcat_catalog_open_file(kFixtures.c_str(), nullptr, &cat, &err) == VPCAT_E_IO_ERROR);
  CHECK(std::string(err.message) == kFixtures + ": cannot read the file (not a regular file)");
  CHECK(cat == nullptr);  // never written on failure

  vpcat_verify_options o = vpcat_verify_options_default();
  const vpcat::VerifyOptions d;
  CHECK(o.struct_size == sizeof(vpcat_verify_options));
  CHECK(o.max_file_size == d.max_file_size);
  CHECK(o.max_sections == d.max_sections);
  CHECK(o.max_nodes == d.max_nodes);
  CHECK(o.max_tree_depth == d.max_tree_depth);
  o.max_file_size = 100;
  CHECK(vpcat_catalog_open_file(kGolden.c_str(), &o, &cat, &err) == VPCAT_E_FILE_TOO_LARGE);
  CHECK(std::string(err.message) == kGolden + ": file exceeds the size limit (4632 bytes, limit max_file_size 100)");
  o = vpcat_verify_options_default();
  o.max_nodes = 2;
  CHECK(vpcat_catalog_open_file(kGolden.c_str(), &o, &cat, &err) == VPCAT_E_LIMIT_EXCEEDED);
  CHECK(err.section == 10);  // node_groups
  CHECK(err.offset != VPCAT_NO_OFFSET);
  o.struct_size = 8;
  CHECK(vpcat_catalog_open_file(kGolden.c_str(), &o, &cat, &err) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(std::string(err.message) ==
        "vpcat_catalog_open_file: invalid argument (options->struct_size is 8, this library's vpcat_verify_options "
        "has " + std::to_string(sizeof(vpcat_verify_options)) + " bytes: start from vpcat_verify_options_default())");
  CHECK(cat == nullptr);
}

TEST_CASE("corrupt catalogs: the verifier's code, section, offset and message, by file and by buffer") {
  int files = 0;
  for (const fs::directory_entry& e : fs::directory_iterator(kFixtures + "/corrupt")) {
    if (e.path().extension() != ".vpcat") continue;
    ++files;
    CAPTURE(e.path().string());
    const std::vector<unsigned char> bytes = read_bytes(e.path().string());
    const vpcat::Status cpp = vpcat::verify(bytes.data(), bytes.size(), nullptr);
    REQUIRE(!cpp.ok());
    std::string expected = trimmed(vp_read_expected(e.path()));
    CHECK(std::string(cpp.message()) == expected);

    vpcat_catalog* cat = nullptr;
    vpcat_error err = poisoned();
    CHECK(vpcat_catalog_open_buffer(bytes.data(), bytes.size(), VPCAT_OPEN_BORROW, nullptr, &cat, &err) ==
          static_cast<vpcat_status>(cpp.code()));
    CHECK(err.code == static_cast<vpcat_status>(cpp.code()));
    CHECK(err.section == cpp.section());
    CHECK(err.offset == cpp.offset());
    CHECK(std::string(err.message) == expected);
    CHECK(cat == nullptr);

    err = poisoned();
    CHECK(vpcat_catalog_open_buffer(bytes.data(), bytes.size(), VPCAT_OPEN_COPY, nullptr, &cat, &err) ==
          static_cast<vpcat_status>(cpp.code()));
    CHECK(std::string(err.message) == expected);
    err = poisoned();
    CHECK(vpcat_verify_buffer(bytes.data(), bytes.size(), nullptr, &err) == static_cast<vpcat_status>(cpp.code()));
    CHECK(std::string(err.message) == expected);

    // By file: the same verdict (an empty file included).
    err = poisoned();
    CHECK(vpcat_catalog_open_file(e.path().c_str(), nullptr, &cat, &err) == static_cast<vpcat_status>(cpp.code()));
    CHECK(std::string(err.message) == expected);
    CHECK(cat == nullptr);
  }
  CHECK(files >= 30);
}

TEST_CASE("open a caller's buffer: borrowed in place, or copied") {
  std::vector<unsigned char> bytes = read_bytes(kGolden);
  vpcat_catalog* borrowed = nullptr;
  vpcat_catalog* copied = nullptr;
  vpcat_error err = poisoned();
  REQUIRE(vpcat_catalog_open_buffer(bytes.data(), bytes.size(), VPCAT_OPEN_BORROW, nullptr, &borrowed, &err) ==
          VPCAT_OK);
  REQUIRE(vpcat_catalog_open_buffer(bytes.data(), bytes.size(), VPCAT_OPEN_COPY, nullptr, &copied, &err) == VPCAT_OK);
  CHECK(untouched(err));
  vpcat_catalog_info a, c;
  REQUIRE(vpcat_catalog_get_info(borrowed, &a) == VPCAT_OK);
  REQUIRE(vpcat_catalog_get_info(copied, &c) == VPCAT_OK);
  // Borrowed strings point into the caller's bytes; copied ones do not.
  const auto* lo = reinterpret_cast<const char*>(bytes.data());
  CHECK((a.tool >= lo && a.tool < lo + bytes.size()));
  CHECK(!(c.tool >= lo && c.tool < lo + bytes.size()));
  CHECK(std::string(a.tool) == c.tool);
  // The copy survives the caller's buffer.
  const std::string tool = c.tool;
  std::memset(bytes.data(), 0, bytes.size());
  bytes.clear();
  bytes.shrink_to_fit();
  REQUIRE(vpcat_catalog_get_info(copied, &c) == VPCAT_OK);
  CHECK(std::string(c.tool) == tool);
  CHECK(c.gpu_count == 16);
  vpcat_catalog_destroy(copied);
  vpcat_catalog_destroy(borrowed);  // destroyed before use: its bytes are gone

  vpcat_catalog* cat = nullptr;
  const std::vector<unsigned char> good = read_bytes(kGolden);
  CHECK(vpcat_catalog_open_buffer(good.data(), good.size(), 2u, nullptr, &cat, &err) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(std::string(err.message) == "vpcat_catalog_open_buffer: invalid argument (unknown flag bits 0x2)");
  CHECK(vpcat_catalog_open_buffer(good.data(), good.size(), 0, nullptr, nullptr, &err) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_catalog_open_buffer(nullptr, 64, VPCAT_OPEN_COPY, nullptr, &cat, &err) == VPCAT_E_IO_ERROR);
  CHECK(std::string(err.message) == "file: cannot read the file (no buffer)");
  CHECK(vpcat_catalog_open_buffer(nullptr, 0, 0, nullptr, &cat, &err) == VPCAT_E_TRUNCATED);
  vpcat_verify_options o = vpcat_verify_options_default();
  o.max_file_size = 4096;
  CHECK(vpcat_catalog_open_buffer(good.data(), good.size(), VPCAT_OPEN_COPY, &o, &cat, &err) ==
        VPCAT_E_FILE_TOO_LARGE);
  CHECK(std::string(err.message) == "buffer: file exceeds the size limit (4632 bytes, limit max_file_size 4096)");
  o.struct_size = 0;
  CHECK(vpcat_catalog_open_buffer(good.data(), good.size(), 0, &o, &cat, &err) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_verify_buffer(good.data(), good.size(), &o, &err) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(std::string(err.message).rfind("vpcat_verify_buffer: invalid argument (options->struct_size is 0", 0) == 0);
  CHECK(cat == nullptr);
  CHECK(vpcat_verify_buffer(good.data(), good.size(), nullptr, nullptr) == VPCAT_OK);
  CHECK(vpcat_verify_buffer(good.data(), good.size() - 1, nullptr, nullptr) != VPCAT_OK);
}

TEST_CASE("cluster queries: sections, defaults, fabric, node groups, nodes") {
  Both b;
  const vpcat::CatalogView& v = b.view();
  for (std::uint32_t i = 0; i < v.section_count(); ++i) {
    vpcat_section s;
    REQUIRE(vpcat_catalog_section(b.c, i, &s) == VPCAT_OK);
    const vpcat::SectionEntry e = v.section(i);
    CHECK(s.type == e.type);
    CHECK(s.flags == e.flags);
    CHECK(std::string(s.name) == e.name);
    CHECK(s.offset == e.offset);
    CHECK(s.size == e.size);
    CHECK(s.checksum == e.checksum);
  }
  vpcat_section s;
  CHECK(vpcat_catalog_section(b.c, v.section_count(), &s) == VPCAT_E_OUT_OF_RANGE);
  CHECK(vpcat_catalog_section(nullptr, 0, &s) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_catalog_section(b.c, 0, nullptr) == VPCAT_E_INVALID_ARGUMENT);

  REQUIRE(v.default_count() > 0);
  for (std::uint32_t i = 0; i < v.default_count(); ++i) {
    const char* key = nullptr;
    double value = 0;
    REQUIRE(vpcat_catalog_default(b.c, i, &key, &value) == VPCAT_OK);
    CHECK(std::string(key) == v.default_at(i).key);
    CHECK(value == v.default_at(i).value);
  }
  const char* key = nullptr;
  double value = 0;
  CHECK(vpcat_catalog_default(b.c, v.default_count(), &key, &value) == VPCAT_E_OUT_OF_RANGE);
  CHECK(vpcat_catalog_default(nullptr, 0, &key, &value) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_catalog_default(b.c, 0, nullptr, &value) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_catalog_default(b.c, 0, &key, nullptr) == VPCAT_E_INVALID_ARGUMENT);

  vpcat_fabric f;
  REQUIRE(vpcat_catalog_fabric(b.c, &f) == VPCAT_OK);
  const vpcat::FabricView fv = v.fabric();
  CHECK(f.kind == VPCAT_FABRIC_RAIL);
  CHECK(static_cast<int>(f.kind) == static_cast<int>(fv.kind));
  CHECK(f.leaf_size == fv.leaf_size);
  CHECK(f.oversubscription == fv.oversubscription);
  CHECK(f.switches == fv.switches);
  CHECK(f.spine == (fv.spine ? 1u : 0u));
  CHECK(std::string(f.group_description) == fv.group_description);
  CHECK(std::string(f.group_order) == fv.group_order);
  CHECK(vpcat_catalog_fabric(nullptr, &f) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_catalog_fabric(b.c, nullptr) == VPCAT_E_INVALID_ARGUMENT);

  for (std::uint32_t n = 0; n < v.node_count(); ++n) {
    const vpcat::NodeRef ref = v.node(n);
    vpcat_node node;
    REQUIRE(vpcat_catalog_node(b.c, n, &node) == VPCAT_OK);
    CHECK(node.node == n);
    CHECK(node.node_type == ref.node_type);
    CHECK(node.group == ref.group);
    CHECK(node.gpu_count == v.node_type(ref.node_type).gpu_count());
    CHECK(node.nic_count == v.node_type(ref.node_type).nic_count());
    CHECK(node.first_component == ref.first_component);
    CHECK(node.first_link == ref.first_link);
    CHECK(node.first_gpu == ref.first_gpu);
    CHECK(node.first_nic == ref.first_nic);
    for (std::uint32_t k = 0; k < node.nic_count; ++k) {
      std::uint32_t sw = 99;
      REQUIRE(vpcat_catalog_nic_switch(b.c, n, k, &sw) == VPCAT_OK);
      CHECK(sw == v.switch_of_nic(n, k));
    }
    std::uint32_t sw = 0;
    CHECK(vpcat_catalog_nic_switch(b.c, n, node.nic_count, &sw) == VPCAT_E_OUT_OF_RANGE);
  }
  vpcat_node node;
  std::uint32_t sw = 0;
  CHECK(vpcat_catalog_node(b.c, v.node_count(), &node) == VPCAT_E_OUT_OF_RANGE);
  CHECK(vpcat_catalog_node(nullptr, 0, &node) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_catalog_node(b.c, 0, nullptr) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_catalog_nic_switch(b.c, v.node_count(), 0, &sw) == VPCAT_E_OUT_OF_RANGE);
  CHECK(vpcat_catalog_nic_switch(nullptr, 0, 0, &sw) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_catalog_nic_switch(b.c, 0, 0, nullptr) == VPCAT_E_INVALID_ARGUMENT);

  for (std::uint32_t k = 0; k < f.switches; ++k) {
    double gbps = 0;
    if (fv.spine) {
      REQUIRE(vpcat_catalog_spine_uplink_gbps(b.c, k, &gbps) == VPCAT_OK);
      CHECK(gbps == v.spine_uplink_gbps(k));
    } else {
      CHECK(vpcat_catalog_spine_uplink_gbps(b.c, k, &gbps) == VPCAT_E_NOT_FOUND);
    }
  }
  double gbps = 0;
  CHECK(vpcat_catalog_spine_uplink_gbps(b.c, f.switches, &gbps) == VPCAT_E_OUT_OF_RANGE);
  CHECK(vpcat_catalog_spine_uplink_gbps(nullptr, 0, &gbps) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_catalog_spine_uplink_gbps(b.c, 0, nullptr) == VPCAT_E_INVALID_ARGUMENT);

  for (std::uint32_t g = 0; g < v.node_group_count(); ++g) {
    const vpcat::NodeGroupView ref = v.node_group(g);
    vpcat_node_group group;
    REQUIRE(vpcat_catalog_node_group(b.c, g, &group) == VPCAT_OK);
    CHECK(group.node_type == ref.node_type);
    CHECK(group.count == ref.count);
    CHECK(std::string(group.names) == ref.names);
    CHECK(group.first_node == ref.first_node);
    CHECK(group.first_component == ref.first_component);
    CHECK(group.first_link == ref.first_link);
    CHECK(group.first_gpu == ref.first_gpu);
    CHECK(group.first_nic == ref.first_nic);
  }
  vpcat_node_group group;
  CHECK(vpcat_catalog_node_group(b.c, v.node_group_count(), &group) == VPCAT_E_OUT_OF_RANGE);
  CHECK(vpcat_catalog_node_group(nullptr, 0, &group) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_catalog_node_group(b.c, 0, nullptr) == VPCAT_E_INVALID_ARGUMENT);
}

TEST_CASE("GPUs: node of a GPU, bus id and device name, both ways") {
  Both b;
  const vpcat::CatalogView& v = b.view();
  std::uint64_t seen = 0;
  for (std::uint32_t n = 0; n < v.node_count(); ++n) {
    const vpcat::NodeRef ref = v.node(n);
    const vpcat::NodeTypeView t = v.node_type(ref.node_type);
    for (std::uint32_t g = 0; g < t.gpu_count(); ++g, ++seen) {
      const std::uint64_t global = ref.first_gpu + g;
      const vpcat::ComponentView c = t.component(t.gpu(g));
      vpcat_gpu gpu;
      REQUIRE(vpcat_catalog_gpu(b.c, global, &gpu) == VPCAT_OK);
      CHECK(gpu.gpu == global);
      CHECK(gpu.node == n);
      CHECK(gpu.node_type == ref.node_type);
      CHECK(gpu.local_index == g);
      CHECK(gpu.component == t.gpu(g));
      CHECK(gpu.orbit == c.orbit());
      CHECK(gpu.global_component == ref.first_component + t.gpu(g));
      CHECK(std::string(gpu.name) == c.name());
      CHECK(std::string(gpu.model) == c.model());
      CHECK(std::string(gpu.pci_bus_id) == c.pci_bus_id());
      CHECK(std::string(gpu.device_name) == c.device_name());
      std::uint32_t node = 99;
      REQUIRE(vpcat_catalog_node_of_gpu(b.c, global, &node) == VPCAT_OK);
      CHECK(node == n);

      REQUIRE(!c.pci_bus_id().empty());
      std::uint64_t found = 999;
      CHECK(vpcat_catalog_gpu_by_bus_id(b.c, n, gpu.pci_bus_id, &found) == VPCAT_OK);
      CHECK(found == global);
      // NVML's spelling: an 8-digit domain, upper case.
      std::string nvml = "0000" + std::string(gpu.pci_bus_id);
      for (char& ch : nvml) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      found = 999;
      CHECK(vpcat_catalog_gpu_by_bus_id(b.c, n, nvml.c_str(), &found) == VPCAT_OK);
      CHECK(found == global);
      // Without the domain: domain 0.
      found = 999;
      CHECK(vpcat_catalog_gpu_by_bus_id(b.c, n, std::string(gpu.pci_bus_id).substr(5).c_str(), &found) == VPCAT_OK);
      CHECK(found == global);
      if (!c.device_name().empty()) {
        found = 999;
        CHECK(vpcat_catalog_gpu_by_device_name(b.c, n, gpu.device_name, &found) == VPCAT_OK);
        CHECK(found == global);
      }
    }
  }
  CHECK(seen == v.gpu_count());
  vpcat_gpu gpu;
  std::uint32_t node = 0;
  std::uint64_t found = 0;
  CHECK(vpcat_catalog_gpu(b.c, v.gpu_count(), &gpu) == VPCAT_E_OUT_OF_RANGE);
  CHECK(vpcat_catalog_gpu(b.c, ~std::uint64_t{0}, &gpu) == VPCAT_E_OUT_OF_RANGE);
  CHECK(vpcat_catalog_gpu(nullptr, 0, &gpu) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_catalog_gpu(b.c, 0, nullptr) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_catalog_node_of_gpu(b.c, v.gpu_count(), &node) == VPCAT_E_OUT_OF_RANGE);
  CHECK(vpcat_catalog_node_of_gpu(nullptr, 0, &node) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_catalog_node_of_gpu(b.c, 0, nullptr) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_catalog_gpu_by_bus_id(b.c, 0, "0000:ff:1f.7", &found) == VPCAT_E_NOT_FOUND);
  CHECK(vpcat_catalog_gpu_by_bus_id(b.c, 0, "not a bus id", &found) == VPCAT_E_NOT_FOUND);
  CHECK(vpcat_catalog_gpu_by_bus_id(b.c, 0, "", &found) == VPCAT_E_NOT_FOUND);
  CHECK(vpcat_catalog_gpu_by_bus_id(b.c, v.node_count(), "0000:00:00.0", &found) == VPCAT_E_OUT_OF_RANGE);
  CHECK(vpcat_catalog_gpu_by_bus_id(nullptr, 0, "0000:00:00.0", &found) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_catalog_gpu_by_bus_id(b.c, 0, nullptr, &found) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_catalog_gpu_by_bus_id(b.c, 0, "0000:00:00.0", nullptr) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_catalog_gpu_by_device_name(b.c, 0, "no-such-device", &found) == VPCAT_E_NOT_FOUND);
  CHECK(vpcat_catalog_gpu_by_device_name(b.c, 0, "", &found) == VPCAT_E_NOT_FOUND);
  CHECK(vpcat_catalog_gpu_by_device_name(b.c, v.node_count(), "cuda0", &found) == VPCAT_E_OUT_OF_RANGE);
  CHECK(vpcat_catalog_gpu_by_device_name(nullptr, 0, "cuda0", &found) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_catalog_gpu_by_device_name(b.c, 0, nullptr, &found) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_catalog_gpu_by_device_name(b.c, 0, "cuda0", nullptr) == VPCAT_E_INVALID_ARGUMENT);
}

TEST_CASE("node types: components, links, routes, generators as in C++") {
  Both b;
  const vpcat::CatalogView& v = b.view();
  for (std::uint32_t ti = 0; ti < v.node_type_count(); ++ti) {
    const vpcat::NodeTypeView t = v.node_type(ti);
    vpcat_node_type nt;
    REQUIRE(vpcat_catalog_node_type(b.c, ti, &nt) == VPCAT_OK);
    CHECK(std::string(nt.name) == t.name());
    CHECK(std::string(nt.group_order) == t.group_order());
    CHECK(std::string(nt.patterns_represented) == t.patterns_represented());
    CHECK(nt.component_count == t.component_count());
    CHECK(nt.gpu_count == t.gpu_count());
    CHECK(nt.nic_count == t.nic_count());
    CHECK(nt.first_gpu == t.first_gpu());
    CHECK(nt.first_nic == t.nic(0));
    CHECK(nt.link_count == t.link_count());
    CHECK(nt.route_count == t.route_count());
    CHECK(nt.generator_count == t.generator_count());
    CHECK(nt.pattern_count == t.pattern_count());

    for (std::uint32_t i = 0; i < t.component_count(); ++i) {
      const vpcat::ComponentView c = t.component(i);
      vpcat_component r;
      REQUIRE(vpcat_catalog_component(b.c, ti, i, &r) == VPCAT_OK);
      CHECK(r.id == i);
      CHECK(static_cast<int>(r.kind) == static_cast<int>(c.kind()));
      CHECK(r.parent == c.parent());
      CHECK(r.local_index == c.local_index());
      CHECK(r.orbit == c.orbit());
      CHECK(r.gpudirect == (c.gpudirect() ? 1u : 0u));
      CHECK(r.forward_gbps == c.forward_gbps());
      CHECK(r.nic_gbps == c.nic_gbps());
      CHECK(std::string(r.name) == c.name());
      CHECK(std::string(r.model) == c.model());
      CHECK(std::string(r.pci_bus_id) == c.pci_bus_id());
      CHECK(std::string(r.device_name) == c.device_name());
    }
    vpcat_component comp;
    CHECK(vpcat_catalog_component(b.c, ti, t.component_count(), &comp) == VPCAT_E_OUT_OF_RANGE);

    for (std::uint32_t i = 0; i < t.link_count(); ++i) {
      const vpcat::LinkView l = t.link(i);
      vpcat_link r;
      REQUIRE(vpcat_catalog_link(b.c, ti, i, &r) == VPCAT_OK);
      CHECK(r.id == i);
      CHECK(r.src == l.src());
      CHECK(r.dst == l.dst());
      CHECK(r.reverse == l.reverse());
      CHECK(r.orbit == l.orbit());
      CHECK(static_cast<int>(r.kind) == static_cast<int>(l.kind()));
      CHECK(r.capacity_gbps == l.capacity_gbps());
      std::uint32_t found = 0;
      REQUIRE(vpcat_catalog_find_link(b.c, ti, l.src(), l.dst(), &found) == VPCAT_OK);
      CHECK(found == i);
    }
    vpcat_link link;
    std::uint32_t found = 0;
    CHECK(vpcat_catalog_link(b.c, ti, t.link_count(), &link) == VPCAT_E_OUT_OF_RANGE);
    CHECK(vpcat_catalog_find_link(b.c, ti, t.gpu(0), t.gpu(1), &found) == VPCAT_E_NOT_FOUND);
    CHECK(vpcat_catalog_find_link(b.c, ti, t.component_count(), 0, &found) == VPCAT_E_OUT_OF_RANGE);
    CHECK(vpcat_catalog_find_link(b.c, ti, 0, t.component_count(), &found) == VPCAT_E_OUT_OF_RANGE);

    const std::uint32_t first = t.first_gpu();
    std::size_t routes = 0;
    for (std::uint32_t from = first; from < t.component_count(); ++from)
      for (std::uint32_t to = first; to < t.component_count(); ++to) {
        vpcat_route r;
        if (from == to) {
          CHECK(vpcat_catalog_route(b.c, ti, from, to, &r) == VPCAT_E_OUT_OF_RANGE);
          continue;
        }
        ++routes;
        const vpcat::RouteView ref = t.route(from, to);
        REQUIRE(vpcat_catalog_route(b.c, ti, from, to, &r) == VPCAT_OK);
        CHECK(r.from == from);
        CHECK(r.to == to);
        CHECK(r.link_count == ref.link_count());
        CHECK(r.forwarder_count == ref.forwarder_count());
        CHECK(r.solo_gbps == ref.solo_gbps());
        std::vector<std::uint32_t> links(64), fwd(64);
        std::size_t n = 0;
        REQUIRE(vpcat_catalog_route_links(b.c, ti, from, to, links.data(), links.size(), &n) == VPCAT_OK);
        REQUIRE(n == ref.link_count());
        for (std::uint32_t k = 0; k < n; ++k) CHECK(links[k] == ref.link(k));
        REQUIRE(vpcat_catalog_route_forwarders(b.c, ti, from, to, fwd.data(), fwd.size(), &n) == VPCAT_OK);
        REQUIRE(n == ref.forwarder_count());
        for (std::uint32_t k = 0; k < n; ++k) CHECK(fwd[k] == ref.forwarder(k));
        // Size queries and short buffers.
        n = 0;
        CHECK(vpcat_catalog_route_links(b.c, ti, from, to, nullptr, 0, &n) ==
              (ref.link_count() == 0 ? VPCAT_OK : VPCAT_E_BUFFER_TOO_SMALL));
        CHECK(n == ref.link_count());
        std::uint32_t one = 12345;
        CHECK(vpcat_catalog_route_links(b.c, ti, from, to, &one, 1, &n) ==
              (ref.link_count() <= 1 ? VPCAT_OK : VPCAT_E_BUFFER_TOO_SMALL));
        CHECK(one == ref.link(0));
      }
    CHECK(routes == t.route_count());
    vpcat_route r;
    std::size_t n = 0;
    std::uint32_t buf[4];
    CHECK(vpcat_catalog_route(b.c, ti, 0, first, &r) == VPCAT_E_OUT_OF_RANGE);  // a cpu is no endpoint
    CHECK(vpcat_catalog_route(b.c, ti, first, t.component_count(), &r) == VPCAT_E_OUT_OF_RANGE);
    CHECK(vpcat_catalog_route_links(b.c, ti, first, first, buf, 4, &n) == VPCAT_E_OUT_OF_RANGE);
    CHECK(vpcat_catalog_route_forwarders(b.c, ti, 0, first, buf, 4, &n) == VPCAT_E_OUT_OF_RANGE);
    CHECK(vpcat_catalog_route_links(b.c, ti, first, first + 1, nullptr, 4, &n) == VPCAT_E_INVALID_ARGUMENT);
    CHECK(vpcat_catalog_route_links(b.c, ti, first, first + 1, buf, 4, nullptr) == VPCAT_E_INVALID_ARGUMENT);
    CHECK(vpcat_catalog_route_forwarders(b.c, ti, first, first + 1, nullptr, 4, &n) == VPCAT_E_INVALID_ARGUMENT);
    CHECK(vpcat_catalog_route(b.c, ti, first, first + 1, nullptr) == VPCAT_E_INVALID_ARGUMENT);

    REQUIRE(t.generator_count() > 0);
    for (std::uint32_t g = 0; g < t.generator_count(); ++g) {
      std::vector<std::uint32_t> images(t.component_count() + 3, 0xdead);
      std::size_t count = 0;
      REQUIRE(vpcat_catalog_generator(b.c, ti, g, images.data(), images.size(), &count) == VPCAT_OK);
      REQUIRE(count == t.component_count());
      for (std::uint32_t c = 0; c < count; ++c) CHECK(images[c] == t.generator(g).image(c));
      CHECK(images[count] == 0xdead);
      CHECK(vpcat_catalog_generator(b.c, ti, g, images.data(), count - 1, &count) == VPCAT_E_BUFFER_TOO_SMALL);
      CHECK(count == t.component_count());
    }
    std::size_t count = 0;
    std::uint32_t images[1];
    CHECK(vpcat_catalog_generator(b.c, ti, t.generator_count(), images, 1, &count) == VPCAT_E_OUT_OF_RANGE);
    CHECK(vpcat_catalog_generator(b.c, ti, 0, nullptr, 1, &count) == VPCAT_E_INVALID_ARGUMENT);
    CHECK(vpcat_catalog_generator(b.c, ti, 0, images, 1, nullptr) == VPCAT_E_INVALID_ARGUMENT);
  }
  const std::uint32_t bad = v.node_type_count();
  vpcat_node_type nt;
  vpcat_component comp;
  vpcat_link link;
  vpcat_route r;
  std::uint32_t u = 0, buf[4];
  std::size_t n = 0;
  CHECK(vpcat_catalog_node_type(b.c, bad, &nt) == VPCAT_E_OUT_OF_RANGE);
  CHECK(vpcat_catalog_node_type(nullptr, 0, &nt) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_catalog_node_type(b.c, 0, nullptr) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_catalog_component(b.c, bad, 0, &comp) == VPCAT_E_OUT_OF_RANGE);
  CHECK(vpcat_catalog_component(nullptr, 0, 0, &comp) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_catalog_component(b.c, 0, 0, nullptr) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_catalog_link(b.c, bad, 0, &link) == VPCAT_E_OUT_OF_RANGE);
  CHECK(vpcat_catalog_link(nullptr, 0, 0, &link) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_catalog_link(b.c, 0, 0, nullptr) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_catalog_find_link(b.c, bad, 0, 1, &u) == VPCAT_E_OUT_OF_RANGE);
  CHECK(vpcat_catalog_find_link(nullptr, 0, 0, 1, &u) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_catalog_find_link(b.c, 0, 0, 1, nullptr) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_catalog_route(b.c, bad, 0, 1, &r) == VPCAT_E_OUT_OF_RANGE);
  CHECK(vpcat_catalog_route(nullptr, 0, 0, 1, &r) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_catalog_route_links(b.c, bad, 0, 1, buf, 4, &n) == VPCAT_E_OUT_OF_RANGE);
  CHECK(vpcat_catalog_route_links(nullptr, 0, 0, 1, buf, 4, &n) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_catalog_route_forwarders(b.c, bad, 0, 1, buf, 4, &n) == VPCAT_E_OUT_OF_RANGE);
  CHECK(vpcat_catalog_route_forwarders(nullptr, 0, 0, 1, buf, 4, &n) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_catalog_generator(b.c, bad, 0, buf, 4, &n) == VPCAT_E_OUT_OF_RANGE);
  CHECK(vpcat_catalog_generator(nullptr, 0, 0, buf, 4, &n) == VPCAT_E_INVALID_ARGUMENT);
}

TEST_CASE("local patterns: representatives, and every orbit element reached by words of generators") {
  Both b;
  const vpcat::CatalogView& v = b.view();
  for (std::uint32_t ti = 0; ti < v.node_type_count(); ++ti) {
    const vpcat::NodeTypeView t = v.node_type(ti);
    const std::uint32_t gpus = t.gpu_count();
    REQUIRE(t.pattern_count() > 0);
    std::uint64_t represented = 0;
    for (std::uint32_t p = 0; p < t.pattern_count(); ++p) {
      CAPTURE(p);
      std::uint64_t size = 0;
      REQUIRE(vpcat_catalog_pattern_orbit_size(b.c, ti, p, &size) == VPCAT_OK);
      CHECK(size == t.pattern(p).orbit_size());
      represented += size;

      // The representative itself (an empty word, or a NULL word).
      std::vector<std::int32_t> send(gpus), recv(gpus);
      std::size_t count = 0;
      REQUIRE(vpcat_catalog_pattern_roles(b.c, ti, p, nullptr, 0, send.data(), recv.data(), gpus, &count) == VPCAT_OK);
      REQUIRE(count == gpus);
      for (std::uint32_t g = 0; g < gpus; ++g) {
        CHECK(send[g] == t.pattern(p).send(g));
        CHECK(recv[g] == t.pattern(p).recv(g));
      }

      // Breadth-first over words of generators: the distinct patterns
      // reached are the orbit, so there must be exactly orbit_size of them,
      // each a well-formed pattern (roles in range, peers paired).
      std::set<std::vector<std::int32_t>> orbit;
      std::vector<std::vector<std::uint32_t>> frontier{{}};
      while (!frontier.empty()) {
        std::vector<std::vector<std::uint32_t>> next;
        for (const std::vector<std::uint32_t>& word : frontier) {
          REQUIRE(vpcat_catalog_pattern_roles(b.c, ti, p, word.data(), word.size(), send.data(), recv.data(), gpus,
                                              &count) == VPCAT_OK);
          std::vector<std::int32_t> key(send);
          key.insert(key.end(), recv.begin(), recv.end());
          if (!orbit.insert(key).second) continue;
          for (std::uint32_t g = 0; g < gpus; ++g) {
            for (std::int32_t role : {send[g], recv[g]})
              CHECK((role == VPCAT_ROLE_IDLE || (role >= 0 && role < std::int32_t(gpus) && role != std::int32_t(g)) ||
                     (role >= VPCAT_ROLE_NIC_BASE && role < VPCAT_ROLE_NIC_BASE + std::int32_t(t.nic_count()))));
            if (send[g] >= 0 && send[g] < std::int32_t(gpus)) CHECK(recv[send[g]] == std::int32_t(g));
          }
          for (std::uint32_t gen = 0; gen < t.generator_count(); ++gen) {
            next.push_back(word);
            next.back().push_back(gen);
          }
        }
        frontier.swap(next);
        REQUIRE(orbit.size() <= size);
      }
      CHECK(orbit.size() == size);
    }
    CHECK(std::to_string(represented) == t.patterns_represented());

    std::vector<std::int32_t> send(gpus), recv(gpus);
    std::size_t count = 0;
    const std::uint32_t bad_word[] = {t.generator_count()};
    const std::uint32_t word[] = {0};
    CHECK(vpcat_catalog_pattern_roles(b.c, ti, 0, bad_word, 1, send.data(), recv.data(), gpus, &count) ==
          VPCAT_E_OUT_OF_RANGE);
    CHECK(vpcat_catalog_pattern_roles(b.c, ti, 0, word, 1, send.data(), recv.data(), gpus - 1, &count) ==
          VPCAT_E_BUFFER_TOO_SMALL);
    CHECK(count == gpus);
    CHECK(vpcat_catalog_pattern_roles(b.c, ti, 0, word, 1, nullptr, nullptr, 0, &count) == VPCAT_E_BUFFER_TOO_SMALL);
    CHECK(vpcat_catalog_pattern_roles(b.c, ti, 0, word, 1, nullptr, recv.data(), gpus, &count) ==
          VPCAT_E_INVALID_ARGUMENT);
    CHECK(vpcat_catalog_pattern_roles(b.c, ti, 0, word, 1, send.data(), recv.data(), gpus, nullptr) ==
          VPCAT_E_INVALID_ARGUMENT);
    CHECK(vpcat_catalog_pattern_roles(b.c, ti, t.pattern_count(), word, 1, send.data(), recv.data(), gpus, &count) ==
          VPCAT_E_OUT_OF_RANGE);
    std::uint64_t size = 0;
    CHECK(vpcat_catalog_pattern_orbit_size(b.c, ti, t.pattern_count(), &size) == VPCAT_E_OUT_OF_RANGE);
  }
  std::uint64_t size = 0;
  std::int32_t roles[64];
  std::size_t count = 0;
  CHECK(vpcat_catalog_pattern_orbit_size(b.c, v.node_type_count(), 0, &size) == VPCAT_E_OUT_OF_RANGE);
  CHECK(vpcat_catalog_pattern_orbit_size(nullptr, 0, 0, &size) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_catalog_pattern_orbit_size(b.c, 0, 0, nullptr) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_catalog_pattern_roles(b.c, v.node_type_count(), 0, nullptr, 0, roles, roles + 32, 32, &count) ==
        VPCAT_E_OUT_OF_RANGE);
  CHECK(vpcat_catalog_pattern_roles(nullptr, 0, 0, nullptr, 0, roles, roles + 32, 32, &count) ==
        VPCAT_E_INVALID_ARGUMENT);
}

namespace {

struct CPlanner {
  vpcat_catalog* cat = nullptr;
  vpcat_planner* planner = nullptr;
  vpcat_plan* plan = nullptr;
  CPlanner() {
    vpcat_error err;
    REQUIRE(vpcat_catalog_open_file(kGolden.c_str(), nullptr, &cat, &err) == VPCAT_OK);
    REQUIRE(vpcat_planner_create(cat, &planner, &err) == VPCAT_OK);
    REQUIRE(vpcat_plan_create(&plan) == VPCAT_OK);
  }
  ~CPlanner() {
    vpcat_plan_destroy(plan);
    vpcat_planner_destroy(planner);
    vpcat_catalog_destroy(cat);
  }
};

void check_empty(const vpcat_plan* plan) {
  vpcat_plan_summary s;
  REQUIRE(vpcat_plan_get_summary(plan, &s) == VPCAT_OK);
  CHECK(s.step_count == 0);
  CHECK(s.transfer_count == 0);
  CHECK(s.total_bytes == 0);
}

// The C plan equals the C++ one transfer for transfer, delivers the demand
// and expands every route as C++ does.
void check_same(const CPlanner& c, const vpcat::Planner& cpp_planner, const vpcat::Plan& cpp,
                const std::vector<std::uint64_t>& demand, std::uint32_t n) {
  vpcat_plan_summary s;
  REQUIRE(vpcat_plan_get_summary(c.plan, &s) == VPCAT_OK);
  CHECK(s.gpus == cpp.gpus());
  CHECK(s.step_count == cpp.step_count());
  CHECK(s.transfer_count == cpp.transfer_count());
  CHECK(s.total_bytes == cpp.total_bytes());
  CHECK(s.expected_us == cpp.expected_us());
  std::size_t steps = 0;
  REQUIRE(vpcat_plan_step_count(c.plan, &steps) == VPCAT_OK);
  REQUIRE(steps == cpp.step_count());
  std::vector<std::uint64_t> got(demand.size(), 0);
  std::vector<vpcat_transfer> buffer;
  std::uint32_t max_links = 0;
  REQUIRE(vpcat_planner_max_route_links(c.planner, &max_links) == VPCAT_OK);
  CHECK(max_links == cpp_planner.max_route_links());
  std::vector<std::uint64_t> links(max_links), ref_links(max_links), fwd(64), ref_fwd(64);
  for (std::size_t i = 0; i < steps; ++i) {
    vpcat_step step;
    REQUIRE(vpcat_plan_step(c.plan, i, &step) == VPCAT_OK);
    CHECK(step.first == cpp.step(i).first);
    CHECK(step.count == cpp.step(i).count);
    CHECK(step.ports == cpp.step(i).ports);
    CHECK(step.expected_us == cpp.step(i).expected_us);
    std::size_t count = 0;
    buffer.resize(step.count);
    REQUIRE(vpcat_plan_step_transfers(c.plan, i, buffer.data(), buffer.size(), &count) == VPCAT_OK);
    REQUIRE(count == step.count);
    for (std::size_t k = 0; k < count; ++k) {
      const vpcat::PlanTransfer& ref = cpp.step_transfers(i)[k];
      const vpcat_transfer& t = buffer[k];
      vpcat_transfer one;
      REQUIRE(vpcat_plan_transfer(c.plan, step.first + k, &one) == VPCAT_OK);
      CHECK(std::memcmp(&one, &t, sizeof t) == 0);
      CHECK(t.src == ref.src);
      CHECK(t.dst == ref.dst);
      CHECK(t.origin == ref.origin);
      CHECK(t.final == ref.final);
      CHECK(t.bytes == ref.bytes);
      CHECK(t.solo_gbps == ref.solo_gbps);
      CHECK(t.src_nic == ref.src_nic);
      CHECK(t.dst_nic == ref.dst_nic);
      got[std::size_t{t.origin} * n + t.final] += t.bytes;
      std::size_t nl = 0, nf = 0;
      REQUIRE(vpcat_planner_route_links(c.planner, &t, links.data(), links.size(), &nl) == VPCAT_OK);
      REQUIRE(nl == cpp_planner.route_links(ref, ref_links.data(), max_links));
      for (std::size_t j = 0; j < nl; ++j) CHECK(links[j] == ref_links[j]);
      REQUIRE(vpcat_planner_route_forwarders(c.planner, &t, fwd.data(), fwd.size(), &nf) == VPCAT_OK);
      REQUIRE(nf == cpp_planner.route_forwarders(ref, ref_fwd.data(), 64));
      for (std::size_t j = 0; j < nf; ++j) CHECK(fwd[j] == ref_fwd[j]);
    }
  }
  // Read step by step, as an embedder does, the plan delivers the demand.
  std::size_t wrong = 0;
  std::string first_wrong;
  for (std::uint32_t a = 0; a < n; ++a)
    for (std::uint32_t d = 0; d < n; ++d)
      if (a != d && got[std::size_t{a} * n + d] != demand[std::size_t{a} * n + d] && wrong++ == 0)
        first_wrong = "GPU " + std::to_string(a) + " -> " + std::to_string(d) + ": " +
                      std::to_string(got[std::size_t{a} * n + d]) + " bytes delivered, " +
                      std::to_string(demand[std::size_t{a} * n + d]) + " demanded";
  CAPTURE(first_wrong);
  CHECK(wrong == 0);
  // The steps tile the transfers: step i starts where step i-1 ended.
  std::uint64_t next = 0;
  for (std::size_t i = 0; i < steps; ++i) {
    vpcat_step step;
    REQUIRE(vpcat_plan_step(c.plan, i, &step) == VPCAT_OK);
    CHECK(step.first == next);
    next = step.first + step.count;
  }
  CHECK(next == s.transfer_count);
}

}  // namespace

TEST_CASE("planner: dense, double and sparse demands give the C++ plans") {
  CPlanner c;
  vpcat::CatalogFile file;
  REQUIRE(vpcat::CatalogFile::open(kGolden.c_str(), &file).ok());
  vpcat::Planner cpp_planner;
  REQUIRE(cpp_planner.init(file.view()).ok());
  std::uint32_t n = 0;
  REQUIRE(vpcat_planner_gpu_count(c.planner, &n) == VPCAT_OK);
  REQUIRE(n == cpp_planner.gpu_count());

  // A skewed demand: GPU 3 is hot, a few pairs are empty.
  std::vector<std::uint64_t> demand(std::size_t{n} * n);
  std::vector<double> as_double(demand.size());
  std::vector<vpcat_demand_entry> entries;
  for (std::uint32_t a = 0; a < n; ++a)
    for (std::uint32_t d = 0; d < n; ++d) {
      std::uint64_t bytes = (a * 7 + d * 13) % 5 == 0 ? 0 : (std::uint64_t{1} << 16) * (1 + (a + 2 * d) % 9);
      if (a == 3 || d == 3) bytes *= 8;
      demand[std::size_t{a} * n + d] = bytes;
      as_double[std::size_t{a} * n + d] = static_cast<double>(bytes);
      if (bytes != 0) {  // each pair in two halves: repeated pairs add up
        entries.push_back({a, d, bytes / 2});
        entries.push_back({a, d, bytes - bytes / 2});
      }
    }
  vpcat::Plan cpp;
  REQUIRE(cpp_planner.plan(vpcat::Demand::dense(demand.data(), n), {}, cpp).ok());
  REQUIRE(cpp.step_count() > 0);

  vpcat_error err = poisoned();
  REQUIRE(vpcat_planner_plan_dense_u64(c.planner, demand.data(), n, nullptr, c.plan, &err) == VPCAT_OK);
  CHECK(untouched(err));
  check_same(c, cpp_planner, cpp, demand, n);
  REQUIRE(vpcat_planner_plan_dense_f64(c.planner, as_double.data(), n, nullptr, c.plan, &err) == VPCAT_OK);
  check_same(c, cpp_planner, cpp, demand, n);
  REQUIRE(vpcat_planner_plan_sparse(c.planner, entries.data(), entries.size(), n, nullptr, c.plan, &err) == VPCAT_OK);
  check_same(c, cpp_planner, cpp, demand, n);

  // Options: the defaults are the C++ defaults; changed ones reach the planner.
  const vpcat_plan_options d = vpcat_plan_options_default();
  const vpcat::PlanOptions ref;
  CHECK(d.struct_size == sizeof(vpcat_plan_options));
  CHECK(d.latency_us == ref.latency_us);
  CHECK(d.min_step_latencies == ref.min_step_latencies);
  CHECK(d.min_chunk_bytes == ref.min_chunk_bytes);
  CHECK(d.chunk_align_bytes == ref.chunk_align_bytes);
  CHECK(d.max_steps == ref.max_steps);
  CHECK(d.allow_shared == (ref.allow_shared ? 1u : 0u));
  CHECK(d.replay == (ref.replay ? 1u : 0u));
  CHECK(d.nic_loopback == (ref.nic_loopback ? 1u : 0u));
  CHECK(d.channels_only == (ref.channels_only ? 1u : 0u));
  vpcat_plan_options o = d;
  o.latency_us = 20;
  o.min_step_latencies = 1;
  o.min_chunk_bytes = 4096;
  o.chunk_align_bytes = 512;
  vpcat::PlanOptions co;
  co.latency_us = 20, co.min_step_latencies = 1, co.min_chunk_bytes = 4096, co.chunk_align_bytes = 512;
  REQUIRE(cpp_planner.plan(vpcat::Demand::dense(demand.data(), n), co, cpp).ok());
  REQUIRE(vpcat_planner_plan_dense_u64(c.planner, demand.data(), n, &o, c.plan, &err) == VPCAT_OK);
  check_same(c, cpp_planner, cpp, demand, n);
  for (const std::uint32_t channels_only : {0u, 1u}) {
    for (const std::uint32_t allow_shared : {0u, 1u}) {
      o.channels_only = channels_only;
      co.channels_only = channels_only != 0;
      o.allow_shared = allow_shared;
      co.allow_shared = allow_shared != 0;
      REQUIRE(cpp_planner.plan(vpcat::Demand::dense(demand.data(), n), co, cpp).ok());
      REQUIRE(vpcat_planner_plan_dense_u64(c.planner, demand.data(), n, &o, c.plan, &err) == VPCAT_OK);
      check_same(c, cpp_planner, cpp, demand, n);
      if (channels_only == 1 && allow_shared == 0)
        for (std::size_t i = 0; i < cpp.step_count(); ++i) CHECK((cpp.step(i).ports == 1 && cpp.step(i).shared == 0));
    }
  }
  o.channels_only = 2;  // a flag is 0 or 1
  CHECK(vpcat_planner_plan_dense_u64(c.planner, demand.data(), n, &o, c.plan, &err) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(std::string(err.message).find("options->channels_only is 2: must be 0 or 1") != std::string::npos);
  o.channels_only = 0;

  // A uniform demand (balanced: with allow_shared the planner would choose its shared step).
  std::vector<std::uint64_t> uniform(demand.size(), 1 << 20);
  for (std::uint32_t a = 0; a < n; ++a) uniform[std::size_t{a} * n + a] = 0;
  REQUIRE(cpp_planner.plan(vpcat::Demand::dense(uniform.data(), n), {}, cpp).ok());
  REQUIRE(vpcat_planner_plan_dense_u64(c.planner, uniform.data(), n, nullptr, c.plan, &err) == VPCAT_OK);
  check_same(c, cpp_planner, cpp, uniform, n);

  // An all-zero demand: a valid plan of no steps.
  std::vector<std::uint64_t> zeros(demand.size(), 0);
  REQUIRE(vpcat_planner_plan_dense_u64(c.planner, zeros.data(), n, nullptr, c.plan, &err) == VPCAT_OK);
  check_empty(c.plan);
  REQUIRE(vpcat_planner_plan_sparse(c.planner, nullptr, 0, n, nullptr, c.plan, &err) == VPCAT_OK);
  check_empty(c.plan);
}

TEST_CASE("planner: bad demands and options get the C++ status and message, and an empty plan") {
  CPlanner c;
  std::uint32_t n = 0;
  REQUIRE(vpcat_planner_gpu_count(c.planner, &n) == VPCAT_OK);
  std::vector<std::uint64_t> demand(std::size_t{n} * n, 4096);
  std::vector<double> as_double(demand.size(), 4096.0);
  vpcat_error err;
  const auto fails = [&](vpcat_status got, vpcat_status code, const std::string& message) {
    CHECK(got == code);
    CHECK(err.code == code);
    CHECK(err.section == 0);
    CHECK(err.offset == VPCAT_NO_OFFSET);
    CHECK(std::string(err.message) == message);
    check_empty(c.plan);
    // Refill, so that the next failure is seen to empty the plan.
    REQUIRE(vpcat_planner_plan_dense_u64(c.planner, demand.data(), n, nullptr, c.plan, nullptr) == VPCAT_OK);
  };
  REQUIRE(vpcat_planner_plan_dense_u64(c.planner, demand.data(), n, nullptr, c.plan, nullptr) == VPCAT_OK);

  fails(vpcat_planner_plan_dense_u64(c.planner, demand.data(), 4, nullptr, c.plan, &err), VPCAT_E_DEMAND_SIZE,
        "demand: demand size does not match the catalog (4 GPUs, the catalog has 16)");
  fails(vpcat_planner_plan_dense_u64(c.planner, demand.data(), 0, nullptr, c.plan, &err), VPCAT_E_EMPTY_DEMAND,
        "demand: demand is empty (0 GPUs)");
  fails(vpcat_planner_plan_dense_u64(c.planner, nullptr, n, nullptr, c.plan, &err), VPCAT_E_EMPTY_DEMAND,
        "demand: demand is empty (the matrix pointer is null)");
  fails(vpcat_planner_plan_dense_f64(c.planner, nullptr, n, nullptr, c.plan, &err), VPCAT_E_EMPTY_DEMAND,
        "demand: demand is empty (the matrix pointer is null)");
  fails(vpcat_planner_plan_sparse(c.planner, nullptr, 3, n, nullptr, c.plan, &err), VPCAT_E_EMPTY_DEMAND,
        "demand: demand is empty (the entry pointer is null)");
  as_double[2 * n + 5] = -1;
  fails(vpcat_planner_plan_dense_f64(c.planner, as_double.data(), n, nullptr, c.plan, &err), VPCAT_E_BAD_DEMAND_VALUE,
        "demand [2][5]: demand entry is not a byte count (-1: bytes must be a finite whole number >= 0)");
  as_double[2 * n + 5] = std::numeric_limits<double>::quiet_NaN();
  fails(vpcat_planner_plan_dense_f64(c.planner, as_double.data(), n, nullptr, c.plan, &err), VPCAT_E_BAD_DEMAND_VALUE,
        "demand [2][5]: demand entry is not a byte count (nan: bytes must be a finite whole number >= 0)");
  as_double[2 * n + 5] = 0.5;
  CHECK(vpcat_planner_plan_dense_f64(c.planner, as_double.data(), n, nullptr, c.plan, &err) ==
        VPCAT_E_BAD_DEMAND_VALUE);
  const vpcat_demand_entry bad_entry[] = {{0, 1, 10}, {1, 16, 10}};
  CHECK(vpcat_planner_plan_sparse(c.planner, bad_entry, 2, n, nullptr, c.plan, &err) == VPCAT_E_BAD_DEMAND_ENTRY);
  CHECK(err.code == VPCAT_E_BAD_DEMAND_ENTRY);
  check_empty(c.plan);
  std::vector<std::uint64_t> huge(demand);
  huge[1] = (std::uint64_t{1} << 63) + 1;
  CHECK(vpcat_planner_plan_dense_u64(c.planner, huge.data(), n, nullptr, c.plan, &err) == VPCAT_E_DEMAND_OVERFLOW);
  check_empty(c.plan);

  vpcat_plan_options o = vpcat_plan_options_default();
  o.latency_us = -1;
  fails(vpcat_planner_plan_dense_u64(c.planner, demand.data(), n, &o, c.plan, &err), VPCAT_E_BAD_OPTIONS,
        "options.latency_us: invalid plan option (-1: must be a finite number >= 0)");
  o = vpcat_plan_options_default();
  o.chunk_align_bytes = 0;
  fails(vpcat_planner_plan_dense_u64(c.planner, demand.data(), n, &o, c.plan, &err), VPCAT_E_BAD_OPTIONS,
        "options.chunk_align_bytes: invalid plan option (0: must be at least 1)");
  o = vpcat_plan_options_default();
  o.max_steps = 1;
  o.channels_only = 1;  // channel steps only: the limit is an error (by default the shared step fits in one)
  CHECK(vpcat_planner_plan_dense_u64(c.planner, demand.data(), n, &o, c.plan, &err) == VPCAT_E_STEP_LIMIT);
  CHECK(err.code == VPCAT_E_STEP_LIMIT);
  check_empty(c.plan);
  o = vpcat_plan_options_default();
  o.replay = 2;
  fails(vpcat_planner_plan_dense_u64(c.planner, demand.data(), n, &o, c.plan, &err), VPCAT_E_INVALID_ARGUMENT,
        "vpcat_planner_plan_dense_u64: invalid argument (options->replay is 2: must be 0 or 1)");
  o = vpcat_plan_options_default();
  o.nic_loopback = 3;
  fails(vpcat_planner_plan_dense_u64(c.planner, demand.data(), n, &o, c.plan, &err), VPCAT_E_INVALID_ARGUMENT,
        "vpcat_planner_plan_dense_u64: invalid argument (options->nic_loopback is 3: must be 0 or 1)");
  o = vpcat_plan_options_default();
  o.struct_size = 0;  // a zero-initialised struct, not from vpcat_plan_options_default()
  REQUIRE(vpcat_planner_plan_dense_u64(c.planner, demand.data(), n, nullptr, c.plan, nullptr) == VPCAT_OK);
  fails(vpcat_planner_plan_dense_u64(c.planner, demand.data(), n, &o, c.plan, &err), VPCAT_E_INVALID_ARGUMENT,
        "vpcat_planner_plan_dense_u64: invalid argument (options->struct_size is 0, this library's "
        "vpcat_plan_options has " + std::to_string(sizeof(vpcat_plan_options)) +
            " bytes: start from vpcat_plan_options_default())");

  // NULL handles: a status, and the message names the argument.
  CHECK(vpcat_planner_plan_dense_u64(nullptr, demand.data(), n, nullptr, c.plan, &err) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(std::string(err.message) == "vpcat_planner_plan_dense_u64: invalid argument (planner is NULL)");
  CHECK(vpcat_planner_plan_dense_u64(c.planner, demand.data(), n, nullptr, nullptr, &err) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(std::string(err.message) == "vpcat_planner_plan_dense_u64: invalid argument (plan is NULL)");
  CHECK(vpcat_planner_plan_dense_f64(nullptr, as_double.data(), n, nullptr, c.plan, &err) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_planner_plan_dense_f64(c.planner, as_double.data(), n, nullptr, nullptr, nullptr) ==
        VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_planner_plan_sparse(nullptr, bad_entry, 1, n, nullptr, c.plan, &err) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(std::string(err.message) == "vpcat_planner_plan_sparse: invalid argument (planner is NULL)");
  CHECK(vpcat_planner_plan_sparse(c.planner, bad_entry, 1, n, nullptr, nullptr, &err) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_planner_plan_sparse(c.planner, bad_entry, 1, n, &o, c.plan, &err) == VPCAT_E_INVALID_ARGUMENT);
}

TEST_CASE("planner over a subset: the C++ subset planner's plans, ranks mapped back, bad subsets named") {
  CPlanner c;
  vpcat::CatalogFile file;
  REQUIRE(vpcat::CatalogFile::open(kGolden.c_str(), &file).ok());
  const std::uint64_t gpus[] = {5, 4, 9, 10, 11, 0};
  vpcat::Subset subset;
  REQUIRE(subset.assign_gpus(file.view(), gpus, 6).ok());
  vpcat::Planner cpp_planner;
  REQUIRE(cpp_planner.init(file.view(), subset).ok());
  vpcat_error err = poisoned();
  vpcat_planner_destroy(c.planner);
  c.planner = nullptr;
  REQUIRE(vpcat_planner_create_subset(c.cat, gpus, 6, &c.planner, &err) == VPCAT_OK);
  std::uint32_t n = 0;
  REQUIRE(vpcat_planner_gpu_count(c.planner, &n) == VPCAT_OK);
  REQUIRE(n == 6);
  for (std::uint32_t r = 0; r < n; ++r) {
    std::uint64_t g = 0;
    REQUIRE(vpcat_planner_catalog_gpu(c.planner, r, &g) == VPCAT_OK);
    CHECK(g == gpus[r]);
  }
  std::uint64_t g = 0;
  CHECK(vpcat_planner_catalog_gpu(c.planner, 6, &g) == VPCAT_E_OUT_OF_RANGE);
  CHECK(vpcat_planner_catalog_gpu(nullptr, 0, &g) == VPCAT_E_INVALID_ARGUMENT);
  std::vector<std::uint64_t> demand(std::size_t{n} * n);
  for (std::uint32_t a = 0; a < n; ++a)
    for (std::uint32_t d = 0; d < n; ++d) demand[std::size_t{a} * n + d] = a == d ? 0 : (1u << 18) * (1 + (a + d) % 3);
  REQUIRE(vpcat_planner_plan_dense_u64(c.planner, demand.data(), n, nullptr, c.plan, &err) == VPCAT_OK);
  vpcat::Plan cpp;
  REQUIRE(cpp_planner.plan(vpcat::Demand::dense(demand.data(), n), {}, cpp).ok());
  check_same(c, cpp_planner, cpp, demand, n);

  vpcat_planner* p = nullptr;
  const std::uint64_t split[] = {4, 9, 5};
  CHECK(vpcat_planner_create_subset(c.cat, split, 3, &p, &err) == VPCAT_E_BAD_SUBSET);
  CHECK(std::string(err.message) ==
        "subset: subset does not fit the catalog (node 1 is listed twice (give its GPUs together))");
  const std::uint64_t beyond[] = {16};
  CHECK(vpcat_planner_create_subset(c.cat, beyond, 1, &p, &err) == VPCAT_E_BAD_SUBSET);
  CHECK(vpcat_planner_create_subset(c.cat, gpus, 0, &p, &err) == VPCAT_E_BAD_SUBSET);
  CHECK(vpcat_planner_create_subset(c.cat, nullptr, 2, &p, &err) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_planner_create_subset(nullptr, gpus, 2, &p, &err) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(p == nullptr);

  // Scoring the placement: the subset planner's plan time and its bound.
  double bound = -1;
  REQUIRE(vpcat_plan_bound_us(c.plan, &bound) == VPCAT_OK);
  CHECK(bound == cpp.bound_us());
  CHECK(bound > 5.0);  // the default latency and more
  CHECK(bound <= cpp.expected_us());
  vpcat_placement_score score{};
  score.struct_size = sizeof score;
  REQUIRE(vpcat_score_placement(c.cat, gpus, 6, demand.data(), nullptr, &score, &err) == VPCAT_OK);
  CHECK(score.planned_us == cpp.expected_us());
  CHECK(score.bound_us == cpp.bound_us());
  CHECK(score.steps == cpp.step_count());
  CHECK(score.total_bytes == cpp.total_bytes());
  CHECK(vpcat_score_placement(c.cat, split, 3, demand.data(), nullptr, &score, &err) == VPCAT_E_BAD_SUBSET);
  CHECK(vpcat_score_placement(c.cat, gpus, 6, nullptr, nullptr, &score, &err) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(std::string(err.message) == "vpcat_score_placement: invalid argument (bytes is NULL)");
  score.struct_size = 8;
  CHECK(vpcat_score_placement(c.cat, gpus, 6, demand.data(), nullptr, &score, &err) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_score_placement(c.cat, gpus, 6, demand.data(), nullptr, nullptr, &err) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_plan_bound_us(nullptr, &bound) == VPCAT_E_INVALID_ARGUMENT);
}

TEST_CASE("planner and plan handles: creation, queries and bad arguments") {
  CPlanner c;
  vpcat_planner* p = nullptr;
  vpcat_error err = poisoned();
  CHECK(vpcat_planner_create(nullptr, &p, &err) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(std::string(err.message) == "vpcat_planner_create: invalid argument (catalog is NULL)");
  CHECK(vpcat_planner_create(c.cat, nullptr, &err) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(std::string(err.message) == "vpcat_planner_create: invalid argument (out is NULL)");
  CHECK(vpcat_planner_create(nullptr, &p, nullptr) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(p == nullptr);
  vpcat_planner_destroy(nullptr);
  vpcat_plan_destroy(nullptr);

  // The planner keeps its own tables: it outlives its catalog.
  vpcat_catalog* cat = nullptr;
  REQUIRE(vpcat_catalog_open_file(kGolden.c_str(), nullptr, &cat, &err) == VPCAT_OK);
  REQUIRE(vpcat_planner_create(cat, &p, &err) == VPCAT_OK);
  vpcat_catalog_destroy(cat);
  std::uint32_t n = 0, links = 0;
  REQUIRE(vpcat_planner_gpu_count(p, &n) == VPCAT_OK);
  CHECK(n == 16);
  std::vector<std::uint64_t> demand(std::size_t{n} * n, 1 << 20);
  REQUIRE(vpcat_planner_plan_dense_u64(p, demand.data(), n, nullptr, c.plan, &err) == VPCAT_OK);
  vpcat_planner_destroy(p);
  CHECK(vpcat_planner_gpu_count(nullptr, &n) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_planner_gpu_count(c.planner, nullptr) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_planner_max_route_links(nullptr, &links) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_planner_max_route_links(c.planner, nullptr) == VPCAT_E_INVALID_ARGUMENT);

  vpcat_plan* plan = nullptr;
  CHECK(vpcat_plan_create(nullptr) == VPCAT_E_INVALID_ARGUMENT);
  REQUIRE(vpcat_plan_create(&plan) == VPCAT_OK);
  check_empty(plan);
  CHECK(vpcat_plan_reserve(plan, 100, 1000) == VPCAT_OK);
  CHECK(vpcat_plan_reserve(plan, SIZE_MAX, SIZE_MAX) == VPCAT_E_OUT_OF_MEMORY);
  CHECK(vpcat_plan_reserve(nullptr, 1, 1) == VPCAT_E_INVALID_ARGUMENT);
  vpcat_plan_destroy(plan);

  // Plan accessors: ranges, short buffers, NULLs.
  REQUIRE(vpcat_planner_plan_dense_u64(c.planner, demand.data(), n, nullptr, c.plan, &err) == VPCAT_OK);
  vpcat_plan_summary s;
  REQUIRE(vpcat_plan_get_summary(c.plan, &s) == VPCAT_OK);
  REQUIRE(s.step_count > 0);
  CHECK(s.total_bytes == std::uint64_t{n} * (n - 1) << 20);
  vpcat_step step;
  vpcat_transfer t, buffer[2];
  std::size_t count = 0, steps = 0;
  CHECK(vpcat_plan_get_summary(nullptr, &s) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_plan_get_summary(c.plan, nullptr) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_plan_step_count(nullptr, &steps) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_plan_step_count(c.plan, nullptr) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_plan_step(c.plan, s.step_count, &step) == VPCAT_E_OUT_OF_RANGE);
  CHECK(vpcat_plan_step(nullptr, 0, &step) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_plan_step(c.plan, 0, nullptr) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_plan_transfer(c.plan, s.transfer_count, &t) == VPCAT_E_OUT_OF_RANGE);
  CHECK(vpcat_plan_transfer(nullptr, 0, &t) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_plan_transfer(c.plan, 0, nullptr) == VPCAT_E_INVALID_ARGUMENT);
  REQUIRE(vpcat_plan_step(c.plan, 0, &step) == VPCAT_OK);
  REQUIRE(step.count > 2);
  CHECK(vpcat_plan_step_transfers(c.plan, 0, buffer, 2, &count) == VPCAT_E_BUFFER_TOO_SMALL);
  CHECK(count == step.count);
  REQUIRE(vpcat_plan_transfer(c.plan, step.first + 1, &t) == VPCAT_OK);
  CHECK(std::memcmp(&buffer[1], &t, sizeof t) == 0);  // the first `capacity` were written
  CHECK(vpcat_plan_step_transfers(c.plan, 0, nullptr, 0, &count) == VPCAT_E_BUFFER_TOO_SMALL);
  CHECK(vpcat_plan_step_transfers(c.plan, s.step_count, buffer, 2, &count) == VPCAT_E_OUT_OF_RANGE);
  CHECK(vpcat_plan_step_transfers(nullptr, 0, buffer, 2, &count) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_plan_step_transfers(c.plan, 0, nullptr, 2, &count) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_plan_step_transfers(c.plan, 0, buffer, 2, nullptr) == VPCAT_E_INVALID_ARGUMENT);

  // Routes: size queries, short buffers, and transfers no plan of this planner holds.
  REQUIRE(vpcat_plan_transfer(c.plan, 0, &t) == VPCAT_OK);
  std::uint64_t ids[2];
  CHECK(vpcat_planner_route_links(c.planner, &t, nullptr, 0, &count) == VPCAT_E_BUFFER_TOO_SMALL);
  CHECK(count >= 1);
  const vpcat_status fs_status = vpcat_planner_route_forwarders(c.planner, &t, nullptr, 0, &count);
  CHECK(fs_status == (count == 0 ? VPCAT_OK : VPCAT_E_BUFFER_TOO_SMALL));
  vpcat_transfer bad = t;
  bad.dst = bad.src;
  CHECK(vpcat_planner_route_links(c.planner, &bad, ids, 2, &count) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_planner_route_forwarders(c.planner, &bad, ids, 2, &count) == VPCAT_E_INVALID_ARGUMENT);
  bad = t;
  bad.src = n;
  CHECK(vpcat_planner_route_links(c.planner, &bad, ids, 2, &count) == VPCAT_E_INVALID_ARGUMENT);
  bad = t;
  bad.src_nic = 40;
  bad.dst_nic = 40;
  CHECK(vpcat_planner_route_links(c.planner, &bad, ids, 2, &count) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_planner_route_links(nullptr, &t, ids, 2, &count) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_planner_route_links(c.planner, nullptr, ids, 2, &count) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_planner_route_links(c.planner, &t, nullptr, 2, &count) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_planner_route_links(c.planner, &t, ids, 2, nullptr) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_planner_route_forwarders(nullptr, &t, ids, 2, &count) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_planner_route_forwarders(c.planner, nullptr, ids, 2, &count) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_planner_route_forwarders(c.planner, &t, nullptr, 2, &count) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_planner_route_forwarders(c.planner, &t, ids, 2, nullptr) == VPCAT_E_INVALID_ARGUMENT);
}

TEST_CASE("planning again through the C API allocates nothing") {
  CPlanner c;
  std::uint32_t n = 0;
  REQUIRE(vpcat_planner_gpu_count(c.planner, &n) == VPCAT_OK);
  std::vector<std::uint64_t> uniform(std::size_t{n} * n, 1 << 20), skewed(uniform);
  for (std::uint32_t d = 0; d < n; ++d) skewed[5 * n + d] *= 4;
  std::vector<vpcat_demand_entry> entries;
  for (std::uint32_t a = 0; a < n; ++a)
    for (std::uint32_t d = 0; d < n; ++d) entries.push_back({a, d, 1 << 20});
  vpcat_error err;
  // The first calls size the plan and the entry copy (init sized the scratch).
  REQUIRE(vpcat_planner_plan_dense_u64(c.planner, skewed.data(), n, nullptr, c.plan, &err) == VPCAT_OK);
  REQUIRE(vpcat_planner_plan_sparse(c.planner, entries.data(), entries.size(), n, nullptr, c.plan, &err) == VPCAT_OK);
  const long before = vp::test::allocation_count();
  for (int round = 0; round < 3; ++round) {
    REQUIRE(vpcat_planner_plan_dense_u64(c.planner, uniform.data(), n, nullptr, c.plan, &err) == VPCAT_OK);
    REQUIRE(vpcat_planner_plan_dense_u64(c.planner, skewed.data(), n, nullptr, c.plan, &err) == VPCAT_OK);
    REQUIRE(vpcat_planner_plan_sparse(c.planner, entries.data(), entries.size(), n, nullptr, c.plan, &err) ==
            VPCAT_OK);
    CHECK(vpcat_planner_plan_dense_u64(c.planner, uniform.data(), 3, nullptr, c.plan, &err) == VPCAT_E_DEMAND_SIZE);
  }
  CHECK(vp::test::allocation_count() - before == 0);
}

TEST_CASE("from C: strict C99 with the options and sparse demand of a C stack") {
  char out[VPCAT_ERROR_MESSAGE_SIZE];
  CHECK(vpcat_c_api_test_from_c(kGolden.c_str(), out, sizeof out) == VPCAT_OK);
  // 1000 + 24 + 4096 bytes in some steps.
  CHECK(std::string(out).find("ok: ") != std::string::npos);
  CHECK(std::string(out).find(" steps, 5120 bytes") != std::string::npos);
  CHECK(std::string(out).rfind(vpcat_version_string(), 0) == 0);
  const std::string corrupt = kFixtures + "/corrupt/bad-section-checksum.vpcat";
  CHECK(vpcat_c_api_test_from_c(corrupt.c_str(), out, sizeof out) == VPCAT_E_BAD_SECTION_CHECKSUM);
  CHECK(std::string(out) == trimmed(vp_read_expected(fs::path(corrupt))));
}
