// The Gantt layout plan_svg and timeline_svg share: a label column, one row
// per GPU, steps as columns on a linear time axis, a legend of the route
// classes below. Past kGanttMaxRows GPUs, the heatmap (heatmap.cpp).
#include <fmt/format.h>

#include <algorithm>

#include "step_axis.hpp"
#include "vp/render/gantt.hpp"

namespace vp::render {

using detail::kFont;
using detail::kMargin;
using detail::kPlotWidth;

namespace {

constexpr double kRow = 16, kBar = 11;

}  // namespace

std::string gantt_svg(const GanttChart& c) {
  if (c.gpu_labels.size() > kGanttMaxRows) return heatmap_svg(c);
  const std::size_t rows = c.gpu_labels.size();
  double label_w = 40;
  for (const std::string& l : c.gpu_labels) label_w = std::max(label_w, text_width(l, kFont) + 16);
  label_w = std::min(label_w, 160.0);
  const detail::StepFrame f = detail::step_frame(c, label_w, kRow * static_cast<double>(rows), 80);
  const double top = f.top, x0 = f.x0, plot_h = f.plot_h, scale = f.scale;
  const double legend_y = top + plot_h + 40;

  SvgDoc d(f.width, f.height, c.title);
  detail::draw_head(d, c);

  // Step columns, alternating shades; numbers above the wide ones.
  double x = x0;
  double last_label_end = -1e9;
  for (std::size_t k = 0; k < c.steps.size(); ++k) {
    const GanttStep& s = c.steps[k];
    const double w = s.us * scale;
    d.rect(x, top, std::max(w, 0.0), plot_h, k % 2 ? "#f4f4f4" : "#e9edf2", "none", "step",
           fmt::format("step {}: {:.1f} us{}, {} sending GPUs", k, s.us, s.shared ? " (shared)" : "", s.bars.size()));
    for (const GanttBar& b : s.bars) {
      if (b.gpu >= rows) continue;
      const double y = top + kRow * b.gpu + (kRow - kBar) / 2;
      d.rect(x, y, std::max(std::min(b.us, s.us) * scale, 0.5), kBar, route_colour(b.route), "none", "bar", b.tip);
    }
    detail::draw_step_marks(d, f, k, x, w, s.shared, last_label_end);
    x += w;
  }

  // Rows: a label box per GPU, faint separators.
  for (std::size_t r = 0; r < rows; ++r) {
    const double y = top + kRow * static_cast<double>(r);
    d.rect(kMargin, y + 1, label_w - 8, kRow - 2, "#ffffff", "#bbbbbb", "gpu");
    d.text(kMargin + label_w - 12, y + kRow - 4, fit_text(c.gpu_labels[r], kFont, label_w - 16), kFont, "end");
    if (r) d.line(x0, y, x0 + kPlotWidth, y, "#ffffff", 0.5);
  }
  detail::draw_axis_and_marker(d, c, f);

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
