// libvpcat_mpi: vpcat_mpi.h on top of the runtime's C API (vpcat.h) and PMPI.
#include "vpcat_mpi.h"

#include <unistd.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "exec.hpp"
#include "plan_mode.hpp"
#include "rank_map.hpp"
#include "vp/base/messages.hpp"
#include "vpcat/hostlist.hpp"

using vpcat_mpi::CatalogNode;
using vpcat_mpi::RankInfo;

struct vpcat_mpi_ctx {
  MPI_Comm comm = MPI_COMM_NULL;  // our duplicate
  int size = 0, rank = 0;
  bool fallback = false;
  std::string fallback_reason;
  std::vector<std::int64_t> gpu_of_rank;
  std::uint64_t gpu_count = 0;
  // The planner serves the communicator's GPUs only (a subset planner,
  // docs/subsets.md): its GPU i is the i-th lowest catalog GPU a rank holds.
  std::vector<std::uint64_t> held;          // planner GPU -> catalog GPU
  std::vector<std::uint32_t> planner_gpu;   // rank -> planner GPU
  std::vector<std::int32_t> rank_of_planner_gpu;
  vpcat_planner* planner = nullptr;
  vpcat_plan* plan = nullptr;
  vpcat_mpi_options options{};
  int plan_mode = VPCAT_MPI_PLAN_EVERY_RANK;
  // Per-call scratch, kept between calls.
  std::vector<std::int64_t> row, matrix;
  std::vector<std::uint64_t> demand, send_len, recv_len;
  std::vector<vpcat_demand_entry> entries;
  std::vector<std::uint64_t> wire;  // a plan as broadcast in ROOT mode
  vpcat_mpi::RankPlan rank_plan;
  vpcat_mpi::Resolved resolved;
  std::vector<char> send_stage, recv_stage, arena;
  std::vector<std::vector<char>> temps;
  std::vector<MPI_Request> requests;
  std::vector<const char*> send_at;
  std::vector<char*> recv_at;
  // Statistics.
  vpcat_mpi_stats stats{};
  std::vector<double> plan_samples;
  std::string first_call_reason;
};

namespace {

constexpr int kTag = 0x5643;  // "VC"; on our own communicator
constexpr std::size_t kHostField = 256, kVarField = 32, kValueField = 224, kWorldField = 2 * sizeof(std::int32_t);
constexpr std::size_t kInfoSize = kHostField + kVarField + kValueField + kWorldField;
constexpr std::size_t kMaxPlanSamples = 1u << 20;
constexpr int kWarmUpLargeBytes = 64 * 1024;  // per pair, vpcat_mpi_warm_up's second exchange

void set_error(vpcat_mpi_error* err, int code, const char* fmt, ...) {
  if (!err) return;
  err->code = code;
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(err->message, sizeof err->message, fmt, ap);
  va_end(ap);
}

std::string mpi_error_string(int rc) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (PMPI_Error_string(rc, text, &len) != MPI_SUCCESS) return "MPI error " + std::to_string(rc);
  return std::string(text, static_cast<std::size_t>(len));
}

void put_field(char* dst, std::size_t size, const std::string& s) {
  std::memset(dst, 0, size);
  std::memcpy(dst, s.data(), std::min(s.size(), size - 1));
}

std::string get_field(const char* src, std::size_t size) { return std::string(src, strnlen(src, size)); }

RankInfo my_info() {
  RankInfo r;
  if (const char* h = std::getenv("VPCAT_HOSTNAME"); h && *h) {
    r.host = h;
  } else {
    char name[kHostField] = {0};
    if (gethostname(name, sizeof name - 1) == 0) r.host = name;
  }
  for (const char* var : {"CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES"}) {
    if (const char* v = std::getenv(var); v && *v) {
      r.visible_var = var, r.visible_devices = v;
      break;
    }
  }
  return r;
}

