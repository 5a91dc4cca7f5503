// The parts the step pictures share (step_axis.hpp).
#include "step_axis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace vp::render::detail {

namespace {

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

double span_of(const GanttChart& c) {
  double total = 0;
  for (const GanttStep& s : c.steps) total += s.us;
  return std::max({total, c.marker_us * 1.02, 1e-9});
}

}  // namespace

StepFrame step_frame(const GanttChart& c, double label_w, double plot_h, double below) {
  StepFrame f;
  f.scale = kPlotWidth / span_of(c);
  const double title_h = 22 + 15 * static_cast<double>(c.notes.size());
  // Above the plot: a row for the marker's and the shared step's labels, then
  // one for the step numbers.
  f.top = kMargin + title_h + 34;
  f.x0 = kMargin + label_w;
  f.plot_h = plot_h;
  f.width = f.x0 + kPlotWidth + kMargin + 20;
  for (const std::string& n : c.notes) f.width = std::max(f.width, kMargin + text_width(n, kFont) + kMargin);
  f.width = std::max(f.width, kMargin + text_width(c.title, 14) + kMargin);
  f.height = f.top + plot_h + below;
  return f;
}

void draw_head(SvgDoc& d, const GanttChart& c) {
  d.raw("<defs><pattern id=\"hatch\" patternUnits=\"userSpaceOnUse\" width=\"6\" height=\"6\" "
        "patternTransform=\"rotate(45)\"><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#000\" "
        "stroke-opacity=\"0.35\" stroke-width=\"2\"/></pattern></defs>\n");
  d.text(kMargin, kMargin + 14, c.title, 14, "start", "bold");
  for (std::size_t i = 0; i < c.notes.size(); ++i)
    d.text(kMargin, kMargin + 32 + 15 * static_cast<double>(i), c.notes[i], kFont, "start", "normal", "#444");
}

void draw_step_marks(SvgDoc& d, const StepFrame& f, std::size_t k, double x, double w, bool shared,
                     double& last_label_end) {
  const std::string num = std::to_string(k);
  if (x + w / 2 - text_width(num, 9) / 2 > last_label_end + 4 && w >= 1) {
    d.text(x + w / 2, f.top - 4, num, 9, "middle", "normal", "#666");
    last_label_end = x + w / 2 + std::max(text_width(num, 9) / 2, text_width("0000", 9) / 2);
  }
  if (!shared) return;
  d.rect(x, f.top, std::max(w, 0.5), f.plot_h, "url(#hatch)", "#000000", "shared",
         fmt::format("step {} is the shared step: its transfers run at once and contend", k), "stroke-width=\"0.8\"");
  const bool right = x + w / 2 > f.x0 + kPlotWidth / 2;
  d.text(right ? x + std::max(w, 0.5) : x, f.top - 18, "shared step", 9, right ? "end" : "start", "bold", "#000");
}

void draw_axis_and_marker(SvgDoc& d, const GanttChart& c, const StepFrame& f) {
  const double axis_y = f.top + f.plot_h, span = span_of(c);
  d.line(f.x0, axis_y, f.x0 + kPlotWidth, axis_y, "#333333");
  const double tick = tick_step(span, 8);
  for (int i = 0; i * tick <= span * (1 + 1e-9); ++i) {
    const double tx = f.x0 + i * tick * f.scale;
    d.line(tx, axis_y, tx, axis_y + 4, "#333333");
    d.text(tx, axis_y + 15, us_label(i * tick), 9, "middle");
  }
  d.text(f.x0 + kPlotWidth / 2, axis_y + 29, "time", kFont, "middle", "normal", "#444");
  if (c.marker_us <= 0) return;
  const double mx = f.x0 + c.marker_us * f.scale;
  d.line(mx, f.top - 30, mx, axis_y, "#000000", 1.5, "5,3", "marker");
  const bool right = mx > f.x0 + kPlotWidth / 2;
  const double w = text_width(c.marker_label, 10) + 8;
  d.rect(right ? mx - w - 3 : mx + 3, f.top - 31, w, 14, "#ffffff", "#000000", {}, {}, "stroke-width=\"0.6\"");
  d.text(right ? mx - 7 : mx + 7, f.top - 20.5, c.marker_label, 10, right ? "end" : "start", "bold", "#000");
}

}  // namespace vp::render::detail
