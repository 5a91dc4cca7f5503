// The Gantt layout plan_svg and timeline_svg share: a label column, one row
// per GPU, steps as columns on a linear time axis, a legend of the route
// classes below.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "vp/render/gantt.hpp"

namespace vp::render {

namespace {

constexpr double kRow = 16, kBar = 11, kPlotWidth = 900, kMargin = 14, kFont = 11;

// A "nice" tick spacing (1, 2 or 5 x 10^k) giving about `target` ticks.
double tick_step(double total, int target) {
  if (!(total > 0)) return 1;
  const double raw = total / target;
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (raw <= m * p) return m * p;
  return 10 * p;
}

std::string us_label(double us) {
  if (us >= 1e6) return fmt::format("{:g} s", us / 1e6);
  if (us >= 1e3) return fmt::format("{:g} ms", us / 1e3);
  return fmt::format("{:g} \xC2\xB5s", us);
}

}  // namespace

std::string gantt_svg(const GanttChart& c) {
  const std::size_t rows = c.gpu_labels.size();
  double label_w = 40;
  for (const std::string& l : c.gpu_labels) label_w = std::max(label_w, text_width(l, kFont) + 16);
  label_w = std::min(label_w, 160.0);
  double total = 0;
  for (const GanttStep& s : c.steps) total += s.us;
  const double span = std::max({total, c.marker_us * 1.02, 1e-9});
  const double scale = kPlotWidth / span;

  const double title_h = 22 + 15 * static_cast<double>(c.notes.size());
  // Above the plot: a row for the marker's and the shared step's labels, then
  // one for the step numbers.
  const double top = kMargin + title_h + 34;
  const double x0 = kMargin + label_w;
  const double plot_h = kRow * static_cast<double>(rows);
  const double axis_y = top + plot_h;
  const double legend_y = axis_y + 40;
  double width = x0 + kPlotWidth + kMargin + 20;
  for (const std::string& n : c.notes) width = std::max(width, kMargin + text_width(n, kFont) + kMargin);
  width = std::max(width, kMargin + text_width(c.title, 14) + kMargin);
  const double height = legend_y + 40;

  SvgDoc d(width, height, c.title);
  d.raw("<defs><pattern id=\"hatch\" patternUnits=\"userSpaceOnUse\" width=\"6\" height=\"6\" "
        "patternTransform=\"rotate(45)\"><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#000\" "
        "stroke-opacity=\"0.35\" stroke-width=\"2\"/></pattern></defs>\n");
  d.text(kMargin, kMargin + 14, c.title, 14, "start", "bold");
  for (std::size_t i = 0; i < c.notes.size(); ++i)
    d.text(kMargin, kMargin + 32 + 15 * static_cast<double>(i), c.notes[i], kFont, "start", "normal", "#444");

  // Step columns, alternating shades; numbers above the wide ones.
  double x = x0;
  const double min_label_gap = text_width("0000", 9);
  double last_label_end = -1e9;
  for (std::size_t k = 0; k < c.steps.size(); ++k) {
    const GanttStep& s = c.steps[k];
    const double w = s.us * scale;
    d.rect(x, top, std::max(w, 0.0), plot_h, k % 2 ? "#f4f4f4" : "#e9edf2", "none", "step",
           fmt::format("step {}: {:.1f} us{}, {} sending GPUs", k, s.us, s.shared ? " (shared)" : "", s.bars.size()));
    const std::string num = std::to_string(k);
    if (x + w / 2 - text_width(num, 9) / 2 > last_label_end + 4 && w >= 1) {
      d.text(x + w / 2, top - 4, num, 9, "middle", "normal", "#666");
      last_label_end = x + w / 2 + std::max(text_width(num, 9) / 2, min_label_gap / 2);
    }
    for (const GanttBar& b : s.bars) {
      if (b.gpu >= rows) continue;
      const double y = top + kRow * b.gpu + (kRow - kBar) / 2;
      d.rect(x, y, std::max(std::min(b.us, s.us) * scale, 0.5), kBar, route_colour(b.route), "none", "bar", b.tip);
    }
    if (s.shared) {
      d.rect(x, top, std::max(w, 0.5), plot_h, "url(#hatch)", "#000000", "shared",
             fmt::format("step {} is the shared step: its transfers run at once and contend", k),
             "stroke-width=\"0.8\"");
      const bool right = x + w / 2 > x0 + kPlotWidth / 2;
      d.text(right ? x + std::max(w, 0.5) : x, top - 18, "shared step", 9, right ? "end" : "start", "bold", "#000");
    }
    x += w;
  }

  // Rows: a label box per GPU, faint separators.
  for (std::size_t r = 0; r < rows; ++r) {
    const double y = top + kRow * static_cast<double>(r);
    d.rect(kMargin, y + 1, label_w - 8, kRow - 2, "#ffffff", "#bbbbbb", "gpu");
    d.text(kMargin + label_w - 12, y + kRow - 4, fit_text(c.gpu_labels[r], kFont, label_w - 16), kFont, "end");
    if (r) d.line(x0, y, x0 + kPlotWidth, y, "#ffffff", 0.5);
  }

  // Time axis.
  d.line(x0, axis_y, x0 + kPlotWidth, axis_y, "#333333");
  const double tick = tick_step(span, 8);
  for (int i = 0; i * tick <= span * (1 + 1e-9); ++i) {
    const double tx = x0 + i * tick * scale;
    d.line(tx, axis_y, tx, axis_y + 4, "#333333");
    d.text(tx, axis_y + 15, us_label(i * tick), 9, "middle");
  }
  d.text(x0 + kPlotWidth / 2, axis_y + 29, "time", kFont, "middle", "normal", "#444");

  if (c.marker_us > 0) {
    const double mx = x0 + c.marker_us * scale;
    d.line(mx, top - 30, mx, axis_y, "#000000", 1.5, "5,3", "marker");
    const bool right = mx > x0 + kPlotWidth / 2;
    const double w = text_width(c.marker_label, 10) + 8;
    d.rect(right ? mx - w - 3 : mx + 3, top - 31, w, 14, "#ffffff", "#000000", {}, {}, "stroke-width=\"0.6\"");
    d.text(right ? mx - 7 : mx + 7, top - 20.5, c.marker_label, 10, right ? "end" : "start", "bold", "#000");
  }

  // Legend: the route classes, then the shared step's hatch.
  double lx = kMargin;
  for (int r = 0; r < kRouteClasses; ++r) {
    const auto rc = static_cast<RouteClass>(r);
    d.rect(lx, legend_y, 14, 10, route_colour(rc), "#555555");
    d.text(lx + 18, legend_y + 9, to_label(rc), 10);
    lx += 18 + text_width(to_label(rc), 10) + 16;
  }
  d.rect(lx, legend_y, 14, 10, "url(#hatch)", "#000000");
  d.text(lx + 18, legend_y + 9, "shared step (contending)", 10);
  d.text(kMargin, legend_y + 26, "rows: sending GPU; columns: steps in order (number above)", 10, "start", "normal",
         "#555");
  return d.finish();
}

}  // namespace vp::render
