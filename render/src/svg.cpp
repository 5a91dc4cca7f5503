#include "vp/render/svg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <set>
#include <vector>

#include "vpcat/utf8.hpp"

namespace vp::render {

namespace {

// Length of the valid UTF-8 sequence at s[i] (1..4; vpcat/utf8.hpp), 0 when
// the bytes there are not valid UTF-8.
std::size_t utf8_length(std::string_view s, std::size_t i) {
  return vpcat::utf8_sequence(reinterpret_cast<const std::uint8_t*>(s.data()) + i, s.size() - i);
}

}  // namespace

std::string escape_dot(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const std::size_t n = utf8_length(s, i);
    if (n == 0 || (c < 0x20 && c != '\n')) {
      ++i;
      continue;
    }
    if (c == '"' || c == '\\') out += '\\', out += static_cast<char>(c);
    else if (c == '\n') out += "\\n";
    else out.append(s.substr(i, n));
    i += n;
  }
  return out;
}

double text_width(std::string_view s, double size_px) {
  std::size_t chars = 0;
  for (unsigned char c : s) chars += (c & 0xC0) != 0x80;  // code points, not bytes
  return static_cast<double>(chars) * size_px * 0.6;
}

std::string fit_text(std::string_view s, double size_px, double max_px) {
  if (text_width(s, size_px) <= max_px) return std::string(s);
  const double ellipsis = size_px * 0.6;
  std::string out;
  double w = 0;
  for (std::size_t i = 0; i < s.size();) {
    std::size_t n = utf8_length(s, i);
    if (n == 0) n = 1;
    if (w + size_px * 0.6 + ellipsis > max_px) break;
    out.append(s.substr(i, n));
    w += size_px * 0.6;
    i += n;
  }
  return out + "\xE2\x80\xA6";
}

RouteClass route_class(PathType p) {
  switch (p) {
    case PathType::LOC:
    case PathType::PIX:
    case PathType::PXB: return RouteClass::intra_switch;
    case PathType::PHB:
    case PathType::NODE: return RouteClass::root_complex;
    case PathType::SYS: return RouteClass::socket;
    case PathType::NET: return RouteClass::network;
  }
  return RouteClass::network;
}

std::string_view to_label(RouteClass c) {
  switch (c) {
    case RouteClass::intra_switch: return "intra-switch (PIX, PXB)";
    case RouteClass::root_complex: return "root complex (PHB, NODE)";
    case RouteClass::socket: return "across sockets (SYS)";
    case RouteClass::network: return "network (NET)";
  }
  return "?";
}

std::string_view route_colour(RouteClass c) {
  switch (c) {
    case RouteClass::intra_switch: return "#4daf4a";
    case RouteClass::root_complex: return "#ff9f1c";
    case RouteClass::socket: return "#e41a1c";
    case RouteClass::network: return "#377eb8";
  }
  return "#999999";
}

namespace {

// The k-th generated colour: hues a golden angle apart (each far from the
// last few), light enough for black text, in four lightness and four
// saturation tiers.
std::string generated_colour(std::size_t k) {
  static constexpr std::array<double, 4> kLight{0.78, 0.66, 0.86, 0.72};
  static constexpr std::array<double, 4> kSaturation{0.70, 0.50, 0.85, 0.60};
  const double hue = std::fmod(static_cast<double>(k) * 137.50776405003785, 360.0) / 60.0;
  const double light = kLight[k % 4], saturation = kSaturation[k / 4 % 4];
  const double chroma = (1 - std::fabs(2 * light - 1)) * saturation;
  const double second = chroma * (1 - std::fabs(std::fmod(hue, 2.0) - 1));
  double rgb[3] = {0, 0, 0};
  const int sector = static_cast<int>(hue) % 6;
  static constexpr int kMax[6] = {0, 1, 1, 2, 2, 0}, kMid[6] = {1, 0, 2, 1, 0, 2};
  rgb[kMax[sector]] = chroma;
  rgb[kMid[sector]] = second;
  const double base = light - chroma / 2;
  auto byte = [&](double v) { return static_cast<unsigned>(std::lround(std::clamp(v + base, 0.0, 1.0) * 255)); };
  return fmt::format("#{:02x}{:02x}{:02x}", byte(rgb[0]), byte(rgb[1]), byte(rgb[2]));
}

}  // namespace