// The catalog's nodes with their names and GPUs; false and *why.
bool catalog_nodes(const vpcat_catalog* cat, std::vector<CatalogNode>* nodes, std::uint64_t* gpu_count,
                   std::string* why) {
  vpcat_catalog_info info;
  if (vpcat_catalog_get_info(cat, &info) != VPCAT_OK || vpcat_catalog_gpu_count(cat, gpu_count) != VPCAT_OK)
    return *why = "catalog: cannot read its cluster record", false;
  std::uint32_t node_count = 0;
  vpcat_catalog_node_count(cat, &node_count);
  nodes->assign(node_count, CatalogNode{});
  for (std::uint32_t g = 0;; ++g) {
    vpcat_node_group group;
    if (vpcat_catalog_node_group(cat, g, &group) != VPCAT_OK) break;
    std::vector<std::string> names;
    vpcat::HostlistError error;
    if (!vpcat::expand_hostlist(group.names ? group.names : "", &names, &error))
      return *why = "catalog: node group " + std::to_string(g) + ": names \"" + group.names + "\": " + error.what, false;
    for (std::uint32_t k = 0; k < group.count && group.first_node + k < node_count; ++k)
      (*nodes)[group.first_node + k].name = k < names.size() ? names[k] : "";
  }
  for (std::uint32_t n = 0; n < node_count; ++n) {
    vpcat_node node;
    if (vpcat_catalog_node(cat, n, &node) != VPCAT_OK) return *why = "catalog: node " + std::to_string(n), false;
    (*nodes)[n].first_gpu = node.first_gpu;
    for (std::uint32_t g = 0; g < node.gpu_count; ++g) {
      vpcat_gpu gpu;
      const bool ok = vpcat_catalog_gpu(cat, node.first_gpu + g, &gpu) == VPCAT_OK;
      (*nodes)[n].device_names.push_back(ok && gpu.device_name ? gpu.device_name : "");
    }
  }
  return true;
}

// A string as rank 0 has it, on every rank.
int bcast_string(std::string* s, MPI_Comm comm) {
  unsigned long long n = s->size();
  if (int rc = PMPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, 0, comm); rc != MPI_SUCCESS) return rc;
  s->resize(n);
  return n ? PMPI_Bcast(s->data(), static_cast<int>(n), MPI_CHAR, 0, comm) : MPI_SUCCESS;
}

// The mapping, on every rank the same: 0, or a code and *why.
int map_ranks(const vpcat_catalog* cat, const vpcat_mpi_options& opt, vpcat_mpi_ctx* ctx, std::string* why) {
  std::vector<char> mine(kInfoSize), all(kInfoSize * ctx->size);
  const RankInfo me = my_info();
  put_field(mine.data(), kHostField, me.host);
  put_field(mine.data() + kHostField, kVarField, me.visible_var);
  put_field(mine.data() + kHostField + kVarField, kValueField, me.visible_devices);
  // The rank in MPI_COMM_WORLD and its size, for a map written for the world
  // (rank_map.hpp parse_rank_map_for).
  std::int32_t world[2] = {0, 0};
  PMPI_Comm_rank(MPI_COMM_WORLD, &world[0]);
  PMPI_Comm_size(MPI_COMM_WORLD, &world[1]);
  std::memcpy(mine.data() + kHostField + kVarField + kValueField, world, sizeof world);
  if (int rc = PMPI_Allgather(mine.data(), static_cast<int>(kInfoSize), MPI_CHAR, all.data(),
                              static_cast<int>(kInfoSize), MPI_CHAR, ctx->comm);
      rc != MPI_SUCCESS)
    return *why = "vpcat_mpi_init: exchanging host names: " + mpi_error_string(rc), VPCAT_MPI_E_MPI;
  std::string map_text;
  bool explicit_map = false;
  if (ctx->rank == 0) {
    const char* text = opt.rank_map ? opt.rank_map : std::getenv("VPCAT_RANK_MAP");
    if (text) map_text = std::string("=") + text;  // '=' marks "set", even when empty
  }
  if (int rc = bcast_string(&map_text, ctx->comm); rc != MPI_SUCCESS)
    return *why = "vpcat_mpi_init: " + mpi_error_string(rc), VPCAT_MPI_E_MPI;
  explicit_map = !map_text.empty();
  if (explicit_map) map_text.erase(0, 1);

  std::vector<CatalogNode> nodes;
  if (!catalog_nodes(cat, &nodes, &ctx->gpu_count, why)) return VPCAT_MPI_E_MISMATCH;
  if (static_cast<std::uint64_t>(ctx->size) > ctx->gpu_count)
    return *why = "the communicator has " + std::to_string(ctx->size) + " ranks, the catalog " +
                  std::to_string(ctx->gpu_count) + " GPUs (one rank per GPU)",
           VPCAT_MPI_E_MISMATCH;
  std::string error;
  if (explicit_map) {
    // World ranks, when every rank is of one world (not so after an
    // MPI_Comm_spawn and MPI_Intercomm_merge: two worlds, whose ranks repeat).
    std::vector<int> world_ranks(static_cast<std::size_t>(ctx->size));
    std::vector<bool> seen;
    int world_size = -1;
    for (int r = 0; r < ctx->size && world_size != 0; ++r) {
      std::int32_t w[2] = {0, 0};
      std::memcpy(w, all.data() + kInfoSize * r + kHostField + kVarField + kValueField, sizeof w);
      if (world_size < 0) world_size = w[1], seen.assign(static_cast<std::size_t>(std::max(w[1], 0)), false);
      if (w[1] != world_size || w[0] < 0 || w[0] >= world_size || seen[static_cast<std::size_t>(w[0])]) {
        world_size = 0;  // not one world: only a map of one entry per rank of the communicator
        break;
      }
      seen[static_cast<std::size_t>(w[0])] = true;
      world_ranks[static_cast<std::size_t>(r)] = w[0];
    }
    if (!vpcat_mpi::parse_rank_map_for(map_text, nodes, ctx->gpu_count, world_ranks, world_size, &ctx->gpu_of_rank,
                                       &error))
      return *why = std::string(opt.rank_map ? "rank_map" : "VPCAT_RANK_MAP") + " \"" + map_text + "\": " + error,
             VPCAT_MPI_E_BAD_RANK_MAP;
  } else {
    std::vector<RankInfo> infos(ctx->size);
    for (int r = 0; r < ctx->size; ++r) {
      const char* p = all.data() + kInfoSize * r;
      infos[r] = {get_field(p, kHostField), get_field(p + kHostField, kVarField),
                  get_field(p + kHostField + kVarField, kValueField)};
    }
    if (!vpcat_mpi::map_by_host(infos, nodes, &ctx->gpu_of_rank, &error))
      return *why = "mapping ranks by host: " + error, VPCAT_MPI_E_MISMATCH;
  }
  if (!vpcat_mpi::check_map(ctx->gpu_of_rank, ctx->gpu_count, &error))
    return *why = std::string(explicit_map ? "the explicit rank map: " : "mapping ranks by host: ") + error,
           VPCAT_MPI_E_MISMATCH;
  return VPCAT_MPI_OK;
}

