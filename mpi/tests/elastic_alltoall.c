/* An MPI program whose membership changes while it runs, knowing nothing of
 * VarioPath: MPI_Alltoallv on the world, then on communicators of 8, 4 and
 * 6 of its ranks (MPI_Comm_split), then, after a grown catalog is installed
 * over the file VPCAT_CATALOG names (rank 0 renames STAGED onto INSTALLED)
 * and the rank map is set anew, on a duplicate of the world, and last on
 * another duplicate after VPCAT_CATALOG is pointed at BACK. Every received
 * element, and every gap between blocks, is checked. The mpirun test
 * (elastic_test.sh) runs it with LD_PRELOAD=libvpcat_pmpi.so and reads
 * what the interposer says about each new membership.
 *   mpirun -n 12 elastic_alltoall INSTALLED STAGED GROWN_MAP BACK BACK_MAP */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int value(int src, int dst, int i, int it) { return src * 1000003 + dst * 1009 + i * 7 + it; }
static int count(int src, int dst, int it, int size) {
  int c = (src * 5 + dst * 3 + it) % 13;
  if (dst == it % size) c += 40; /* a hot receiver */
  if ((src + 2 * dst + it) % 7 == 0) c = 0;
  return c;
}

/* Two MPI_Alltoallv on `comm`, checked: this rank's wrong elements (rank 0 prints the communicator's). */
static int exchange(MPI_Comm comm, const char* what) {
  int rank, size, world, it, i, j, bad = 0, any = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &world);
  int* sc = malloc(sizeof(int) * size);
  int* sd = malloc(sizeof(int) * size);
  int* rc = malloc(sizeof(int) * size);
  int* rd = malloc(sizeof(int) * size);
  for (it = 0; it < 2; ++it) {
    int stotal = 0, rtotal = 0;
    for (j = 0; j < size; ++j) sc[j] = count(rank, j, it, size), rc[j] = count(j, rank, it, size);
    for (j = 0; j < size; ++j) sd[j] = stotal, stotal += sc[j] + 1;
    for (j = 0; j < size; ++j) rd[j] = rtotal, rtotal += rc[j] + 2;
    int* sbuf = malloc(sizeof(int) * (stotal + 1));
    int* rbuf = malloc(sizeof(int) * (rtotal + 1));
    for (j = 0; j < size; ++j)
      for (i = 0; i < sc[j]; ++i) sbuf[sd[j] + i] = value(rank, j, i, it);
    for (i = 0; i < rtotal; ++i) rbuf[i] = -1;
    MPI_Alltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, comm);
    for (j = 0; j < size; ++j) {
      for (i = 0; i < rc[j]; ++i) bad += rbuf[rd[j] + i] != value(j, rank, i, it);
      for (i = rc[j]; i < rc[j] + 2 && rd[j] + i < rtotal; ++i) bad += rbuf[rd[j] + i] != -1; /* gaps untouched */
    }
    free(sbuf), free(rbuf);
  }
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_SUM, comm);
  if (rank == 0) printf("elastic_alltoall: %s: %d ranks (world rank %d first), %d wrong elements\n", what, size, world, any);
  fflush(stdout);
  free(sc), free(sd), free(rc), free(rd);
  return bad;
}

int main(int argc, char** argv) {
  int rank, size, bad = 0, total = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 6 || size < 12) {
    if (rank == 0) fprintf(stderr, "usage: mpirun -n 12 elastic_alltoall INSTALLED STAGED GROWN_MAP BACK BACK_MAP\n");
    MPI_Finalize();
    return 2;
  }
  bad += exchange(MPI_COMM_WORLD, "world");
  MPI_Comm c8, c4, c6, grown, back;
  MPI_Comm_split(MPI_COMM_WORLD, rank < 8 ? 0 : MPI_UNDEFINED, rank, &c8); /* shrink to 8 */
  if (c8 != MPI_COMM_NULL) {
    int r8;
    MPI_Comm_rank(c8, &r8);
    bad += exchange(c8, "shrunk to 8");
    MPI_Comm_split(c8, r8 >= 4 ? 0 : MPI_UNDEFINED, r8, &c4); /* shrink to 4: world ranks 4-7 */
    if (c4 != MPI_COMM_NULL) bad += exchange(c4, "shrunk to 4"), MPI_Comm_free(&c4);
    MPI_Comm_free(&c8);
  }
  MPI_Comm_split(MPI_COMM_WORLD, rank >= 6 ? 0 : MPI_UNDEFINED, rank, &c6); /* grow to 6: world ranks 6-11 */
  if (c6 != MPI_COMM_NULL) bad += exchange(c6, "grown to 6"), MPI_Comm_free(&c6);

  /* A grown catalog installed over the file in use, and the map for it. */
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0 && rename(argv[2], argv[1]) != 0) perror("elastic_alltoall: rename"), MPI_Abort(MPI_COMM_WORLD, 2);
  MPI_Barrier(MPI_COMM_WORLD);
  setenv("VPCAT_RANK_MAP", argv[3], 1);
  MPI_Comm_dup(MPI_COMM_WORLD, &grown);
  bad += exchange(grown, "grown catalog");
  MPI_Comm_free(&grown);

  /* Another catalog file named. */
  setenv("VPCAT_CATALOG", argv[4], 1);
  setenv("VPCAT_RANK_MAP", argv[5], 1);
  MPI_Comm_dup(MPI_COMM_WORLD, &back);
  bad += exchange(back, "back");
  MPI_Comm_free(&back);

  MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("elastic_alltoall: %d ranks, %d wrong elements in all\n", size, total);
  MPI_Finalize();
  return total ? 1 : 0;
}
