// vp-plan --svg: the plan's steps as a Gantt chart (plan_picture.hpp).
#include <fmt/format.h>

#include <algorithm>

#include "vp/render/plan_picture.hpp"

namespace vp::render {

GanttChart plan_chart(const vpcat::Plan& plan, double latency_us, const std::vector<std::string>& gpu_labels,
                      const std::function<RouteClass(const vpcat::PlanTransfer&)>& route_of,
                      const std::string& title) {
  GanttChart c;
  c.title = title;
  c.gpu_labels = gpu_labels;
  c.gpu_labels.resize(plan.gpus());
  for (std::size_t g = 0; g < c.gpu_labels.size(); ++g)
    if (c.gpu_labels[g].empty()) c.gpu_labels[g] = fmt::format("GPU{}", g);
  std::size_t shared = 0;
  for (std::size_t i = 0; i < plan.step_count(); ++i) {
    const vpcat::PlanStep& ps = plan.step(i);
    GanttStep s;
    s.us = ps.expected_us;
    s.shared = ps.shared != 0;
    shared += s.shared;
    // One bar per sending GPU: a channel step has one transfer per GPU; in
    // the shared step a GPU's transfers merge into one bar, coloured by its
    // most remote route class, as long as its longest.
    std::vector<std::size_t> bar_of(plan.gpus(), SIZE_MAX);
    std::vector<std::size_t> sends;
    std::vector<std::uint64_t> bytes;
    for (std::uint32_t k = 0; k < ps.count; ++k) {
      const vpcat::PlanTransfer& t = plan.step_transfers(i)[k];
      if (t.src >= plan.gpus()) continue;
      const double us = latency_us + (t.solo_gbps > 0 ? static_cast<double>(t.bytes) / (t.solo_gbps * 1e3) : 0.0);
      const RouteClass rc = route_of(t);
      std::size_t& b = bar_of[t.src];
      if (b == SIZE_MAX) {
        b = s.bars.size();
        s.bars.push_back(GanttBar{t.src, us, rc, {}});
        sends.push_back(0);
        bytes.push_back(0);
      }
      GanttBar& bar = s.bars[b];
      bar.us = std::max(bar.us, us);
      bar.route = std::max(bar.route, rc);
      ++sends[b];
      bytes[b] += t.bytes;
      if (sends[b] == 1)
        bar.tip = fmt::format("step {}: {} -> {}, {} B at {:g} GB/s, {:.1f} us", i, c.gpu_labels[t.src],
                              t.dst < c.gpu_labels.size() ? c.gpu_labels[t.dst] : std::to_string(t.dst), t.bytes,
                              t.solo_gbps, us);
    }
    for (std::size_t b = 0; b < s.bars.size(); ++b)
      if (sends[b] > 1)
        s.bars[b].tip = fmt::format("step {}: {} sends {} transfers, {} bytes; longest alone {:.1f} us", i,
                                    c.gpu_labels[s.bars[b].gpu], sends[b], bytes[b], s.bars[b].us);
    c.steps.push_back(std::move(s));
  }
  c.notes.push_back(fmt::format("{} GPUs, {} steps ({} shared), {} transfers, {} bytes; expected {:.1f} us", plan.gpus(),
                                plan.step_count(), shared, plan.transfer_count(), plan.total_bytes(),
                                plan.expected_us()));
  c.notes.push_back("step width = its expected time; bar = the GPU's transfer at its route's solo rate, plus latency");
  return c;
}

}  // namespace vp::render
