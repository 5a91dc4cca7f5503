// vpcat_place (vpcat.h "choosing a placement"): exact choices on the 4-node
// switch and the fragmented 32-node leaf/spine golden catalogs (those of
// tests/catalog_place_test.cpp and docs/subsets.md "Choosing a placement"),
// the same answer as vpcat::place() in C++, and every bad argument with its
// status and message.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "vpcat.h"
#include "vpcat/mapped_file.hpp"
#include "vpcat/placement.hpp"

namespace {

const std::string kGoldenDir = std::string(VP_FIXTURES_DIR) + "/catalogs/golden/";

struct Cat {
  vpcat_catalog* cat = nullptr;
  explicit Cat(const std::string& name) {
    vpcat_error err;
    REQUIRE(vpcat_catalog_open_file((kGoldenDir + name).c_str(), nullptr, &cat, &err) == VPCAT_OK);
  }
  ~Cat() { vpcat_catalog_destroy(cat); }
};

struct Out {
  std::vector<std::uint64_t> gpus;
  vpcat_placement p{};
  explicit Out(std::size_t n) : gpus(n, ~std::uint64_t{0}) {
    p.struct_size = sizeof p;
    p.gpus = gpus.data();
    p.capacity = gpus.size();
  }
};

// gpu01 wholly free; gpu02 already runs a job on its odd GPUs (8 GPUs a node).
const std::vector<std::uint64_t> kFourNodeFree = {0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14};

// docs/examples/fragmented-free.txt, as catalog GPU indexes (node i of 32 is gpu(i+1), 8 GPUs each).
std::vector<std::uint64_t> fragmented_free() {
  std::vector<std::uint64_t> out;
  auto add = [&](std::uint32_t host, std::vector<std::uint32_t> locals) {
    for (std::uint32_t g : locals) out.push_back(std::uint64_t{host - 1} * 8 + g);
  };
  add(3, {0, 5, 6}), add(6, {1, 2, 3, 4, 5}), add(11, {0, 1, 2, 3, 4, 5, 6, 7}), add(14, {2, 3});
  add(19, {4, 5, 6, 7}), add(21, {0, 1, 2, 3}), add(27, {0, 1, 2, 3, 4, 5, 6, 7}), add(30, {6, 7});
  for (std::uint32_t host = 1; host <= 32; ++host)
    if (host != 3 && host != 6 && host != 11 && host != 14 && host != 19 && host != 21 && host != 27 && host != 30)
      add(host, {0});
  return out;
}

std::vector<std::uint64_t> gpu_zero_of(std::vector<std::uint32_t> hosts) {
  std::vector<std::uint64_t> out;
  for (std::uint32_t h : hosts) out.push_back(std::uint64_t{h - 1} * 8);
  return out;
}

}  // namespace

TEST_CASE("vpcat_place: every free GPU asked for is the only candidate, and no node is left partial") {
  Cat c("pcie-gen4-2s4sw8g-4n-switch.vpcat");
  const std::vector<std::uint64_t> free = {19, 16, 0, 1, 2, 3, 17, 18, 20, 21, 22, 23};  // gpu01:0-3, gpu03:*
  Out out(12);
  vpcat_error err{};
  REQUIRE(vpcat_place(c.cat, free.data(), free.size(), 12, nullptr, nullptr, &out.p, &err) == VPCAT_OK);
  CHECK(out.gpus == std::vector<std::uint64_t>{0, 1, 2, 3, 16, 17, 18, 19, 20, 21, 22, 23});
  CHECK(out.p.candidates == 1);
  CHECK(out.p.choice_rank == 1);
  CHECK(out.p.node_count == 2);
  CHECK(out.p.partial_nodes_before == 1);
  CHECK(out.p.partial_nodes_after == 0);
  CHECK(out.p.pick == VPCAT_PICK_WHOLE);
  CHECK(out.p.bound_us > 0);
  CHECK(out.p.bound_us <= out.p.expected_us);
}

