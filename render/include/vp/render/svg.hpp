// The primitives every picture shares: XML and DOT escaping, an SVG
// document builder, the palettes (orbits, route classes) and a text-width
// estimate for layout. Every text that comes from input (names, models, host
// names) goes through escape_xml() (vp/base/xml.hpp) or escape_dot(): names
// are untrusted.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "vp/base/xml.hpp"
#include "vp/topology/routes.hpp"

namespace vp::render {

// Text inside a DOT double-quoted string: " and \ escaped, newlines as \n,
// other controls and invalid UTF-8 (vpcat/utf8.hpp) dropped.
std::string escape_dot(std::string_view s);

// Estimated width in px of `s` in a sans-serif font of `size_px` (a fixed
// average advance; layout only, never exact).
double text_width(std::string_view s, double size_px);

// `s` cut to at most `max_px` wide (estimated), with a trailing "…" when cut.
std::string fit_text(std::string_view s, double size_px, double max_px);

// The four route classes a picture colours, from NCCL's path types:
// PIX/PXB inside a PCIe switch tree, PHB/NODE through a root complex, SYS
// across the inter-socket link, NET through the network.
enum class RouteClass : unsigned char { intra_switch, root_complex, socket, network };
inline constexpr int kRouteClasses = 4;
RouteClass route_class(PathType p);
std::string_view to_label(RouteClass c);   // "intra-switch (PIX, PXB)", ...
std::string_view route_colour(RouteClass c);

// A fill for orbit number i ("#rrggbb"): a 12-colour palette, then generated
// hues; the first kDistinctOrbitColours are all different (then they repeat;
// the legend numbers the orbits and a box's tooltip names its orbit).
inline constexpr std::size_t kDistinctOrbitColours = 4096;
std::string orbit_colour(std::size_t i);

// An SVG document under construction. Coordinates in px; every text is
// escaped here, attributes that take text (title tooltips, class names given
// by the caller) too.
class SvgDoc {
 public:
  SvgDoc(double width, double height, std::string_view title);
  // <rect>; `cls` is its class attribute (what the tests count), `tip` an
  // optional <title> tooltip.
  void rect(double x, double y, double w, double h, std::string_view fill, std::string_view stroke,
            std::string_view cls = {}, std::string_view tip = {}, std::string_view extra = {});
  void line(double x1, double y1, double x2, double y2, std::string_view stroke, double width = 1.0,
            std::string_view dash = {}, std::string_view cls = {});
  // anchor: "start", "middle" or "end".
  void text(double x, double y, std::string_view s, double size_px = 11, std::string_view anchor = "start",
            std::string_view weight = "normal", std::string_view fill = "#222", std::string_view cls = {});
  // Raw markup the picture writes itself (no input text in it).
  void raw(std::string_view markup);
  // The complete document.
  std::string finish() const;

 private:
  double width_, height_;
  std::string title_, body_;
};

}  // namespace vp::render
