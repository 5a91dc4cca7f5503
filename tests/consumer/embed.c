/* The README's C embedding example, compiled and run by the consumer tests
 * (tests/consumer/) as C99 against the installed package, add_subdirectory
 * and pkg-config; the readme_examples test checks that README.md shows the
 * lines between the markers verbatim.
 *
 * Usage: embed_c CATALOG.vpcat. Plans a uniform AlltoAllv (1 MiB per pair),
 * checks that every byte is delivered exactly once per (origin, final) and
 * prints the same summary line as the C++ example. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "vpcat.h"

int main(int argc, char** argv) {
  vpcat_catalog* cat = NULL;
  vpcat_planner* planner = NULL;
  vpcat_plan* plan = NULL;
  vpcat_plan_summary sum;
  vpcat_error err;
  uint64_t *bytes = NULL, *got = NULL, delivered = 0;
  uint32_t n = 0;
  size_t i, s, d;
  int rc = 1;
  if (argc != 2) return fprintf(stderr, "usage: %s CATALOG.vpcat\n", argv[0]), 2;
  /* [readme-c] */
  if (vpcat_catalog_open_file(argv[1], NULL, &cat, &err) != VPCAT_OK ||  /* mmap + verify, once */
      vpcat_planner_create(cat, &planner, &err) != VPCAT_OK) {             /* its tables, once */
    fprintf(stderr, "%s\n", err.message);                                /* "where: what (why)" */
    goto done;
  }
  vpcat_planner_gpu_count(planner, &n);
  bytes = malloc(sizeof *bytes * n * n), got = calloc((size_t)n * n, sizeof *got);
  if (!bytes || !got || vpcat_plan_create(&plan) != VPCAT_OK) goto done;  /* reuse the plan */
  for (i = 0; i < (size_t)n * n; ++i) bytes[i] = 1 << 20;                 /* row = source GPU */
  if (vpcat_planner_plan_dense_u64(planner, bytes, n, NULL, plan, &err) != VPCAT_OK) {  /* NULL: defaults */
    fprintf(stderr, "%s\n", err.message);
    goto done;
  }
  vpcat_plan_get_summary(plan, &sum);
  for (i = 0; i < sum.transfer_count; ++i) {  /* steps' transfers are consecutive: vpcat_plan_step() */
    vpcat_transfer t;
    vpcat_plan_transfer(plan, i, &t);  /* post(t.src, t.dst, t.bytes) in its step */
    got[(size_t)t.origin * n + t.final] += t.bytes;
  }
  /* [readme-c] */
  for (s = 0; s < n; ++s)
    for (d = 0; d < n; ++d) {
      if (s != d && got[s * n + d] != bytes[s * n + d]) {
        fprintf(stderr, "GPU %zu -> %zu: %llu bytes delivered, %llu demanded\n", s, d,
                (unsigned long long)got[s * n + d], (unsigned long long)bytes[s * n + d]);
        goto done;
      }
      delivered += got[s * n + d];
    }
  if (delivered != sum.total_bytes || delivered == 0) {
    fprintf(stderr, "bad total\n");
    goto done;
  }
  printf("%u GPUs, %llu steps, %llu transfers, %llu bytes delivered\n", (unsigned)n,
         (unsigned long long)sum.step_count, (unsigned long long)sum.transfer_count, (unsigned long long)delivered);
  rc = 0;
done:
  free(bytes);
  free(got);
  vpcat_plan_destroy(plan);
  vpcat_planner_destroy(planner);
  vpcat_catalog_destroy(cat);
  return rc;
}
