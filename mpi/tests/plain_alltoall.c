/* An ordinary MPI program that knows nothing of VarioPath: MPI_Alltoallv
 * and MPI_Alltoall (also MPI_IN_PLACE, and a derived datatype), each
 * received element checked against the value its sender computed. The
 * mpirun tests run it with LD_PRELOAD=libvpcat_pmpi.so.
 *   mpirun -n N plain_alltoall [ITERATIONS] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int value(int src, int dst, int i, int it) { return src * 1000003 + dst * 1009 + i * 7 + it; }
static int count(int src, int dst, int it, int size) {
  int c = (src * 7 + dst * 3 + it) % 11;
  if (dst == it % size) c += 25; /* a hot receiver */
  if ((src + dst + it) % 5 == 0) c = 0;
  return c;
}

int main(int argc, char** argv) {
  int rank, size, it, i, j, k, bad = 0, any = 0;
  int iterations = argc > 1 ? atoi(argv[1]) : 3;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int* sc = malloc(sizeof(int) * size);
  int* sd = malloc(sizeof(int) * size);
  int* rc = malloc(sizeof(int) * size);
  int* rd = malloc(sizeof(int) * size);
  for (it = 0; it < iterations; ++it) {
    int stotal = 0, rtotal = 0;
    for (j = 0; j < size; ++j) {
      sc[j] = count(rank, j, it, size), rc[j] = count(j, rank, it, size);
      sd[size - 1 - j] = 0; /* filled below in reverse order */
    }
    for (j = size - 1; j >= 0; --j) sd[j] = stotal, stotal += sc[j] + 1; /* reversed blocks with gaps */
    for (j = 0; j < size; ++j) rd[j] = rtotal, rtotal += rc[j] + 2;
    int* sbuf = malloc(sizeof(int) * (stotal + 1));
    int* rbuf = malloc(sizeof(int) * (rtotal + 1));
    for (j = 0; j < size; ++j)
      for (i = 0; i < sc[j]; ++i) sbuf[sd[j] + i] = value(rank, j, i, it);
    for (k = 0; k < rtotal; ++k) rbuf[k] = -1;
    MPI_Alltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, MPI_COMM_WORLD);
    for (j = 0; j < size; ++j) {
      for (i = 0; i < rc[j]; ++i) bad += rbuf[rd[j] + i] != value(j, rank, i, it);
      if (j + 1 < size) bad += rbuf[rd[j] + rc[j]] != -1; /* gaps untouched */
    }
    free(sbuf), free(rbuf);

    /* MPI_Alltoall, 5 ints each, then in place. */
    int* a = malloc(sizeof(int) * 5 * size);
    int* b = malloc(sizeof(int) * 5 * size);
    for (j = 0; j < size; ++j)
      for (i = 0; i < 5; ++i) a[j * 5 + i] = value(rank, j, i, it);
    MPI_Alltoall(a, 5, MPI_INT, b, 5, MPI_INT, MPI_COMM_WORLD);
    for (j = 0; j < size; ++j)
      for (i = 0; i < 5; ++i) bad += b[j * 5 + i] != value(j, rank, i, it);
    MPI_Alltoall(MPI_IN_PLACE, 5, MPI_INT, a, 5, MPI_INT, MPI_COMM_WORLD);
    for (j = 0; j < size; ++j)
      for (i = 0; i < 5; ++i) bad += a[j * 5 + i] != value(j, rank, i, it);

    /* A derived type: every other int of 6 (3 per element). */
    MPI_Datatype strided, strided_r;
    MPI_Type_vector(3, 1, 2, MPI_INT, &strided);
    MPI_Type_create_resized(strided, 0, 6 * sizeof(int), &strided_r);
    MPI_Type_commit(&strided_r);
    int* s2 = malloc(sizeof(int) * 6 * size);
    int* r2 = malloc(sizeof(int) * 6 * size);
    for (j = 0; j < size; ++j)
      for (i = 0; i < 6; ++i) s2[j * 6 + i] = value(rank, j, i, it), r2[j * 6 + i] = -1;
    MPI_Alltoall(s2, 1, strided_r, r2, 1, strided_r, MPI_COMM_WORLD);
    for (j = 0; j < size; ++j)
      for (i = 0; i < 6; ++i) bad += r2[j * 6 + i] != (i % 2 == 0 ? value(j, rank, i, it) : -1);
    MPI_Type_free(&strided);
    MPI_Type_free(&strided_r);
    free(a), free(b), free(s2), free(r2);
  }
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("plain_alltoall: %d ranks, %d iterations, %d wrong elements\n", size, iterations, any);
  free(sc), free(sd), free(rc), free(rd);
  MPI_Finalize();
  return any ? 1 : 0;
}