TEST_CASE("vpcat_place: the fastest expected, and with a wide slack the one that closes a partial node") {
  Cat c("pcie-gen4-2s4sw8g-4n-switch.vpcat");
  vpcat_place_options o = vpcat_place_options_default();
  o.slack = 0;
  Out fastest(4);
  vpcat_error err{};
  REQUIRE(vpcat_place(c.cat, kFourNodeFree.data(), kFourNodeFree.size(), 4, nullptr, &o, &fastest.p, &err) == VPCAT_OK);
  CHECK(fastest.p.choice_rank == 1);
  CHECK(fastest.p.candidates >= 2);
  // gpu01:0,2,4,6 and gpu02:0,2,4,6 are one placement up to the node's
  // symmetry: the same time. Only the second closes a partial node.
  o.slack = 10;
  Out wide(4);
  REQUIRE(vpcat_place(c.cat, kFourNodeFree.data(), kFourNodeFree.size(), 4, nullptr, &o, &wide.p, &err) == VPCAT_OK);
  CHECK(wide.gpus == std::vector<std::uint64_t>{8, 10, 12, 14});
  CHECK(wide.p.strategy == VPCAT_PLACE_FEWEST_NODES);  // best fit: the node with the fewest free GPUs that holds 4
  CHECK(wide.p.partial_nodes_before == 1);
  CHECK(wide.p.partial_nodes_after == 0);
  CHECK(wide.p.node_count == 1);
  CHECK(wide.p.expected_us >= fastest.p.expected_us);
}

TEST_CASE("vpcat_place: the fragmented 32-node cluster of docs/subsets.md, default and wide slack") {
  Cat c("pcie-gen4-2s4sw8g-32n-leafspine2to1.vpcat");
  const std::vector<std::uint64_t> free = fragmented_free();
  REQUIRE(free.size() == 60);
  Out out(16);
  vpcat_error err{};
  REQUIRE(vpcat_place(c.cat, free.data(), free.size(), 16, nullptr, nullptr, &out.p, &err) == VPCAT_OK);
  // One GPU per node: three candidates do so, all planned as fast (the
  // shared step, 5 % over the bound); the choice is the one that takes the
  // last free GPU of sixteen nodes.
  CHECK(out.gpus == gpu_zero_of({1, 2, 4, 5, 7, 8, 9, 10, 12, 13, 15, 16, 17, 18, 20, 22}));
  CHECK(out.p.strategy == VPCAT_PLACE_BALANCED_BEST_FIT);
  CHECK(out.p.strategy_detail == 16);
  CHECK(out.p.pick == VPCAT_PICK_WHOLE);
  CHECK(out.p.node_count == 16);
  CHECK(out.p.candidates == 12);
  CHECK(out.p.choice_rank == 1);
  CHECK(out.p.partial_nodes_before == 30);
  CHECK(out.p.partial_nodes_after == 14);

  // A wide slack finds no candidate with fewer partial nodes: the same choice.
  vpcat_place_options o = vpcat_place_options_default();
  o.slack = 0.5;
  Out wide(16);
  REQUIRE(vpcat_place(c.cat, free.data(), free.size(), 16, nullptr, &o, &wide.p, &err) == VPCAT_OK);
  CHECK(wide.gpus == out.gpus);
  CHECK(wide.p.choice_rank == 1);
  CHECK(wide.p.expected_us == out.p.expected_us);
}

