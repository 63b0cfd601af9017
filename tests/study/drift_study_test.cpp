// The drift study in the library: cell order, maxima over drawn initial conditions, DSC keeping
// the residuals far below an unstabilised run, and interruption leaving the unfinished cell out.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "study/drift_study.hpp"
#include "support/temp_dir.hpp"

namespace gmbd {
namespace {

DriftStudySpec slider_crank_spec() {
  DriftStudySpec spec;
  spec.run_file = std::string(GMBD_SOURCE_DIR) + "/examples/slider_crank.yaml";
  spec.overrides = {"time.end=1"};
  spec.dts = {0.01, 0.005};
  spec.stabilizations = {"none", "dsc"};
  spec.integrators = {"rk4"};
  return spec;
}

TEST(DriftStudy, CellsInOrderWithMaximaOverTheDrawnInitialConditions) {
  DriftStudySpec spec = slider_crank_spec();
  spec.initial_conditions = 3;
  spec.seed = 4;
  const DriftStudy study(spec);
  ASSERT_EQ(study.drawn().size(), 3u);
  EXPECT_EQ(study.cells(), 4u);
  std::vector<std::string> order;
  std::vector<double> run_g;
  std::vector<DriftCell> cells;
  const bool finished = study.run([&](const DriftRun& r) { run_g.push_back(r.summary.max_position_residual); },
                                  [&](const DriftCell& c) {
                                    order.push_back(c.stabilization + "@" + std::to_string(c.dt));
                                    cells.push_back(c);
                                  });
  EXPECT_TRUE(finished);
  ASSERT_EQ(cells.size(), 4u);
  EXPECT_EQ(order[0], "none@" + std::to_string(0.01));
  EXPECT_EQ(order[3], "dsc@" + std::to_string(0.005));
  ASSERT_EQ(run_g.size(), 12u);
  for (size_t c = 0; c < 4; ++c) {
    EXPECT_EQ(cells[c].runs, 3);
    const double largest = std::max({run_g[3 * c], run_g[3 * c + 1], run_g[3 * c + 2]});
    if (cells[c].failed == 0) {
      EXPECT_EQ(cells[c].maxima().g, largest);
    }
  }
  // DSC holds the position residual orders of magnitude below the unstabilised run.
  EXPECT_LT(cells[2].maxima().g, 1e-3 * cells[0].maxima().g);
}

TEST(DriftStudy, AStopRequestEndsTheStudyWithoutReportingTheUnfinishedCell) {
  DriftStudySpec spec = slider_crank_spec();
  spec.initial_conditions = 2;
  const DriftStudy study(spec);
  int runs = 0, cells = 0;
  const bool finished = study.run(
      [&](const DriftRun&) {
        if (++runs == 3) request_stop();  // the first run of the second cell
      },
      [&](const DriftCell&) { ++cells; });
  clear_stop_request();
  EXPECT_FALSE(finished);
  EXPECT_EQ(runs, 3);
  EXPECT_EQ(cells, 1);
}

TEST(DriftStudy, BadVaryEntriesAreInputErrors) {
  DriftStudySpec spec = slider_crank_spec();
  spec.initial_conditions = 2;
  spec.vary = {"time.end"};
  EXPECT_THROW(DriftStudy{spec}, InputError);
  spec.vary = {"x=2:1"};
  EXPECT_THROW(DriftStudy{spec}, InputError);
}

}  // namespace
}  // namespace gmbd
