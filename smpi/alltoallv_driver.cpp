// vp_smpi_alltoallv: one AlltoAllv of a demand matrix, through VarioPath's
// MPI executor (libvpcat_mpi, unmodified) or through MPI_Alltoallv, timed
// and checked byte for byte. Built with smpicxx and run under smpirun
// (docs/smpi.md), where MPI_Alltoallv is the algorithm of
// --cfg=smpi/alltoallv:NAME; it is plain MPI and runs under mpirun too.
//
//   smpirun -np N ... vp_smpi_alltoallv --method vpcat|mpi --demand D.txt [--catalog C.vpcat] [--calls K]
//                                       [--no-check | --shared-malloc]
//
// D.txt: the number of ranks n, then n x n byte counts, row = source rank
// (whitespace-separated; `#` starts a comment line). Rank i sends row i.
// With --method vpcat, ranks map to GPUs as vpcat_mpi_init says
// (VPCAT_RANK_MAP; docs/mpi.md). Each call starts on every rank at one
// instant: after a barrier, the ranks agree on the latest time any of them
// left it (an all-reduce), and each sleeps until 1 ms past it (a barrier
// alone releases the ranks one message latency apart, which the call's time
// would include). The call's time is from that instant to the last rank
// returning (MPI_Wtime: the simulated clock under SMPI, where sleeping is
// simulated; under mpirun the clocks of several hosts need not agree).
// Rank 0 prints one line per call:
//
//   call 0 method vpcat ranks 16 bytes 123456 time_us 812.25 check ok
//
// and, for vpcat, the executor's statistics of the last call (counts
// exchange, planning, transfer, steps). Exit codes: 0 ok, 1 usage, 2 a bad
// demand file or a catalog that cannot be opened or does not fit, 3 a byte
// received wrong (the first ones are named), 4 an MPI or executor failure.
//
// --shared-malloc (SMPI only; for the largest platforms): the buffers come
// from SMPI's partial shared malloc, in which every rank's unsampled blocks
// are one shared, folded mapping whose bytes SMPI does not copy, so memory
// and copying stay small. What is still checked: the sampled bytes, which
// stay private: per rank, the blocks to and from its partners
// at distances 1 + k floor(n / 8), k = 0..7 ((dst - src) mod n; at most 8
// partners each way), their even offsets below 64 (see kSampleBytes). The
// line then says "check sampled".
#include <mpi.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <time.h>

#include "vpcat.h"
#include "vpcat_mpi.h"

namespace {

int rank_ = 0, size_ = 0;

struct Args {
  std::string method, demand, catalog;
  int calls = 1;
  bool check = true;
  bool shared = false;  // --shared-malloc
};

[[noreturn]] void quit(int code, const std::string& msg) {
  if (rank_ == 0 || code == 3 || code == 4) std::fprintf(stderr, "vp_smpi_alltoallv: rank %d: %s\n", rank_, msg.c_str());
  MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
}

Args parse_args(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) quit(1, s + ": a value expected");
      return argv[++i];
    };
    if (s == "--method") a.method = value();
    else if (s == "--demand") a.demand = value();
    else if (s == "--catalog") a.catalog = value();
    else if (s == "--calls") {
      const std::string v = value();
      char* end = nullptr;
      const long c = std::strtol(v.c_str(), &end, 10);
      if (end == v.c_str() || *end != '\0' || c < 1 || c > 1000) quit(1, "--calls " + v + ": a whole number from 1 to 1000 expected");
      a.calls = static_cast<int>(c);
    } else if (s == "--no-check") a.check = false;
    else if (s == "--shared-malloc") a.shared = true;
    else quit(1, "unknown argument " + s + " (usage: --method vpcat|mpi --demand D.txt [--catalog C.vpcat] [--calls K] [--no-check | --shared-malloc])");
  }
  if (a.method != "vpcat" && a.method != "mpi") quit(1, "--method vpcat or --method mpi expected");
  if (a.demand.empty()) quit(1, "--demand D.txt expected");
  if (a.method == "vpcat" && a.catalog.empty()) quit(1, "--method vpcat needs --catalog C.vpcat");
  if (a.shared && !a.check) quit(1, "--shared-malloc and --no-check: choose one (--shared-malloc checks the sampled blocks)");
#ifndef SMPI_PARTIAL_SHARED_MALLOC
  if (a.shared) quit(1, "--shared-malloc needs SMPI (a build with smpicxx, run under smpirun)");
#endif
  return a;
}

