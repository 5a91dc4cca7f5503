// Running a plan over MPI: the plan in ranks, and its execution by one rank.
//
// A plan is steps of hops (src, dst, origin, final, bytes), ranks of the
// communicator. The payload origin -> final is a byte stream (the packed
// elements origin sends to final); its first hops (src == origin) take it in
// plan order, a hop into a relay (dst != final) appends its bytes to the
// relay's staging for that payload, a hop out of a relay (src != origin)
// takes the oldest bytes staged there. Every rank simulates the whole plan
// (resolve()), so sender and receiver agree on which stream bytes each
// message carries without sending offsets.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace vpcat_mpi {

struct Hop {
  std::uint32_t src = 0, dst = 0, origin = 0, final = 0;  // ranks
  std::uint64_t bytes = 0;
};

struct RankPlan {
  std::vector<std::uint64_t> step_first;  // index of each step's first hop
  std::vector<std::uint32_t> step_count;
  std::vector<Hop> hops;
  void clear() {
    step_first.clear(), step_count.clear(), hops.clear();
  }
};

// Where a piece of a message lives at this rank.
struct Seg {
  enum Kind : std::uint8_t { send_stream, recv_stream, relay_arena } kind = send_stream;
  std::uint32_t stream = 0;  // peer rank (send/recv stream) ; unused for the arena
  std::uint64_t offset = 0, len = 0;
};

// One message this rank sends or receives in a step.
struct Action {
  std::uint32_t step = 0;
  std::uint32_t peer = 0;
  bool send = false;
  std::uint64_t bytes = 0;
  std::uint32_t first_seg = 0, seg_count = 0;  // in Resolved::segs
};

struct Resolved {
  std::vector<Action> actions;  // in step order, receives before sends within a step
  std::vector<Seg> segs;
  std::uint64_t arena_bytes = 0;  // relay staging this rank needs
};

// Simulate `plan` over `ranks` ranks and list what rank `me` does.
// send_len[f] / recv_len[o]: this rank's stream lengths (bytes). demand
// (ranks x ranks bytes, row = origin) may be null; when given, also check
// that the plan delivers exactly it. false and *why when the plan is not
// runnable (an inconsistency found identically on every rank that has the
// same inputs).
bool resolve(const RankPlan& plan, std::uint32_t ranks, std::uint32_t me, const std::uint64_t* send_len,
             const std::uint64_t* recv_len, const std::uint64_t* demand, Resolved* out, std::string* why);

// Run `r` on `comm` (tag `tag`): per step, post the receives, the sends,
// wait. send_at[f] / recv_at[o]: the streams' first bytes. Returns an MPI
// error code.
int execute(const Resolved& r, MPI_Comm comm, int tag, const char* const* send_at, char* const* recv_at,
            std::vector<char>* arena, std::vector<std::vector<char>>* temps, std::vector<MPI_Request>* requests);

}  // namespace vpcat_mpi
