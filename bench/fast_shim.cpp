// A C entry point to FAST's CPU scheduler (MangoBoost/FAST, amd/src), for
// bench/speed_bench.cpp. This file holds none of FAST's code: it includes
// FAST's header and calls its scheduler the way FAST's flash.cpp does (one
// GlobalScheduler kept; the first call init_global_scheduler +
// run_scheduler, every later call update_global_scheduler + run_scheduler).
//
// It is not built by CMake: scripts/build_fast_shim.sh compiles it with a
// FAST source folder into one shared library per server count (FAST's limits
// are compile-time), outside the source tree. FAST's licence is academic:
// nothing of FAST is committed here.
#include <cstdint>

#include <fast_alltoall/alltoall_global_scheduler.h>

extern "C" {

// The server count FAST was compiled for (MAX_SERVER_NUM).
unsigned vp_fast_max_servers() { return MAX_SERVER_NUM; }

// A scheduler for `servers` x `gpus_per_server` GPUs, initialised with and
// run on `demand` (row-major, source rank first, in FAST's unit), as
// flash.cpp's first schedule() call. nullptr beyond the compiled limits.
void* vp_fast_create(unsigned servers, unsigned gpus_per_server, std::uint64_t* demand) {
  if (servers < 2 || servers > MAX_SERVER_NUM || gpus_per_server != GPU_NUM_PER_SERVER) return nullptr;
  GlobalScheduler* gs = new GlobalScheduler;
  init_global_scheduler(gs, servers, gpus_per_server, demand, 0);
  run_scheduler(gs);
  return gs;
}

// A later call of flash.cpp's schedule(): the kept scheduler updated with
// `demand` and run again. Returns FAST's step count.
unsigned vp_fast_schedule(void* scheduler, std::uint64_t* demand) {
  GlobalScheduler* gs = static_cast<GlobalScheduler*>(scheduler);
  update_global_scheduler(gs, demand);
  run_scheduler(gs);
  return gs->sched->step_n;
}

unsigned vp_fast_steps(void* scheduler) { return static_cast<GlobalScheduler*>(scheduler)->sched->step_n; }

void vp_fast_destroy(void* scheduler) {
  GlobalScheduler* gs = static_cast<GlobalScheduler*>(scheduler);
  free_global_scheduler(gs);
  delete gs;
}

}  // extern "C"
