#include "plan_json.hpp"

#include <fmt/format.h>

#include <iterator>
#include <vector>

namespace vp::plan_cli {

namespace {

// `text` as a JSON string literal.
std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') out += '\\', out += c;
    else if (u < 0x20) out += fmt::format("\\u{:04x}", u);
    else out += c;
  }
  return out + "\"";
}

}  // namespace

std::string plan_json(const vpcat::Planner& planner, const vpcat::Plan& plan, const PlanReport& report) {
  std::string out;
  out.reserve(256 + plan.transfer_count() * 160);
  auto it = std::back_inserter(out);
  const vpcat::PlanOptions& o = report.options;
  fmt::format_to(it,
                 "{{\n  \"format\": \"vp-plan\",\n  \"version\": 2,\n  \"gpus\": {},\n  \"planning_us\": {:.3f},\n"
                 "  \"expected_us\": {:.3f},\n  \"total_bytes\": {},\n  \"options\": {{\"latency_us\": {}, "
                 "\"min_step_latencies\": {}, \"min_chunk_bytes\": {}, \"chunk_align_bytes\": {}, \"max_steps\": {}, "
                 "\"channels_only\": {}, \"allow_shared\": {}, \"replay\": {}, \"nic_loopback\": {}, "
                 "\"machine_model\": {}}},\n",
                 plan.gpus(), report.planning_us, plan.expected_us(), plan.total_bytes(), o.latency_us,
                 o.min_step_latencies, o.min_chunk_bytes, o.chunk_align_bytes, o.max_steps, o.channels_only,
                 o.allow_shared, o.replay, o.nic_loopback, json_string(report.machine_model));
  if (report.gpu_map) {
    out += "  \"gpu_map\": [";
    for (std::uint32_t r = 0; r < planner.gpu_count(); ++r) fmt::format_to(it, "{}{}", r ? ", " : "", planner.catalog_gpu(r));
    out += "],\n";
  }
  out += "  \"steps\": [";
  std::vector<std::uint64_t> links(planner.max_route_links());
  for (std::size_t i = 0; i < plan.step_count(); ++i) {
    const vpcat::PlanStep& step = plan.step(i);
    fmt::format_to(it, "{}\n    {{\"expected_us\": {:.3f}, \"ports\": {}, \"shared\": {}, \"transfers\": [",
                   i ? "," : "", step.expected_us, step.ports, step.shared != 0);
    for (std::uint32_t k = 0; k < step.count; ++k) {
      const vpcat::PlanTransfer& t = plan.step_transfers(i)[k];
      fmt::format_to(it, "{}\n      {{\"src\": {}, \"dst\": {}, \"bytes\": {}, \"origin\": {}, \"final\": {}, \"solo_gbps\": {}, ",
                     k ? "," : "", t.src, t.dst, t.bytes, t.origin, t.final, t.solo_gbps);
      if (t.src_nic == vpcat::kNoNic) out += "\"src_nic\": null, \"dst_nic\": null, ";
      else fmt::format_to(it, "\"src_nic\": {}, \"dst_nic\": {}, ", t.src_nic, t.dst_nic);
      const std::uint32_t n = planner.route_links(t, links.data(), static_cast<std::uint32_t>(links.size()));
      out += "\"route\": [";
      for (std::uint32_t l = 0; l < n && l < links.size(); ++l) fmt::format_to(it, "{}{}", l ? ", " : "", links[l]);
      out += "]}";
    }
    out += step.count ? "\n    ]}" : "]}";
  }
  out += plan.step_count() ? "\n  ]\n}\n" : "]\n}\n";
  return out;
}

}  // namespace vp::plan_cli
