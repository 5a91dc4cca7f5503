// Rank -> GPU mapping of libvpcat_mpi: pure functions of what every rank
// all-gathered (host names, visible-device variables) and of the catalog's
// nodes, so that every rank computes the same map or the same error.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vpcat_mpi {

// The catalog as the mapping sees it: one entry per node, in node order.
struct CatalogNode {
  std::string name;                       // host name
  std::uint64_t first_gpu = 0;            // global index of its local GPU 0
  std::vector<std::string> device_names;  // per local GPU ("cuda0"; may be empty)
};

// What one rank reports about itself.
struct RankInfo {
  std::string host;             // gethostname() or VPCAT_HOSTNAME
  std::string visible_var;      // "CUDA_VISIBLE_DEVICES" etc., empty when none is set
  std::string visible_devices;  // its value
};

// Parse an explicit map ("0-7", "0,2,4", "1:3,0:0") for `ranks` ranks:
// one global GPU per rank. false and *error (the entry that is wrong and why).
bool parse_rank_map(const std::string& text, const std::vector<CatalogNode>& nodes, std::uint64_t gpu_count,
                    int ranks, std::vector<std::int64_t>* gpus, std::string* error);

// The explicit map of a communicator whose rank r is rank world_rank[r] of
// MPI_COMM_WORLD (-1: not in it, e.g. a process spawned into a merged
// communicator), the world having world_size ranks: a map of one entry per
// rank of the communicator gives entry r to rank r; a map of one entry per
// world rank (a different count, every rank in the world) gives entry
// world_rank[r] to rank r, so that one VPCAT_RANK_MAP serves every
// communicator split from the world. false and *error otherwise.
bool parse_rank_map_for(const std::string& text, const std::vector<CatalogNode>& nodes, std::uint64_t gpu_count,
                        const std::vector<int>& world_rank, int world_size, std::vector<std::int64_t>* gpus,
                        std::string* error);

// The map by host (vpcat_mpi.h). false and *error naming the first rank that
// cannot be placed.
bool map_by_host(const std::vector<RankInfo>& ranks, const std::vector<CatalogNode>& nodes,
                 std::vector<std::int64_t>* gpus, std::string* error);

// A map as VPCAT_RANK_MAP text, runs of consecutive GPUs as ranges:
// {0,1,2,3,8,9} -> "0-3,8-9" (parse_rank_map reads it back).
std::string format_rank_map(const std::vector<std::int64_t>& gpus);

// Every GPU below gpu_count, none twice; false and *error otherwise.
bool check_map(const std::vector<std::int64_t>& gpus, std::uint64_t gpu_count, std::string* error);

}  // namespace vpcat_mpi