TEST_CASE("vpcat_place: the same choice as vpcat::place(), the demand given or uniform") {
  Cat c("pcie-gen4-2s4sw8g-32n-leafspine2to1.vpcat");
  vpcat::CatalogFile file;
  REQUIRE(vpcat::CatalogFile::open((kGoldenDir + "pcie-gen4-2s4sw8g-32n-leafspine2to1.vpcat").c_str(), &file).ok());
  const std::vector<std::uint64_t> free = fragmented_free();
  const std::uint32_t n = 8;
  std::vector<std::uint64_t> skewed(n * n, 0);
  for (std::uint32_t s = 0; s < n; ++s)
    for (std::uint32_t d = 0; d < n; ++d)
      if (s != d) skewed[s * n + d] = (d == 0 ? 8u : 1u) << 20;  // rank 0 is the hot receiver
  vpcat::Placement cpp;
  REQUIRE(vpcat::place(file.view(), free.data(), free.size(), n, vpcat::Demand::dense(skewed.data(), n), {}, cpp).ok());
  Out out(n);
  vpcat_error err{};
  REQUIRE(vpcat_place(c.cat, free.data(), free.size(), n, skewed.data(), nullptr, &out.p, &err) == VPCAT_OK);
  CHECK(out.gpus == std::vector<std::uint64_t>(cpp.chosen_gpus(), cpp.chosen_gpus() + n));
  CHECK(out.p.expected_us == cpp.chosen().expected_us);
  CHECK(out.p.bound_us == cpp.chosen().bound_us);
  CHECK(out.p.candidates == cpp.candidate_count());
  // Each candidate's figures are its plan's, ranked fastest expected first.
  for (std::size_t i = 1; i < cpp.candidate_count(); ++i)
    CHECK(cpp.candidate(i - 1).expected_us <= cpp.candidate(i).expected_us);
  // NULL bytes: uniform_bytes between every two ranks, as the dense matrix of it.
  std::vector<std::uint64_t> uniform(n * n, 4096);
  for (std::uint32_t r = 0; r < n; ++r) uniform[r * n + r] = 0;
  vpcat_place_options o = vpcat_place_options_default();
  o.uniform_bytes = 4096;
  Out by_default(n), given(n);
  REQUIRE(vpcat_place(c.cat, free.data(), free.size(), n, nullptr, &o, &by_default.p, &err) == VPCAT_OK);
  REQUIRE(vpcat_place(c.cat, free.data(), free.size(), n, uniform.data(), &o, &given.p, &err) == VPCAT_OK);
  CHECK(by_default.gpus == given.gpus);
  CHECK(by_default.p.expected_us == given.p.expected_us);
  // Kept derivations (the C API passes its handle's): the same choice and
  // figures on a fresh DerivedPatterns and again once it holds them.
  vpcat::DerivedPatterns kept;
  for (int round = 0; round < 2; ++round) {
    vpcat::Placement again;
    REQUIRE(vpcat::place(file.view(), free.data(), free.size(), n, vpcat::Demand::dense(skewed.data(), n), {}, again,
                         &kept)
                .ok());
    CHECK(kept.size() > 0);  // the fragmented cluster's candidates hold partial nodes
    REQUIRE(again.candidate_count() == cpp.candidate_count());
    CHECK(std::vector<std::uint64_t>(again.chosen_gpus(), again.chosen_gpus() + n) ==
          std::vector<std::uint64_t>(cpp.chosen_gpus(), cpp.chosen_gpus() + n));
    for (std::size_t i = 0; i < cpp.candidate_count(); ++i) {
      CHECK(again.candidate(i).expected_us == cpp.candidate(i).expected_us);
      CHECK(again.candidate(i).bound_us == cpp.candidate(i).bound_us);
    }
  }
  char text[64];
  CHECK(vpcat::describe(cpp.chosen(), text, sizeof text) < sizeof text);
  CHECK(std::string(text).find("nodes") != std::string::npos);
}

