/* vpcat.h: the C API of the VarioPath runtime loader and planner.
 *
 * The same capabilities as the header-only C++ API (vpcat/catalog_view.hpp,
 * vpcat/mapped_file.hpp, vpcat/planner.hpp) for stacks written in C: open a
 * .vpcat catalog (memory-mapped file or a caller's buffer), verify it once,
 * query it in place, and plan AlltoAllv calls. Link with the `vpcat::c` CMake
 * target or `pkg-config --libs vpcat-c`. docs/c-api.md is the guide; this
 * header is the reference.
 *
 *   vpcat_error err;
 *   vpcat_catalog* cat;
 *   if (vpcat_catalog_open_file("cluster.vpcat", NULL, &cat, &err) != VPCAT_OK)
 *     fprintf(stderr, "%s\n", err.message);
 *
 * Conventions, for every function below:
 * - C99 and C11 clean, includable from C++; no function throws, aborts or
 *   calls exit. Handles are opaque; every destroy function accepts NULL.
 * - Functions return a vpcat_status: VPCAT_OK (0) or an error code. Codes
 *   0-99 are the catalog reader's, 100-199 the planner's, 200-299 this C
 *   layer's; they are the C++ vpcat::Error and vpcat::PlanError values, are
 *   never renumbered, and are listed with their meaning in docs/c-api.md.
 *   vpcat_status_name() and vpcat_status_message() describe any code.
 * - Error messages without globals: the functions whose failure depends on
 *   data (opening, verifying, creating a planner, planning) take a
 *   `vpcat_error* err`, which may be NULL. On failure, *err receives the code,
 *   the failing section and byte offset (catalog errors) and a message that
 *   reads "where: what (why)"; on success *err is not touched. The caller
 *   owns the struct, so this is safe from any number of threads. Queries
 *   fail only on bad arguments (NULL pointer, index out of range, short
 *   buffer); their code says which.
 * - Outputs go through pointers that must not be NULL (VPCAT_E_INVALID_ARGUMENT
 *   otherwise). On failure outputs are left unchanged unless stated.
 * - Arrays filled by the library take (buffer, capacity, *count): the
 *   library writes min(count, capacity) elements, sets *count to the full
 *   count, and returns VPCAT_E_BUFFER_TOO_SMALL when capacity < count (call
 *   with capacity 0 to ask for the size).
 * - Strings returned as `const char*` are NUL-terminated UTF-8 inside the
 *   catalog's bytes ("" when the catalog does not know the value): valid as
 *   long as the vpcat_catalog is.
 * - Thread safety: a vpcat_catalog may be queried from any number of threads
 *   at once. A vpcat_planner plans on one thread at a time (its const
 *   queries may run concurrently with each other); use one planner per
 *   thread to plan in parallel. A vpcat_plan is written by the plan call
 *   that fills it and may be read from many threads otherwise.
 * - ABI: while the library's major version is 0, structs may grow between
 *   minor versions; the shared library's soname carries major.minor.
 *   The option structs carry their size (struct_size) so that a caller
 *   built against another version is rejected, not misread.
 */
#ifndef VPCAT_H
#define VPCAT_H

#include <stddef.h>
#include <stdint.h>

/* ---- export macro ---------------------------------------------------------- */
#if defined(_WIN32) || defined(__CYGWIN__)
#if defined(VPCAT_C_SHARED) && defined(VPCAT_C_BUILDING)
#define VPCAT_API __declspec(dllexport)
#elif defined(VPCAT_C_SHARED)
#define VPCAT_API __declspec(dllimport)
#else
#define VPCAT_API
#endif
#elif defined(__GNUC__) || defined(__clang__)
#define VPCAT_API __attribute__((visibility("default")))
#else
#define VPCAT_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- versions ----------------------------------------------------------------
 * The library version is not the file format version: a release may fix bugs
 * or add functions without changing a byte of the format. The macros are the
 * header's; the functions are the linked library's (compare them to detect a
 * header/library mismatch). */
#define VPCAT_VERSION_MAJOR 0
#define VPCAT_VERSION_MINOR 1
#define VPCAT_VERSION_PATCH 0
#define VPCAT_VERSION_NUMBER (VPCAT_VERSION_MAJOR * 10000 + VPCAT_VERSION_MINOR * 100 + VPCAT_VERSION_PATCH)
#define VPCAT_FORMAT_MAJOR 1 /* the .vpcat format version this library reads */
#define VPCAT_FORMAT_MINOR 2

/* Library version as major * 10000 + minor * 100 + patch (VPCAT_VERSION_NUMBER). */
VPCAT_API unsigned vpcat_version_number(void);
/* Library version as "major.minor.patch"; a static string. */
VPCAT_API const char* vpcat_version_string(void);
/* The catalog format version this library reads: 1.y files with
 * min_reader_minor <= vpcat_format_minor() (SPEC.md "Compatibility"). */
VPCAT_API unsigned vpcat_format_major(void);
VPCAT_API unsigned vpcat_format_minor(void);

/* ---- status codes --------------------------------------------------------------
 * 0-99: the catalog reader (vpcat::Error, SPEC.md "Error catalogue");
 * 100-199: the planner (vpcat::PlanError); 200-299: the C layer. */
