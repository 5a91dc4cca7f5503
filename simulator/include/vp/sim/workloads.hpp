// Demand generators for the evaluation suite (docs/design.md §7):
// uniform, MoE dispatch with Zipf-skewed expert popularity, a hot spot,
// sequence-parallel attention, and a drifting sequence of MoE calls.
//
// Deterministic: the same arguments give the same matrices with every
// compiler and standard library (own generator, vp/sim/prng.hpp; no <random>
// distributions; the only libm call is std::pow for the Zipf weights, see
// docs/simulator.md). The diagonal is always 0 (a GPU's data for itself does not
// move). GPU indexes are global (Topology::gpus order). Sizes are bytes.
// Every function throws vp::UsageError on a zero GPU count or an
// out-of-range option, naming it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "vp/sim/demand.hpp"

namespace vp::sim {

// Every GPU sends `bytes_per_pair` to every other GPU.
Demand uniform_demand(std::size_t gpus, double bytes_per_pair);

// lukealonso/p2pmark's topology probe "+k": every GPU i reads `bytes` from
// GPU (i + k) mod n, so GPU (i + k) mod n sends to i (one flow per GPU).
// k mod n must not be 0.
Demand shift_demand(std::size_t gpus, std::size_t k, double bytes);

// p2pmark's single-reader test: every other GPU sends `bytes` to `reader`.
Demand incast_demand(std::size_t gpus, std::size_t reader, double bytes);

// Uniform, except that every GPU sends `factor` x `bytes_per_pair` to GPU
// `hot` (so it receives `factor` times what any other GPU receives).
Demand hot_spot_demand(std::size_t gpus, double bytes_per_pair, std::size_t hot, double factor = 10.0);

// MoE dispatch. Expert e lives on GPU e mod gpus (round robin). Expert
// popularity follows Zipf: the expert of popularity rank r (1-based) has
// weight 1 / r^zipf_exponent; ranks are a seeded random permutation of the
// experts. Each GPU routes tokens_per_gpu tokens; each token picks top_k
// distinct experts by weighted sampling without replacement, and is sent
// once to every other GPU hosting at least one of them (hidden x
// bytes_per_element bytes; bf16 = 2).
struct MoeOptions {
  std::size_t experts = 128;
  std::size_t top_k = 8;            // <= experts
  std::size_t tokens_per_gpu = 4096;
  std::size_t hidden = 2048;
  std::size_t bytes_per_element = 2;
  double zipf_exponent = 1.0;       // >= 0; 0 = uniform popularity
  std::uint64_t seed = 1;
};
Demand moe_dispatch_demand(std::size_t gpus, const MoeOptions& opts);

// Sequence-parallel attention (DeepSpeed-Ulysses style all-to-all): each GPU
// holds tokens_per_gpu tokens of all hidden channels and sends every other
// GPU its share of the channels: tokens_per_gpu x hidden / gpus x
// bytes_per_element bytes (uniform, large).
struct SequenceParallelOptions {
  std::size_t tokens_per_gpu = 32768;
  std::size_t hidden = 4096;
  std::size_t bytes_per_element = 2;
};
Demand sequence_parallel_demand(std::size_t gpus, const SequenceParallelOptions& opts = {});

// `calls` MoE dispatch matrices whose skew drifts as MoE traffic does from
// call to call: the Zipf exponent of call c goes linearly from 0.5 up to
// 1.2 (at c = calls / 2) and back, 0.5 + 0.7 (1 - |1 - 2c / calls|); between calls the popularity
// ranking drifts by experts / 16 swaps of neighbouring ranks; call c samples
// its tokens with seed opts.seed + c. opts.zipf_exponent is ignored.
std::vector<Demand> drifting_moe_sequence(std::size_t gpus, const MoeOptions& opts, std::size_t calls = 50);

}  // namespace vp::sim