std::string orbit_colour(std::size_t i) {
  // The palette, then generated colours, each unlike every one before it
  // (a generated colour that rounds to an earlier one is skipped), made once.
  static const std::vector<std::string> kColours = [] {
    std::vector<std::string> c{"#8dd3c7", "#ffffb3", "#bebada", "#fb8072", "#80b1d3", "#fdb462",
                               "#b3de69", "#fccde5", "#d9d9d9", "#bc80bd", "#ccebc5", "#ffed6f"};
    std::set<std::string> seen(c.begin(), c.end());
    for (std::size_t k = 0; c.size() < kDistinctOrbitColours; ++k) {
      std::string next = generated_colour(k);
      if (seen.insert(next).second) c.push_back(std::move(next));
    }
    return c;
  }();
  return kColours[i % kColours.size()];
}

SvgDoc::SvgDoc(double width, double height, std::string_view title)
    : width_(width), height_(height), title_(escape_xml(title)) {}

void SvgDoc::rect(double x, double y, double w, double h, std::string_view fill, std::string_view stroke,
                  std::string_view cls, std::string_view tip, std::string_view extra) {
  fmt::format_to(std::back_inserter(body_), R"(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="{}" stroke="{}")",
                 x, y, w, h, escape_xml(fill), escape_xml(stroke));
  if (!cls.empty()) fmt::format_to(std::back_inserter(body_), R"( class="{}")", escape_xml(cls));
  if (!extra.empty()) fmt::format_to(std::back_inserter(body_), " {}", extra);
  if (tip.empty()) body_ += "/>\n";
  else fmt::format_to(std::back_inserter(body_), "><title>{}</title></rect>\n", escape_xml(tip));
}

void SvgDoc::line(double x1, double y1, double x2, double y2, std::string_view stroke, double width,
                  std::string_view dash, std::string_view cls) {
  fmt::format_to(std::back_inserter(body_), R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="{}" stroke-width="{:g}")",
                 x1, y1, x2, y2, escape_xml(stroke), width);
  if (!dash.empty()) fmt::format_to(std::back_inserter(body_), R"( stroke-dasharray="{}")", escape_xml(dash));
  if (!cls.empty()) fmt::format_to(std::back_inserter(body_), R"( class="{}")", escape_xml(cls));
  body_ += "/>\n";
}

void SvgDoc::text(double x, double y, std::string_view s, double size_px, std::string_view anchor,
                  std::string_view weight, std::string_view fill, std::string_view cls) {
  fmt::format_to(std::back_inserter(body_), R"(<text x="{:.1f}" y="{:.1f}" font-size="{:g}" text-anchor="{}" font-weight="{}" fill="{}")",
                 x, y, size_px, escape_xml(anchor), escape_xml(weight), escape_xml(fill));
  if (!cls.empty()) fmt::format_to(std::back_inserter(body_), R"( class="{}")", escape_xml(cls));
  fmt::format_to(std::back_inserter(body_), ">{}</text>\n", escape_xml(s));
}

void SvgDoc::raw(std::string_view markup) { body_.append(markup); }

std::string SvgDoc::finish() const {
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0:.0f}\" height=\"{1:.0f}\" viewBox=\"0 0 {0:.0f} {1:.0f}\" "
      "font-family=\"DejaVu Sans, Verdana, sans-serif\">\n<title>{2}</title>\n"
      "<rect x=\"0\" y=\"0\" width=\"{0:.0f}\" height=\"{1:.0f}\" fill=\"#ffffff\"/>\n{3}</svg>\n",
      width_, height_, title_, body_);
}

}  // namespace vp::render
