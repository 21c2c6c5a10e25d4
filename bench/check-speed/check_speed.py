#!/usr/bin/env python3
"""bench/check-speed: `mpilift check` against `clang -fsyntax-only` on the
same generated project, in the same run.

Generates a project of N translation units of MPI code the way old solvers
look (halo exchanges, reductions by hand, loops of arithmetic, structs,
helpers; every tenth unit also holds a hand-written broadcast), with a
compile_commands.json whose compiler is mpicc. Then, alternating, R times:

  baseline   clang -fsyntax-only on every unit, one process per unit, with
             the flags mpicc --showme:compile gives (what a build's front
             end costs)
  tidy       clang-tidy-19 -p DIR --checks=-*,mpi-* on every unit, one
             process (the MPI checks clang-tidy ships; what a CI job that
             lints MPI code costs today)
  static     mpilift check -p DIR (every unit, one job)
  guided     mpilift check -p DIR --patterns P (only units with sites)

and prints the medians and the ratios against the baseline and against
clang-tidy (skipped, with a line saying so, when clang-tidy-19 is missing).

  python3 bench/check-speed/check_speed.py BUILD_DIR [N] [R]
"""
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

UNIT = r'''#include <mpi.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NX{k} 64

typedef struct {{
  double *u, *v;
  int nx, ny;
  double dt, dx;
}} grid{k}_t;

static grid{k}_t *grid{k}_new(int nx, int ny) {{
  grid{k}_t *g = malloc(sizeof *g);
  g->nx = nx;
  g->ny = ny;
  g->u = calloc((size_t)(nx + 2) * (ny + 2), sizeof(double));
  g->v = calloc((size_t)(nx + 2) * (ny + 2), sizeof(double));
  g->dt = 1e-3;
  g->dx = 1.0 / nx;
  return g;
}}

static void grid{k}_free(grid{k}_t *g) {{
  free(g->u);
  free(g->v);
  free(g);
}}

static void stencil{k}(grid{k}_t *g) {{
  int w = g->nx + 2;
  for (int j = 1; j <= g->ny; j++)
    for (int i = 1; i <= g->nx; i++)
      g->v[j * w + i] = g->u[j * w + i] +
                        g->dt / (g->dx * g->dx) *
                            (g->u[j * w + i - 1] + g->u[j * w + i + 1] +
                             g->u[(j - 1) * w + i] + g->u[(j + 1) * w + i] -
                             4.0 * g->u[j * w + i]);
  double *t = g->u;
  g->u = g->v;
  g->v = t;
}}

static void halo{k}(grid{k}_t *g, int rank, int size, MPI_Comm comm) {{
  int w = g->nx + 2;
  int up = (rank + 1) % size, down = (rank + size - 1) % size;
  MPI_Sendrecv(&g->u[g->ny * w], w, MPI_DOUBLE, up, {k}, &g->u[0], w,
               MPI_DOUBLE, down, {k}, comm, MPI_STATUS_IGNORE);
  MPI_Sendrecv(&g->u[w], w, MPI_DOUBLE, down, {k} + 1000,
               &g->u[(g->ny + 1) * w], w, MPI_DOUBLE, up, {k} + 1000, comm,
               MPI_STATUS_IGNORE);
}}

static double norm{k}(const grid{k}_t *g, MPI_Comm comm) {{
  double local = 0, global = 0;
  int w = g->nx + 2;
  for (int j = 1; j <= g->ny; j++)
    for (int i = 1; i <= g->nx; i++)
      local += g->u[j * w + i] * g->u[j * w + i];
  MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, comm);
  return sqrt(global);
}}
{extra}
double unit{k}_step(int steps) {{
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  grid{k}_t *g = grid{k}_new(NX{k}, 8);
  for (int i = 0; i < g->nx + 2; i++)
    g->u[g->nx + 2 + i] = sin(0.1 * i + rank);
  double params[4] = {{1, 2, 3, 4}};
  {call}
  for (int s = 0; s < steps; s++) {{
    halo{k}(g, rank, size, MPI_COMM_WORLD);
    stencil{k}(g);
  }}
  double n = norm{k}(g, MPI_COMM_WORLD) + params[0];
  grid{k}_free(g);
  return n;
}}
'''

BCAST = r'''
static void share{k}(double *p, int n, int rank, int size) {{
  if (rank == 0) {{
    for (int i = 1; i < size; i++)
      MPI_Send(p, n, MPI_DOUBLE, i, 77, MPI_COMM_WORLD);
  }} else {{
    MPI_Recv(p, n, MPI_DOUBLE, 0, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }}
}}
'''