void free_ctx(vpcat_mpi_ctx* ctx) {
  if (!ctx) return;
  if (ctx->plan) vpcat_plan_destroy(ctx->plan);
  if (ctx->planner) vpcat_planner_destroy(ctx->planner);
  int finalized = 0;
  PMPI_Finalized(&finalized);
  if (ctx->comm != MPI_COMM_NULL && !finalized) PMPI_Comm_free(&ctx->comm);
  delete ctx;
}

struct TypeInfo {
  int size = 0;
  MPI_Aint extent = 0, true_lb = 0, true_extent = 0;
  bool contiguous = false;  // count elements are count * size consecutive bytes
};

int type_info(MPI_Datatype t, TypeInfo* out) {
  MPI_Aint lb = 0;
  if (int rc = PMPI_Type_size(t, &out->size); rc != MPI_SUCCESS) return rc;
  if (int rc = PMPI_Type_get_extent(t, &lb, &out->extent); rc != MPI_SUCCESS) return rc;
  if (int rc = PMPI_Type_get_true_extent(t, &out->true_lb, &out->true_extent); rc != MPI_SUCCESS) return rc;
  out->contiguous = out->size == out->true_extent && out->extent == out->true_extent;
  return MPI_SUCCESS;
}

double now_us() { return PMPI_Wtime() * 1e6; }

std::uint64_t digest(const vpcat_mpi::RankPlan& p) {
  std::uint64_t h = 1469598103934665603ull;
  auto mix = [&](std::uint64_t v) { h = (h ^ v) * 1099511628211ull; };
  for (std::size_t s = 0; s < p.step_count.size(); ++s) mix(p.step_count[s]);
  for (const vpcat_mpi::Hop& x : p.hops) mix(x.src), mix(x.dst), mix(x.origin), mix(x.final), mix(x.bytes);
  return h;
}

