// A dense direct linear solver for SUNDIALS that survives a rank-deficient iteration matrix
// (redundant constraint rows, singular positions): LU, and the rank-revealing QR when LU fails.
#pragma once

#include <sundials/sundials_context.h>
#include <sundials/sundials_linearsolver.h>
#include <sundials/sundials_matrix.h>
#include <sundials/sundials_nvector.h>

namespace gmbd::sundials_support {

/// A SUNLinearSolver for an n × n SUNDenseMatrix (IDA's iteration matrix J = ∂F/∂y + cj ∂F/∂ẏ).
/// setup(): SUNDIALS' own dense LU (SUNLinSol_Dense, wrapped: regular problems keep their
/// trajectories bit for bit); when it meets a zero pivot or its pivot ratio falls below 1e-13 — the
/// multiplier columns of redundant constraint rows are linearly dependent, and the matrix loses
/// rank at a singular position; or the matrix is merely badly scaled — the matrix is
/// equilibrated (rows, then columns, to unit largest entry: a DAE residual's rows and unknowns
/// carry different units and the step-size factor cj) and factorised again by LU; only when
/// that LU's pivot ratio is also below 1e-13 does the column-pivoted QR (core/rank_revealing.hpp,
/// tolerance kRankTolerance) of the equilibrated matrix replace it. solve(): the LU solution,
/// or the truncated minimum-norm solution (the independent equations satisfied exactly, the
/// smallest correction of the unknowns: the multipliers of redundant rows keep their
/// minimum-norm split). Storage is allocated at creation; setup and solve allocate nothing.
/// The number of setups that needed the QR is available through rank_revealing_setups().
/// `y` a template vector of the system's size, `A` the n × n SUNDenseMatrix IDA fills.
SUNLinearSolver make_rank_revealing_dense_solver(SUNContext context, N_Vector y, SUNMatrix A);

/// Setups of `solver` (made by make_rank_revealing_dense_solver) that used the QR.
long rank_revealing_setups(SUNLinearSolver solver);

}  // namespace gmbd::sundials_support
