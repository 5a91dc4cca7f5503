#include "report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "vp/base/errors.hpp"

namespace vp::sim_cli {

namespace {

using nlohmann::ordered_json;

// Whether time / bound is a ratio: not for a bound of 0 or an infinite
// one (some bytes have no path).
bool has_ratio(double bound_us) { return bound_us > 0 && std::isfinite(bound_us); }

// time / bound; null when it is no ratio.
ordered_json ratio(double bound_us, double time_us) {
  return has_ratio(bound_us) ? ordered_json(time_us / bound_us) : ordered_json(nullptr);
}

ordered_json cut_json(const sim::Cut& c) {
  ordered_json j;
  j["name"] = c.name;
  j["bytes"] = c.bytes;
  j["gbps"] = c.gbps;
  j["time_us"] = c.time_us;
  return j;
}

// The flow bound's detail (the program's fractional cut and size).
ordered_json flow_json(const sim::FlowBound& f) {
  ordered_json j;
  ordered_json binding = ordered_json::array();
  for (const sim::FlowBoundShare& s : f.binding) binding.push_back(ordered_json{{"resource", s.resource}, {"share", s.share}});
  j["binding"] = binding;
  j["variables"] = f.variables;
  j["constraints"] = f.constraints;
  return j;
}

// flow_bound_us < 0: not computed.
ordered_json result_json(const SchedulerResult& r, double bound_us, double route_bound_us, double flow_bound_us) {
  ordered_json j;
  j["time_us"] = r.time_us;
  j["exchange_us"] = r.exchange_us;
  j["planning_us"] = r.planning_us;
  j["transfer_us"] = r.transfer_us;
  j["ratio_to_bound"] = ratio(bound_us, r.time_us);
  if (direct_route_scheduler(r.name)) j["ratio_to_route_bound"] = ratio(route_bound_us, r.time_us);
  if (flow_bound_us >= 0) j["ratio_to_flow_bound"] = ratio(flow_bound_us, r.time_us);
  if (r.aggregate_gbps > 0) j["aggregate_gbps"] = r.aggregate_gbps, j["receiver_sum_gbps"] = r.receiver_sum_gbps;
  j["planning_measured_us"] = r.planning_measured_us;
  j["steps"] = r.steps;
  j["flows"] = r.flows;
  if (r.unsettled_events > 0) j["unsettled_events"] = r.unsettled_events;
  if (r.shared_bytes > 0) j["shared_bytes"] = r.shared_bytes;
  if (!r.hypothetical.empty()) j["hypothetical"] = r.hypothetical;
  return j;
}

// A scheduler's name in a table: marked * when it is hypothetical.
std::string shown_name(const SchedulerResult& r) { return r.hypothetical.empty() ? r.name : r.name + "*"; }

// The footnote of the * marks: one line per hypothetical baseline.
std::string hypothetical_text(const std::vector<SchedulerResult>& results) {
  std::string s;
  for (const SchedulerResult& r : results)
    if (!r.hypothetical.empty()) s += fmt::format("* {} is hypothetical here: {}\n", r.name, r.hypothetical);
  return s;
}

ordered_json case_json(const CaseResult& c) {
  ordered_json j;
  j["total_bytes"] = c.total_bytes;
  j["lower_bound_us"] = c.bound.time_us;
  j["bound_cut"] = cut_json(c.bound.cut);
  j["route_bound_us"] = c.route_bound.time_us;
  j["route_bound_resource"] = cut_json(c.route_bound.cut);
  if (c.flow_bound) j["flow_bound_us"] = c.flow_bound->time_us, j["flow_bound"] = flow_json(*c.flow_bound);
  const double flow_us = c.flow_bound ? c.flow_bound->time_us : -1.0;
  ordered_json results = ordered_json::object();
  for (const SchedulerResult& r : c.results)
    results[r.name] = result_json(r, c.bound.time_us, c.route_bound.time_us, flow_us);
  j["results"] = results;
  return j;
}

// A sequence summarised per scheduler.
struct Summary {
  std::string name;
  double time_us = 0, exchange_us = 0, planning_us = 0, transfer_us = 0, planning_measured_us = 0, mean_ratio = 0, worst_ratio = 0, shared_bytes = 0;
  std::size_t worst_call = 0, steps = 0, flows = 0, unsettled_events = 0;
};

std::vector<Summary> summarise(const std::vector<CaseResult>& calls, double& bound_us, std::size_t& bound_call) {
  bound_us = 0;
  bound_call = 0;
  for (std::size_t c = 0; c < calls.size(); ++c) {
    bound_us += calls[c].bound.time_us;
    if (calls[c].bound.time_us > calls[bound_call].bound.time_us) bound_call = c;
  }
  std::vector<Summary> out;
  for (std::size_t k = 0; k < calls.front().results.size(); ++k) {
    Summary s;
    s.name = calls.front().results[k].name;
    std::size_t rated = 0;
    for (std::size_t c = 0; c < calls.size(); ++c) {
      const SchedulerResult& r = calls[c].results[k];
      s.time_us += r.time_us;
      s.exchange_us += r.exchange_us;
      s.planning_us += r.planning_us;
      s.transfer_us += r.transfer_us;
      s.planning_measured_us += r.planning_measured_us / static_cast<double>(calls.size());
      s.steps += r.steps;
      s.flows += r.flows;
      s.unsettled_events += r.unsettled_events;
      s.shared_bytes += r.shared_bytes;
      if (calls[c].bound.time_us > 0) {
        s.mean_ratio += r.ratio_to_bound;
        ++rated;
        if (r.ratio_to_bound > s.worst_ratio) s.worst_ratio = r.ratio_to_bound, s.worst_call = c;
      }
    }
    if (rated) s.mean_ratio /= static_cast<double>(rated);
    out.push_back(s);
  }
  return out;
}

// The route bounds of a sequence summed; `call` gets the largest one's call.
double route_bound_sum(const std::vector<CaseResult>& calls, std::size_t& call) {
  double sum = 0;
  call = 0;
  for (std::size_t c = 0; c < calls.size(); ++c) {
    sum += calls[c].route_bound.time_us;
    if (calls[c].route_bound.time_us > calls[call].route_bound.time_us) call = c;
  }
  return sum;
}

// The flow bounds of a sequence summed; -1 when they were not computed.
double flow_bound_sum(const std::vector<CaseResult>& calls) {
  double sum = 0;
  for (const CaseResult& c : calls) {
    if (!c.flow_bound) return -1.0;
    sum += c.flow_bound->time_us;
  }
  return sum;
}

ordered_json header(const RunInfo& info, std::size_t calls) {
  ordered_json j;
  j["tool"] = "vp-sim";
  j["catalog"] = vp::printable(info.catalog);
  if (!info.demand_file.empty()) j["demand"] = vp::printable(info.demand_file);
  else j["workload"] = info.workload;
  j["gpus"] = info.gpus;
  j["nodes"] = info.nodes;
  if (!info.gpu_map.empty()) j["gpu_map"] = info.gpu_map;
  j["latency_us"] = info.latency_us;
  j["planning"] = info.planning.text();
  j["completion_epsilon"] = info.completion_epsilon;
  j["model"] = info.model;
  j["sync"] = info.sync;
  if (info.eager != "off") {
    j["eager"] = info.eager;
    j["eager_bytes"] = info.eager_bytes;
  }
  if (info.model == "contention") {
    const sim::ContentionModel& m = info.contention;
    auto curve = [](const sim::EfficiencyCurve& c) {
      ordered_json k;
      k["on"] = c.on;
      k["slope"] = c.slope;
      k["floor"] = c.floor;
      return k;
    };
    ordered_json c;
    c["file"] = vp::printable(info.contention_file);
    c["forwarder"] = curve(m.forwarder);
    if (!m.forwarder_families.empty()) {
      ordered_json families = ordered_json::array();
      for (const sim::FamilyCurve& f : m.forwarder_families)
        families.push_back(ordered_json{{"match", f.match}, {"slope", f.slope}, {"floor", f.floor}});
      c["forwarder"]["families"] = families;
    }
    c["nic"] = curve(m.nic);
    c["endpoint"] = curve(m.endpoint);
    c["transfers"] = m.reads ? "read" : "write";
    c["chunk"] = ordered_json{{"on", m.chunk_on}, {"bytes", m.chunk_bytes}, {"overhead_us", m.chunk_overhead_us}};
    c["port_arbitration"] = ordered_json{{"on", m.port_arbitration}};
    j["contention"] = c;
  }
  j["calls"] = calls;
  if (info.has_first_call) j["first_call"] = info.first_call;
  return j;
}

std::string ratio_text(double bound_us, double time_us) {
  return has_ratio(bound_us) ? fmt::format("{:.3f}", time_us / bound_us) : "-";
}

std::string cut_text(const sim::Cut& c) {
  if (c.name.empty()) return "no byte moves";
  return fmt::format("{}: {:.0f} bytes over {:g} GB/s", c.name, c.bytes, c.gbps);
}

// time / route bound for the schedulers it holds for, "" for the others.
std::string route_ratio_text(const std::string& name, double route_bound_us, double time_us) {
  return direct_route_scheduler(name) ? ratio_text(route_bound_us, time_us) : "";
}

// The flow bound's line: its time, the cut bound's share of it, and the
// program's fractional cut (its three largest shares).
std::string flow_text(double cut_bound_us, const sim::FlowBound& f) {
  std::string binding;
  for (std::size_t i = 0; i < f.binding.size() && i < 3; ++i)
    binding += fmt::format("{}{} {:.0f}%", i ? ", " : "", f.binding[i].resource, 100 * f.binding[i].share);
  return fmt::format("flow bound {:.1f} us (linear program over every route; lower bound / flow bound {}{})\n",
                     f.time_us, ratio_text(f.time_us, cut_bound_us), binding.empty() ? "" : "; binding: " + binding);
}

// The run's first lines: the catalog, the demand (`sized`: how a sweep
// scales it), the model and its table, and the subset.
std::string run_text(const RunInfo& info, const std::string& sized) {
  std::string s = fmt::format("{}: {} GPUs, {} nodes; {}{}; latency {:g} us; planning {}; model {}{}; sync {}\n",
                              info.catalog, info.gpus, info.nodes,
                              info.demand_file.empty() ? "workload " + info.workload : "demand " + info.demand_file,
                              sized, info.latency_us,
                              info.planning.measured ? std::string("measured")
                                                     : fmt::format("budget {:g} us", info.planning.budget_us),
                              info.model,
                              info.model == "contention" ? " (" + info.contention_file + ")" : std::string(), info.sync);
  if (info.eager != "off") {
    s.pop_back();
    s += fmt::format(", eager sends {} below {:g} bytes\n", info.eager, info.eager_bytes);
  }
  if (!info.gpu_map.empty())
    s += fmt::format("subset: catalog GPUs {} (the rest of the cluster idle)\n", info.gpu_list);
  return s;
}

// Under every table of times.
constexpr const char* kTotalIs =
    "total = counts exchange + planning + transfer (simulated schedule); ratios and bandwidths are of the total\n";

// (no scheduler named before the table: its rows come in the order asked)
constexpr const char* kRouteBoundFor = "direct default routes: the schedulers with a /route figure only";

}  // namespace

std::string report_json(const RunInfo& info, const std::vector<CaseResult>& calls) {
  ordered_json j = header(info, calls.size());
  // The baselines a job's view could not run (the same in every call).
  if (!calls.empty() && !calls.front().skipped.empty()) {
    ordered_json skipped = ordered_json::object();
    for (const auto& [name, why] : calls.front().skipped) skipped[name] = why;
    j["skipped"] = skipped;
  }
  if (calls.size() == 1) {
    const ordered_json one = case_json(calls.front());
    for (const auto& [key, value] : one.items()) j[key] = value;
    return j.dump(2) + "\n";
  }
  double bound_us = 0;
  std::size_t bound_call = 0;
  const std::vector<Summary> sums = summarise(calls, bound_us, bound_call);
  double total = 0;
  for (const CaseResult& c : calls) total += c.total_bytes;
  j["total_bytes"] = total;
  j["lower_bound_us"] = bound_us;
  ordered_json cut = cut_json(calls[bound_call].bound.cut);
  cut["call"] = info.first_call + bound_call;
  j["bound_cut"] = cut;
  std::size_t route_call = 0;
  const double route_us = route_bound_sum(calls, route_call);
  j["route_bound_us"] = route_us;
  ordered_json resource = cut_json(calls[route_call].route_bound.cut);
  resource["call"] = info.first_call + route_call;
  j["route_bound_resource"] = resource;
  const double flow_us = flow_bound_sum(calls);
  if (flow_us >= 0) j["flow_bound_us"] = flow_us;
  ordered_json results = ordered_json::object();
  for (std::size_t k = 0; k < sums.size(); ++k) {
    const Summary& s = sums[k];
    ordered_json r;
    r["time_us"] = s.time_us;
    r["exchange_us"] = s.exchange_us;
    r["planning_us"] = s.planning_us;
    r["transfer_us"] = s.transfer_us;
    r["ratio_to_bound"] = ratio(bound_us, s.time_us);
    if (direct_route_scheduler(s.name)) r["ratio_to_route_bound"] = ratio(route_us, s.time_us);
    if (flow_us >= 0) r["ratio_to_flow_bound"] = ratio(flow_us, s.time_us);
    r["planning_measured_us"] = s.planning_measured_us;
    r["steps"] = s.steps;
    r["flows"] = s.flows;
    if (s.unsettled_events > 0) r["unsettled_events"] = s.unsettled_events;
    if (s.shared_bytes > 0) r["shared_bytes"] = s.shared_bytes;
    r["mean_ratio_to_bound"] = s.mean_ratio;
    r["worst_ratio_to_bound"] = s.worst_ratio;
    r["worst_call"] = info.first_call + s.worst_call;
    if (const std::string& why = calls.front().results[k].hypothetical; !why.empty()) r["hypothetical"] = why;
    results[s.name] = r;
  }
  j["results"] = results;
  ordered_json list = ordered_json::array();
  for (const CaseResult& c : calls) list.push_back(case_json(c));
  j["per_call"] = list;
  return j.dump(2) + "\n";
}

std::string report_text(const RunInfo& info, const std::vector<CaseResult>& calls) {
  std::string s = run_text(info, "");
  if (calls.size() == 1) {
    const CaseResult& c = calls.front();
    s += fmt::format("{:.0f} bytes; lower bound {:.1f} us ({})\n", c.total_bytes, c.bound.time_us,
                     cut_text(c.bound.cut));
    s += fmt::format("route bound {:.1f} us ({}; {})\n", c.route_bound.time_us, cut_text(c.route_bound.cut),
                     kRouteBoundFor);
    if (c.flow_bound) s += flow_text(c.bound.time_us, *c.flow_bound);
    s += "\n";
    s += fmt::format("{:<20} {:>14} {:>9} {:>9} {:>12} {:>12} {:>14} {:>8} {:>9}\n", "scheduler", "total_us",
                     "/bound", "/route", "exchange_us", "planning_us", "transfer_us", "steps", "flows");
    for (const SchedulerResult& r : c.results)
      s += fmt::format("{:<20} {:>14.1f} {:>9} {:>9} {:>12.1f} {:>12.1f} {:>14.1f} {:>8} {:>9}\n", shown_name(r),
                       r.time_us, ratio_text(c.bound.time_us, r.time_us),
                       route_ratio_text(r.name, c.route_bound.time_us, r.time_us), r.exchange_us, r.planning_us,
                       r.transfer_us, r.steps, r.flows);
    s += kTotalIs;
    return s + hypothetical_text(c.results);
  }
  double bound_us = 0;
  std::size_t bound_call = 0;
  const std::vector<Summary> sums = summarise(calls, bound_us, bound_call);
  std::size_t route_call = 0;
  const double route_us = route_bound_sum(calls, route_call);
  const std::size_t at = info.first_call;
  s += fmt::format("{} calls{}; lower bounds sum to {:.1f} us (largest: call {}, {})\n", calls.size(),
                   info.has_first_call ? fmt::format(" ({} to {})", at, at + calls.size() - 1) : std::string(),
                   bound_us, at + bound_call, cut_text(calls[bound_call].bound.cut));
  s += fmt::format("route bounds sum to {:.1f} us (largest: call {}, {}; {})\n", route_us, at + route_call,
                   cut_text(calls[route_call].route_bound.cut), kRouteBoundFor);
  if (const double flow_us = flow_bound_sum(calls); flow_us >= 0)
    s += fmt::format("flow bounds sum to {:.1f} us (linear program over every route; lower bound / flow bound {})\n",
                     flow_us, ratio_text(flow_us, bound_us));
  s += "\n";
  s += fmt::format("{:<20} {:>14} {:>9} {:>9} {:>11} {:>12} {:>12} {:>12} {:>14}\n", "scheduler", "total_us",
                   "/bound", "/route", "mean/bound", "worst/bound", "exchange_us", "planning_us", "transfer_us");
  for (std::size_t k = 0; k < sums.size(); ++k) {
    const Summary& r = sums[k];
    s += fmt::format("{:<20} {:>14.1f} {:>9} {:>9} {:>11.3f} {:>12} {:>12.1f} {:>12.1f} {:>14.1f}\n",
                     shown_name(calls.front().results[k]), r.time_us, ratio_text(bound_us, r.time_us),
                     route_ratio_text(r.name, route_us, r.time_us), r.mean_ratio,
                     fmt::format("{:.3f} (#{})", r.worst_ratio, at + r.worst_call), r.exchange_us, r.planning_us,
                     r.transfer_us);
  }
  s += kTotalIs;
  return s + hypothetical_text(calls.front().results);
}

std::string report_sizes_json(const RunInfo& info, const SizeSweep& sweep, const std::vector<SizeResult>& rows) {
  ordered_json j = header(info, 1);
  if (!rows.empty() && !rows.front().result.skipped.empty()) {
    ordered_json skipped = ordered_json::object();
    for (const auto& [name, why] : rows.front().result.skipped) skipped[name] = why;
    j["skipped"] = skipped;
  }
  j["sizes"] = ordered_json{{"min", sweep.min}, {"max", sweep.max}, {"factor", sweep.factor}};
  ordered_json list = ordered_json::array();
  for (const SizeResult& row : rows) {
    ordered_json one;
    one["size"] = row.size.size;
    one["count"] = row.size.count;
    const ordered_json judged = case_json(row.result);
    for (const auto& [key, value] : judged.items()) one[key] = value;
    for (const SchedulerResult& r : row.result.results) {
      const NcclBandwidth bw = nccl_alltoall_bw(row.size.size, r.time_us, info.gpus);
      one["results"][r.name]["algbw_gbps"] = bw.algbw_gbps;
      one["results"][r.name]["busbw_gbps"] = bw.busbw_gbps;
    }
    list.push_back(one);
  }
  j["per_size"] = list;
  return j.dump(2) + "\n";
}

std::string report_sizes_text(const RunInfo& info, const SizeSweep& sweep, const std::vector<SizeResult>& rows) {
  std::string s = run_text(info, fmt::format(", its shape scaled to sizes {} to {} (x{})", sweep.min, sweep.max, sweep.factor));
  s += "nccl-tests alltoall figures: size = bytes per rank, count = floats per peer; algbw = size / time, "
       "busbw = algbw * (n-1)/n (GB/s); /bound = time / lower bound; time = counts exchange + planning + transfer\n\n";
  if (rows.empty()) return s;
  const std::vector<SchedulerResult>& first = rows.front().result.results;
  std::string names = fmt::format("#{:>11} {:>12} {:>10}", "", "", "lower");
  std::string heads = fmt::format("#{:>11} {:>12} {:>10}", "size", "count", "bound");
  std::string units = fmt::format("#{:>11} {:>12} {:>10}", "(B)", "(elements)", "(us)");
  for (const SchedulerResult& r : first) {
    names += fmt::format(" {:^36}", shown_name(r));
    heads += fmt::format(" {:>10} {:>8} {:>8} {:>7}", "time", "algbw", "busbw", "/bound");
    units += fmt::format(" {:>10} {:>8} {:>8} {:>7}", "(us)", "(GB/s)", "(GB/s)", "");
  }
  for (std::string* line : {&names, &heads, &units})
    s += line->erase(line->find_last_not_of(' ') + 1) + "\n";
  for (const SizeResult& row : rows) {
    const CaseResult& c = row.result;
    s += fmt::format("{:>12} {:>12} {:>10.1f}", row.size.size, row.size.count, c.bound.time_us);
    for (const SchedulerResult& r : c.results) {
      const NcclBandwidth bw = nccl_alltoall_bw(row.size.size, r.time_us, info.gpus);
      s += fmt::format(" {:>10.1f} {:>8.2f} {:>8.2f} {:>7}", r.time_us, bw.algbw_gbps, bw.busbw_gbps,
                       ratio_text(c.bound.time_us, r.time_us));
    }
    s += "\n";
  }
  return s + hypothetical_text(first);
}

}  // namespace vp::sim_cli
