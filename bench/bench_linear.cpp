// Google Benchmark: the linear analysis of the four-stage suspension examples/linear/four_stage.yaml
// (30 coordinates: 4 spatial bodies + 6 blade-tip floats; 24 modes). The model file is read and
// built once; then the whole sequence (equilibrium → linearisation → modes → state space → a
// 1000-point Bode of every output × 4 inputs) and each stage on its own. The aim: the whole
// sequence under 50 ms. Figures are recorded in docs/performance.md ("Linear analysis").
#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

#include "analysis/equilibrium.hpp"
#include "analysis/frequency_response.hpp"
#include "analysis/linear_analysis.hpp"
#include "analysis/linear_model.hpp"
#include "analysis/modes.hpp"
#include "builder/model_builder.hpp"

namespace {

using namespace gmbd;

struct FourStage {
  std::unique_ptr<elements::AssembledModel> model;
  Vec q0;
  analysis::LinearOptions options;  ///< 4 inputs, every output (the default: 30 coordinates + 3 support forces)
  std::vector<double> grid;         ///< 1000 log points, 0.04–330 Hz (what gmbd linearize chooses)
  // Results of each stage, inputs of the next stage's benchmark.
  analysis::OperatingPoint point;
  analysis::LinearModel lm;
  analysis::ModalAnalysis modal;
};

const FourStage& four_stage() {
  static const FourStage fs = [] {
    FourStage f;
    const auto spec = load_model_file(std::string(GMBD_SOURCE_DIR) + "/examples/linear/four_stage.yaml");
    f.model = build_assembled_model(spec, {}, /*allow_floats=*/true);
    f.q0 = Vec::Zero(f.model->nq());
    Vec v0 = Vec::Zero(f.model->nq());
    model_file_initial_state(spec, *f.model, f.q0, v0);
    f.options.inputs = {"support.x", "support.y", "support.z", "force:tm.x"};
    f.grid = analysis::frequency_grid(0.04, 330.0, 1000);
    const auto eq = analysis::find_equilibrium(*f.model, f.q0, Vec::Zero(f.model->nz()));
    f.point = {0.0, eq.q, Vec::Zero(f.model->nq()), eq.z, eq.lambda};
    f.lm = analysis::linearize(*f.model, f.point, f.options);
    f.modal = analysis::modal_analysis(f.lm);
    return f;
  }();
  return fs;
}

// ---- the whole sequence --------------------------------------------------------------------------

/// Equilibrium + linearisation (A B C D) + modes + 1000-point state-space Bode, 33 outputs × 4 inputs.
void BM_FourStageWholeSequence(benchmark::State& state) {
  const auto& fs = four_stage();
  for (auto _ : state) {
    const auto eq = analysis::find_equilibrium(*fs.model, fs.q0, Vec::Zero(fs.model->nz()));
    const analysis::OperatingPoint point{0.0, eq.q, Vec::Zero(fs.model->nq()), eq.z, eq.lambda};
    const auto lm = analysis::linearize(*fs.model, point, fs.options);
    const auto modal = analysis::modal_analysis(lm);
    const auto response = analysis::state_space_response(lm, fs.grid);
    benchmark::DoNotOptimize(modal.modes.data());
    benchmark::DoNotOptimize(response.H.data());
  }
}

/// run_linear_analysis as gmbd linearize calls it: the sequence above plus the 24 modal energy
/// distributions and the direct E(f) cross-check on the same grid.
void BM_FourStageRunLinearAnalysis(benchmark::State& state) {
  const auto& fs = four_stage();
  analysis::LinearAnalysisRequest request;
  request.linear = fs.options;
  if (state.range(0) == 1) request.linear = {};  // the CLI's default inputs: 3 supports + 30 forces
  for (auto _ : state) {
    const auto r = analysis::run_linear_analysis(*fs.model, fs.q0, Vec::Zero(fs.model->nz()), request);
    benchmark::DoNotOptimize(r.response.H.data());
  }
  state.SetLabel(state.range(0) == 1 ? "33 inputs (default)" : "4 inputs");
}

// ---- each stage -------------------------------------------------------------------------------------

/// Newton from the file's start (2 iterations).
void BM_FourStageEquilibrium(benchmark::State& state) {
  const auto& fs = four_stage();
  for (auto _ : state) {
    const auto eq = analysis::find_equilibrium(*fs.model, fs.q0, Vec::Zero(fs.model->nz()));
    benchmark::DoNotOptimize(eq.q.data());
  }
}

/// Tangents, float condensation, null-space bases, A B C D with 4 inputs × 33 outputs, undamped modes.
void BM_FourStageLinearize(benchmark::State& state) {
  const auto& fs = four_stage();
  for (auto _ : state) {
    const auto lm = analysis::linearize(*fs.model, fs.point, fs.options);
    benchmark::DoNotOptimize(lm.A.data());
  }
}

/// Eigen-solution of the 48 × 48 A (balancing auto).
void BM_FourStageModalAnalysis(benchmark::State& state) {
  const auto& fs = four_stage();
  for (auto _ : state) {
    const auto modal = analysis::modal_analysis(fs.lm);
    benchmark::DoNotOptimize(modal.modes.data());
  }
}

/// The 24 modal energy distributions (not part of the sequence; run_linear_analysis does them).
void BM_FourStageModeEnergies(benchmark::State& state) {
  const auto& fs = four_stage();
  for (auto _ : state) {
    // As run_linear_analysis does: element tangents once, then every mode.
    const analysis::ModalEnergyCalculator energies(*fs.model, fs.lm);
    for (const auto& m : fs.modal.modes) {
      const auto e = energies.energy(m);
      benchmark::DoNotOptimize(e.kinetic.data());
    }
  }
}

/// 1000-point state-space transfer functions, 33 outputs × 4 inputs.
void BM_FourStageStateSpaceResponse(benchmark::State& state) {
  const auto& fs = four_stage();
  for (auto _ : state) {
    const auto r = analysis::state_space_response(fs.lm, fs.grid);
    benchmark::DoNotOptimize(r.H.data());
  }
}

/// The same 1000 points by the direct E(f) solve (run_linear_analysis's cross-check).
void BM_FourStageDirectResponse(benchmark::State& state) {
  const auto& fs = four_stage();
  for (auto _ : state) {
    const auto r = analysis::direct_response(fs.lm, fs.grid);
    benchmark::DoNotOptimize(r.H.data());
  }
}

// ---- the Advanced LIGO quad (examples/suspensions/quad.yaml) --------------------------------
// From the model file's text to equilibrium, 24 modes, Q of every mode (diluted and naive, by
// the complex eigen-iteration), the state space and a 1000-point transfer function with the loss
// functions (direct E(f) solves) from the structure's x and the top mass's x force to the test
// mass: what `gmbd linearize quad.yaml --inputs support.x,force:top.x --outputs tm.x` computes
// (without the files). Arg: stage (0 = 0B, 3 = Stage 2 of quad_bending.yaml: 42 wire terms more).
void BM_QuadModelFileToModesQStateSpaceAndTf(benchmark::State& state) {
  const bool bending = state.range(0) == 3;
  const std::string path = std::string(GMBD_SOURCE_DIR) + "/examples/suspensions/" +
                           (bending ? "quad_bending.yaml" : "quad.yaml");
  for (auto _ : state) {
    const auto spec = load_model_file(path);
    const auto model = build_model_for_linear_analysis(spec, bending ? 3 : 0);
    Vec q0 = Vec::Zero(model->nq()), v0 = Vec::Zero(model->nq());
    model_file_initial_state(spec, *model, q0, v0);
    analysis::LinearAnalysisRequest request;
    request.losses = model_file_losses(spec, *model);
    request.linear.inputs = {"support.x", "force:top.x"};
    request.linear.outputs = {"tm.x"};
    request.f_from = 0.01;
    request.f_to = 100.0;
    request.f_count = 1000;
    const auto r = analysis::run_linear_analysis(*model, q0, Vec::Zero(0), request);
    benchmark::DoNotOptimize(r.response.H.back());
  }
}

BENCHMARK(BM_QuadModelFileToModesQStateSpaceAndTf)->Arg(0)->Arg(3)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FourStageWholeSequence)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FourStageRunLinearAnalysis)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FourStageEquilibrium)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_FourStageLinearize)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_FourStageModalAnalysis)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_FourStageModeEnergies)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_FourStageStateSpaceResponse)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_FourStageDirectResponse)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