// Plan the gathered matrix (ctx->matrix, ranks x ranks bytes) into
// ctx->rank_plan; false and *why.
bool make_plan(vpcat_mpi_ctx* ctx, std::string* why) {
  const std::size_t n = static_cast<std::size_t>(ctx->size);
  ctx->entries.clear();
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      const std::int64_t b = ctx->matrix[i * n + j];
      if (i != j && b > 0)
        ctx->entries.push_back({ctx->planner_gpu[i], ctx->planner_gpu[j], static_cast<std::uint64_t>(b)});
    }
  }
  vpcat_error err;
  ctx->rank_plan.clear();
  if (ctx->entries.empty()) return true;
  if (vpcat_planner_plan_sparse(ctx->planner, ctx->entries.data(), ctx->entries.size(), n,
                                &ctx->options.plan, ctx->plan, &err) != VPCAT_OK)
    return *why = std::string("planning: ") + err.message, false;
  std::size_t steps = 0;
  vpcat_plan_step_count(ctx->plan, &steps);
  for (std::size_t s = 0; s < steps; ++s) {
    vpcat_step st;
    vpcat_plan_step(ctx->plan, s, &st);
    ctx->rank_plan.step_first.push_back(ctx->rank_plan.hops.size());
    ctx->rank_plan.step_count.push_back(st.count);
    for (std::uint32_t k = 0; k < st.count; ++k) {
      vpcat_transfer t;
      vpcat_plan_transfer(ctx->plan, st.first + k, &t);
      const std::uint32_t g[4] = {t.src, t.dst, t.origin, t.final};
      std::uint32_t r[4];
      for (int q = 0; q < 4; ++q) {
        if (g[q] >= n || ctx->rank_of_planner_gpu[g[q]] < 0)
          return *why = "step " + std::to_string(s) + " names planner GPU " + std::to_string(g[q]) +
                        ", which no rank holds",
                 false;
        r[q] = static_cast<std::uint32_t>(ctx->rank_of_planner_gpu[g[q]]);
      }
      ctx->rank_plan.hops.push_back({r[0], r[1], r[2], r[3], t.bytes});
    }
  }
  return true;
}

// ROOT mode: rank 0's plan (or its failure) to every rank.
int share_plan(vpcat_mpi_ctx* ctx, bool ok, const std::string& root_why, bool* plan_ok, std::string* why) {
  std::vector<std::uint64_t>& w = ctx->wire;
  std::uint64_t head[3] = {ok ? 1u : 0u, 0, 0};
  if (ctx->rank == 0 && ok) {
    head[1] = ctx->rank_plan.step_count.size(), head[2] = ctx->rank_plan.hops.size();
    w.clear();
    for (std::uint32_t c : ctx->rank_plan.step_count) w.push_back(c);
    for (const vpcat_mpi::Hop& h : ctx->rank_plan.hops) {
      w.push_back((std::uint64_t{h.src} << 32) | h.dst);
      w.push_back((std::uint64_t{h.origin} << 32) | h.final);
      w.push_back(h.bytes);
    }
  }
  if (int rc = PMPI_Bcast(head, 3, MPI_UINT64_T, 0, ctx->comm); rc != MPI_SUCCESS) return rc;
  *plan_ok = head[0] == 1;
  if (!*plan_ok) {
    *why = root_why;
    if (int rc = bcast_string(why, ctx->comm); rc != MPI_SUCCESS) return rc;
    return MPI_SUCCESS;
  }
  w.resize(head[1] + 3 * head[2]);
  if (!w.empty()) {
    if (int rc = PMPI_Bcast(w.data(), static_cast<int>(w.size()), MPI_UINT64_T, 0, ctx->comm); rc != MPI_SUCCESS)
      return rc;
  }
  if (ctx->rank != 0) {
    ctx->rank_plan.clear();
    std::uint64_t first = 0;
    for (std::uint64_t s = 0; s < head[1]; ++s) {
      ctx->rank_plan.step_first.push_back(first);
      ctx->rank_plan.step_count.push_back(static_cast<std::uint32_t>(w[s]));
      first += w[s];
    }
    for (std::uint64_t k = 0; k < head[2]; ++k) {
      const std::uint64_t* p = w.data() + head[1] + 3 * k;
      ctx->rank_plan.hops.push_back({static_cast<std::uint32_t>(p[0] >> 32), static_cast<std::uint32_t>(p[0]),
                                     static_cast<std::uint32_t>(p[1] >> 32), static_cast<std::uint32_t>(p[1]), p[2]});
    }
  }
  return MPI_SUCCESS;
}

int fallback_call(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                  void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                  vpcat_mpi_ctx* ctx, const std::string& why) {
  if (ctx->first_call_reason.empty()) ctx->first_call_reason = why;
  if (ctx->options.strict) return MPI_ERR_OTHER;  // strict: no plain MPI behind our back
  ++ctx->stats.fallbacks;
  return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, ctx->comm);
}

}  // namespace

