// What the reader fuzz targets share (hwloc_fuzz.cpp, nccl_fuzz.cpp,
// nvsmi_fuzz.cpp, json_topology_fuzz.cpp, cluster_fuzz.cpp, defaults_fuzz.cpp,
// demand_fuzz.cpp; tests/fuzz/README.md).
//
// The contract every reader is held to: on any bytes it returns a result or
// throws a vp::ToolError whose exit code is 2 (bad input). Anything else (an
// exception of another type, a ToolError with another code, a crash, a
// sanitizer report, a hang, a huge allocation) is a finding: the target
// prints what it caught and traps, so libFuzzer keeps the input.
//
// A result the reader accepts is taken on to the next stage when that is
// cheap (a small topology: its JSON document, that document read back, the
// analysis, the catalog writer and the runtime's verifier on what it wrote),
// so that "accepted by the reader, refused later" is a finding too.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <system_error>

#include "vp/analysis/build_catalog.hpp"
#include "vp/analysis/request.hpp"
#include "vp/base/errors.hpp"
#include "vp/catalog/json_mirror.hpp"
#include "vp/catalog/writer.hpp"
#include "vp/import/import.hpp"
#include "vp/import/json_topology.hpp"
#include "vpcat/verify.hpp"

namespace vp::fuzz {

[[noreturn]] inline void finding(std::string_view stage, std::string_view what) {
  std::fprintf(stderr, "FINDING in %.*s: %.*s\n", static_cast<int>(stage.size()), stage.data(),
               static_cast<int>(what.size()), what.data());
  std::fflush(stderr);
  __builtin_trap();
}

inline void expect(bool ok, std::string_view stage, std::string_view what) {
  if (!ok) finding(stage, what);
}

// Run `body`; an error a user may cause (exit 2) ends it quietly, anything
// else is a finding. Returns true when `body` returned normally.
template <class F>
bool accepts(std::string_view stage, F&& body) {
  try {
    body();
    return true;
  } catch (const ToolError& e) {
    if (e.exit_code() != ExitCode::bad_input)
      finding(stage, std::string("a ToolError of exit code ") + std::to_string(static_cast<int>(e.exit_code())) +
                         " (expected 2): " + e.what());
    if (std::string_view(e.what()).empty()) finding(stage, "an error without a message");
    return false;
  } catch (const std::exception& e) {
    finding(stage, std::string("an exception that is not vp::ToolError (exit 4 in a tool): ") + e.what());
  } catch (...) {
    finding(stage, "an exception that is not a std::exception");
  }
}

// A folder of this process for the files the path-based readers open:
// $VP_FUZZ_TMPDIR, else /dev/shm (no disk traffic), else the system's.
inline const std::filesystem::path& scratch_dir() {
  static const std::filesystem::path dir = [] {
    namespace fs = std::filesystem;
    fs::path base;
    if (const char* env = std::getenv("VP_FUZZ_TMPDIR")) base = env;
    else if (fs::is_directory("/dev/shm")) base = "/dev/shm";
    else base = fs::temp_directory_path();
    fs::path d = base / ("vp-fuzz-" + std::to_string(::getpid()));
    fs::create_directories(d);
    std::atexit([] {
      std::error_code ec;
      fs::remove_all(scratch_dir(), ec);
    });
    return d;
  }();
  return dir;
}

// Write `data` to scratch_dir()/name; returns the path.
inline std::string write_scratch(const std::string& name, const std::uint8_t* data, std::size_t size) {
  const std::filesystem::path p = scratch_dir() / name;
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  out.close();
  if (!out) finding("harness", "cannot write " + p.string());
  return p.string();
}

// Small enough for the next stages to stay cheap: under the sanitizers the
// analysis of an 8-GPU node with 32 NICs (aws-p5.48xl) takes half a minute
// on a loaded machine, mostly in the permutation group of its 32 NICs.
inline constexpr std::size_t kAnalysedGpus = 8;
inline constexpr std::size_t kAnalysedComponents = 32;

// The next stages of an accepted topology, as `vp-analyze topology --json`
// and `vp-analyze --out` take it.
inline void topology_stages(const Topology& t) {
  expect(!t.gpus.empty(), "import", "a topology without a GPU was accepted");
  // `vp-analyze topology --json`, read back by the JSON importer to the same model.
  std::string doc;
  if (!accepts("topology_to_json", [&] { doc = topology_to_json(t).dump(2); }))
    finding("topology_to_json", "an accepted topology cannot be printed as JSON");
  if (t.components.size() > 4 * kAnalysedComponents) return;
  Topology back;
  if (!accepts("import_json (the printed topology)",
               [&] { back = import_json("printed.json", doc, ImportOptions{t.defaults, {}, {}}); }))
    finding("import_json", "the JSON printed for an accepted topology is refused by the JSON importer");
  expect(back.same_as(t), "import_json", "the printed topology reads back as a different model");
}

// The analysis and the writer on a small accepted input: every stage after
// the reader either refuses it with exit 2 (as vp-analyze does for a cluster
// whose nodes cannot reach the network) or writes a catalog the runtime's
// verifier accepts, with its JSON mirror.
inline void catalog_stages(const LoadedInput& in) {
  if (in.topology.gpus.size() > kAnalysedGpus || in.topology.components.size() > kAnalysedComponents) return;
  if (!accepts("check_nodes_reach_network", [&] { check_nodes_reach_network(in); })) return;
  PatternSearchOptions search;
  search.max_search_nodes = 500;
  // Groups above this order are cut with bliss certificates instead of
  // being listed: under the sanitizers, listing the group of azure-ndv4
  // takes 17 s, certificates 0.5 s.
  search.max_listed_group = 5000;
  catalog::Catalog cat;
  if (!accepts("build_catalog", [&] { cat = build_catalog(in, search, "fuzz"); }))
    finding("build_catalog", "an accepted input cannot be analysed");
  std::vector<std::uint8_t> bytes;
  if (!accepts("write_catalog", [&] { bytes = catalog::write_catalog(cat); }))
    finding("write_catalog", "the catalog of an accepted input cannot be written");
  const vpcat::Status s = vpcat::verify(bytes.data(), bytes.size(), nullptr);
  if (!s.ok()) finding("vpcat::verify", std::string("the written catalog does not verify: ") + s.message());
  if (!accepts("dump_json", [&] { (void)catalog::dump_json(cat); }))
    finding("dump_json", "the catalog of an accepted input has no JSON mirror");
}

// `vp-analyze` on the file `path` in `format`: load_input(), then the next stages.
inline void analyze_file(const std::string& path, const std::string& format) {
  AnalysisRequest r;
  r.input = path;
  r.format = format;
  LoadedInput in;
  if (!accepts("load_input", [&] { in = load_input(r); })) return;
  topology_stages(in.topology);
  catalog_stages(in);
}

}  // namespace vp::fuzz

// Leaks of Debian's libraries, not ours, that the leak checker of the fuzz
// and sanitizer builds is told to ignore (and only them): libbliss 0.73
// loses two small blocks of its partition's refinement state per search
// (bliss::Partition::cr_init). Named twice: by function, and by module for
// a run without llvm-symbolizer, where frames have no names (CI's fuzz phase
// before install-deps.sh named llvm). A module rule only matches stacks that
// pass through libbliss, so a bliss object we fail to delete (allocated from
// our frame) is still reported. A target adds its own with
// VP_FUZZ_LSAN_SUPPRESSIONS before including this header (hwloc_fuzz.cpp).
#ifndef VP_FUZZ_LSAN_SUPPRESSIONS
#define VP_FUZZ_LSAN_SUPPRESSIONS ""
#endif
extern "C" const char* __lsan_default_suppressions() {
  return "leak:bliss::Partition::cr_init\nleak:libbliss.so\n" VP_FUZZ_LSAN_SUPPRESSIONS;
}
