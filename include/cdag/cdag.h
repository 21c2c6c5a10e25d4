/*===- cdag.h - Communication DAGs with collective detection -----*- C -*-===*
 *
 * Part of mpilift. Usable from C and C++.
 *
 *===----------------------------------------------------------------------===*
 *
 * A program describes a communication pattern as a graph of sends,
 * receives and local operations with dependencies, compiles it once
 * (collectively), and runs it as often as it likes. Compiling finds the
 * collective operations the pattern implements, even when it forwards data
 * through other processes (trees, pipelines, rings), and running executes
 * them as MPI collectives; whatever is not a collective runs as nonblocking
 * point-to-point messages. The data each process ends with is what the
 * graph specified.
 *
 *   cDAG_Graph g;
 *   cDAG_Create(MPI_COMM_WORLD, &g);
 *   if (rank == root)
 *     for (int i = 0; i < size; ++i)
 *       if (i != root) cDAG_Send(g, buf, n, i, 0, NULL);
 *   if (rank != root) cDAG_Recv(g, buf, n, root, 0, NULL);
 *   cDAG_Schedule s;
 *   cDAG_Compile(g, &s);          // finds: a broadcast from root
 *   for (...) cDAG_Run(s);        // runs MPI_Bcast
 *   cDAG_Free_schedule(&s);
 *   cDAG_Free(&g);
 *
 * Environment: CDAG_DISABLE_DETECTION=1 runs the graph as its plain
 * point-to-point operations; CDAG_REPORT=1 makes rank 0 print what
 * compiling found to stderr.
 *
 * Every function returns CDAG_SUCCESS or an error code;
 * cDAG_Error_message() says what went wrong in the calling thread's last
 * failed call.
 *
 *===----------------------------------------------------------------------===*/

#ifndef CDAG_CDAG_H
#define CDAG_CDAG_H

#include <mpi.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A graph under construction, one per process. */
typedef struct cDAG_Graph_s *cDAG_Graph;
/** A compiled graph, ready to run. */
typedef struct cDAG_Schedule_s *cDAG_Schedule;
/** An operation of a graph, as returned by cDAG_Send, cDAG_Recv, cDAG_Local. */
typedef int cDAG_Op;

enum {
  CDAG_SUCCESS = 0,
  CDAG_ERR_ARG = 1,   /**< A bad argument (null handle, negative peer...). */
  CDAG_ERR_GRAPH = 2, /**< Unmatched operations, size mismatch or a cycle. */
  CDAG_ERR_MPI = 3,   /**< An MPI call failed. */
  CDAG_ERR_NOMEM = 4  /**< Out of memory. */
};

/** Starts an empty graph for the calling process of \p comm. Local. */
int cDAG_Create(MPI_Comm comm, cDAG_Graph *graph);

/** Sends \p bytes at \p buf to rank \p dest of the graph's communicator.
 *  Adds to the graph only: nothing moves before cDAG_Run. \p op may be
 *  NULL. */
int cDAG_Send(cDAG_Graph graph, const void *buf, size_t bytes, int dest,
              int tag, cDAG_Op *op);

/** Receives \p bytes into \p buf from rank \p source. */
int cDAG_Recv(cDAG_Graph graph, void *buf, size_t bytes, int source, int tag,
              cDAG_Op *op);

/** A local operation: a point that other operations can depend on. */
int cDAG_Local(cDAG_Graph graph, cDAG_Op *op);

/** \p after starts only once \p before completed (for example: forward a
 *  buffer only after it was received). */
int cDAG_Depend(cDAG_Graph graph, cDAG_Op before, cDAG_Op after);

/** Declares a temporary buffer whose content after a run does not matter
 *  (the forwarding buffer of a tree algorithm), which lets compiling
 *  replace more of the graph. */
int cDAG_Scratch(cDAG_Graph graph, void *buf, size_t bytes);

/** Compiles the graphs of all processes of the communicator. Collective.
 *  The graph may be freed afterwards; the schedule keeps what it needs. */
int cDAG_Compile(cDAG_Graph graph, cDAG_Schedule *schedule);

/** Runs the schedule once. Collective over the graph's communicator. */
int cDAG_Run(cDAG_Schedule schedule);

/** What compiling found, one line per collective and one for the rest; the
 *  same text on every process. Owned by the schedule. */
const char *cDAG_Report(cDAG_Schedule schedule);

/** Number of collectives compiling found (0 with detection disabled). */
int cDAG_Num_collectives(cDAG_Schedule schedule);

int cDAG_Free_schedule(cDAG_Schedule *schedule);
int cDAG_Free(cDAG_Graph *graph);

/** A fixed description of an error code. */
const char *cDAG_Error_string(int code);
/** The message of this thread's last failed call ("" if none). */
const char *cDAG_Error_message(void);

#ifdef __cplusplus
}
#endif

#endif /* CDAG_CDAG_H */
