// The data a Gantt-style picture draws: steps one after the other on a time
// axis, one row per GPU, a bar where a GPU sends in a step. vp-plan --svg
// (plan_svg) and vp-sim --svg (timeline_svg) fill it from a plan and from a
// simulated schedule.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vp/render/svg.hpp"

namespace vp::render {

struct GanttBar {
  std::uint32_t gpu = 0;      // row: the sending GPU's global index
  double us = 0.0;            // bar length from the step's start (<= the step's duration)
  RouteClass route = RouteClass::intra_switch;
  std::string tip;            // tooltip (input text allowed: escaped when drawn)
};

struct GanttStep {
  double us = 0.0;            // the step's duration
  bool shared = false;        // a shared step (transfers contend), marked
  std::vector<GanttBar> bars; // at most one per GPU (a picture merges a GPU's transfers)
};

struct GanttChart {
  std::string title;                 // first line (input text allowed)
  std::vector<std::string> notes;    // lines under the title
  std::vector<std::string> gpu_labels;  // one per row
  std::vector<GanttStep> steps;
  // An optional vertical marker (the lower bound in the timeline): drawn
  // when marker_us > 0, labelled marker_label.
  double marker_us = 0.0;
  std::string marker_label;
};

// Up to this many GPUs a chart has a row per GPU; past it, a row per group
// of GPUs (heatmap_svg): a row per GPU would be a barcode.
inline constexpr std::size_t kGanttMaxRows = 64;

// The chart as an SVG document: heatmap_svg(chart) past kGanttMaxRows GPUs.
// Classes for tests and styling: "gpu" (a row label box, one per GPU),
// "step" (a step column, one per step), "bar" (one per bar), "shared" (the
// mark of a shared step), "marker".
std::string gantt_svg(const GanttChart& chart);

// The chart as a per-step heatmap: a row per group of ceil(GPUs / 64)
// consecutive GPUs (at most 64 rows), steps as columns as wide as their time,
// each cell shaded by the share of the step its GPUs spend sending (the mean
// over the group of a bar's length over the step's), white for none. Classes:
// "gpu" (a row label box, one per group), "step", "cell" (one per step and
// group with a bar), "shared", "marker", "scale" (the colour scale's boxes).
std::string heatmap_svg(const GanttChart& chart);

}  // namespace vp::render