typedef enum vpcat_status {
  VPCAT_OK = 0,
  /* opening and verifying a catalog */
  VPCAT_E_IO_ERROR = 1,              /* cannot read the file (the system's reason in the message) */
  VPCAT_E_FILE_TOO_LARGE = 2,        /* above vpcat_verify_options.max_file_size */
  VPCAT_E_TRUNCATED = 3,
  VPCAT_E_BAD_MAGIC = 4,             /* not a .vpcat file */
  VPCAT_E_UNSUPPORTED_MAJOR = 5,
  VPCAT_E_NEEDS_NEWER_READER = 6,
  VPCAT_E_BAD_HEADER = 7,
  VPCAT_E_TRAILING_BYTES = 8,
  VPCAT_E_BAD_HEADER_CHECKSUM = 9,
  VPCAT_E_RESERVED_NONZERO = 10,
  VPCAT_E_RESERVED_FLAG = 11,
  VPCAT_E_TOO_MANY_SECTIONS = 12,
  VPCAT_E_SECTION_ORDER = 13,
  VPCAT_E_SECTION_OUT_OF_BOUNDS = 14,
  VPCAT_E_SECTION_MISALIGNED = 15,
  VPCAT_E_SECTION_OVERLAP = 16,
  VPCAT_E_NONZERO_PADDING = 17,
  VPCAT_E_BAD_SECTION_CHECKSUM = 18,
  VPCAT_E_UNKNOWN_SECTION = 19,
  VPCAT_E_MISSING_SECTION = 20,
  VPCAT_E_BAD_RECORD_SIZE = 21,
  VPCAT_E_COUNT_EXCEEDS_SIZE = 22,
  VPCAT_E_BAD_SECTION_SIZE = 23,
  VPCAT_E_BAD_STRING = 24,
  VPCAT_E_BAD_STRING_REF = 25,
  VPCAT_E_BAD_RANGE = 26,
  VPCAT_E_BAD_ID = 27,
  VPCAT_E_BAD_ENUM = 28,
  VPCAT_E_BAD_NUMBER = 29,
  VPCAT_E_BAD_TREE = 30,
  VPCAT_E_BAD_LINK = 31,
  VPCAT_E_BAD_ROUTE = 32,
  VPCAT_E_BAD_PERMUTATION = 33,
  VPCAT_E_BAD_ORBIT = 34,
  VPCAT_E_BAD_PATTERN = 35,
  VPCAT_E_BAD_ORDER = 36,
  VPCAT_E_BAD_FABRIC = 37,
  VPCAT_E_BAD_COUNT = 38,
  VPCAT_E_LIMIT_EXCEEDED = 39,       /* a vpcat_verify_options limit */
  VPCAT_E_BAD_DECIMAL = 40,
  VPCAT_E_BAD_FORWARDER = 41,        /* a route's forwarders are not the forwarding components it transits */
  VPCAT_E_BAD_SOLO_RATE = 42,        /* a route's solo_gbps is not the minimum over its path */
  VPCAT_E_BAD_BUS_ID = 43,
  VPCAT_E_BAD_ORBIT_SIZE = 44,       /* an orbit size does not divide the group order, or the sum is off */
  VPCAT_E_BAD_HOST_LIST = 45,        /* a node group's names are no host list of its node count */
  VPCAT_E_BAD_MACHINE_MODEL = 46,    /* machine_model: a family's match empty or too long, a match elsewhere */
  /* planning */
  VPCAT_E_NOT_READY = 100,           /* the planner has no catalog (not returned by this API: create does init) */
  VPCAT_E_UNSUPPORTED_CATALOG = 101, /* the catalog exceeds a planner limit (docs/planner.md "Limits") */
  VPCAT_E_OUT_OF_MEMORY = 102,       /* an allocation failed (planner, plan, handle or buffer copy) */
  VPCAT_E_BAD_OPTIONS = 103,         /* a vpcat_plan_options field is out of range */
  VPCAT_E_EMPTY_DEMAND = 104,        /* 0 GPUs, or a NULL matrix / entry array */
  VPCAT_E_DEMAND_SIZE = 105,         /* the demand's GPU count is not the catalog's */
  VPCAT_E_BAD_DEMAND_VALUE = 106,    /* negative, NaN, infinite or fractional bytes (double API) */
  VPCAT_E_BAD_DEMAND_ENTRY = 107,    /* a sparse entry names a GPU that does not exist */
  VPCAT_E_DEMAND_OVERFLOW = 108,     /* an entry or the off-diagonal total exceeds 2^63 bytes */
  VPCAT_E_UNROUTABLE = 109,          /* inter-node bytes at a node without a NIC that carries GPU traffic */
  VPCAT_E_STEP_LIMIT = 110,          /* the plan needs more than max_steps steps */
  VPCAT_E_BAD_SUBSET = 111,          /* a subset names a node or GPU twice, or one the catalog lacks */
  VPCAT_E_PLAN_MISMATCH = 112,       /* a compact plan expanded with another demand or planner (C++ API) */
  /* the C layer */
  VPCAT_E_INVALID_ARGUMENT = 200,    /* a NULL pointer, unknown flag bits, a wrong struct_size */
  VPCAT_E_OUT_OF_RANGE = 201,        /* an index at or above its count */
  VPCAT_E_BUFFER_TOO_SMALL = 202,    /* capacity < *count; *count holds what is needed */
  VPCAT_E_NOT_FOUND = 203            /* a lookup matched nothing */
} vpcat_status;

/* Stable identifier of a code ("bad_magic", "demand_size"); "unknown" for a
 * value that is no code. Static string. */
VPCAT_API const char* vpcat_status_name(vpcat_status code);
/* Stable base message of a code ("not a .vpcat file"); "unknown status code"
 * for a value that is no code. Static string. */
VPCAT_API const char* vpcat_status_message(vpcat_status code);

#define VPCAT_ERROR_MESSAGE_SIZE 320
#define VPCAT_NO_OFFSET UINT64_MAX

/* A failure in detail, filled by the functions that take a `vpcat_error*`. */
typedef struct vpcat_error {
  vpcat_status code;
  uint32_t section; /* catalog errors: the section type the failure is in; 0 outside sections and for others */
  uint64_t offset;  /* catalog errors: absolute byte offset of the failing field; VPCAT_NO_OFFSET when none */
  char message[VPCAT_ERROR_MESSAGE_SIZE]; /* "where: what (why)", NUL-terminated */
} vpcat_error;

/* ---- opening and verifying a catalog ------------------------------------------ */

typedef struct vpcat_catalog vpcat_catalog;

