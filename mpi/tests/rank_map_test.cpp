// The rank -> GPU mapping without MPI: explicit maps, host names (host lists:
// runtime_hostlist_test.cpp) with local ranks and visible-device variables, and their error messages.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include "../src/rank_map.hpp"

using namespace vpcat_mpi;

namespace {
std::vector<CatalogNode> two_nodes() {  // gpu01, gpu02: 4 GPUs each, cuda0..3
  std::vector<CatalogNode> n(2);
  for (int k = 0; k < 2; ++k) {
    n[k].name = k == 0 ? "gpu01" : "gpu02";
    n[k].first_gpu = 4u * k;
    n[k].device_names = {"cuda0", "cuda1", "cuda2", "cuda3"};
  }
  return n;
}
}  // namespace

TEST_CASE("explicit map of a communicator: one entry per rank, or one per world rank") {
  const auto nodes = two_nodes();
  std::vector<std::int64_t> g;
  std::string error;
  // World ranks 5, 1, 6 of 8: a map of 3 entries is the communicator's own.
  REQUIRE(parse_rank_map_for("7,0,1", nodes, 8, {5, 1, 6}, 8, &g, &error));
  CHECK(g == std::vector<std::int64_t>{7, 0, 1});
  // A map of 8 (the world's): each rank takes its world rank's entry.
  REQUIRE(parse_rank_map_for("4-7,0-3", nodes, 8, {5, 1, 6}, 8, &g, &error));
  CHECK(g == std::vector<std::int64_t>{1, 5, 2});
  // Neither count.
  CHECK_FALSE(parse_rank_map_for("0-4", nodes, 8, {5, 1, 6}, 8, &g, &error));
  CHECK(error == "names 5 GPUs for 3 ranks (one entry per rank, or one per rank of MPI_COMM_WORLD's 8)");
  CHECK_FALSE(parse_rank_map_for("0-7,0", nodes, 8, {5, 1, 6}, 8, &g, &error));
  CHECK(error == "names 9+ GPUs for 3 ranks (one entry per rank, or one per rank of MPI_COMM_WORLD's 8)");
  // Not one world (world_size 0): only the communicator's own form.
  CHECK_FALSE(parse_rank_map_for("4-7,0-3", nodes, 8, {5, 1, 6}, 0, &g, &error));
  CHECK(error == "names 4+ GPUs for 3 ranks (one entry per rank)");
  // A bad entry is named whichever form.
  CHECK_FALSE(parse_rank_map_for("0,9,1", nodes, 8, {0, 1, 2}, 8, &g, &error));
  CHECK(error == "entry \"9\": GPU 9 is not in the catalog (8 GPUs)");
}

TEST_CASE("explicit map: indexes, ranges, node:local, errors") {
  const auto nodes = two_nodes();
  std::vector<std::int64_t> g;
  std::string error;
  REQUIRE(parse_rank_map("4-7,0-3", nodes, 8, 8, &g, &error));
  CHECK(g == std::vector<std::int64_t>{4, 5, 6, 7, 0, 1, 2, 3});
  REQUIRE(parse_rank_map("1:3, 0:0", nodes, 8, 2, &g, &error));
  CHECK(g == std::vector<std::int64_t>{7, 0});
  CHECK_FALSE(parse_rank_map("0-7", nodes, 8, 4, &g, &error));
  CHECK(error == "names 5+ GPUs for 4 ranks (one entry per rank)");
  CHECK_FALSE(parse_rank_map("0,9", nodes, 8, 2, &g, &error));
  CHECK(error == "entry \"9\": GPU 9 is not in the catalog (8 GPUs)");
  CHECK_FALSE(parse_rank_map("2:0", nodes, 8, 1, &g, &error));
  CHECK(error == "entry \"2:0\": node 2 is not in the catalog (2 nodes)");
  CHECK_FALSE(parse_rank_map("x", nodes, 8, 1, &g, &error));
  CHECK(error == "entry \"x\": want a GPU index, a range N-M (N <= M) or NODE:LOCAL_GPU");
  // The GPU-list grammar of --gpus (vpcat/gpu_list.hpp), NODE a node index.
  REQUIRE(parse_rank_map("1:*,0:2-3", nodes, 8, 6, &g, &error));
  CHECK(g == std::vector<std::int64_t>{4, 5, 6, 7, 2, 3});
  CHECK_FALSE(parse_rank_map("1:0-4", nodes, 8, 5, &g, &error));
  CHECK(error == "entry \"1:0-4\": node 1 has 4 GPUs");
  CHECK_FALSE(parse_rank_map("gpu01:0", nodes, 8, 1, &g, &error));
  CHECK(error == "entry \"gpu01:0\": want NODE:LOCAL_GPU, NODE:A-B or NODE:* with NODE a node index");
  CHECK_FALSE(parse_rank_map("0:0000:17:00.0", nodes, 8, 1, &g, &error));
  CHECK(error == "entry \"0:0000:17:00.0\": want NODE:LOCAL_GPU, NODE:A-B or NODE:* with NODE a node index");
  CHECK_FALSE(parse_rank_map("0:0-1;1:0", nodes, 8, 1, &g, &error));
  CHECK(error == "entry \"0:0-1;1:0\": want NODE:LOCAL_GPU, NODE:A-B or NODE:* with NODE a node index");
  CHECK_FALSE(parse_rank_map("0,,1", nodes, 8, 2, &g, &error));
  CHECK(error == "entry \"\": want a GPU index, a range N-M (N <= M) or NODE:LOCAL_GPU");
}

