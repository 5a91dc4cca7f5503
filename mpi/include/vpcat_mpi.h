/* vpcat_mpi.h: AlltoAllv through VarioPath plans, over MPI (libvpcat_mpi).
 *
 * A context joins a verified catalog (vpcat.h) and a communicator: every
 * rank of the communicator is one GPU of the catalog. Each
 * vpcat_mpi_alltoallv() call takes MPI_Alltoallv's arguments, exchanges the
 * send counts so that every rank knows the whole demand matrix, plans it
 * with the catalog's planner and runs the plan step by step with
 * non-blocking point-to-point messages (docs/mpi.md).
 *
 *   vpcat_catalog* cat;  vpcat_error cerr;  vpcat_mpi_error err;  vpcat_mpi_ctx* ctx;
 *   vpcat_catalog_open_file("cluster.vpcat", NULL, &cat, &cerr);
 *   vpcat_mpi_options opt = vpcat_mpi_options_default();
 *   if (vpcat_mpi_init(cat, MPI_COMM_WORLD, &opt, &ctx, &err) != VPCAT_MPI_OK) ... err.message
 *   vpcat_mpi_alltoallv(sbuf, scounts, sdispls, MPI_INT, rbuf, rcounts, rdispls, MPI_INT, ctx);
 *   vpcat_mpi_finalize(&ctx);                      // before MPI_Finalize
 *
 * Rank -> GPU mapping (vpcat_mpi_init, the same on every rank):
 * * explicit: vpcat_mpi_options.rank_map, else the environment variable
 *   VPCAT_RANK_MAP: a comma-separated list, entry i for rank i, each a
 *   global GPU index ("5"), a range of them ("0-7") or node:local
 *   ("1:3", local GPU 3 of catalog node 1); a list of one entry per rank of
 *   MPI_COMM_WORLD (not as many as the communicator's ranks) gives each rank
 *   the entry of its MPI_COMM_WORLD rank, so one map serves every
 *   communicator split from the world;
 * * otherwise by host: the rank's host name (gethostname(), or VPCAT_HOSTNAME)
 *   names its node among the catalog's node names (exactly, or up to the
 *   first '.' of either); its GPU is the device CUDA_VISIBLE_DEVICES,
 *   ROCR_VISIBLE_DEVICES or HIP_VISIBLE_DEVICES names (the local rank's entry
 *   when it lists several: "3" is the GPU whose device name is cuda3 / rsmi3,
 *   else local GPU 3), or else local GPU <local rank> (ranks on one host
 *   in communicator order).
 * Two ranks on one GPU, a host that is not in the catalog, more ranks than
 * GPUs: the catalog does not fit (VPCAT_MPI_E_MISMATCH), the same message on
 * every rank. With allow_fallback, init succeeds instead and every call is
 * MPI_Alltoallv (PMPI_Alltoallv); rank 0 says so once on stderr. With
 * strict, nothing falls back: init fails, and so does a call that cannot
 * be planned.
 *
 * A new membership (a shrunk or grown communicator) is a new context:
 * vpcat_mpi_init on the new communicator, with the same catalog or another
 * one (a catalog grown by `vp-catalog resize`), no re-analysis and no
 * restart; contexts are independent (docs/mpi.md "Rescaling without
 * restart").
 *
 * Internal messages travel on a duplicate of the communicator, through the
 * PMPI_ entry points (so the PMPI interposer libvpcat_pmpi.so can use this
 * library). Every function is collective over the context's communicator
 * unless said otherwise; one thread at a time per context. */
#ifndef VPCAT_MPI_H
#define VPCAT_MPI_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "vpcat.h"

#if defined(__GNUC__) || defined(__clang__)
#define VPCAT_MPI_API __attribute__((visibility("default")))
#else
#define VPCAT_MPI_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes of this layer; planner and catalog codes (vpcat_status) pass
 * through unchanged. Never renumbered. */
enum {
  VPCAT_MPI_OK = 0,
  VPCAT_MPI_E_MISMATCH = 300,      /* the catalog does not fit the communicator (size, mapping, host) */
  VPCAT_MPI_E_BAD_RANK_MAP = 301,  /* rank_map / VPCAT_RANK_MAP does not parse */
  VPCAT_MPI_E_MPI = 302,           /* an MPI call failed (its error string in the message) */
  VPCAT_MPI_E_INVALID_ARGUMENT = 303 /* NULL pointer, wrong struct_size, an intercommunicator */
};

#define VPCAT_MPI_MESSAGE_SIZE 512
typedef struct vpcat_mpi_error {
  int code;                              /* VPCAT_MPI_* or a vpcat_status */
  char message[VPCAT_MPI_MESSAGE_SIZE];  /* "where: what (why)", NUL-terminated */
} vpcat_mpi_error;

/* How the plan of a call reaches every rank. */
enum {
  VPCAT_MPI_PLAN_DEFAULT = 0,    /* VPCAT_MPI_PLAN (every | root) if set, else EVERY_RANK */
  VPCAT_MPI_PLAN_EVERY_RANK = 1, /* counts all-gathered, each rank plans the same demand (deterministic planner) */
  VPCAT_MPI_PLAN_ROOT = 2        /* counts gathered on rank 0, which plans and broadcasts the plan */
};