/* Limits applied while verifying an untrusted catalog (vpcat::VerifyOptions). */
typedef struct vpcat_verify_options {
  uint32_t struct_size;    /* sizeof(vpcat_verify_options): set by vpcat_verify_options_default() */
  uint32_t max_sections;   /* section-table entries (at most 256); default 64 */
  uint64_t max_file_size;  /* bytes; default 1 GiB */
  uint32_t max_nodes;      /* nodes in the cluster; default 2^20 */
  uint32_t max_tree_depth; /* PCIe parent chain length, component to socket; default 32 */
} vpcat_verify_options;

/* The defaults, with struct_size set. Start from this and change fields. */
VPCAT_API vpcat_verify_options vpcat_verify_options_default(void);

/* Memory-map `path` read-only (read into memory where mmap does not exist),
 * verify it once, and return a catalog handle in *out. `options` may be NULL
 * (defaults). Errors: VPCAT_E_IO_ERROR (cannot open, not a regular file,
 * cannot map), VPCAT_E_FILE_TOO_LARGE, every verification error (codes
 * 3-40, with section and offset), VPCAT_E_OUT_OF_MEMORY,
 * VPCAT_E_INVALID_ARGUMENT (NULL path or out, bad options->struct_size). */
VPCAT_API vpcat_status vpcat_catalog_open_file(const char* path, const vpcat_verify_options* options,
                                               vpcat_catalog** out, vpcat_error* err);

/* Flags of vpcat_catalog_open_buffer(). */
#define VPCAT_OPEN_BORROW 0u /* default: zero-copy; the caller's bytes must outlive the catalog, unchanged */
#define VPCAT_OPEN_COPY 1u   /* copy the bytes first; the caller may free them when the call returns */

/* Verify `size` bytes at `data` (any alignment) and return a catalog handle.
 * By default the buffer is BORROWED: the catalog reads it in place and the
 * caller must keep it valid and unchanged until vpcat_catalog_destroy().
 * With VPCAT_OPEN_COPY the library copies it first (one allocation).
 * Errors: as vpcat_catalog_open_file() (a NULL `data` with size > 0 is
 * VPCAT_E_IO_ERROR, as in C++), and VPCAT_E_INVALID_ARGUMENT for unknown
 * flag bits. */
VPCAT_API vpcat_status vpcat_catalog_open_buffer(const void* data, size_t size, unsigned flags,
                                                 const vpcat_verify_options* options, vpcat_catalog** out,
                                                 vpcat_error* err);

/* Verify without opening (what `vp-catalog validate` does); VPCAT_OK when valid. */
VPCAT_API vpcat_status vpcat_verify_buffer(const void* data, size_t size, const vpcat_verify_options* options,
                                           vpcat_error* err);

/* Release the catalog (unmap or free). NULL is a no-op. Planners created from
 * it stay valid (they keep their own tables); strings taken from it do not. */
VPCAT_API void vpcat_catalog_destroy(vpcat_catalog* cat);

/* ---- the catalog: file and cluster --------------------------------------------- */

typedef enum vpcat_fabric_kind {
  VPCAT_FABRIC_NONE = 0, /* one node, no network */
  VPCAT_FABRIC_SINGLE_SWITCH = 1,
  VPCAT_FABRIC_RAIL = 2,      /* NIC k of every node on switch k, switches joined by a spine */
  VPCAT_FABRIC_LEAF_SPINE = 3 /* leaf_size nodes per leaf switch, a spine above */
} vpcat_fabric_kind;

typedef struct vpcat_catalog_info {
  uint16_t format_major, format_minor, min_reader_minor; /* of this file */
  uint16_t writer_major, writer_minor, writer_patch;     /* the vpcat version that wrote it */
  uint64_t file_size;                                    /* bytes */
  uint32_t section_count;
  uint32_t node_type_count;
  uint32_t node_group_count;
  uint32_t node_count;
  uint64_t gpu_count, nic_count;           /* all nodes */
  uint64_t global_component_count;         /* SPEC.md "Global numbering": nodes' components, switches, spine */
  uint64_t global_link_count;              /* nodes' links, then the network links */
  uint32_t default_count;                  /* entries of the capacity default table */
  uint32_t reserved;                       /* 0 */
  const char* cluster_group_order;         /* |Aut(cluster)|, decimal */
  const char* tool, *tool_version, *input_digest, *tool_options; /* provenance */
} vpcat_catalog_info;

VPCAT_API vpcat_status vpcat_catalog_get_info(const vpcat_catalog* cat, vpcat_catalog_info* out);
/* The counts an embedder needs first (also in vpcat_catalog_info). */
VPCAT_API vpcat_status vpcat_catalog_gpu_count(const vpcat_catalog* cat, uint64_t* out);
VPCAT_API vpcat_status vpcat_catalog_node_count(const vpcat_catalog* cat, uint32_t* out);
VPCAT_API vpcat_status vpcat_catalog_node_type_count(const vpcat_catalog* cat, uint32_t* out);

/* A section-table entry, known or skipped. */
typedef struct vpcat_section {
  uint32_t type;
  uint32_t flags;
  const char* name; /* "patterns", or "unknown"; static string */
  uint64_t offset, size;
  uint32_t checksum; /* CRC-32C */
  uint32_t reserved;
} vpcat_section;
/* i < section_count, table order. */
VPCAT_API vpcat_status vpcat_catalog_section(const vpcat_catalog* cat, uint32_t i, vpcat_section* out);

/* Entry i (< default_count, sorted by key) of the capacity default table
 * the analyzer used: *key ("pcie.gen4") and *value (GB/s or a factor). */
VPCAT_API vpcat_status vpcat_catalog_default(const vpcat_catalog* cat, uint32_t i, const char** key, double* value);

