#include "exec.hpp"

#include <cstring>
#include <deque>
#include <map>
#include <tuple>
#include <unordered_map>

namespace vpcat_mpi {
namespace {

// Messages above this are cut into pieces of this many bytes (MPI counts are int).
constexpr std::uint64_t kMaxMessage = std::uint64_t{1} << 30;

// Bytes of a payload held by a relay.
struct Staged {
  std::uint64_t payload_offset, len;
  std::uint64_t arena_offset;  // in the relay's arena
  std::size_t step;            // when it arrived
};

std::string hop_name(std::size_t step, const Hop& h) {
  return "step " + std::to_string(step) + ": hop " + std::to_string(h.src) + "->" + std::to_string(h.dst) +
         " of payload " + std::to_string(h.origin) + "->" + std::to_string(h.final);
}

}  // namespace

bool resolve(const RankPlan& plan, std::uint32_t ranks, std::uint32_t me, const std::uint64_t* send_len,
             const std::uint64_t* recv_len, const std::uint64_t* demand, Resolved* out, std::string* why) {
  out->actions.clear();
  out->segs.clear();
  out->arena_bytes = 0;
  std::unordered_map<std::uint64_t, std::uint64_t> cursor;  // origin * ranks + final -> first-hop bytes so far
  std::unordered_map<std::uint32_t, std::uint64_t> arena;   // relay rank -> arena bytes so far
  std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>, std::deque<Staged>> staged;  // (relay, o, f)
  std::vector<Staged> pieces;  // of one hop: payload offset, length, arena offset at its source
  std::vector<Action> sends;
  std::vector<Seg> send_segs;
  for (std::size_t s = 0; s < plan.step_count.size(); ++s) {
    sends.clear();
    send_segs.clear();
    for (std::uint64_t k = plan.step_first[s]; k < plan.step_first[s] + plan.step_count[s]; ++k) {
      const Hop& h = plan.hops[k];
      if (h.src >= ranks || h.dst >= ranks || h.origin >= ranks || h.final >= ranks || h.src == h.dst ||
          h.bytes == 0 || h.origin == h.final || h.dst == h.origin || h.src == h.final)
        return *why = hop_name(s, h) + ": not a valid hop (ranks below " + std::to_string(ranks) + ", bytes > 0)", false;
      pieces.clear();
      if (h.src == h.origin) {  // a first hop: the next bytes of the payload
        std::uint64_t& c = cursor[std::uint64_t{h.origin} * ranks + h.final];
        pieces.push_back({c, h.bytes, 0, s});
        c += h.bytes;
      } else {  // out of a relay: the oldest bytes staged there
        auto it = staged.find({h.src, h.origin, h.final});
        for (std::uint64_t need = h.bytes; need > 0;) {
          if (it == staged.end() || it->second.empty() || it->second.front().step >= s)
            return *why = hop_name(s, h) + ": forwards bytes rank " + std::to_string(h.src) +
                          " has not received in an earlier step",
                   false;
          Staged& front = it->second.front();
          const std::uint64_t take = front.len < need ? front.len : need;
          pieces.push_back({front.payload_offset, take, front.arena_offset, s});
          front.payload_offset += take, front.arena_offset += take, front.len -= take, need -= take;
          if (front.len == 0) it->second.pop_front();
        }
      }
      const std::uint32_t first_seg_recv = static_cast<std::uint32_t>(out->segs.size());
      for (const Staged& p : pieces) {
        std::uint64_t dst_arena = 0;
        if (h.dst != h.final) {  // into a relay: staged there
          std::uint64_t& a = arena[h.dst];
          dst_arena = a;
          a += p.len;
          staged[{h.dst, h.origin, h.final}].push_back({p.payload_offset, p.len, dst_arena, s});
        }
        if (h.src == me) {
          if (h.src == h.origin) {
            if (p.payload_offset + p.len > send_len[h.final])
              return *why = hop_name(s, h) + ": sends past the " + std::to_string(send_len[h.final]) +
                            " bytes of the payload",
                     false;
            send_segs.push_back({Seg::send_stream, h.final, p.payload_offset, p.len});
          } else {
            send_segs.push_back({Seg::relay_arena, 0, p.arena_offset, p.len});
          }
        }
        if (h.dst == me) {
          if (h.dst == h.final) {
            if (p.payload_offset + p.len > recv_len[h.origin])
              return *why = hop_name(s, h) + ": delivers past the " + std::to_string(recv_len[h.origin]) +
                            " bytes rank " + std::to_string(me) + " expects from rank " + std::to_string(h.origin),
                     false;
            out->segs.push_back({Seg::recv_stream, h.origin, p.payload_offset, p.len});
          } else {
            out->segs.push_back({Seg::relay_arena, 0, dst_arena, p.len});
          }
        }
      }
      if (h.dst == me)
        out->actions.push_back({static_cast<std::uint32_t>(s), h.src, false, h.bytes, first_seg_recv,
                                static_cast<std::uint32_t>(out->segs.size()) - first_seg_recv});
      if (h.src == me)
        sends.push_back({static_cast<std::uint32_t>(s), h.dst, true, h.bytes,
                         static_cast<std::uint32_t>(send_segs.size() - pieces.size()),
                         static_cast<std::uint32_t>(pieces.size())});
    }
    // This step's sends after its receives; their segments move to out->segs.
    const std::uint32_t base = static_cast<std::uint32_t>(out->segs.size());
    out->segs.insert(out->segs.end(), send_segs.begin(), send_segs.end());
    for (Action& a : sends) {
      a.first_seg += base;
      out->actions.push_back(a);
    }
  }
  for (const auto& [key, q] : staged) {
    for (const Staged& st : q) {
      if (st.len > 0)
        return *why = "the plan leaves " + std::to_string(st.len) + " bytes of payload " +
                      std::to_string(std::get<1>(key)) + "->" + std::to_string(std::get<2>(key)) + " at relay rank " +
                      std::to_string(std::get<0>(key)),
               false;
    }
  }
  if (demand) {
    for (std::uint32_t o = 0; o < ranks; ++o) {
      for (std::uint32_t f = 0; f < ranks; ++f) {
        if (o == f) continue;
        auto it = cursor.find(std::uint64_t{o} * ranks + f);
        const std::uint64_t sent = it == cursor.end() ? 0 : it->second;
        if (sent != demand[std::uint64_t{o} * ranks + f])
          return *why = "the plan moves " + std::to_string(sent) + " bytes of payload " + std::to_string(o) + "->" +
                        std::to_string(f) + ", the demand " + std::to_string(demand[std::uint64_t{o} * ranks + f]),
                 false;
      }
    }
  }
  auto mine = arena.find(me);
  out->arena_bytes = mine == arena.end() ? 0 : mine->second;
  return true;
}

int execute(const Resolved& r, MPI_Comm comm, int tag, const char* const* send_at, char* const* recv_at,
            std::vector<char>* arena, std::vector<std::vector<char>>* temps, std::vector<MPI_Request>* requests) {
  if (arena->size() < r.arena_bytes) arena->resize(r.arena_bytes);
  if (temps->size() < r.actions.size()) temps->resize(r.actions.size());
  auto where = [&](const Seg& g) -> char* {
    switch (g.kind) {
      case Seg::send_stream: return const_cast<char*>(send_at[g.stream]) + g.offset;
      case Seg::recv_stream: return recv_at[g.stream] + g.offset;
      case Seg::relay_arena: return arena->data() + g.offset;
    }
    return nullptr;
  };
  std::size_t a = 0;
  while (a < r.actions.size()) {
    const std::uint32_t step = r.actions[a].step;
    std::size_t end = a;
    while (end < r.actions.size() && r.actions[end].step == step) ++end;
    requests->clear();
    for (std::size_t i = a; i < end; ++i) {
      const Action& act = r.actions[i];
      char* buf = nullptr;
      if (act.seg_count == 1) {
        buf = where(r.segs[act.first_seg]);
      } else {
        std::vector<char>& t = (*temps)[i];
        t.resize(act.bytes);
        buf = t.data();
        if (act.send) {
          std::uint64_t at = 0;
          for (std::uint32_t k = 0; k < act.seg_count; ++k) {
            const Seg& g = r.segs[act.first_seg + k];
            std::memcpy(buf + at, where(g), g.len);
            at += g.len;
          }
        }
      }
      for (std::uint64_t off = 0; off < act.bytes; off += kMaxMessage) {
        const int n = static_cast<int>(act.bytes - off < kMaxMessage ? act.bytes - off : kMaxMessage);
        requests->emplace_back();
        const int rc = act.send ? PMPI_Isend(buf + off, n, MPI_BYTE, static_cast<int>(act.peer), tag, comm,
                                             &requests->back())
                                : PMPI_Irecv(buf + off, n, MPI_BYTE, static_cast<int>(act.peer), tag, comm,
                                             &requests->back());
        if (rc != MPI_SUCCESS) return rc;
      }
    }
    if (!requests->empty()) {
      const int rc = PMPI_Waitall(static_cast<int>(requests->size()), requests->data(), MPI_STATUSES_IGNORE);
      if (rc != MPI_SUCCESS) return rc;
    }
    for (std::size_t i = a; i < end; ++i) {  // scatter what arrived in pieces
      const Action& act = r.actions[i];
      if (act.send || act.seg_count == 1) continue;
      std::uint64_t at = 0;
      for (std::uint32_t k = 0; k < act.seg_count; ++k) {
        const Seg& g = r.segs[act.first_seg + k];
        std::memcpy(where(g), (*temps)[i].data() + at, g.len);
        at += g.len;
      }
    }
    a = end;
  }
  return MPI_SUCCESS;
}

}  // namespace vpcat_mpi