typedef struct vpcat_mpi_options {
  uint32_t struct_size;    /* sizeof(vpcat_mpi_options): set by vpcat_mpi_options_default() */
  uint32_t allow_fallback; /* 1: a catalog that does not fit -> init succeeds, every call is MPI_Alltoallv */
  uint32_t plan_mode;      /* VPCAT_MPI_PLAN_* */
  uint32_t check_plans;    /* 1: every call compares a digest of the plan across ranks (tests; one allreduce) */
  uint32_t quiet;          /* 1: rank 0 does not print the fallback notice */
  uint32_t strict;         /* 1: never fall back: a catalog that does not fit fails init (allow_fallback is
                              ignored) and a call whose plan cannot be made or run returns MPI_ERR_OTHER
                              (its reason in vpcat_mpi_get_stats().fallback_reason); was `reserved`, 0 */
  const char* rank_map;    /* NULL: VPCAT_RANK_MAP if set, else by host (above) */
  vpcat_plan_options plan; /* the planner's options */
} vpcat_mpi_options;

VPCAT_MPI_API vpcat_mpi_options vpcat_mpi_options_default(void);

typedef struct vpcat_mpi_ctx vpcat_mpi_ctx;

/* Collective. The catalog must stay valid until the call returns (the
 * planner keeps its own tables). Returns VPCAT_MPI_OK, or a code with the
 * same message on every rank in *err; *ctx is NULL on failure. options may be
 * NULL (defaults). */
VPCAT_MPI_API int vpcat_mpi_init(const vpcat_catalog* catalog, MPI_Comm comm, const vpcat_mpi_options* options,
                                 vpcat_mpi_ctx** ctx, vpcat_mpi_error* err);

/* Collective; MPI_Alltoallv's arguments and semantics (MPI_IN_PLACE as
 * sendbuf, any datatypes with matching type signatures, zero counts, any
 * displacements). Returns MPI_SUCCESS or an MPI error code. A call whose
 * plan cannot be made or run (planner error, a relay through a GPU no rank
 * holds) is served by PMPI_Alltoallv and counted as a fallback. As in MPI,
 * send and receive counts that do not match between two ranks make the
 * program erroneous: the rank that sees it falls back alone and the call
 * may hang. */
VPCAT_MPI_API int vpcat_mpi_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                      MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                      const int rdispls[], MPI_Datatype recvtype, vpcat_mpi_ctx* ctx);

/* Collective: two AlltoAllv through the context (1 byte, then 64 KiB to
 * every other rank), not counted in the statistics, so that what a first
 * call would set up (the plan's and the executor's buffers, MPI's
 * connections between the ranks and its large-message protocol) is set up
 * now. MPI_SUCCESS or an MPI error code; a
 * context in fallback does nothing. */
VPCAT_MPI_API int vpcat_mpi_warm_up(vpcat_mpi_ctx* ctx);

/* Collective: frees the context and its communicator; *ctx becomes NULL. */
VPCAT_MPI_API void vpcat_mpi_finalize(vpcat_mpi_ctx** ctx);

/* ---- queries (local) ------------------------------------------------------ */

/* The catalog's global GPU index of `rank` (< communicator size); -1 in fallback. */
VPCAT_MPI_API int64_t vpcat_mpi_rank_gpu(const vpcat_mpi_ctx* ctx, int rank);
/* NULL when the context plans; else why every call falls back (static until finalize). */
VPCAT_MPI_API const char* vpcat_mpi_fallback_reason(const vpcat_mpi_ctx* ctx);
/* The plan mode in use (VPCAT_MPI_PLAN_EVERY_RANK or _ROOT). */
VPCAT_MPI_API int vpcat_mpi_plan_mode(const vpcat_mpi_ctx* ctx);

typedef struct vpcat_mpi_stats {
  uint64_t calls;          /* vpcat_mpi_alltoallv calls */
  uint64_t served;         /* ... run through a plan */
  uint64_t fallbacks;      /* ... served by PMPI_Alltoallv */
  uint64_t steps;          /* plan steps run, all calls */
  double exchange_us;      /* counts exchange (all-gather or gather), all served calls */
  double plan_us;          /* planning (+ broadcast in ROOT mode), all served calls */
  double transfer_us;      /* running the steps, all served calls */
  double plan_us_median;   /* per call, over the served calls (0 without) */
  double plan_us_max;
  double last_exchange_us, last_plan_us, last_transfer_us; /* the latest call */
  const char* fallback_reason; /* the first call's reason to fall back, or NULL */
} vpcat_mpi_stats;
/* This rank's figures (times are this rank's, in microseconds). */
VPCAT_MPI_API int vpcat_mpi_get_stats(const vpcat_mpi_ctx* ctx, vpcat_mpi_stats* out);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* VPCAT_MPI_H */