// The n x n matrix of `path`, checked: n equals the ranks, every count a
// whole number that fits an int (MPI counts of bytes).
std::vector<int> read_demand(const std::string& path) {
  std::ifstream in(path);
  if (!in) quit(2, path + ": cannot be read");
  std::string text, line;
  int line_no = 0;
  std::vector<std::pair<std::string, int>> tokens;  // token, line
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line[0] == '#') continue;
    std::istringstream ls(line);
    std::string tok;
    while (ls >> tok) tokens.emplace_back(tok, line_no);
  }
  auto whole = [&](std::size_t k, long long hi) {
    const auto& [tok, at] = tokens[k];
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(tok.c_str(), &end, 10);
    if (end == tok.c_str() || *end != '\0' || errno != 0 || v < 0 || v > hi)
      quit(2, path + ":" + std::to_string(at) + ": \"" + tok + "\" is not a whole number from 0 to " + std::to_string(hi));
    return v;
  };
  if (tokens.empty()) quit(2, path + ": empty (n, then n x n byte counts expected)");
  const long long n = whole(0, 1 << 20);
  if (n != size_) quit(2, path + ":" + std::to_string(tokens[0].second) + ": the matrix is for " + std::to_string(n) + " ranks, the run has " + std::to_string(size_));
  if (tokens.size() != 1 + static_cast<std::size_t>(n * n))
    quit(2, path + ": " + std::to_string(tokens.size() - 1) + " byte counts, " + std::to_string(n * n) + " expected (n x n)");
  std::vector<int> m(static_cast<std::size_t>(n * n));
  for (std::size_t k = 0; k < m.size(); ++k) m[k] = static_cast<int>(whole(k + 1, std::numeric_limits<int>::max()));
  return m;
}

// Sleep until MPI_Wtime() reaches `t` (nanosleep: simulated under SMPI).
void sleep_until(double t) {
  const double wait = t - MPI_Wtime();
  if (wait <= 0) return;
  timespec ts;
  ts.tv_sec = static_cast<time_t>(wait);
  ts.tv_nsec = static_cast<long>((wait - static_cast<double>(ts.tv_sec)) * 1e9);
  nanosleep(&ts, nullptr);
}

// The byte `i` of the block that `src` sends `dst`.
unsigned char pattern(int src, int dst, std::int64_t i) {
  return static_cast<unsigned char>(src * 7 + dst * 13 + i * 31 + (i >> 8) + 1);
}

// Under --shared-malloc, the bytes of a block that stay private and are
// checked: for the sampled pairs, whose distance (dst - src) mod n is one of
// 1 + k floor(n / 8), k = 0..7, the even offsets below kSampleBytes. Single
// private bytes between shared ones: SMPI 3.32 copies a message's private
// blocks only from where they begin (a message that starts inside a
// private block loses it: its shift_and_frame_private_blocks), and the
// executor may split a block into chunks at any offset.
constexpr std::int64_t kSampleBytes = 64;
bool sampled(int src, int dst, int n) {
  const int d = ((dst - src) % n + n) % n, stride = n / 8 > 0 ? n / 8 : 1;
  return d >= 1 && (d - 1) % stride == 0 && (d - 1) / stride < 8;
}

// The offsets of a block (of `count` bytes) that are written and checked:
// every one, or under --shared-malloc the sample of a sampled block, or none.
struct Checked {
  bool all;
  bool sampled;
  std::int64_t first_after(std::int64_t count) const { return all ? count : sampled ? std::min(count, kSampleBytes) : 0; }
  std::int64_t step() const { return all ? 1 : 2; }
};

// A send or receive buffer of `total` bytes whose blocks are at `displs`
// with `counts`. Private (std::vector) unless `shared`: then SMPI's partial
// shared malloc, shared but for the bytes checked[j] names.
class Buffer {
 public:
  Buffer(std::int64_t total, const std::vector<int>& counts, const std::vector<int>& displs, bool shared,
         const std::vector<Checked>& checked)
      : size_(static_cast<std::size_t>(total)) {
#ifdef SMPI_PARTIAL_SHARED_MALLOC
    if (shared && size_ > 0) {
      // The shared ranges [from, to): everything but the private bytes.
      std::vector<std::size_t> ranges;
      std::size_t at = 0;
      for (std::size_t j = 0; j < counts.size(); ++j)
        for (std::int64_t i = 0; i < checked[j].first_after(counts[j]); i += checked[j].step()) {
          const auto p = static_cast<std::size_t>(displs[j] + i);
          if (p > at) ranges.insert(ranges.end(), {at, p});
          at = p + 1;
        }
      if (size_ > at) ranges.insert(ranges.end(), {at, size_});
      if (!ranges.empty()) {
        data_ = static_cast<unsigned char*>(SMPI_PARTIAL_SHARED_MALLOC(size_, ranges.data(), static_cast<int>(ranges.size() / 2)));
        shared_ = true;
        return;
      }
    }
#else
    (void)counts, (void)displs, (void)shared, (void)checked;
#endif
    own_.resize(size_);
    data_ = own_.data();
  }
  ~Buffer() {
#ifdef SMPI_PARTIAL_SHARED_MALLOC
    if (shared_) SMPI_SHARED_FREE(data_);
#endif
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  unsigned char* data() { return data_; }
  unsigned char& operator[](std::size_t i) { return data_[i]; }

 private:
  std::size_t size_;
  std::vector<unsigned char> own_;
  unsigned char* data_ = nullptr;
  bool shared_ = false;
};

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  const Args a = parse_args(argc, argv);
  const std::vector<int> m = read_demand(a.demand);
  const int n = size_;

