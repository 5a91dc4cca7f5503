// vp-sim --svg: a simulated schedule's timeline (timeline_picture.hpp).
#include <fmt/format.h>

#include <algorithm>

#include "vp/render/timeline_picture.hpp"

namespace vp::render {

namespace {

// From the links the flow takes (a schedule's Route need not carry its
// type: VarioPath's routes come from the catalog's link lists): network when
// one is a network link, otherwise the path type between its endpoints.
RouteClass flow_class(const Topology& t, const sim::Flow& f) {
  for (LinkId l : f.route.links)
    if (l < t.links.size() && t.links[l].kind == LinkKind::network) return RouteClass::network;
  if (f.src >= t.components.size() || f.dst >= t.components.size()) return RouteClass::network;
  return route_class(path_type(t, f.src, f.dst));
}

}  // namespace

GanttChart timeline_chart(const Topology& t, const sim::Schedule& schedule, const sim::SimResult& result,
                          const sim::LowerBound& bound, const std::string& title) {
  GanttChart c;
  c.title = title;
  std::vector<std::int64_t> row(t.components.size(), -1);
  for (std::size_t g = 0; g < t.gpus.size(); ++g) {
    row[t.gpus[g]] = static_cast<std::int64_t>(g);
    c.gpu_labels.push_back(t.nodes.size() > 1 ? t.display_name(t.gpus[g]) : fmt::format("GPU{}", g));
  }
  std::size_t flows = 0;
  for (std::size_t i = 0; i < schedule.steps.size(); ++i) {
    const sim::Step& st = schedule.steps[i];
    GanttStep s;
    s.us = i < result.step_us.size() ? result.step_us[i] : 0.0;
    std::vector<std::size_t> bar_of(t.gpus.size(), SIZE_MAX), count;
    std::vector<double> bytes;
    for (const sim::Flow& f : st.flows) {
      ++flows;
      if (f.src >= row.size() || row[f.src] < 0) continue;
      const auto g = static_cast<std::size_t>(row[f.src]);
      const RouteClass rc = flow_class(t, f);
      if (bar_of[g] == SIZE_MAX) {
        bar_of[g] = s.bars.size();
        s.bars.push_back(GanttBar{static_cast<std::uint32_t>(g), s.us, rc, {}});
        count.push_back(0);
        bytes.push_back(0);
      }
      GanttBar& b = s.bars[bar_of[g]];
      b.route = std::max(b.route, rc);
      ++count[bar_of[g]];
      bytes[bar_of[g]] += f.bytes;
    }
    for (std::size_t b = 0; b < s.bars.size(); ++b)
      s.bars[b].tip = fmt::format("step {}: {} sends {} flow{}, {:.0f} bytes; step {:.1f} us", i,
                                  c.gpu_labels[s.bars[b].gpu], count[b], count[b] == 1 ? "" : "s", bytes[b], s.us);
    c.steps.push_back(std::move(s));
  }
  c.notes.push_back(fmt::format("simulated {:.1f} us in {} steps, {} flows; lower bound {:.1f} us (time / bound {:.3f})",
                                result.time_us, schedule.steps.size(), flows, bound.time_us,
                                bound.time_us > 0 ? result.time_us / bound.time_us : 0.0));
  if (!bound.cut.name.empty())
    c.notes.push_back(fmt::format("binding cut: {}: {:.0f} bytes over {:g} GB/s = {:.1f} us, plus one latency",
                                  bound.cut.name, bound.cut.bytes, bound.cut.gbps, bound.cut.time_us));
  c.notes.push_back("step width = its simulated time; a bar marks a GPU sending in the step (times are per step)");
  double spans = 0.0;
  for (double us : result.step_us) spans += us;
  if (spans > result.time_us * (1.0 + 1e-9))
    c.notes.push_back(fmt::format("steps overlap (each rank moves on when its own transfers are done): widths are "
                                  "each step's span, {:.1f} us in all against {:.1f} us simulated; "
                                  "vp-sim --sync barrier draws them end to end",
                                  spans, result.time_us));
  c.marker_us = bound.time_us;
  c.marker_label = bound.cut.name.empty() ? std::string("lower bound") : "lower bound: " + bound.cut.name;
  return c;
}

}  // namespace vp::render
