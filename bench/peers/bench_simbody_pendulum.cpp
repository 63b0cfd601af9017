// Peer benchmark (GitHub issue "Performance" item 1): Simbody's joint-coordinate pin-chain model of
// the planar n-link pendulum of bench/bench_pendulum.cpp — right-hand side and RK4 step cost.
#include <benchmark/benchmark.h>

#include <Simbody.h>

#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

// The model (models/nlink_pendulum.hpp, docs/reference-models.md §2, with bench_pendulum.cpp's
// parameters): n links, each a point mass m = 1 kg at the end of a massless rod L = 1 m, gravity
// g = 9.81 m/s² along −y, every link released at θ_k = 0.4 rad from the downward vertical with
// θ̇_k = 0.1 rad/s, joint friction R_k = 0.05 N·m·s from the Rayleigh function
// ½ Σ R_k (θ̇_k − θ̇_(k−1))², no support motion. In Simbody each link is a MobilizedBody::Pin
// about z whose coordinate is the relative angle φ_k = θ_k − θ_(k−1), so the friction is exactly a
// Force::MobilityLinearDamper of coefficient R_k on each pin, and the initial state is
// φ_1 = 0.4, φ_(k>1) = 0, φ̇_1 = 0.1, φ̇_(k>1) = 0.
//
// Benchmarks (N = 3, 10, 20, 50, 100, 200):
//   BM_SimbodyRhs/N              one right-hand side: invalidate the Position stage, then
//                                system.realize(state, Stage::Acceleration) (kinematics, forces,
//                                articulated-body forward dynamics);
//   BM_SimbodyRk4Step/N          one classical RK4 step, dt = 1e-3 s, written here over four
//                                realize(Acceleration) calls on Simbody's state y = (q, u): the
//                                same scheme and step as GaussMBD's `rk4`. Simbody has no RK4
//                                integrator, and the pin chain has no constraints to project;
//   BM_SimbodyMersonFixedStep/N  for reference, Simbody's own 4th-order RungeKuttaMersonIntegrator
//                                with setFixedStepSize(1e-3) (5 stages and Simbody's integrator
//                                bookkeeping per step).
//
// Trajectory check (no benchmarks run):
//   bench_simbody_pendulum --trajectory [--links=3,10,...] [--end=1] [--dt=1e-3]
//                          [--method=rk4|merson] [--accuracy=1e-12] [--angles]
// integrates each chain to t = end and prints the final angles θ_1 and θ_n, the tip position and
// the energy T + V (support frame, y up: V = Σ m g y_k), to compare with
// `gmbd run` of nlink_pendulum_cartesian; --method=merson is Simbody's adaptive RK Merson at
// --accuracy (a reference solution); --angles also prints every θ_k.

namespace {

// bench/bench_pendulum.cpp's workload (nlink_pendulum_cartesian with these overrides).
constexpr double kMass = 1.0;       // kg, each link
constexpr double kLength = 1.0;     // m, each link
constexpr double kGravity = 9.81;   // m/s²
constexpr double kFriction = 0.05;  // N·m·s, each joint
constexpr double kTheta0 = 0.4;     // rad, every link (absolute angle)
constexpr double kOmega0 = 0.1;     // rad/s, every link (absolute rate)
constexpr double kDt = 1e-3;        // s, fixed step of the RK4 benchmarks

/// The pin chain with its own state (default state: the initial condition above).
class PinChain {
 public:
  explicit PinChain(int links) : matter_(system_), forces_(system_) {
    // Body frame at the point mass; the pin's M frame L above it, so with pin angle φ the mass
    // sits at L (sin φ, −cos φ) from the joint in the parent frame, as x_k, y_k of the model.
    const SimTK::Body::Rigid body(
        SimTK::MassProperties(kMass, SimTK::Vec3(0), SimTK::Inertia(0)));
    const SimTK::Transform joint_above(SimTK::Vec3(0, kLength, 0));
    SimTK::MobilizedBody parent = matter_.Ground();
    for (int k = 0; k < links; ++k) {
      SimTK::MobilizedBody::Pin pin(parent, SimTK::Transform(), body, joint_above);
      SimTK::Force::MobilityLinearDamper(forces_, pin, SimTK::MobilizerUIndex(0), kFriction);
      pin.setDefaultAngle(k == 0 ? kTheta0 : 0.0);
      links_.push_back(pin);
      parent = pin;
    }
    SimTK::Force::Gravity(forces_, matter_, SimTK::Vec3(0, -kGravity, 0));
    state_ = system_.realizeTopology();
    system_.realizeModel(state_);
    links_.front().setRate(state_, kOmega0);  // Pin has a default angle but no default rate
    state_.setTime(0.0);
  }

