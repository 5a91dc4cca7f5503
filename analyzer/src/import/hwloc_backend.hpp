// Which XML parser libhwloc will use to import a file.
//
// hwloc reads XML with its libxml2 backend when that is available and with a
// minimalistic parser of its own otherwise, silently. The minimalistic parser
// reads what hwloc itself writes but not every valid XML file (the NIXL dumps
// of fixtures/real/hwloc-xml/ defeat it), so a failure under it says nothing
// about the file. On Debian the libxml2 backend is a plugin, shipped apart in
// libhwloc-plugins (a Recommends of libhwloc15, so an install without
// recommended packages lacks it).
#pragma once

#include <string>

namespace vp {

struct HwlocXmlBackend {
  bool libxml2 = false;  // true: hwloc will parse with libxml2
  // Without libxml2, why not, as a clause: "not installed (no
  // hwloc_xml_libxml.so in /usr/lib/.../hwloc: Debian package
  // libhwloc-plugins)" or "disabled by HWLOC_LIBXML_IMPORT=0".
  std::string why_not;
};

// Decided as libhwloc decides: HWLOC_LIBXML, else HWLOC_LIBXML_IMPORT, set to
// 0 forces the minimalistic parser; the plugin is looked for in each folder of
// HWLOC_PLUGINS_PATH, else in hwloc/ beside the loaded libhwloc.
HwlocXmlBackend hwloc_xml_backend();

}  // namespace vp