typedef struct vpcat_fabric {
  vpcat_fabric_kind kind;
  uint32_t leaf_size;      /* leaf_spine: nodes per leaf; 0 otherwise */
  double oversubscription;
  uint32_t switches;       /* non-spine switches: the one switch, rails, or leaves */
  uint32_t spine;          /* 1: one logical spine above the switches */
  const char* group_description;
  const char* group_order; /* of the fabric's group acting on nodes, decimal */
} vpcat_fabric;
VPCAT_API vpcat_status vpcat_catalog_fabric(const vpcat_catalog* cat, vpcat_fabric* out);
/* The switch (0..switches-1) that local NIC k of node n connects to.
 * VPCAT_E_OUT_OF_RANGE unless n < node_count and k < the node's nic_count;
 * VPCAT_E_NOT_FOUND on a fabric of kind none. */
VPCAT_API vpcat_status vpcat_catalog_nic_switch(const vpcat_catalog* cat, uint32_t node, uint32_t nic,
                                                uint32_t* out);
/* Capacity (GB/s per direction) of switch k's uplink to the spine; k < switches,
 * VPCAT_E_NOT_FOUND without a spine. */
VPCAT_API vpcat_status vpcat_catalog_spine_uplink_gbps(const vpcat_catalog* cat, uint32_t k, double* out);

/* Consecutive nodes of one type. */
typedef struct vpcat_node_group {
  uint32_t node_type;
  uint32_t count;    /* >= 1 */
  const char* names; /* hostlist expression of `count` names ("gpu[001-032]") */
  uint32_t first_node;
  uint32_t reserved;
  uint64_t first_component, first_link, first_gpu, first_nic; /* global ids */
} vpcat_node_group;
VPCAT_API vpcat_status vpcat_catalog_node_group(const vpcat_catalog* cat, uint32_t group, vpcat_node_group* out);

/* One node: its type and where its ids start in the global numbering
 * (its local GPU g is global GPU first_gpu + g, its local NIC k is global
 * NIC first_nic + k, its local component c is global component
 * first_component + c, its local link l is global link first_link + l). */
typedef struct vpcat_node {
  uint32_t node;
  uint32_t node_type;
  uint32_t group;
  uint32_t gpu_count, nic_count; /* of its type */
  uint32_t reserved;
  uint64_t first_component, first_link, first_gpu, first_nic;
} vpcat_node;
/* node < node_count. O(log node groups). */
VPCAT_API vpcat_status vpcat_catalog_node(const vpcat_catalog* cat, uint32_t node, vpcat_node* out);

/* ---- GPUs --------------------------------------------------------------------------
 * Global GPU indexes run over nodes in order, then local GPU index: the
 * numbering of demands and plans. */
typedef struct vpcat_gpu {
  uint64_t gpu;              /* global GPU index */
  uint32_t node, node_type;
  uint32_t local_index;      /* GPU index in its node, 0..gpu_count-1 */
  uint32_t component;        /* local component id in its node type */
  uint32_t orbit;            /* local component id of the least member of its orbit under Aut(node type) */
  uint32_t reserved;
  uint64_t global_component; /* global component id */
  const char* name;          /* "gpu3" */
  const char* model;         /* "NVIDIA L40S"; may be "" */
  const char* pci_bus_id;    /* "0000:17:00.0"; may be "" */
  const char* device_name;   /* "cuda0"; may be "" */
} vpcat_gpu;
/* gpu < gpu_count. O(log node groups). */
VPCAT_API vpcat_status vpcat_catalog_gpu(const vpcat_catalog* cat, uint64_t gpu, vpcat_gpu* out);
/* The node a global GPU belongs to. */
VPCAT_API vpcat_status vpcat_catalog_node_of_gpu(const vpcat_catalog* cat, uint64_t gpu, uint32_t* node);
/* The global GPU of node `node` whose PCI bus id is `bus_id`. Bus ids are
 * compared as numbers ([domain:]bus:device[.function], hexadecimal, any
 * case, 1 to 8 / 2 / 2 / 1 digits, a device of at most 1f and a function of
 * at most 7; a missing domain or function is 0: "00000000:17:00.0" as NVML
 * prints it matches "0000:17:00.0"), or as strings when either does not
 * parse (C++: vpcat::same_pci_bus_id, vpcat/pci_bus_id.hpp).
 * VPCAT_E_NOT_FOUND when no GPU of the node has it. */
VPCAT_API vpcat_status vpcat_catalog_gpu_by_bus_id(const vpcat_catalog* cat, uint32_t node, const char* bus_id,
                                                   uint64_t* gpu);
/* The global GPU of node `node` whose device name is `device_name` ("cuda0"). */
VPCAT_API vpcat_status vpcat_catalog_gpu_by_device_name(const vpcat_catalog* cat, uint32_t node,
                                                        const char* device_name, uint64_t* gpu);

/* ---- node types: topology, symmetry, local patterns ----------------------------------
 * Inside a node type, components and links have local ids 0..count-1.
 * Components are sorted by kind: GPUs are the local ids first_gpu ..
 * first_gpu + gpu_count - 1, NICs the ids first_nic .. component_count - 1. */
typedef struct vpcat_node_type {
  const char* name;
  const char* group_order;          /* |Aut(node type)|, decimal */
  const char* patterns_represented; /* maximal local patterns: sum of the orbit sizes, decimal */
  uint32_t component_count;
  uint32_t gpu_count, nic_count;
  uint32_t first_gpu, first_nic;    /* local component ids */
  uint32_t link_count;
  uint32_t route_count;             /* E * (E - 1), E = gpus + nics */
  uint32_t generator_count;         /* generators of Aut(node type) */
  uint32_t pattern_count;           /* orbit representatives of maximal local patterns */
  uint32_t reserved;
} vpcat_node_type;
/* type < node_type_count. */
VPCAT_API vpcat_status vpcat_catalog_node_type(const vpcat_catalog* cat, uint32_t type, vpcat_node_type* out);

typedef enum vpcat_component_kind {
  VPCAT_COMPONENT_CPU = 0,
  VPCAT_COMPONENT_HOST_BRIDGE = 1,
  VPCAT_COMPONENT_PCIE_SWITCH = 2,
  VPCAT_COMPONENT_GPU = 3,
  VPCAT_COMPONENT_NIC = 4,
  VPCAT_COMPONENT_NET_SWITCH = 5
} vpcat_component_kind;