  SimTK::MultibodySystem& system() { return system_; }
  SimTK::State& state() { return state_; }
  int nq() const { return state_.getNQ(); }

  /// ẏ(t, y) of the current state (realizes Acceleration).
  const SimTK::Vector& derivative() {
    system_.realize(state_, SimTK::Stage::Acceleration);
    return state_.getYDot();
  }

  /// One classical RK4 step of size h from the current state: four derivative evaluations,
  /// y1 = y0 + h/6 (k1 + 2 k2 + 2 k3 + k4).
  void rk4_step(double h) {
    const double t0 = state_.getTime();
    const int ny = state_.getNY();
    y0_ = state_.getY();
    sum_.resize(ny);
    // Evaluates k = ẏ at the current state, adds weight·k to sum_, then moves the state to
    // (t0 + c h, y0 + c h k) for the next stage.
    const auto stage = [&](double weight, double c, bool first) {
      const SimTK::Vector& k = derivative();
      for (int i = 0; i < ny; ++i) sum_[i] = (first ? 0.0 : sum_[i]) + weight * k[i];
      if (c == 0.0) return;
      stage_y_.resize(ny);
      for (int i = 0; i < ny; ++i) stage_y_[i] = y0_[i] + c * h * k[i];
      state_.setTime(t0 + c * h);
      state_.updY() = stage_y_;  // invalidates the Position stage and every later one
    };
    stage(1.0, 0.5, true);    // k1 at (t0, y0)
    stage(2.0, 0.5, false);   // k2 at (t0 + h/2, y0 + h/2 k1)
    stage(2.0, 1.0, false);   // k3 at (t0 + h/2, y0 + h/2 k2)
    stage(1.0, 0.0, false);   // k4 at (t0 + h, y0 + h k3)
    for (int i = 0; i < ny; ++i) stage_y_[i] = y0_[i] + h / 6.0 * sum_[i];
    state_.setTime(t0 + h);
    state_.updY() = stage_y_;
  }

  /// Absolute link angles θ_k = Σ_(j≤k) φ_j.
  std::vector<double> angles() const {
    std::vector<double> theta;
    double sum = 0.0;
    for (const auto& pin : links_) {
      sum += pin.getAngle(state_);
      theta.push_back(sum);
    }
    return theta;
  }
  SimTK::Vec3 tip() {
    system_.realize(state_, SimTK::Stage::Position);
    return links_.back().getBodyOriginLocation(state_);
  }
  double energy() {
    system_.realize(state_, SimTK::Stage::Dynamics);
    return system_.calcEnergy(state_);
  }