extern "C" {

vpcat_mpi_options vpcat_mpi_options_default(void) {
  vpcat_mpi_options o;
  std::memset(&o, 0, sizeof o);
  o.struct_size = sizeof o;
  o.plan = vpcat_plan_options_default();
  return o;
}

int vpcat_mpi_init(const vpcat_catalog* catalog, MPI_Comm comm, const vpcat_mpi_options* options,
                   vpcat_mpi_ctx** out, vpcat_mpi_error* err) {
  if (err) err->code = VPCAT_MPI_OK, err->message[0] = '\0';
  if (!out) return set_error(err, VPCAT_MPI_E_INVALID_ARGUMENT, "vpcat_mpi_init: ctx is NULL"), VPCAT_MPI_E_INVALID_ARGUMENT;
  *out = nullptr;
  vpcat_mpi_options opt = options ? *options : vpcat_mpi_options_default();
  if (!catalog || comm == MPI_COMM_NULL || opt.struct_size != sizeof opt || opt.strict > 1)
    return set_error(err, VPCAT_MPI_E_INVALID_ARGUMENT,
                     "vpcat_mpi_init: %s", !catalog ? "catalog is NULL" : comm == MPI_COMM_NULL ? "comm is MPI_COMM_NULL"
                                                                       : "options: wrong struct_size or strict > 1 (start from vpcat_mpi_options_default())"),
           VPCAT_MPI_E_INVALID_ARGUMENT;
  static_assert(vpcat_mpi::kPlanEveryRank == VPCAT_MPI_PLAN_EVERY_RANK && vpcat_mpi::kPlanRoot == VPCAT_MPI_PLAN_ROOT,
                "plan_mode.hpp and vpcat_mpi.h disagree");
  const int mode = opt.plan_mode == VPCAT_MPI_PLAN_DEFAULT ? vpcat_mpi::parse_plan_mode(std::getenv("VPCAT_MPI_PLAN"))
                                                            : static_cast<int>(opt.plan_mode);
  if (mode != VPCAT_MPI_PLAN_EVERY_RANK && mode != VPCAT_MPI_PLAN_ROOT)
    return set_error(err, VPCAT_MPI_E_INVALID_ARGUMENT, "vpcat_mpi_init: %s: %s",
                     opt.plan_mode == VPCAT_MPI_PLAN_DEFAULT ? "VPCAT_MPI_PLAN" : "options.plan_mode",
                     opt.plan_mode == VPCAT_MPI_PLAN_DEFAULT ? vpcat_mpi::kPlanModeValues : "not a VPCAT_MPI_PLAN_* value"),
           VPCAT_MPI_E_INVALID_ARGUMENT;
  // A NIC loopback is a route this executor cannot force: MPI chooses its
  // own transport between ranks of one host (docs/planner.md "NIC loopback").
  if (opt.plan.nic_loopback != 0)
    return set_error(err, VPCAT_MPI_E_INVALID_ARGUMENT,
                     "vpcat_mpi_init: options.plan.nic_loopback is set: MPI chooses its own transport between "
                     "ranks of one host, so this executor cannot run a NIC loopback as planned"),
           VPCAT_MPI_E_INVALID_ARGUMENT;
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  if (inter)
    return set_error(err, VPCAT_MPI_E_INVALID_ARGUMENT, "vpcat_mpi_init: comm is an intercommunicator (not supported)"),
           VPCAT_MPI_E_INVALID_ARGUMENT;
  auto* ctx = new vpcat_mpi_ctx;
  ctx->options = opt;
  ctx->plan_mode = mode;
  if (int rc = PMPI_Comm_dup(comm, &ctx->comm); rc != MPI_SUCCESS) {
    delete ctx;
    return set_error(err, VPCAT_MPI_E_MPI, "vpcat_mpi_init: MPI_Comm_dup: %s", mpi_error_string(rc).c_str()),
           VPCAT_MPI_E_MPI;
  }
  PMPI_Comm_size(ctx->comm, &ctx->size);
  PMPI_Comm_rank(ctx->comm, &ctx->rank);

  std::string why;
  int code = map_ranks(catalog, opt, ctx, &why);
  if (code == VPCAT_MPI_OK) {
    vpcat_error verr;
    ctx->held.assign(ctx->gpu_of_rank.begin(), ctx->gpu_of_rank.end());
    std::sort(ctx->held.begin(), ctx->held.end());  // catalog order: a node's GPUs together
    ctx->planner_gpu.assign(ctx->size, 0);
    ctx->rank_of_planner_gpu.assign(ctx->size, -1);
    for (int r = 0; r < ctx->size; ++r) {
      const std::uint64_t g = static_cast<std::uint64_t>(ctx->gpu_of_rank[r]);
      const std::size_t i = std::lower_bound(ctx->held.begin(), ctx->held.end(), g) - ctx->held.begin();
      ctx->planner_gpu[r] = static_cast<std::uint32_t>(i);
      ctx->rank_of_planner_gpu[i] = r;
    }
    if (vpcat_planner_create_subset(catalog, ctx->held.data(), ctx->held.size(), &ctx->planner, &verr) != VPCAT_OK) {
      code = verr.code, why = std::string("the catalog's planner: ") + verr.message;
    } else if (vpcat_plan_create(&ctx->plan) != VPCAT_OK) {
      code = VPCAT_E_OUT_OF_MEMORY, why = "vpcat_plan_create: out of memory";
    }
  }
  // Agree: the lowest failing rank's code and message on every rank.
  int failing = code == VPCAT_MPI_OK ? ctx->size : ctx->rank, first_failing = ctx->size;
  if (int rc = PMPI_Allreduce(&failing, &first_failing, 1, MPI_INT, MPI_MIN, ctx->comm); rc != MPI_SUCCESS) {
    free_ctx(ctx);
    return set_error(err, VPCAT_MPI_E_MPI, "vpcat_mpi_init: %s", mpi_error_string(rc).c_str()), VPCAT_MPI_E_MPI;
  }
  if (first_failing < ctx->size) {
    int shared_code = code;
    PMPI_Bcast(&shared_code, 1, MPI_INT, first_failing, ctx->comm);
    unsigned long long n = why.size();
    PMPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, first_failing, ctx->comm);
    why.resize(n);
    if (n) PMPI_Bcast(why.data(), static_cast<int>(n), MPI_CHAR, first_failing, ctx->comm);
    if (!opt.allow_fallback || opt.strict) {
      set_error(err, shared_code, "vpcat_mpi_init: %s", why.c_str());
      free_ctx(ctx);
      return shared_code;
    }
    ctx->fallback = true;
    ctx->fallback_reason = why;
    ctx->gpu_of_rank.assign(ctx->size, -1);
    if (ctx->rank == 0 && !opt.quiet)
      vp::warn("vpcat_mpi", "the catalog does not fit the communicator, every call falls back to MPI_Alltoallv: " + why);
  }
  *out = ctx;
  return VPCAT_MPI_OK;
}