#define VPCAT_NONE UINT32_MAX /* "no component / link" */

typedef struct vpcat_component {
  uint32_t id;               /* local id */
  vpcat_component_kind kind;
  uint32_t parent;           /* local id of the next component towards the CPU; VPCAT_NONE for a cpu */
  uint32_t local_index;      /* rank among the node's components of the same kind */
  uint32_t orbit;            /* least local id in its orbit under Aut(node type) */
  uint32_t gpudirect;        /* nic: 1 if GPUDirect RDMA capable */
  double forward_gbps;       /* forwarding capacity; 0 = not a bottleneck */
  double nic_gbps;           /* nic: fabric port capacity per direction; 0 otherwise */
  const char* name, *model, *pci_bus_id, *device_name; /* may be "" (except name) */
} vpcat_component;
VPCAT_API vpcat_status vpcat_catalog_component(const vpcat_catalog* cat, uint32_t type, uint32_t component,
                                               vpcat_component* out);

typedef enum vpcat_link_kind { VPCAT_LINK_PCIE = 0, VPCAT_LINK_INTER_SOCKET = 1, VPCAT_LINK_NETWORK = 2 } vpcat_link_kind;

/* A directed internal link of a node type. */
typedef struct vpcat_link {
  uint32_t id;           /* local id */
  uint32_t src, dst;     /* local component ids */
  uint32_t reverse;      /* local id of the opposite direction */
  uint32_t orbit;        /* least local link id in its orbit */
  vpcat_link_kind kind;
  double capacity_gbps;  /* > 0 */
} vpcat_link;
VPCAT_API vpcat_status vpcat_catalog_link(const vpcat_catalog* cat, uint32_t type, uint32_t link, vpcat_link* out);
/* Local id of the link src -> dst (local component ids); VPCAT_E_NOT_FOUND when there is none. */
VPCAT_API vpcat_status vpcat_catalog_find_link(const vpcat_catalog* cat, uint32_t type, uint32_t src, uint32_t dst,
                                               uint32_t* link);

/* The stored route between two distinct endpoints (GPU or NIC local ids) of one node. */
typedef struct vpcat_route {
  uint32_t from, to;        /* local component ids */
  uint32_t link_count;      /* >= 1 */
  uint32_t forwarder_count; /* forwarding components it transits */
  double solo_gbps;         /* its slowest link or forwarder, > 0 */
} vpcat_route;
/* VPCAT_E_OUT_OF_RANGE unless `from` and `to` are distinct GPU or NIC ids. */
VPCAT_API vpcat_status vpcat_catalog_route(const vpcat_catalog* cat, uint32_t type, uint32_t from, uint32_t to,
                                           vpcat_route* out);
/* Its local link ids in order, and its forwarders' local component ids. */
VPCAT_API vpcat_status vpcat_catalog_route_links(const vpcat_catalog* cat, uint32_t type, uint32_t from, uint32_t to,
                                                 uint32_t* links, size_t capacity, size_t* count);
VPCAT_API vpcat_status vpcat_catalog_route_forwarders(const vpcat_catalog* cat, uint32_t type, uint32_t from,
                                                      uint32_t to, uint32_t* components, size_t capacity,
                                                      size_t* count);

/* Generator g (< generator_count) of Aut(node type): a kind-preserving
 * permutation of the local component ids, as images[c] for c <
 * component_count. */
VPCAT_API vpcat_status vpcat_catalog_generator(const vpcat_catalog* cat, uint32_t type, uint32_t generator,
                                               uint32_t* images, size_t capacity, size_t* count);

/* Local patterns (channel building blocks, docs/design.md §3). Each stored
 * pattern represents an orbit of maximal local patterns under Aut(node
 * type). Roles per local GPU index g: VPCAT_ROLE_IDLE, another local GPU
 * index (peer-to-peer partner), or VPCAT_ROLE_NIC_BASE + k (to or from the
 * network through local NIC index k). Peer roles are paired: send[g] == h
 * implies recv[h] == g. */
#define VPCAT_ROLE_IDLE (-1)
#define VPCAT_ROLE_NIC_BASE (1 << 16)

/* Number of patterns in the orbit of pattern p (< pattern_count), >= 1. */
VPCAT_API vpcat_status vpcat_catalog_pattern_orbit_size(const vpcat_catalog* cat, uint32_t type, uint32_t pattern,
                                                        uint64_t* orbit_size);
/* The roles of a member of pattern p's orbit: the stored representative
 * transformed by the group element generators[word[0]], then
 * generators[word[1]], ... (word_len 0 or word NULL: the representative
 * itself). Every member of the orbit is reached by some word, so this
 * expands any orbit element to a concrete pattern; with vpcat_node's
 * first_gpu / first_nic it names global GPUs and NICs. send and recv must
 * each hold `capacity` >= gpu_count entries (*count = gpu_count).
 * VPCAT_E_OUT_OF_RANGE for a word entry >= generator_count. O(gpu_count x
 * word_len), no allocation. */
VPCAT_API vpcat_status vpcat_catalog_pattern_roles(const vpcat_catalog* cat, uint32_t type, uint32_t pattern,
                                                   const uint32_t* word, size_t word_len, int32_t* send,
                                                   int32_t* recv, size_t capacity, size_t* count);

/* ---- the planner -----------------------------------------------------------------------
 * vpcat_planner_create() derives the planner's tables from the catalog (it
 * allocates; the catalog may be destroyed afterwards). Every plan call then
 * fills a vpcat_plan: after the first call of a size, repeated calls
 * allocate nothing (the planner keeps its scratch and the plan its
 * capacity). docs/planner.md describes the algorithm and its limits. */

typedef struct vpcat_planner vpcat_planner;
typedef struct vpcat_plan vpcat_plan;

