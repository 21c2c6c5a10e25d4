// C++: a process grid kept in a class whose constructor computes the row and
// the column from the rank and hands them to MPI_Comm_split (members with
// default initializers, error codes kept, a guard that aborts on a shape
// that does not fit), and a hand-written broadcast of a std::vector along
// the row in a member function that loops over the row's width. The split
// proof runs the constructor as every process of the parent communicator
// at every size and number of rows: 'mycol_' is the rank in 'row_' and
// 'npcol_' its size.
//
// Must not be rewritten: regrid() splits the parent again into 'row_' with
// another shape and keeps the old column, so 'mycol_' may hold the rank in
// a communicator 'row_' no longer is.
// clang-format off
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.cpp
// RUN: %check-rewrite refuse %s %t.regrid --trace --cflags=-DREGRID | FileCheck %s --check-prefix=REGRID --implicit-check-not=warning:
// clang-format on
#include <mpi.h>

#include <cstdio>
#include <vector>

namespace {

constexpr int kRowTag = 11;

class ProcessGrid {
public:
  ProcessGrid(MPI_Comm parent, int prows) {
    int ierr = MPI_Comm_rank(parent, &iam_);
    if (ierr == MPI_SUCCESS)
      ierr = MPI_Comm_size(parent, &nprocs_);
    if (ierr != MPI_SUCCESS || prows < 1 || nprocs_ % prows != 0)
      MPI_Abort(parent, 1);
    npcol_ = nprocs_ / prows;
    myrow_ = iam_ / npcol_;
    mycol_ = iam_ % npcol_;
    MPI_Comm_split(parent, myrow_, mycol_, &row_);
  }
  ~ProcessGrid() { MPI_Comm_free(&row_); }
#ifdef REGRID
  void regrid(MPI_Comm parent, int prows) {
    MPI_Comm_free(&row_);
    npcol_ = nprocs_ / prows;
    MPI_Comm_split(parent, iam_ / npcol_, iam_, &row_);
  }
#endif
  ProcessGrid(const ProcessGrid &) = delete;
  ProcessGrid &operator=(const ProcessGrid &) = delete;

  int row() const { return myrow_; }
  int col() const { return mycol_; }
  int cols() const { return npcol_; }

  int shareAlongRow(std::vector<double> &panel, int rootcol) const {
    int ierr = MPI_SUCCESS;
    const int count = static_cast<int>(panel.size());
    if (mycol_ == rootcol) {
      // CHECK-MESSAGES: prog.cpp:[[#@LINE+1]]:7: warning: loop of point-to-point sends implements a broadcast (static analysis); replace it with MPI_Bcast [mpilift-manual-bcast]
      for (int c = 0; c < npcol_; ++c) {
        if (c != rootcol) {
          ierr = MPI_Send(panel.data(), count, MPI_DOUBLE, c, kRowTag, row_);
          if (ierr != MPI_SUCCESS)
            return ierr;
        }
      }
    } else {
      ierr = MPI_Recv(panel.data(), count, MPI_DOUBLE, rootcol, kRowTag, row_,
                      MPI_STATUS_IGNORE);
    }
    // CHECK-FIXES: ierr = MPI_Bcast(panel.data(), count, MPI_DOUBLE, rootcol, row_);
    return ierr;
  }

private:
  int iam_ = 0, nprocs_ = 1;
  int myrow_ = 0, mycol_ = 0, npcol_ = 1;
  MPI_Comm row_ = MPI_COMM_NULL;
};

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  {
    ProcessGrid grid(MPI_COMM_WORLD, size % 2 == 0 && size > 4 ? 2 : 1);
#ifdef REGRID
    grid.regrid(MPI_COMM_WORLD, 1);
#endif
    std::vector<double> panel(4);
    for (int k = 0; k < 3; ++k) {
      int root = (k + 1) % grid.cols();
      for (std::size_t i = 0; i < panel.size(); ++i)
        panel[i] = grid.col() == root ? 100.0 * k + 10.0 * grid.row() + i : -1;
      if (grid.shareAlongRow(panel, root) != MPI_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 2);
      std::printf("panel %d row %d col %d: %.1f %.1f %.1f %.1f\n", k,
                  grid.row(), grid.col(), panel[0], panel[1], panel[2],
                  panel[3]);
    }
  }
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8

// clang-format off
// REGRID: prog.cpp:{{[0-9]+}}:{{[0-9]+}}: warning: {{.*}}broadcast {{.*}}not rewritten: input-independence refused [mpilift-manual-bcast]
// REGRID: note: input-independence: the condition 'mycol_ == rootcol' cannot be evaluated: 'mycol_' is the rank in 'row_' (the split in 'ProcessGrid') here, but 'row_' is written again where no new query follows, so it may hold another communicator
// clang-format on
