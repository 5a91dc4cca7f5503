// vpcat/gpu_list.hpp, the one GPU-list grammar (--gpus, the free-GPU file of
// `vp-catalog place`, VPCAT_RANK_MAP). The cases are those where the old
// readers disagreed or erred: vp-plan took any spec holding ':' or '.' for a
// bus id ("a:0-3;b:*" was node a's bus id "0-3;b:*") and compared it as
// text; VPCAT_RANK_MAP trimmed blanks, --gpus did not.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "vpcat/gpu_list.hpp"

namespace {

std::vector<std::string> items(const char* list) {
  std::vector<std::string> out;
  std::size_t at = 0;
  std::string_view item;
  while (vpcat::next_gpu_list_item(list, &at, &item)) out.emplace_back(item);
  return out;
}

vpcat::GpuListItem parsed(const char* item) {
  vpcat::GpuListItem out;
  INFO(item);
  REQUIRE(vpcat::parse_gpu_list_item(item, &out) == vpcat::GpuListError::none);
  return out;
}

vpcat::GpuListError error(const char* item) {
  vpcat::GpuListItem out;
  return vpcat::parse_gpu_list_item(item, &out);
}

}  // namespace

TEST_CASE("gpu list: items split at ',' with blanks trimmed") {
  CHECK(items("0-7,16") == std::vector<std::string>{"0-7", "16"});
  CHECK(items(" gpu01:0-3 , gpu02:* ") == std::vector<std::string>{"gpu01:0-3", "gpu02:*"});
  CHECK(items("a,,b") == std::vector<std::string>{"a", "", "b"});
  CHECK(items("") == std::vector<std::string>{""});
  CHECK(items("a,") == std::vector<std::string>{"a", ""});
  CHECK(items("a:0-3;b:*") == std::vector<std::string>{"a:0-3;b:*"});  // ';' separates nothing
}

TEST_CASE("gpu list: global indexes and ranges") {
  vpcat::GpuListItem i = parsed("7");
  CHECK(i.kind == vpcat::GpuListItemKind::gpus);
  CHECK((i.first == 7 && i.last == 7));
  i = parsed("0-15");
  CHECK((i.first == 0 && i.last == 15));
  CHECK(error("3-1") == vpcat::GpuListError::bad_range);
  CHECK(error("1-") == vpcat::GpuListError::bad_range);
  CHECK(error("-1") == vpcat::GpuListError::bad_range);
  CHECK(error("x") == vpcat::GpuListError::bad_range);
  CHECK(error("1-2-3") == vpcat::GpuListError::bad_range);
  CHECK(error("18446744073709551616") == vpcat::GpuListError::bad_range);  // 2^64
  CHECK(error("") == vpcat::GpuListError::empty_item);
  CHECK(error("  ") == vpcat::GpuListError::empty_item);
}

TEST_CASE("gpu list: NODE:A, NODE:A-B, NODE:*, NODE:BUS-ID") {
  vpcat::GpuListItem i = parsed("gpu01:2-3");
  CHECK(i.kind == vpcat::GpuListItemKind::node_gpus);
  CHECK(i.node == "gpu01");
  CHECK((i.first == 2 && i.last == 3));
  i = parsed("gpu01:*");
  CHECK(i.kind == vpcat::GpuListItemKind::node_all);
  i = parsed("gpu01:0000:17:00.0");
  CHECK(i.kind == vpcat::GpuListItemKind::node_bus_id);
  CHECK(i.node == "gpu01");
  CHECK(i.spec == "0000:17:00.0");
  CHECK(i.bus_id == vpcat::PciBusId{0, 0x17, 0, 0});
  CHECK(parsed("gpu01:17:00.0").bus_id == vpcat::PciBusId{0, 0x17, 0, 0});
  CHECK(parsed("gpu01:AB:1F.7").bus_id == vpcat::PciBusId{0, 0xab, 0x1f, 7});
  CHECK(parsed("3:1").kind == vpcat::GpuListItemKind::node_gpus);  // VPCAT_RANK_MAP's node 3, GPU 1
}

TEST_CASE("gpu list: what was misread as a bus id is an error") {
  CHECK(error("a:0-3;b:*") == vpcat::GpuListError::bad_spec);
  CHECK(error("gpu01:x") == vpcat::GpuListError::bad_spec);
  CHECK(error("gpu01:") == vpcat::GpuListError::bad_spec);
  CHECK(error("gpu01:1.2") == vpcat::GpuListError::bad_spec);       // no bus:device
  CHECK(error("gpu01:00:20.0") == vpcat::GpuListError::bad_spec);   // device above 1f
  CHECK(error("gpu01:3-1") == vpcat::GpuListError::bad_spec);
  CHECK(error(":0") == vpcat::GpuListError::bad_node);
  CHECK(error("gpu 01:0") == vpcat::GpuListError::bad_node);
  CHECK(error("gpu[01]:0") == vpcat::GpuListError::bad_node);
}