  std::vector<int> scounts(n), sdispls(n), rcounts(n), rdispls(n);
  std::int64_t stotal = 0, rtotal = 0, all = 0;
  for (int j = 0; j < n; ++j) {
    scounts[j] = m[static_cast<std::size_t>(rank_) * n + j];
    rcounts[j] = m[static_cast<std::size_t>(j) * n + rank_];
    sdispls[j] = static_cast<int>(stotal);
    rdispls[j] = static_cast<int>(rtotal);
    stotal += scounts[j];
    rtotal += rcounts[j];
  }
  for (int v : m) all += v;
  if (stotal > std::numeric_limits<int>::max() || rtotal > std::numeric_limits<int>::max())
    quit(2, a.demand + ": rank " + std::to_string(rank_) + " sends or receives more than 2^31 - 1 bytes");
  // The blocks written and checked: all, or under --shared-malloc the sampled ones.
  std::vector<Checked> sends(n), receives(n);
  for (int j = 0; j < n; ++j) {
    sends[j] = {!a.shared, sampled(rank_, j, n)};
    receives[j] = {!a.shared, sampled(j, rank_, n)};
  }
  Buffer sbuf(stotal, scounts, sdispls, a.shared, sends), rbuf(rtotal, rcounts, rdispls, a.shared, receives);
  for (int j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < sends[j].first_after(scounts[j]); i += sends[j].step())
      sbuf[static_cast<std::size_t>(sdispls[j] + i)] = pattern(rank_, j, i);

  vpcat_mpi_ctx* ctx = nullptr;
  if (a.method == "vpcat") {
    vpcat_catalog* cat = nullptr;
    vpcat_error cerr;
    if (vpcat_catalog_open_file(a.catalog.c_str(), nullptr, &cat, &cerr) != VPCAT_OK) quit(2, cerr.message);
    vpcat_mpi_options opt = vpcat_mpi_options_default();
    vpcat_mpi_error err;
    if (vpcat_mpi_init(cat, MPI_COMM_WORLD, &opt, &ctx, &err) != VPCAT_MPI_OK) quit(2, err.message);
    vpcat_catalog_destroy(cat);
  }

  int status = 0;
  for (int call = 0; call < a.calls; ++call) {
    for (int j = 0; j < n; ++j)
      for (std::int64_t i = 0; i < receives[j].first_after(rcounts[j]); i += receives[j].step())
        rbuf[static_cast<std::size_t>(rdispls[j] + i)] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    const double left = MPI_Wtime();
    double latest = 0;
    MPI_Allreduce(&left, &latest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    sleep_until(latest + 1e-3);
    const double t0 = MPI_Wtime();
    const int rc = ctx ? vpcat_mpi_alltoallv(sbuf.data(), scounts.data(), sdispls.data(), MPI_BYTE, rbuf.data(),
                                             rcounts.data(), rdispls.data(), MPI_BYTE, ctx)
                       : MPI_Alltoallv(sbuf.data(), scounts.data(), sdispls.data(), MPI_BYTE, rbuf.data(), rcounts.data(),
                                       rdispls.data(), MPI_BYTE, MPI_COMM_WORLD);
    const double t1 = MPI_Wtime();
    if (rc != 0) quit(4, "call " + std::to_string(call) + ": " + a.method + " returned " + std::to_string(rc));
    std::int64_t wrong = 0;
    if (a.check) {
      for (int j = 0; j < n; ++j)
        for (std::int64_t i = 0; i < receives[j].first_after(rcounts[j]); i += receives[j].step())
          if (rbuf[static_cast<std::size_t>(rdispls[j] + i)] != pattern(j, rank_, i)) {
            if (wrong < 3)
              std::fprintf(stderr, "vp_smpi_alltoallv: rank %d: call %d: byte %" PRId64 " from rank %d is %u, %u expected\n",
                           rank_, call, i, j, rbuf[static_cast<std::size_t>(rdispls[j] + i)], pattern(j, rank_, i));
            ++wrong;
          }
    }
    double first = 0, last = 0;
    std::int64_t wrong_all = 0;
    MPI_Reduce(&t0, &first, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    MPI_Reduce(&t1, &last, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&wrong, &wrong_all, 1, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank_ == 0) {
      std::printf("call %d method %s ranks %d bytes %" PRId64 " time_us %.3f check %s\n", call, a.method.c_str(), n, all,
                  (last - first) * 1e6, !a.check ? "off" : wrong_all != 0 ? "FAILED" : a.shared ? "sampled" : "ok");
      if (wrong_all != 0) status = 3;
    }
  }
  if (ctx) {
    vpcat_mpi_stats st;
    if (vpcat_mpi_get_stats(ctx, &st) == VPCAT_MPI_OK && rank_ == 0)
      std::printf("vpcat calls %" PRIu64 " served %" PRIu64 " fallbacks %" PRIu64 " steps %" PRIu64
                  " exchange_us %.3f plan_us %.3f transfer_us %.3f\n",
                  st.calls, st.served, st.fallbacks, st.steps, st.last_exchange_us, st.last_plan_us, st.last_transfer_us);
    vpcat_mpi_finalize(&ctx);
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return status;
}