def generate(root, n):
    units = []
    for k in range(n):
        has = k % 10 == 0
        text = UNIT.format(k=k, extra=BCAST.format(k=k) if has else "",
                           call=f"share{k}(params, 4, rank, size);" if has else "")
        path = os.path.join(root, f"unit{k}.c")
        with open(path, "w") as f:
            f.write(text)
        units.append(path)
    with open(os.path.join(root, "main.c"), "w") as f:
        f.write("#include <mpi.h>\n#include <stdio.h>\n")
        for k in range(n):
            f.write(f"double unit{k}_step(int);\n")
        f.write("int main(int argc, char **argv) {\n  MPI_Init(&argc, &argv);\n"
                "  double s = 0;\n")
        for k in range(n):
            f.write(f"  s += unit{k}_step(2);\n")
        f.write('  int r;\n  MPI_Comm_rank(MPI_COMM_WORLD, &r);\n'
                '  if (r == 0) printf("%g\\n", s);\n  MPI_Finalize();\n'
                "  return 0;\n}\n")
    units.append(os.path.join(root, "main.c"))
    db = [{"directory": root, "file": u,
           "command": f"mpicc -O2 -g -c {u} -o {u}.o"} for u in units]
    with open(os.path.join(root, "compile_commands.json"), "w") as f:
        json.dump(db, f, indent=1)
    return units


def timed(cmds):
    start = time.perf_counter()
    for c in cmds:
        r = subprocess.run(c, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           text=True)
        if r.returncode != 0:
            sys.exit(f"check-speed: {c[0]} failed:\n{r.stderr[-2000:]}")
    return time.perf_counter() - start


def main():
    build = os.path.abspath(sys.argv[1])
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 120
    reps = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    mpilift = os.path.join(build, "bin", "mpilift")
    run = os.path.join(build, "bin", "mpilift-run")
    clang = "/usr/lib/llvm-19/bin/clang"
    root = tempfile.mkdtemp(prefix="check-speed-")
    units = generate(root, n)
    flags = shlex.split(subprocess.check_output(
        ["mpicc", "--showme:compile"], text=True))

    # A traced run of the whole program, for the guided mode's patterns.
    exe = os.path.join(root, "app")
    subprocess.run(["mpicc", "-O1", "-g", *units, "-o", exe, "-lm"], check=True)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    traces = os.path.join(root, "traces")
    subprocess.run(["mpirun", "--oversubscribe", "-np", "4", run, "-o", traces,
                    "--", exe], check=True, env=env, stdout=subprocess.DEVNULL)
    patterns = os.path.join(root, "patterns.json")
    subprocess.run([mpilift, "detect", traces, "--format", "json", "-o",
                    patterns], check=True)

    r = subprocess.run([mpilift, "check", "-p", root, "--patterns", patterns],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True)
    said = [l for l in r.stderr.splitlines() if l.startswith("mpilift: ")]
    print("guided mode: " + (said[0] if said else "(no message)"))

    baseline = [[clang, "-fsyntax-only", "-O2", "-g", *flags, u] for u in units]
    static = [[mpilift, "check", "-p", root]]
    guided = [[mpilift, "check", "-p", root, "--patterns", patterns]]
    # The database names mpicc, which clang-tidy does not ask for its
    # flags: they go in as extra arguments.
    tidy_exe = shutil.which("clang-tidy-19")
    tidy = [[tidy_exe, "-p", root, "--checks=-*,mpi-*", "--quiet",
             *[f"--extra-arg={f}" for f in flags], *units]] if tidy_exe else None
    modes = ["baseline", "tidy", "static", "guided"] if tidy else \
        ["baseline", "static", "guided"]
    if not tidy:
        print("clang-tidy-19 not found: no tidy mode")
    times = {k: [] for k in modes}
    commands = {"baseline": baseline, "tidy": tidy, "static": static,
                "guided": guided}
    for _ in range(reps):
        for k in modes:
            times[k].append(timed(commands[k]))
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"units: {len(units)} ({n} generated + main.c), runs: {reps}")
    for k in modes:
        print(f"{k:9s} median {med[k]:.3f} s  ({med[k] / len(units) * 1000:.1f} "
              f"ms/unit)  runs: " + " ".join(f"{t:.2f}" for t in times[k]))
    ratios_s = [s / b for s, b in zip(times["static"], times["baseline"])]
    ratios_g = [g / b for g, b in zip(times["guided"], times["baseline"])]
    print(f"ratio static/baseline: {statistics.median(ratios_s):.2f} "
          f"(target <= 1.3)")
    print(f"ratio guided/baseline: {statistics.median(ratios_g):.2f}")
    if tidy:
        ratios_t = [s / t for s, t in zip(times["static"], times["tidy"])]
        print(f"ratio static/clang-tidy: {statistics.median(ratios_t):.2f} "
              f"(target <= 1.3)")
    shutil.rmtree(root)


if __name__ == "__main__":
    main()
