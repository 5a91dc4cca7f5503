// `vp-sim --sizes MIN:MAX[:FACTOR]`: the message sizes of an nccl-tests
// sweep, the demand of a workload at each size, and the figures nccl-tests
// reports for alltoall at it (docs/simulator.md "Message sizes").
//
// nccl-tests (NVIDIA/nccl-tests, src/common.cu parsesize, setupArgs and
// TimeTest's loop; src/alltoall.cu AlltoAllGetCollByteCount and
// AlltoAllGetBw): a size is a rank's whole send buffer, split evenly among
// the n ranks (itself included) in 16-byte-aligned shares of its default
// type, float; algbw = n * share / time and busbw = algbw * (n - 1) / n.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "vp/sim/demand.hpp"

namespace vp::sim_cli {

struct SizeSweep {
  std::string text;  // as given, for messages
  std::uint64_t min = 0, max = 0, factor = 2;
  // min, min * factor, ... while <= max (nccl-tests' loop: max itself only
  // when it is on that grid).
  std::vector<std::uint64_t> sizes() const;
};

// The largest size --sizes takes (1024G): far above any GPU's buffer, and
// every byte count stays exact in the simulator's doubles.
constexpr std::uint64_t kMaxSweepSize = std::uint64_t{1} << 40;
constexpr std::uint64_t kMaxSweepFactor = 1024;

// "MIN:MAX" or "MIN:MAX:FACTOR"; each size a whole number of bytes with an
// optional unit K, M or G (either case; 2^10, 2^20, 2^30 as nccl-tests' -b
// and -e), from 1 byte to kMaxSweepSize; FACTOR a whole number from 2 to
// kMaxSweepFactor (nccl-tests' -f; default 2). Throws vp::UsageError, e.g.
// "--sizes 64M:1K: MIN is above MAX".
SizeSweep parse_sizes(const std::string& spec);

// What nccl-tests runs for a size on `ranks` ranks with its default type
// (float, 4 bytes): `count` floats to each rank, count = (size / 4 / ranks)
// rounded down to a multiple of 4 (16 bytes), and reports `size` = ranks *
// count * 4, its "size" column, the per-rank buffer its bandwidths divide.
struct NcclAlltoallSize {
  std::uint64_t size = 0;   // bytes per rank, itself included
  std::uint64_t count = 0;  // floats per peer: nccl-tests' "count" column
};
constexpr std::uint64_t kNcclTypeBytes = 4;
NcclAlltoallSize nccl_alltoall_size(std::uint64_t size, std::size_t ranks);

// nccl-tests' alltoall bandwidths (AlltoAllGetBw) in GB/s (1e9 bytes/s) for
// `size` bytes per rank (NcclAlltoallSize::size) done in `time_us`.
struct NcclBandwidth {
  double algbw_gbps = 0.0;
  double busbw_gbps = 0.0;
};
NcclBandwidth nccl_alltoall_bw(std::uint64_t size, double time_us, std::size_t ranks);

// `shape` scaled to `size` bytes per rank: its off-diagonal bytes sum to
// exactly size * (n - 1) (a rank's mean is then size, counting its share
// for itself as size / n, as nccl-tests does), each pair in proportion to
// the shape's, in whole bytes (rounded by largest remainder, ties to the
// lower index, so a pair without bytes stays without). The shape's entries
// are whole bytes (the generators'). Throws vp::UsageError for a
// shape without off-diagonal bytes (nothing to scale).
sim::Demand demand_at_size(const sim::Demand& shape, std::uint64_t size);

}  // namespace vp::sim_cli
