// The vpcat runtime: every public header (C++17, standard library only).
// An embedder may include this one header or only the ones it uses; the
// public surface is exactly the headers below. Headers under detail/ (and
// planner/detail/) are the runtime's internals: they change without notice
// and no code outside runtime_loader/ includes them (ctest
// `runtime_no_detail_includes`); ctest `runtime_header_<name>` compiles each
// public header alone.
//
// The C API is vpcat.h (a C header, not included here).
#pragma once

// Versions, statuses and limits.
#include "vpcat/version.hpp"       // library version, the version-tagged namespace
#include "vpcat/status.hpp"        // Status and the reader's error codes
#include "vpcat/options.hpp"       // VerifyOptions: limits for untrusted buffers

// The .vpcat format and reading it.
#include "vpcat/bytes.hpp"         // little-endian scalar loads and stores
#include "vpcat/crc32c.hpp"        // CRC-32C, the format's checksum
#include "vpcat/format.hpp"        // the format's constants, record layouts and kinds
#include "vpcat/layout.hpp"        // where the verified sections are
#include "vpcat/verify.hpp"        // verify(): check an untrusted buffer once
#include "vpcat/mapped_file.hpp"   // MappedFile, CatalogFile: a catalog from a path
#include "vpcat/catalog_view.hpp"  // CatalogView: zero-copy reads of a verified buffer

// Planning.
#include "vpcat/subset.hpp"                  // Subset: the GPUs a job holds
#include "vpcat/derived_patterns.hpp"        // DerivedPatterns: partial nodes' derivations, kept across planners
#include "vpcat/planner/status.hpp"          // PlanStatus and the planner's error codes
#include "vpcat/planner/demand.hpp"          // Demand: one AlltoAllv call's bytes
#include "vpcat/planner/demand_check.hpp"    // the demand rules as functions
#include "vpcat/planner/machine_model.hpp"   // MachineModel: what sharing a resource costs
#include "vpcat/planner/catalog_machine.hpp" // the catalog's MachineModel (format 1.2)
#include "vpcat/planner/plan.hpp"            // Plan, PlanOptions, PlanTransfer
#include "vpcat/planner.hpp"                 // Planner
#include "vpcat/placement.hpp"               // place(): where an N-GPU job goes among free GPUs

// Names as clusters write them.
#include "vpcat/gpu_list.hpp"    // GPU lists: "gpu01:0-3,gpu02:*"
#include "vpcat/hostlist.hpp"    // host lists: "gpu[001-032]"
#include "vpcat/pci_bus_id.hpp"  // PCI bus ids: "0000:17:00.0"
#include "vpcat/utf8.hpp"        // UTF-8 validation and decoding