int vpcat_mpi_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                        void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                        vpcat_mpi_ctx* ctx) {
  if (!ctx) return MPI_ERR_ARG;
  ++ctx->stats.calls;
  if (ctx->fallback)
    return fallback_call(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, ctx,
                         ctx->fallback_reason);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  const std::size_t n = static_cast<std::size_t>(ctx->size);
  const std::size_t me = static_cast<std::size_t>(ctx->rank);
  TypeInfo st, rt;
  if (int rc = type_info(recvtype, &rt); rc != MPI_SUCCESS) return rc;
  if (in_place) st = rt;
  else if (int rc = type_info(sendtype, &st); rc != MPI_SUCCESS) return rc;
  const int* scounts = in_place ? recvcounts : sendcounts;

  // This rank's streams: where the bytes for / from each peer are.
  ctx->send_len.resize(n), ctx->recv_len.resize(n), ctx->send_at.resize(n), ctx->recv_at.resize(n);
  ctx->row.resize(n);
  std::uint64_t send_total = 0, recv_total = 0;
  for (std::size_t j = 0; j < n; ++j) {
    if (scounts[j] < 0 || recvcounts[j] < 0) return MPI_ERR_COUNT;
    ctx->send_len[j] = std::uint64_t(scounts[j]) * std::uint64_t(st.size);
    ctx->recv_len[j] = std::uint64_t(recvcounts[j]) * std::uint64_t(rt.size);
    ctx->row[j] = static_cast<std::int64_t>(ctx->send_len[j]);
    send_total += ctx->send_len[j], recv_total += ctx->recv_len[j];
  }
  const bool pack_send = in_place || !st.contiguous, pack_recv = !rt.contiguous;
  if ((pack_send && send_total > INT32_MAX) || (pack_recv && recv_total > INT32_MAX))
    return fallback_call(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, ctx,
                         "a non-contiguous datatype with more than 2^31 bytes to pack");

  const double t0 = now_us();
  ctx->matrix.resize(n * n);
  int rc = ctx->plan_mode == VPCAT_MPI_PLAN_ROOT
               ? PMPI_Gather(ctx->row.data(), static_cast<int>(n), MPI_INT64_T, ctx->matrix.data(),
                             static_cast<int>(n), MPI_INT64_T, 0, ctx->comm)
               : PMPI_Allgather(ctx->row.data(), static_cast<int>(n), MPI_INT64_T, ctx->matrix.data(),
                                static_cast<int>(n), MPI_INT64_T, ctx->comm);
  if (rc != MPI_SUCCESS) return rc;
  const double t1 = now_us();

  std::string why;
  bool ok = true;
  const bool has_matrix = ctx->plan_mode != VPCAT_MPI_PLAN_ROOT || ctx->rank == 0;
  ctx->demand.resize(n * n);
  if (has_matrix) {
    for (std::size_t k = 0; k < n * n; ++k) ctx->demand[k] = static_cast<std::uint64_t>(ctx->matrix[k]);
    ok = make_plan(ctx, &why);
    if (ok) ok = vpcat_mpi::resolve(ctx->rank_plan, static_cast<std::uint32_t>(n), static_cast<std::uint32_t>(me),
                                    ctx->send_len.data(), ctx->recv_len.data(), ctx->demand.data(), &ctx->resolved,
                                    &why);
  }
  if (ctx->plan_mode == VPCAT_MPI_PLAN_ROOT) {
    bool plan_ok = false;
    if ((rc = share_plan(ctx, ok, why, &plan_ok, &why)) != MPI_SUCCESS) return rc;
    ok = plan_ok;
    if (ok && ctx->rank != 0)
      ok = vpcat_mpi::resolve(ctx->rank_plan, static_cast<std::uint32_t>(n), static_cast<std::uint32_t>(me),
                              ctx->send_len.data(), ctx->recv_len.data(), nullptr, &ctx->resolved, &why);
    if (!ok && ctx->rank != 0 && why.empty()) why = "the plan";
  }
  if (ctx->options.check_plans) {
    std::uint64_t h[2] = {digest(ctx->rank_plan), ~digest(ctx->rank_plan)}, m[2] = {0, 0};
    if ((rc = PMPI_Allreduce(h, m, 2, MPI_UINT64_T, MPI_MAX, ctx->comm)) != MPI_SUCCESS) return rc;
    if (m[0] != h[0] || m[1] != h[1]) {
      char text[96];
      std::snprintf(text, sizeof text, "rank %d: the ranks' plans differ (digest %016llx)", ctx->rank,
                    static_cast<unsigned long long>(h[0]));
      vp::error("vpcat_mpi", text);
      return MPI_ERR_INTERN;
    }
  }
  const double t2 = now_us();
  if (!ok)  // identical on every rank: the same inputs (or rank 0's verdict)
    return fallback_call(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, ctx, why);

  // Streams: contiguous buffers in place, others packed into staging.
  const char* sbase = static_cast<const char*>(in_place ? recvbuf : sendbuf);
  const int* sd = in_place ? rdispls : sdispls;
  MPI_Datatype stype = in_place ? recvtype : sendtype;
  if (pack_send) {
    ctx->send_stage.resize(send_total);
    int pos = 0;
    for (std::size_t j = 0; j < n; ++j) {
      ctx->send_at[j] = ctx->send_stage.data() + pos;
      if (scounts[j] == 0) continue;
      rc = PMPI_Pack(sbase + MPI_Aint(sd[j]) * st.extent, scounts[j], stype, ctx->send_stage.data(),
                     static_cast<int>(send_total), &pos, ctx->comm);
      if (rc != MPI_SUCCESS) return rc;
    }
  } else {
    for (std::size_t j = 0; j < n; ++j) ctx->send_at[j] = sbase + MPI_Aint(sd[j]) * st.extent + st.true_lb;
  }
  char* rbase = static_cast<char*>(recvbuf);
  if (pack_recv) {
    ctx->recv_stage.resize(recv_total);
    std::uint64_t at = 0;
    for (std::size_t j = 0; j < n; ++j) ctx->recv_at[j] = ctx->recv_stage.data() + at, at += ctx->recv_len[j];
  } else {
    for (std::size_t j = 0; j < n; ++j) ctx->recv_at[j] = rbase + MPI_Aint(rdispls[j]) * rt.extent + rt.true_lb;
  }
  // A rank's data for itself.
  if (!in_place || pack_recv) {
    if (ctx->send_len[me] != ctx->recv_len[me]) return MPI_ERR_TRUNCATE;
    if (ctx->send_len[me]) std::memmove(ctx->recv_at[me], ctx->send_at[me], ctx->send_len[me]);
  }
  rc = vpcat_mpi::execute(ctx->resolved, ctx->comm, kTag, ctx->send_at.data(), ctx->recv_at.data(), &ctx->arena,
                          &ctx->temps, &ctx->requests);
  if (rc != MPI_SUCCESS) return rc;
  if (pack_recv) {
    int pos = 0;
    for (std::size_t j = 0; j < n; ++j) {
      if (recvcounts[j] == 0) continue;
      rc = PMPI_Unpack(ctx->recv_stage.data(), static_cast<int>(recv_total), &pos,
                       rbase + MPI_Aint(rdispls[j]) * rt.extent, recvcounts[j], recvtype, ctx->comm);
      if (rc != MPI_SUCCESS) return rc;
    }
  }
  const double t3 = now_us();
  ++ctx->stats.served;
  ctx->stats.steps += ctx->rank_plan.step_count.size();
  ctx->stats.last_exchange_us = t1 - t0, ctx->stats.last_plan_us = t2 - t1, ctx->stats.last_transfer_us = t3 - t2;
  ctx->stats.exchange_us += t1 - t0, ctx->stats.plan_us += t2 - t1, ctx->stats.transfer_us += t3 - t2;
  if (ctx->plan_samples.size() < kMaxPlanSamples) ctx->plan_samples.push_back(t2 - t1);
  ctx->stats.plan_us_max = std::max(ctx->stats.plan_us_max, t2 - t1);
  return MPI_SUCCESS;
}