TEST_CASE("by host: local ranks in communicator order, short names") {
  const auto nodes = two_nodes();
  std::vector<RankInfo> ranks = {{"gpu02", "", ""}, {"gpu01.cluster.local", "", ""}, {"gpu02", "", ""}};
  std::vector<std::int64_t> g;
  std::string error;
  REQUIRE(map_by_host(ranks, nodes, &g, &error));
  CHECK(g == std::vector<std::int64_t>{4, 0, 5});
  ranks.push_back({"login1", "", ""});
  CHECK_FALSE(map_by_host(ranks, nodes, &g, &error));
  CHECK(error == "rank 3 (host \"login1\"): host not among the catalog's 2 node names (gpu01, gpu02; set "
                 "VPCAT_RANK_MAP to map ranks explicitly)");
  std::vector<RankInfo> five(5, RankInfo{"gpu01", "", ""});
  CHECK_FALSE(map_by_host(five, nodes, &g, &error));
  CHECK(error == "rank 4 (host \"gpu01\"): local rank 4, but node \"gpu01\" has 4 GPUs");
}

TEST_CASE("by host: CUDA_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES") {
  auto nodes = two_nodes();
  std::vector<std::int64_t> g;
  std::string error;
  // One device per rank: that device, whatever the local rank.
  REQUIRE(map_by_host({{"gpu01", "CUDA_VISIBLE_DEVICES", "3"}, {"gpu01", "CUDA_VISIBLE_DEVICES", "1"}}, nodes, &g, &error));
  CHECK(g == std::vector<std::int64_t>{3, 1});
  // A list: the local rank's entry.
  REQUIRE(map_by_host({{"gpu02", "CUDA_VISIBLE_DEVICES", "2,0"}, {"gpu02", "CUDA_VISIBLE_DEVICES", "2,0"}}, nodes, &g, &error));
  CHECK(g == std::vector<std::int64_t>{6, 4});
  // Device names win over positions.
  nodes[0].device_names = {"cuda3", "cuda2", "cuda1", "cuda0"};
  REQUIRE(map_by_host({{"gpu01", "CUDA_VISIBLE_DEVICES", "0"}}, nodes, &g, &error));
  CHECK(g == std::vector<std::int64_t>{3});
  nodes[0].device_names = {"rsmi0", "rsmi1", "rsmi2", "rsmi3"};
  REQUIRE(map_by_host({{"gpu01", "ROCR_VISIBLE_DEVICES", "2"}}, nodes, &g, &error));
  CHECK(g == std::vector<std::int64_t>{2});
  CHECK_FALSE(map_by_host({{"gpu01", "CUDA_VISIBLE_DEVICES", "GPU-1234"}}, nodes, &g, &error));
  CHECK(error == "rank 0 (host \"gpu01\"): CUDA_VISIBLE_DEVICES device \"GPU-1234\" is none of node \"gpu01\"'s 4 GPUs");
  CHECK_FALSE(map_by_host({{"gpu01", "CUDA_VISIBLE_DEVICES", "0,1"}, {"gpu01", "CUDA_VISIBLE_DEVICES", "0,1"},
                           {"gpu01", "CUDA_VISIBLE_DEVICES", "0,1"}}, nodes, &g, &error));
  CHECK(error == "rank 2 (host \"gpu01\"): CUDA_VISIBLE_DEVICES=\"0,1\" names no device for local rank 2");
}

TEST_CASE("check_map: two ranks on one GPU") {
  std::string error;
  CHECK(check_map({0, 1, 2}, 8, &error));
  CHECK_FALSE(check_map({0, 1, 0}, 8, &error));
  CHECK(error == "ranks 0 and 2 both map to GPU 0");
}

TEST_CASE("by host: a catalog that names none of the job's hosts") {
  auto nodes = two_nodes();
  const std::vector<RankInfo> ranks = {{"a01", "", ""}, {"a01", "", ""}, {"a02", "", ""}};
  std::vector<std::int64_t> g;
  std::string error;
  CHECK_FALSE(map_by_host(ranks, nodes, &g, &error));
  CHECK(error == "the catalog's node names match none of the job's hosts: its 2 nodes are gpu01, gpu02, the job's 2 "
                 "hosts are a01, a02 (a catalog of another cluster? rebuild it for these hosts, or set "
                 "VPCAT_RANK_MAP to map ranks explicitly)");
  nodes[0].name = "node0", nodes[1].name = "node1";  // vp-analyze without host names
  CHECK_FALSE(map_by_host({{"a01", "", ""}}, nodes, &g, &error));
  CHECK(error == "the catalog's node names match none of the job's hosts: its 2 nodes are node0, node1, the job's 1 "
                 "host is a01 (the catalog has generated names, not host names: rebuild it with vp-analyze "
                 "--hostname NAME or --hosts LIST, or set VPCAT_RANK_MAP to map ranks explicitly)");
  // One host in the catalog is enough to blame the rank that is not.
  CHECK_FALSE(map_by_host({{"gpu01", "", ""}, {"a01", "", ""}}, two_nodes(), &g, &error));
  CHECK(error.rfind("rank 1 (host \"a01\"): host not among", 0) == 0);
}

TEST_CASE("format_rank_map: runs as ranges, read back by parse_rank_map") {
  CHECK(format_rank_map({0, 1, 2, 3, 8, 9}) == "0-3,8-9");
  CHECK(format_rank_map({9, 2, 3, 14, 15, 0}) == "9,2-3,14-15,0");
  CHECK(format_rank_map({5}) == "5");
  CHECK(format_rank_map({}) == "");
  const std::vector<std::int64_t> map = {4, 5, 6, 7, 0, 2, 1, 3};
  std::vector<std::int64_t> back;
  std::string error;
  REQUIRE(parse_rank_map(format_rank_map(map), two_nodes(), 8, 8, &back, &error));
  CHECK(back == map);
}
