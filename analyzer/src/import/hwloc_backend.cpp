#include "hwloc_backend.hpp"

#include <dlfcn.h>
#include <hwloc.h>

#include <cstdlib>
#include <filesystem>
#include <string_view>
#include <vector>

namespace vp {
namespace {

constexpr const char* kPluginFile = "hwloc_xml_libxml.so";
constexpr const char* kPackage = "Debian package libhwloc-plugins";

// The folders libhwloc searches for plugins: HWLOC_PLUGINS_PATH (colon
// separated) replaces the built-in one, which is hwloc/ in libhwloc's own
// folder (Debian: /usr/lib/<triplet>/hwloc).
std::vector<std::filesystem::path> plugin_folders() {
  std::vector<std::filesystem::path> folders;
  if (const char* env = std::getenv("HWLOC_PLUGINS_PATH")) {
    std::string_view rest(env);
    while (!rest.empty()) {
      auto colon = rest.find(':');
      std::string_view one = rest.substr(0, colon);
      if (!one.empty()) folders.emplace_back(std::string(one));
      if (colon == std::string_view::npos) break;
      rest.remove_prefix(colon + 1);
    }
    return folders;
  }
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&hwloc_topology_init), &info) != 0 && info.dli_fname)
    folders.push_back(std::filesystem::path(info.dli_fname).parent_path() / "hwloc");
  return folders;
}

}  // namespace

HwlocXmlBackend hwloc_xml_backend() {
  for (const char* var : {"HWLOC_LIBXML", "HWLOC_LIBXML_IMPORT"}) {
    const char* env = std::getenv(var);
    if (!env) continue;
    if (std::atoi(env) == 0) return {false, std::string("disabled by ") + var + "=" + env};
    break;  // the first one set decides, as in libhwloc
  }
  std::vector<std::filesystem::path> folders = plugin_folders();
  std::error_code ec;
  for (const auto& folder : folders)
    if (std::filesystem::exists(folder / kPluginFile, ec)) return {true, {}};
  std::string where = folders.empty() ? std::string("hwloc's plugin folder") : folders.front().string();
  for (std::size_t i = 1; i < folders.size(); ++i) where += ", " + folders[i].string();
  return {false, std::string("not installed (no ") + kPluginFile + " in " + where + ": " + kPackage + ")"};
}

}  // namespace vp
