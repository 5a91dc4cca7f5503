// What the two step pictures (gantt.cpp: a row per GPU; heatmap.cpp: a row
// per group of GPUs) share: the title and notes, the step numbers, the
// shared step's hatch, the time axis and the marker. Private to render/.
#pragma once

#include <string>

#include "vp/render/gantt.hpp"

namespace vp::render::detail {

constexpr double kPlotWidth = 900, kMargin = 14, kFont = 11;

// Where a step picture's plot sits and how its time maps to x.
struct StepFrame {
  double x0 = 0;     // the plot's left edge (after the label column)
  double top = 0;    // the plot's top (below the step numbers)
  double plot_h = 0;
  double scale = 1;  // px per microsecond
  double width = 0, height = 0;
};

// The frame of `c` with a label column `label_w` wide, `plot_h` tall, and
// `below` px under the axis (legend).
StepFrame step_frame(const GanttChart& c, double label_w, double plot_h, double below);

// The hatch pattern, the title and the notes.
void draw_head(SvgDoc& d, const GanttChart& c);

// Step k's number above its column (when there is room after the last one
// written) and, for a shared step, its hatch and label. `last_label_end`
// carries across steps.
void draw_step_marks(SvgDoc& d, const StepFrame& f, std::size_t k, double x, double w, bool shared,
                     double& last_label_end);

// The time axis under the plot and the chart's marker.
void draw_axis_and_marker(SvgDoc& d, const GanttChart& c, const StepFrame& f);

}  // namespace vp::render::detail