/* vpcat::PlanOptions. */
typedef struct vpcat_plan_options {
  uint32_t struct_size;       /* sizeof(vpcat_plan_options): set by vpcat_plan_options_default() */
  uint32_t max_steps;         /* >= 1; planning fails with VPCAT_E_STEP_LIMIT beyond it; default 2^22 */
  double latency_us;          /* start-up latency per transfer, finite, >= 0; default 5 */
  double min_step_latencies;  /* no step shorter than this many latencies, finite, >= 0; default 4 */
  uint64_t min_chunk_bytes;   /* pieces of a payload but its last are at least this; default 0 */
  uint64_t chunk_align_bytes; /* ... and multiples of this, >= 1; default 1 */
  uint32_t allow_shared;      /* with channels_only: 1 lets the plan end with one shared step (every
                                 payload left at once, contending) when it is expected shorter; without
                                 channels_only it changes nothing (docs/planner.md) */
  uint32_t replay;            /* 1 (default): replay the balanced part of the demand from the catalog's
                                 stored patterns, where they pay, before searching the rest; 0: search
                                 every step (what a struct zeroed by hand asked for before this field
                                 had a meaning: it was reserved, 0) (docs/planner.md "Replay") */
  uint32_t nic_loopback;      /* 0 (default): intra-node payloads take PCIe peer-to-peer routes only;
                                 1: also through two NICs of the node and their switch, where that is
                                 as fast and spares the host bridges, or the PCIe route has no room;
                                 only for an executor that can force that route (docs/planner.md
                                 "NIC loopback") */
  uint32_t channels_only;     /* 0 (default): the plan is the candidate expected fastest under the
                                 catalog's machine model (its machine_model section, format 1.2; the
                                 calibrated class defaults without one) (channel steps, the shared step, shifted
                                 permutations, or channel steps ending in the shared step; sharing steps
                                 flagged: vpcat_step.shared); 1: channel steps only, each contention-free
                                 at solo rates, unless allow_shared (docs/planner.md "Plan shapes").
                                 It takes what was padding: the struct's size is unchanged */
} vpcat_plan_options;

/* The defaults, with struct_size set. Start from this and change fields. */
VPCAT_API vpcat_plan_options vpcat_plan_options_default(void);

/* Errors: VPCAT_E_UNSUPPORTED_CATALOG (beyond docs/planner.md "Limits"),
 * VPCAT_E_OUT_OF_MEMORY, VPCAT_E_INVALID_ARGUMENT. */
VPCAT_API vpcat_status vpcat_planner_create(const vpcat_catalog* cat, vpcat_planner** out, vpcat_error* err);
VPCAT_API void vpcat_planner_destroy(vpcat_planner* planner);

/* A planner over a job's GPUs only (docs/subsets.md): the catalog GPUs
 * gpus[0..count), catalog-wide indexes, which become the planner's GPUs
 * 0..count-1 ("ranks") in that order; a node's GPUs must be consecutive in
 * the list. Demands then have `count` GPUs and transfers name ranks;
 * vpcat_planner_catalog_gpu() maps a rank back. No re-analysis: the patterns
 * and symmetry of a partial node are derived from its type's, once per orbit
 * of held GPU sets, and `cat` keeps each derivation for its later subset
 * planners (a job's next membership; locked, thread-safe). Errors as
 * vpcat_planner_create(), and VPCAT_E_BAD_SUBSET (a GPU the catalog lacks,
 * one listed twice, a node's GPUs not together, count 0), naming the entry. */
VPCAT_API vpcat_status vpcat_planner_create_subset(const vpcat_catalog* cat, const uint64_t* gpus, size_t count,
                                                   vpcat_planner** out, vpcat_error* err);
/* The catalog-wide GPU index of the planner's GPU `rank` (the identity for a
 * planner of the whole catalog). VPCAT_E_OUT_OF_RANGE for rank >= gpu count. */
VPCAT_API vpcat_status vpcat_planner_catalog_gpu(const vpcat_planner* planner, uint32_t rank, uint64_t* out);

/* The GPU count every demand must have (the catalog's, or the subset's). */
VPCAT_API vpcat_status vpcat_planner_gpu_count(const vpcat_planner* planner, uint32_t* out);
/* An upper bound on the links of any transfer's route (to size buffers). */
VPCAT_API vpcat_status vpcat_planner_max_route_links(const vpcat_planner* planner, uint32_t* out);

/* Plan a demand into `plan` (emptied first; left empty on failure).
 * Demands are bytes from GPU s to GPU d, global GPU indexes (ranks for a
 * subset's planner); `gpus` must be vpcat_planner_gpu_count(). Diagonal bytes never move. `options` may be NULL
 * (defaults). Errors: VPCAT_E_EMPTY_DEMAND, VPCAT_E_DEMAND_SIZE,
 * VPCAT_E_BAD_DEMAND_VALUE, VPCAT_E_BAD_DEMAND_ENTRY, VPCAT_E_DEMAND_OVERFLOW,
 * VPCAT_E_UNROUTABLE, VPCAT_E_BAD_OPTIONS, VPCAT_E_STEP_LIMIT,
 * VPCAT_E_OUT_OF_MEMORY, each naming the first offending entry or field;
 * VPCAT_E_INVALID_ARGUMENT (NULL planner or plan, wrong struct_size). */

/* Dense row-major gpus x gpus matrix, row = source. */
VPCAT_API vpcat_status vpcat_planner_plan_dense_u64(vpcat_planner* planner, const uint64_t* bytes, uint64_t gpus,
                                                    const vpcat_plan_options* options, vpcat_plan* plan,
                                                    vpcat_error* err);
/* The same as doubles: each finite, >= 0 and a whole number. */
VPCAT_API vpcat_status vpcat_planner_plan_dense_f64(vpcat_planner* planner, const double* bytes, uint64_t gpus,
                                                    const vpcat_plan_options* options, vpcat_plan* plan,
                                                    vpcat_error* err);

typedef struct vpcat_demand_entry {
  uint32_t src, dst; /* global GPU indexes */
  uint64_t bytes;
} vpcat_demand_entry;
/* `count` triplets; repeated pairs add up. The planner copies them into a
 * buffer it keeps, so a call with more entries than any before allocates. */
