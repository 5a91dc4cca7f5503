/* The C half of the C API test: vpcat.h compiled as strict C99 (-pedantic
 * -Werror, see tests/CMakeLists.txt) and used from C the way a C stack does:
 * options from their default functions, a sparse demand, a plan walked step
 * by step, every handle destroyed. Called by tests/c_api_test.cpp, which
 * checks the result. */
#include <stdio.h>
#include <string.h>

#include "vpcat.h"

/* Returns 0 and writes a summary into `out`, or returns the failing status
 * and writes the message into `out`. */
int vpcat_c_api_test_from_c(const char* path, char* out, size_t out_size);

int vpcat_c_api_test_from_c(const char* path, char* out, size_t out_size) {
  vpcat_error err;
  vpcat_catalog* cat = NULL;
  vpcat_planner* planner = NULL;
  vpcat_plan* plan = NULL;
  vpcat_plan_options options = vpcat_plan_options_default();
  vpcat_verify_options verify = vpcat_verify_options_default();
  vpcat_demand_entry entries[3];
  vpcat_transfer step_transfers[256]; /* a step holds at most one transfer per payload: 16 x 15 */
  vpcat_step step;
  size_t steps = 0, i, count = 0;
  unsigned long long moved = 0;
  vpcat_status s;

  memset(&err, 0, sizeof err);
  verify.max_nodes = 64;
  s = vpcat_catalog_open_file(path, &verify, &cat, &err);
  if (s == VPCAT_OK) s = vpcat_planner_create(cat, &planner, &err);
  if (s == VPCAT_OK) s = vpcat_plan_create(&plan);
  if (s != VPCAT_OK) goto done;

  /* GPU 0 sends to 5 twice (the pairs add up) and 3 sends to 0. */
  entries[0].src = 0, entries[0].dst = 5, entries[0].bytes = 1000;
  entries[1].src = 3, entries[1].dst = 0, entries[1].bytes = 4096;
  entries[2].src = 0, entries[2].dst = 5, entries[2].bytes = 24;
  options.latency_us = 2.0;
  options.chunk_align_bytes = 8;
  s = vpcat_planner_plan_sparse(planner, entries, 3, 16, &options, plan, &err);
  if (s != VPCAT_OK) goto done;
  vpcat_plan_step_count(plan, &steps);
  for (i = 0; i < steps; ++i) {
    size_t k;
    vpcat_plan_step(plan, i, &step);
    s = vpcat_plan_step_transfers(plan, i, step_transfers, sizeof step_transfers / sizeof step_transfers[0], &count);
    if (s != VPCAT_OK) goto done;
    for (k = 0; k < count; ++k) moved += step_transfers[k].bytes;
  }
  snprintf(out, out_size, "%s %s: %lu steps, %llu bytes", vpcat_version_string(), vpcat_status_name(s),
           (unsigned long)steps, moved);

done:
  if (s != VPCAT_OK) snprintf(out, out_size, "%s", err.message[0] ? err.message : vpcat_status_message(s));
  vpcat_plan_destroy(plan);
  vpcat_planner_destroy(planner);
  vpcat_catalog_destroy(cat);
  return (int)s;
}
