// A step picture past kGanttMaxRows GPUs (gantt.hpp): a row per group of
// consecutive GPUs, a column per step, each cell shaded by how busy the
// group is in the step.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "step_axis.hpp"
#include "vp/render/gantt.hpp"

namespace vp::render {

using detail::kFont;
using detail::kMargin;
using detail::kPlotWidth;

namespace {

constexpr double kRow = 12;

// The shade of a busy share in [0, 1]: from a pale to a dark blue (ColorBrewer
// Blues' ends), linearly in RGB.
std::string shade(double share) {
  static constexpr std::array<int, 3> kLow{0xde, 0xeb, 0xf7}, kHigh{0x08, 0x30, 0x6b};
  const double t = std::clamp(share, 0.0, 1.0);
  auto mix = [&](int i) { return static_cast<int>(std::lround(kLow[i] + (kHigh[i] - kLow[i]) * t)); };
  return fmt::format("#{:02x}{:02x}{:02x}", mix(0), mix(1), mix(2));
}

}  // namespace

std::string heatmap_svg(const GanttChart& c) {
  const std::size_t gpus = c.gpu_labels.size();
  const std::size_t per_row = std::max<std::size_t>(1, (gpus + kGanttMaxRows - 1) / kGanttMaxRows);
  const std::size_t rows = (gpus + per_row - 1) / per_row;
  auto first_of = [&](std::size_t r) { return r * per_row; };
  auto end_of = [&](std::size_t r) { return std::min(gpus, (r + 1) * per_row); };
  std::vector<std::string> labels(rows);
  double label_w = 40;
  for (std::size_t r = 0; r < rows; ++r) {
    labels[r] = end_of(r) - first_of(r) == 1
                    ? c.gpu_labels[first_of(r)]
                    : fmt::format("{} \xE2\x80\x93 {}", c.gpu_labels[first_of(r)], c.gpu_labels[end_of(r) - 1]);
    label_w = std::max(label_w, text_width(labels[r], kFont) + 16);
  }
  label_w = std::min(label_w, 220.0);
  const detail::StepFrame f = detail::step_frame(c, label_w, kRow * static_cast<double>(rows), 96);
  const double legend_y = f.top + f.plot_h + 40;

  SvgDoc d(f.width, f.height, c.title);
  detail::draw_head(d, c);
  double x = f.x0, last_label_end = -1e9;
  std::vector<double> busy(rows);
  std::vector<std::size_t> senders(rows);
  for (std::size_t k = 0; k < c.steps.size(); ++k) {
    const GanttStep& s = c.steps[k];
    const double w = s.us * f.scale;
    d.rect(x, f.top, std::max(w, 0.0), f.plot_h, "#ffffff", "none", "step",
           fmt::format("step {}: {:.1f} us{}, {} sending GPUs", k, s.us, s.shared ? " (shared)" : "", s.bars.size()));
    std::fill(busy.begin(), busy.end(), 0.0);
    std::fill(senders.begin(), senders.end(), 0);
    for (const GanttBar& b : s.bars) {
      if (b.gpu >= gpus) continue;
      busy[b.gpu / per_row] += s.us > 0 ? std::min(b.us, s.us) / s.us : 1.0;
      ++senders[b.gpu / per_row];
    }
    for (std::size_t r = 0; r < rows; ++r) {
      if (senders[r] == 0) continue;
      const double share = busy[r] / static_cast<double>(end_of(r) - first_of(r));
      d.rect(x, f.top + kRow * static_cast<double>(r), std::max(w, 0.5), kRow, shade(share), "none", "cell",
             fmt::format("step {}: {} of {} GPUs of {} send, busy {:.0f}% of the step", k, senders[r],
                         end_of(r) - first_of(r), labels[r], 100 * share));
    }
    detail::draw_step_marks(d, f, k, x, w, s.shared, last_label_end);
    x += w;
  }
  for (std::size_t r = 0; r < rows; ++r) {
    const double y = f.top + kRow * static_cast<double>(r);
    d.rect(kMargin, y + 1, label_w - 8, kRow - 2, "#ffffff", "#bbbbbb", "gpu");
    d.text(kMargin + label_w - 12, y + kRow - 3, fit_text(labels[r], 9, label_w - 16), 9, "end");
  }
  detail::draw_axis_and_marker(d, c, f);

  // Legend: the colour scale, then the shared step's hatch.
  d.text(kMargin, legend_y + 9, "share of the step a row's GPUs send:", 10);
  double lx = kMargin + text_width("share of the step a row's GPUs send:", 10) + 8;
  for (int i = 0; i <= 4; ++i) {
    const double share = i / 4.0;
    d.rect(lx, legend_y, 14, 10, shade(share), "#555555", "scale");
    d.text(lx + 18, legend_y + 9, fmt::format("{:.0f}%", 100 * share), 10);
    lx += 18 + text_width("100%", 10) + 10;
  }
  d.rect(lx + 6, legend_y, 14, 10, "url(#hatch)", "#000000");
  d.text(lx + 24, legend_y + 9, "shared step (contending)", 10);
  d.text(kMargin, legend_y + 26,
         fmt::format("rows: {} consecutive GPUs each (white: none sends); columns: steps in order (number above); "
                     "a cell's tooltip has its figures",
                     per_row),
         10, "start", "normal", "#555");
  return d.finish();
}

}  // namespace vp::render
