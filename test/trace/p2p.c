// Traces point-to-point calls, a wildcard receive, Waitall, a reordered
// communicator and a collective on it; checks peers (as world ranks), sizes
// and the exact source line and column of every call.
//
// RUN: %mpicc %s -o %t.exe
// RUN: rm -rf %t.np1 %t.np2 %t.np4 %t.np8
// RUN: %mpirun -np 1 %mpilift-run -o %t.np1 -- %t.exe | FileCheck --check-prefix=OUT %s
// RUN: %mpirun -np 2 %mpilift-run -o %t.np2 -- %t.exe > /dev/null
// RUN: %mpirun -np 4 %mpilift-run -o %t.np4 -- %t.exe > /dev/null
// RUN: %mpirun -np 8 %mpilift-run -o %t.np8 -- %t.exe > /dev/null
// RUN: %mpilift trace dump %t.np1 | FileCheck --check-prefixes=CHECK,NP1 %s
// RUN: %mpilift trace dump %t.np2 --rank 1 | FileCheck --check-prefixes=NP2R1 %s
// RUN: %mpilift trace dump %t.np4 --rank 0 | FileCheck --check-prefixes=CHECK,NP4 %s
// RUN: %mpilift trace dump %t.np8 --rank 5 | FileCheck --check-prefixes=NP8R5 %s
// RUN: %mpilift trace dump %t.np4 --rank 0 | FileCheck --check-prefix=COMMS %s
// RUN: %otf2-print %t.np4/traces.otf2 | FileCheck --check-prefix=OTF2 %s
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, size, data[10] = {0};
  MPI_Init(&argc, &argv);
  // CHECK: #0 MPI_Init at {{.*}}p2p.c:[[@LINE-1]]:3
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    for (int i = 1; i < size; ++i)
      MPI_Send(data, 10, MPI_INT, i, 7, MPI_COMM_WORLD);
    // NP4: #1 MPI_Send peer=1 tag=7 comm=0 bytes=40 buf=0x{{[0-9a-f]+}} at {{.*}}p2p.c:[[@LINE-1]]:7
    // NP4: #2 MPI_Send peer=2 tag=7 comm=0 bytes=40 {{.*}}p2p.c:[[@LINE-2]]:7
    // NP4: #3 MPI_Send peer=3 tag=7 comm=0 bytes=40 {{.*}}p2p.c:[[@LINE-3]]:7
  } else {
    MPI_Recv(data, 10, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    // NP2R1: #1 MPI_Recv peer=0 tag=7 comm=0 bytes=40 {{.*}}p2p.c:[[@LINE-1]]:5
    // NP8R5: #1 MPI_Recv peer=0 tag=7 comm=0 bytes=40 {{.*}}p2p.c:[[@LINE-2]]:5
  }

  // A ring: everyone receives from anyone and sends to the right.
  MPI_Request reqs[2];
  double out = rank, in = -1;
  MPI_Irecv(&in, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &reqs[0]);
  // NP1: #1 MPI_Irecv peer=any tag=3 comm=0 bytes=8 {{.*}} req=[[RECV:[0-9]+]] at {{.*}}p2p.c:[[@LINE-1]]:3
  // NP4: #4 MPI_Irecv peer=any tag=3 comm=0 bytes=8 {{.*}} req=[[RECV:[0-9]+]] at {{.*}}p2p.c:[[@LINE-2]]:3
  MPI_Isend(&out, 1, MPI_DOUBLE, (rank + 1) % size, 3, MPI_COMM_WORLD,
            &reqs[1]);
  // NP1: #2 MPI_Isend peer=0 tag=3 comm=0 bytes=8 {{.*}} req=[[SEND:[0-9]+]] at {{.*}}p2p.c:[[@LINE-2]]:3
  // NP4: #5 MPI_Isend peer=1 tag=3 comm=0 bytes=8 {{.*}} req=[[SEND:[0-9]+]] at {{.*}}p2p.c:[[@LINE-3]]:3
  MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
  // NP1: #3 MPI_Waitall completes req=[[RECV]] (#1) peer=0 tag=3 bytes=8 completes req=[[SEND]] (#2) at {{.*}}p2p.c:[[@LINE-1]]:3
  // NP4: #6 MPI_Waitall completes req=[[RECV]] (#4) peer=3 tag=3 bytes=8 completes req=[[SEND]] (#5) at {{.*}}p2p.c:[[@LINE-2]]:3
  // NP2R1: MPI_Waitall completes req={{[0-9]+}} (#2) peer=0 tag=3 bytes=8
  // NP8R5: MPI_Waitall completes req={{[0-9]+}} (#2) peer=4 tag=3 bytes=8

  // Even and odd ranks, each in reverse order: comm rank 0 of the even
  // communicator is the highest even world rank.
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &half);
  // CHECK: MPI_Comm_split comm=0 new-comm=1 at {{.*}}p2p.c:[[@LINE-1]]:3
  int value = rank;
  MPI_Bcast(&value, 1, MPI_INT, 0, half);
  // NP1: MPI_Bcast comm=1 root=0 sent=4 received=0 {{.*}}p2p.c:[[@LINE-1]]:3
  // NP4: MPI_Bcast comm=1 root=2 sent=0 received=4 {{.*}}p2p.c:[[@LINE-2]]:3
  // NP8R5: MPI_Bcast comm=2 root=7 sent=0 received=4
  MPI_Comm_free(&half);
  // CHECK: MPI_Comm_free comm=1 at {{.*}}p2p.c:[[@LINE-1]]:3
  printf("rank %d of %d: in=%g value=%d\n", rank, size, in, value);
  // OUT: rank 0 of 1: in=0 value=0
  MPI_Finalize();
  // CHECK: MPI_Finalize at {{.*}}p2p.c:[[@LINE-1]]:3
  // CHECK-NOT: MPI_
  return 0;
}

// The even communicator in reverse order, then the odd one.
// COMMS: communicators:
// COMMS-NEXT: 0 MPI_COMM_WORLD: 0 1 2 3
// COMMS-NEXT: 1 comm 1: 2 0 (from 0)
// COMMS-NEXT: 2 comm 2: 3 1 (from 0)
// COMMS-NEXT: rank 0: 11 events
// OTF2: MPI_SEND {{.*}}Receiver: 1 ("rank 1" <1>), Communicator: "MPI_COMM_WORLD" <0>, Tag: 7, Length: 40
// OTF2: MPI_IRECV_REQUEST
// OTF2: MPI_ISEND
// OTF2: MPI_COLLECTIVE_END {{.*}}Operation: BCAST