VPCAT_API vpcat_status vpcat_planner_plan_sparse(vpcat_planner* planner, const vpcat_demand_entry* entries,
                                                 size_t count, uint64_t gpus, const vpcat_plan_options* options,
                                                 vpcat_plan* plan, vpcat_error* err);

/* ---- scoring placements, for schedulers -------------------------------------------------
 * The AlltoAllv time of a job placed on `gpus` (catalog GPU indexes, a
 * subset as for vpcat_planner_create_subset()): the demand is a dense
 * count x count matrix of bytes in placement order (row = source). The
 * planner of that subset plans it; planned_us is the plan's expected time,
 * bound_us the lower bound of vpcat_plan_bound_us(). Rank candidate
 * placements by planned_us (docs/subsets.md "Scoring placements"). Each call
 * derives the subset's planner (milliseconds at most on 256 GPUs); to score
 * many demands on one placement, keep a planner from
 * vpcat_planner_create_subset() and read vpcat_plan_bound_us() instead.
 * Errors: those of vpcat_planner_create_subset() and of the plan calls;
 * VPCAT_E_INVALID_ARGUMENT for a NULL pointer or a wrong struct_size. */
typedef struct vpcat_placement_score {
  uint32_t struct_size; /* sizeof(vpcat_placement_score), set by the caller */
  uint32_t reserved;
  double planned_us;    /* the plan's expected time */
  double bound_us;      /* no plan of this demand on these GPUs is faster */
  uint64_t steps;       /* the plan's steps */
  uint64_t total_bytes; /* off-diagonal bytes of the demand */
} vpcat_placement_score;
VPCAT_API vpcat_status vpcat_score_placement(const vpcat_catalog* cat, const uint64_t* gpus, size_t count,
                                             const uint64_t* bytes, const vpcat_plan_options* options,
                                             vpcat_placement_score* out, vpcat_error* err);

/* ---- choosing a placement, for schedulers ---------------------------------------------
 * Where an n-GPU job should go among a cluster's free GPUs (docs/subsets.md
 * "Choosing a placement"; vpcat/placement.hpp in C++): a handful of
 * candidate placements (fewest nodes, partial nodes first, one leaf, balanced
 * over k nodes; inside a node spread over its NICs or packed), the job's
 * demand planned on each by the subset's planner, ranked by the plan's
 * expected time; among those within `slack` of the fastest, the one that
 * leaves the fewest partial nodes (some GPUs free, some not), then the one
 * on the fewest nodes, then the fastest. A subset planner and a plan per
 * candidate: tens of milliseconds (40-50 ms of CPU for a 16-GPU job among
 * 60 free GPUs of 256, docs/subsets.md "Choosing a placement"). */

/* vpcat_placement.strategy: how the chosen candidate was built. */
#define VPCAT_PLACE_FEWEST_NODES 0u        /* the freest nodes whole, the last by best fit */
#define VPCAT_PLACE_PARTIAL_NODES_FIRST 1u /* the free GPUs of partial nodes, whole, then as fewest nodes */
#define VPCAT_PLACE_ONE_LEAF 2u            /* fewest nodes in one leaf (leaf/spine); detail: the leaf switch */
#define VPCAT_PLACE_BALANCED_BEST_FIT 3u   /* n/k GPUs on the k nodes that fit them best; detail: k */
#define VPCAT_PLACE_BALANCED_FREEST 4u     /* n/k GPUs on the k freest nodes; detail: k */
/* vpcat_placement.pick: the GPUs of a node that gives part of its free GPUs. */
#define VPCAT_PICK_WHOLE 0u  /* no node gives part of its free GPUs */
#define VPCAT_PICK_SPREAD 1u /* one GPU per NIC group (the GPUs nearest a NIC) before a second */
#define VPCAT_PICK_PACKED 2u /* whole NIC groups first */

typedef struct vpcat_place_options {
  uint32_t struct_size;     /* sizeof(vpcat_place_options): set by vpcat_place_options_default() */
  uint32_t reserved;        /* 0 */
  double slack;             /* finite, >= 0: candidates within this fraction of the fastest expected
                               time count as fast; default 0.05 (0: the fastest) */
  uint64_t uniform_bytes;   /* the demand when `bytes` is NULL: this many bytes from every rank to
                               every other, >= 1; default 1048576 (vp-catalog place's --workload uniform) */
  vpcat_plan_options plan;  /* how each candidate's demand is planned; default vpcat_plan_options_default() */
} vpcat_place_options;
VPCAT_API vpcat_place_options vpcat_place_options_default(void);

typedef struct vpcat_placement {
  uint32_t struct_size;          /* sizeof(vpcat_placement), set by the caller */
  uint32_t reserved;
  uint64_t* gpus;                /* the caller's buffer: the chosen n catalog GPU indexes, node by
                                    node, local order: the job's ranks (the demand's rows) */
  size_t capacity;               /* entries of gpus, >= n */
  double expected_us;            /* the chosen plan's expected time */
  double bound_us;               /* its lower bound (vpcat_plan_bound_us()): no plan of the demand on
                                    these GPUs is faster */
  uint32_t strategy;             /* VPCAT_PLACE_* */
  uint32_t strategy_detail;      /* VPCAT_PLACE_ONE_LEAF: the leaf switch; VPCAT_PLACE_BALANCED_*: k; else 0 */
  uint32_t pick;                 /* VPCAT_PICK_* */
  uint32_t node_count;           /* nodes the choice spans */
  uint32_t partial_nodes_before; /* partial nodes of the free set */
  uint32_t partial_nodes_after;  /* ... once the choice is taken */
  uint32_t candidates;           /* candidates weighed */
  uint32_t choice_rank;          /* the choice's rank among them, fastest expected first, from 1 */
} vpcat_placement;