int vpcat_mpi_warm_up(vpcat_mpi_ctx* ctx) {
  if (!ctx) return MPI_ERR_ARG;
  if (ctx->fallback) return MPI_SUCCESS;
  const vpcat_mpi_stats stats = ctx->stats;
  const std::size_t samples = ctx->plan_samples.size();
  const std::string reason = ctx->first_call_reason;
  const std::size_t n = static_cast<std::size_t>(ctx->size);
  int rc = MPI_SUCCESS;
  // A small message and one past MPI's eager limits (its large-message
  // protocol has its own first-use setup).
  for (int bytes : {1, kWarmUpLargeBytes}) {
    std::vector<int> counts(n, bytes), displs(n);
    counts[static_cast<std::size_t>(ctx->rank)] = 0;
    for (std::size_t j = 0; j < n; ++j) displs[j] = static_cast<int>(j) * bytes;
    std::vector<char> sbuf(n * static_cast<std::size_t>(bytes), 0), rbuf(n * static_cast<std::size_t>(bytes), 0);
    rc = vpcat_mpi_alltoallv(sbuf.data(), counts.data(), displs.data(), MPI_BYTE, rbuf.data(), counts.data(),
                             displs.data(), MPI_BYTE, ctx);
    if (rc != MPI_SUCCESS) break;
  }
  ctx->stats = stats;  // not a call of the program's
  ctx->plan_samples.resize(samples);
  ctx->first_call_reason = reason;
  return rc;
}