TEST_CASE("vpcat_place: bad arguments get their status and a message naming the field") {
  Cat c("pcie-gen4-2s4sw8g-4n-switch.vpcat");
  const std::vector<std::uint64_t>& free = kFourNodeFree;
  vpcat_error err{};
  Out out(4);
  auto msg = [&] { return std::string(err.message); };
  CHECK(vpcat_place(nullptr, free.data(), free.size(), 4, nullptr, nullptr, &out.p, &err) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(msg() == "vpcat_place: invalid argument (cat is NULL)");
  CHECK(vpcat_place(c.cat, free.data(), free.size(), 4, nullptr, nullptr, nullptr, &err) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(vpcat_place(c.cat, nullptr, 3, 4, nullptr, nullptr, &out.p, &err) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(msg() == "vpcat_place: invalid argument (free_gpus is NULL, free_count 3)");
  out.p.struct_size = 8;
  CHECK(vpcat_place(c.cat, free.data(), free.size(), 4, nullptr, nullptr, &out.p, &err) == VPCAT_E_INVALID_ARGUMENT);
  out.p.struct_size = sizeof out.p;

  vpcat_place_options o = vpcat_place_options_default();
  o.struct_size = 4;
  CHECK(vpcat_place(c.cat, free.data(), free.size(), 4, nullptr, &o, &out.p, &err) == VPCAT_E_INVALID_ARGUMENT);
  o = vpcat_place_options_default();
  o.reserved = 1;
  CHECK(vpcat_place(c.cat, free.data(), free.size(), 4, nullptr, &o, &out.p, &err) == VPCAT_E_INVALID_ARGUMENT);
  o = vpcat_place_options_default();
  o.uniform_bytes = 0;
  CHECK(vpcat_place(c.cat, free.data(), free.size(), 4, nullptr, &o, &out.p, &err) == VPCAT_E_INVALID_ARGUMENT);
  CHECK(msg() == "vpcat_place: invalid argument (bytes is NULL and options->uniform_bytes is 0: no demand)");
  o = vpcat_place_options_default();
  o.slack = -1;
  CHECK(vpcat_place(c.cat, free.data(), free.size(), 4, nullptr, &o, &out.p, &err) == VPCAT_E_BAD_OPTIONS);
  o.slack = std::numeric_limits<double>::quiet_NaN();
  CHECK(vpcat_place(c.cat, free.data(), free.size(), 4, nullptr, &o, &out.p, &err) == VPCAT_E_BAD_OPTIONS);
  o = vpcat_place_options_default();
  o.plan.latency_us = -1;
  CHECK(vpcat_place(c.cat, free.data(), free.size(), 4, nullptr, &o, &out.p, &err) == VPCAT_E_BAD_OPTIONS);
  o = vpcat_place_options_default();
  o.plan.struct_size = 0;
  CHECK(vpcat_place(c.cat, free.data(), free.size(), 4, nullptr, &o, &out.p, &err) == VPCAT_E_INVALID_ARGUMENT);

  // The free list and the job size.
  CHECK(vpcat_place(c.cat, free.data(), free.size(), 13, nullptr, nullptr, &out.p, &err) == VPCAT_E_BAD_SUBSET);
  CHECK(msg() == "placement: subset does not fit the catalog (13 GPUs asked for, 12 free)");
  CHECK(vpcat_place(c.cat, free.data(), free.size(), 0xFFFFFFFFu, nullptr, nullptr, &out.p, &err) ==
        VPCAT_E_BAD_SUBSET);  // refused as too many, no 2^64-byte uniform demand built first
  CHECK(msg() == "placement: subset does not fit the catalog (4294967295 GPUs asked for, 12 free)");
  CHECK(vpcat_place(c.cat, free.data(), free.size(), 0, nullptr, nullptr, &out.p, &err) == VPCAT_E_BAD_SUBSET);
  const std::uint64_t beyond[] = {3, 32};
  CHECK(vpcat_place(c.cat, beyond, 2, 1, nullptr, nullptr, &out.p, &err) == VPCAT_E_BAD_SUBSET);
  CHECK(msg() == "placement: subset does not fit the catalog (free GPU 1 is 32, the catalog has 32 GPUs)");
  const std::uint64_t twice[] = {5, 9, 5};
  CHECK(vpcat_place(c.cat, twice, 3, 1, nullptr, nullptr, &out.p, &err) == VPCAT_E_BAD_SUBSET);
  CHECK(msg() == "placement: subset does not fit the catalog (free GPU 5 is listed twice)");
  CHECK(vpcat_place(c.cat, nullptr, 0, 1, nullptr, nullptr, &out.p, &err) == VPCAT_E_BAD_SUBSET);

  // A demand the planner refuses, and a buffer too short: `out` untouched.
  const std::vector<std::uint64_t> overflow(16, std::numeric_limits<std::uint64_t>::max());
  CHECK(vpcat_place(c.cat, free.data(), free.size(), 4, overflow.data(), nullptr, &out.p, &err) ==
        VPCAT_E_DEMAND_OVERFLOW);
  Out small(3);
  CHECK(vpcat_place(c.cat, free.data(), free.size(), 4, nullptr, nullptr, &small.p, &err) == VPCAT_E_BUFFER_TOO_SMALL);
  CHECK(msg() == "vpcat_place: buffer too small (out->capacity is 3, the job has 4 GPUs)");
  CHECK(small.gpus == std::vector<std::uint64_t>(3, ~std::uint64_t{0}));
  CHECK(out.gpus == std::vector<std::uint64_t>(4, ~std::uint64_t{0}));
}