/* Choose where an n-GPU job goes among `free_count` free GPUs `free_gpus`
 * (catalog GPU indexes, any order) of `cat`. `bytes` is the job's demand, a
 * dense row-major n x n matrix over its ranks (row = source), or NULL for
 * options->uniform_bytes between every two ranks. `options` may be NULL
 * (defaults). On success `out` holds the choice; on failure `out` is left
 * as it was. Errors: VPCAT_E_BAD_SUBSET (a free GPU the catalog lacks or
 * listed twice, n 0 or more than are free, naming the entry or the counts),
 * VPCAT_E_BAD_OPTIONS (slack not finite or negative), the errors of the plan
 * calls on the demand (VPCAT_E_BAD_DEMAND_VALUE, VPCAT_E_DEMAND_OVERFLOW,
 * VPCAT_E_STEP_LIMIT, ...), VPCAT_E_BUFFER_TOO_SMALL (out->capacity < n),
 * VPCAT_E_OUT_OF_MEMORY, VPCAT_E_INVALID_ARGUMENT (NULL cat or out, NULL
 * free_gpus with free_count > 0, a wrong struct_size, uniform_bytes 0,
 * reserved not 0). */
VPCAT_API vpcat_status vpcat_place(const vpcat_catalog* cat, const uint64_t* free_gpus, size_t free_count, uint32_t n,
                                   const uint64_t* bytes, const vpcat_place_options* options, vpcat_placement* out,
                                   vpcat_error* err);

/* ---- plans ------------------------------------------------------------------------------
 * Steps run one after another; the transfers of a step run at once. A
 * channel step (vpcat_step.shared == 0; every step with channels_only and
 * without allow_shared) has at most one transfer per sending GPU, so
 * gpu_count transfers hold it; a sharing step (shared == 1: the shared step,
 * or a step of grouped shifted permutations, anywhere in a default plan;
 * with channels_only and allow_shared only the last) may hold every
 * payload: size a buffer for any step from vpcat_step.count. */

#define VPCAT_NO_NIC 0xFFFFu

typedef struct vpcat_transfer {
  uint32_t src, dst;       /* global GPU indexes of this hop */
  uint32_t origin, final;  /* the payload's first source and last destination (== src, dst when not relayed) */
  uint64_t bytes;          /* > 0 */
  double solo_gbps;        /* the route's solo rate: its rate in a channel step (GB/s = 1e3 bytes per microsecond) */
  uint16_t src_nic;        /* local NIC index in src's node; VPCAT_NO_NIC (both): PCIe peer-to-peer route */
  uint16_t dst_nic;        /* local NIC index in dst's node (src's node too: a NIC loopback); VPCAT_NO_NIC */
  uint32_t reserved;
} vpcat_transfer;

typedef struct vpcat_step {
  uint64_t first;     /* index of its first transfer */
  uint32_t count;     /* transfers, >= 1 */
  uint32_t ports;     /* most transfers any GPU sends or receives in it (1 in every channel step) */
  double expected_us; /* expected: latency + the longest transfer at its solo rate or, in a sharing step, its
                         busiest resource's bytes over what it delivers under the machine model if longer */
  uint32_t shared;    /* 1: a sharing step (its transfers contend; see above), 0: a channel step */
  uint32_t reserved;
} vpcat_step;

typedef struct vpcat_plan_summary {
  uint64_t gpus;
  uint64_t step_count;
  uint64_t transfer_count;
  uint64_t total_bytes;  /* off-diagonal bytes of the demand, all delivered */
  double expected_us;    /* sum of the steps' expected times */
} vpcat_plan_summary;

/* An empty plan; it keeps its capacity between plan calls. */
VPCAT_API vpcat_status vpcat_plan_create(vpcat_plan** out);
VPCAT_API void vpcat_plan_destroy(vpcat_plan* plan);
/* Optional pre-sizing; VPCAT_E_OUT_OF_MEMORY when memory is short. */
VPCAT_API vpcat_status vpcat_plan_reserve(vpcat_plan* plan, size_t steps, size_t transfers);

VPCAT_API vpcat_status vpcat_plan_get_summary(const vpcat_plan* plan, vpcat_plan_summary* out);
/* A lower bound on the time of any plan of the planned demand on the
 * planner's GPUs, microseconds: the start-up latency plus the busiest cut
 * every byte must cross (a GPU's link, a node's usable NIC ports, a leaf's
 * spine uplink). expected_us over it is how far from the best the plan can
 * be at worst. 0 for an empty plan. */
VPCAT_API vpcat_status vpcat_plan_bound_us(const vpcat_plan* plan, double* out);
VPCAT_API vpcat_status vpcat_plan_step_count(const vpcat_plan* plan, size_t* out);
/* step < step_count. */
VPCAT_API vpcat_status vpcat_plan_step(const vpcat_plan* plan, size_t step, vpcat_step* out);
/* Transfer `index` (< transfer_count) of the whole plan (steps' transfers are consecutive). */
VPCAT_API vpcat_status vpcat_plan_transfer(const vpcat_plan* plan, size_t index, vpcat_transfer* out);
/* The transfers of step `step`, copied into out[0 .. capacity). */
VPCAT_API vpcat_status vpcat_plan_step_transfers(const vpcat_plan* plan, size_t step, vpcat_transfer* out,
                                                 size_t capacity, size_t* count);

/* The global link ids (SPEC.md "Global numbering"; those of `vp-analyze
 * topology --json`) of a transfer's route, in order, and the global
 * component ids of the forwarding components it transits. `transfer` must
 * come from a plan of this planner (VPCAT_E_INVALID_ARGUMENT otherwise).
 * vpcat_planner_max_route_links() bounds the link count. */
VPCAT_API vpcat_status vpcat_planner_route_links(const vpcat_planner* planner, const vpcat_transfer* transfer,
                                                 uint64_t* links, size_t capacity, size_t* count);
VPCAT_API vpcat_status vpcat_planner_route_forwarders(const vpcat_planner* planner, const vpcat_transfer* transfer,
                                                      uint64_t* components, size_t capacity, size_t* count);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* VPCAT_H */