void vpcat_mpi_finalize(vpcat_mpi_ctx** ctx) {
  if (!ctx || !*ctx) return;
  free_ctx(*ctx);
  *ctx = nullptr;
}

int64_t vpcat_mpi_rank_gpu(const vpcat_mpi_ctx* ctx, int rank) {
  if (!ctx || rank < 0 || rank >= ctx->size || ctx->fallback) return -1;
  return ctx->gpu_of_rank[static_cast<std::size_t>(rank)];
}

const char* vpcat_mpi_fallback_reason(const vpcat_mpi_ctx* ctx) {
  return ctx && ctx->fallback ? ctx->fallback_reason.c_str() : nullptr;
}

int vpcat_mpi_plan_mode(const vpcat_mpi_ctx* ctx) { return ctx ? ctx->plan_mode : 0; }

int vpcat_mpi_get_stats(const vpcat_mpi_ctx* ctx, vpcat_mpi_stats* out) {
  if (!ctx || !out) return VPCAT_MPI_E_INVALID_ARGUMENT;
  *out = ctx->stats;
  if (!ctx->plan_samples.empty()) {
    std::vector<double> v = ctx->plan_samples;
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    out->plan_us_median = v[v.size() / 2];
  }
  out->fallback_reason = ctx->fallback ? ctx->fallback_reason.c_str()
                                       : ctx->first_call_reason.empty() ? nullptr : ctx->first_call_reason.c_str();
  return VPCAT_MPI_OK;
}

}  // extern "C"
