// The rank-revealing dense SUNLinearSolver: row-scaled LU, and the truncated minimum-norm QR
// solve when the LU's pivots say the matrix is (nearly) singular.
#include "integrators/sundials_rank_revealing.hpp"

#include <sundials/sundials_matrix.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include <Eigen/LU>
#include <cmath>

#include "core/rank_revealing.hpp"
#include "core/types.hpp"

namespace gmbd::sundials_support {
namespace {

constexpr double kLuPivotRatio = 1e-13;

struct Content {
  Content(int size, SUNLinearSolver inner_dense)
      : n(size),
        dense(inner_dense),
        J(Mat::Zero(size, size)),
        row_scale(Vec::Ones(size)),
        col_scale(Vec::Ones(size)),
        rhs(Vec::Zero(size)),
        x(Vec::Zero(size)),
        lu(size),
        qr(size, size) {}
  ~Content() {
    if (dense != nullptr) SUNLinSolFree(dense);
  }
  Content(const Content&) = delete;
  Content& operator=(const Content&) = delete;
  int n;
  SUNLinearSolver dense;  // SUNDIALS' own dense LU: regular problems keep their trajectories
  Mat J;
  Vec row_scale, col_scale, rhs, x;
  Eigen::PartialPivLU<Mat> lu;  // of the equilibrated matrix, when the raw LU looked singular
  RankRevealingQr qr;
  bool use_qr = false;
  bool use_scaled_lu = false;
  long qr_setups = 0;
  int last_flag = 0;
};

Content* content(SUNLinearSolver s) { return static_cast<Content*>(s->content); }

SUNLinearSolver_Type get_type(SUNLinearSolver /*s*/) { return SUNLINEARSOLVER_DIRECT; }
SUNLinearSolver_ID get_id(SUNLinearSolver /*s*/) { return SUNLINEARSOLVER_CUSTOM; }
int initialize(SUNLinearSolver /*s*/) { return SUNLS_SUCCESS; }

int setup(SUNLinearSolver s, SUNMatrix A) {
  Content& c = *content(s);
  const Eigen::Map<const Mat> a(SUNDenseMatrix_Data(A), c.n, c.n);
  if (!a.allFinite()) {
    c.last_flag = SUNLS_PACKAGE_FAIL_REC;
    return c.last_flag;  // recoverable: IDA retries with a smaller step
  }
  c.J = a;  // kept: SUNDIALS' LU factorises A in place
  c.use_scaled_lu = false;
  // SUNDIALS' dense LU first (bitwise what IDA did before); a zero pivot (its positive return)
  // or a pivot ratio below 1e-13 sends the solve to the QR.
  const int flag = SUNLinSolSetup(c.dense, A);
  bool suspect = flag != 0;
  if (!suspect) {
    const auto diag = a.diagonal().cwiseAbs();  // A now holds the LU factors
    suspect = !(diag.minCoeff() > kLuPivotRatio * diag.maxCoeff());
  }
  // A small pivot of the raw matrix may only mean bad scaling (stiff springs against unit
  // constraint rows, cj ≫ 1): judge singularity on the row- and column-equilibrated matrix.
  c.use_qr = false;
  if (suspect) {
    for (int i = 0; i < c.n; ++i) {
      const double largest = c.J.row(i).cwiseAbs().maxCoeff();
      c.row_scale(i) = largest > 0.0 && std::isfinite(largest) ? 1.0 / largest : 1.0;
    }
    c.J = c.row_scale.asDiagonal() * c.J;
    for (int j = 0; j < c.n; ++j) {
      const double largest = c.J.col(j).cwiseAbs().maxCoeff();
      c.col_scale(j) = largest > 0.0 && std::isfinite(largest) ? 1.0 / largest : 1.0;
    }
    c.J = c.J * c.col_scale.asDiagonal();
    c.lu.compute(c.J);
    const auto diag = c.lu.matrixLU().diagonal().cwiseAbs();
    c.use_qr = flag != 0 || !(diag.minCoeff() > kLuPivotRatio * diag.maxCoeff());
    if (c.use_qr) {
      c.qr.compute(c.J, kRankTolerance);
      ++c.qr_setups;
    } else {
      c.use_scaled_lu = true;
    }
  }
  c.last_flag = SUNLS_SUCCESS;
  return c.last_flag;
}

int solve(SUNLinearSolver s, SUNMatrix A, N_Vector x, N_Vector b, realtype tol) {
  Content& c = *content(s);
  if (!c.use_qr && !c.use_scaled_lu) {
    c.last_flag = SUNLinSolSolve(c.dense, A, x, b, tol);
    return c.last_flag;
  }
  // Equilibrated system: (R J C) y = R b, x = C y.
  const Eigen::Map<const Vec> bv(N_VGetArrayPointer(b), c.n);
  Eigen::Map<Vec> xv(N_VGetArrayPointer(x), c.n);
  c.rhs = c.row_scale.cwiseProduct(bv);
  if (c.use_qr) {
    c.qr.solve_min_norm(c.rhs, c.x);
  } else {
    c.x = c.lu.solve(c.rhs);
  }
  c.x = c.col_scale.cwiseProduct(c.x);
  if (!c.x.allFinite()) {
    c.last_flag = SUNLS_PACKAGE_FAIL_REC;
    return c.last_flag;
  }
  xv = c.x;
  c.last_flag = SUNLS_SUCCESS;
  return c.last_flag;
}

sunindextype last_flag(SUNLinearSolver s) { return content(s)->last_flag; }

int free_solver(SUNLinearSolver s) {
  if (s == nullptr) return SUNLS_SUCCESS;
  delete content(s);
  s->content = nullptr;
  SUNLinSolFreeEmpty(s);
  return SUNLS_SUCCESS;
}

}  // namespace

SUNLinearSolver make_rank_revealing_dense_solver(SUNContext context, N_Vector y, SUNMatrix A) {
  const int n = static_cast<int>(SUNDenseMatrix_Rows(A));
  SUNLinearSolver dense = SUNLinSol_Dense(y, A, context);
  if (dense == nullptr) return nullptr;
  SUNLinearSolver s = SUNLinSolNewEmpty(context);
  if (s == nullptr) {
    SUNLinSolFree(dense);
    return nullptr;
  }
  s->ops->gettype = get_type;
  s->ops->getid = get_id;
  s->ops->initialize = initialize;
  s->ops->setup = setup;
  s->ops->solve = solve;
  s->ops->lastflag = last_flag;
  s->ops->free = free_solver;
  s->content = new Content(n, dense);
  return s;
}

long rank_revealing_setups(SUNLinearSolver solver) {
  return solver != nullptr && solver->content != nullptr ? content(solver)->qr_setups : 0;
}

}  // namespace gmbd::sundials_support