 private:
  SimTK::MultibodySystem system_;
  SimTK::SimbodyMatterSubsystem matter_;
  SimTK::GeneralForceSubsystem forces_;
  std::vector<SimTK::MobilizedBody::Pin> links_;
  SimTK::State state_;
  SimTK::Vector y0_, sum_, stage_y_;  // RK4 work vectors
};

void BM_SimbodyRhs(benchmark::State& state) {
  PinChain chain(static_cast<int>(state.range(0)));
  SimTK::State& s = chain.state();
  chain.system().realize(s, SimTK::Stage::Acceleration);
  s.updQ();
  if (s.getSystemStage() >= SimTK::Stage::Position) {
    state.SkipWithError("updQ() left the Position stage valid: realize() would do no work");
    return;
  }
  for (auto _ : state) {
    s.updQ();  // marks Position and every later stage invalid: the next realize redoes them all
    chain.system().realize(s, SimTK::Stage::Acceleration);
    benchmark::DoNotOptimize(s.getUDot()[0]);
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["nq"] = chain.nq();
}

void BM_SimbodyRk4Step(benchmark::State& state) {
  PinChain chain(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    chain.rk4_step(kDt);
    benchmark::DoNotOptimize(chain.state().getY()[0]);
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["nq"] = chain.nq();
}

void BM_SimbodyMersonFixedStep(benchmark::State& state) {
  PinChain chain(static_cast<int>(state.range(0)));
  SimTK::RungeKuttaMersonIntegrator integrator(chain.system());
  integrator.setFixedStepSize(kDt);
  integrator.initialize(chain.state());
  integrator.stepTo(kDt);  // the first call only reports StartOfContinuousInterval
  long step = 0;
  const int steps0 = integrator.getNumStepsTaken();
  const int realizations0 = integrator.getNumRealizations();
  for (auto _ : state) {
    integrator.stepTo(static_cast<double>(++step) * kDt);
    benchmark::DoNotOptimize(integrator.getState().getY()[0]);
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["nq"] = chain.nq();
  // Checks of the fixed step: steps and acceleration realizations per benchmark iteration.
  const auto iterations = static_cast<double>(state.iterations());
  state.counters["steps_per_iter"] = (integrator.getNumStepsTaken() - steps0) / iterations;
  state.counters["realize_per_iter"] =
      (integrator.getNumRealizations() - realizations0) / iterations;
}

void link_counts(benchmark::internal::Benchmark* b) {
  for (int n : {3, 10, 20, 50, 100, 200}) b->Arg(n);
}
BENCHMARK(BM_SimbodyRhs)->Apply(link_counts);
BENCHMARK(BM_SimbodyRk4Step)->Apply(link_counts);
BENCHMARK(BM_SimbodyMersonFixedStep)->Apply(link_counts);

// ---- trajectory check ---------------------------------------------------------------------------

struct TrajectoryOptions {
  std::vector<int> links{3, 10, 20, 50, 100, 200};
  double end = 1.0;
  double dt = kDt;
  std::string method = "rk4";
  double accuracy = 1e-12;
  bool all_angles = false;
};

bool starts_with(const std::string& s, const char* prefix, std::string& rest) {
  const std::string p(prefix);
  if (s.compare(0, p.size(), p) != 0) return false;
  rest = s.substr(p.size());
  return true;
}

int run_trajectory(const TrajectoryOptions& o) {
  if (o.method == "rk4") {
    std::printf("# Simbody pin chain, t = 0 .. %g s, own RK4 at dt = %g s\n", o.end, o.dt);
  } else {
    std::printf("# Simbody pin chain, t = 0 .. %g s, RungeKuttaMerson at accuracy %g\n", o.end,
                o.accuracy);
  }
  std::printf("%5s %22s %22s %22s %22s %22s\n", "n", "theta_1", "theta_n", "tip_x", "tip_y",
              "energy");
  for (int n : o.links) {
    PinChain chain(n);
    const double e0 = chain.energy();
    if (o.method == "rk4") {
      const auto steps = static_cast<long>(std::llround(o.end / o.dt));
      for (long k = 0; k < steps; ++k) chain.rk4_step(o.dt);
    } else if (o.method == "merson") {
      SimTK::RungeKuttaMersonIntegrator integrator(chain.system());
      integrator.setAccuracy(o.accuracy);
      integrator.setAllowInterpolation(false);
      integrator.initialize(chain.state());
      // The first stepTo() only reports StartOfContinuousInterval.
      while (integrator.getTime() < o.end) integrator.stepTo(o.end);
      chain.state() = integrator.getState();
    } else {
      std::fprintf(stderr, "--method: expected rk4 or merson, got %s\n", o.method.c_str());
      return 2;
    }
    const std::vector<double> theta = chain.angles();
    const SimTK::Vec3 tip = chain.tip();
    std::printf("%5d %22.15e %22.15e %22.15e %22.15e %22.15e\n", n, theta.front(), theta.back(),
                tip[0], tip[1], chain.energy());
    std::printf("#     t = %.17g, initial energy %.15e\n", chain.state().getTime(), e0);
    if (o.all_angles) {
      for (size_t k = 0; k < theta.size(); ++k) {
        std::printf("#     theta%zu = %.15e\n", k + 1, theta[k]);
      }
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  bool trajectory = false;
  TrajectoryOptions options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    std::string value;
    if (arg == "--trajectory") {
      trajectory = true;
    } else if (arg == "--angles") {
      options.all_angles = true;
    } else if (starts_with(arg, "--links=", value)) {
      options.links.clear();
      std::stringstream list(value);
      std::string item;
      while (std::getline(list, item, ',')) options.links.push_back(std::stoi(item));
    } else if (starts_with(arg, "--end=", value)) {
      options.end = std::stod(value);
    } else if (starts_with(arg, "--dt=", value)) {
      options.dt = std::stod(value);
    } else if (starts_with(arg, "--method=", value)) {
      options.method = value;
    } else if (starts_with(arg, "--accuracy=", value)) {
      options.accuracy = std::stod(value);
    }
  }
  if (trajectory) return run_trajectory(options);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
