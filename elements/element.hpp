// The Element interface the assembly sums over (constraint rows, applied forces, potential,
// tangent matrices), and the AD adapters that derive all of them from one templated function.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "core/dual.hpp"
#include "core/errors.hpp"

namespace gmbd::elements {

/// Largest number of local coordinates an element may touch (+1 for time inside the AD).
inline constexpr int kMaxLocalCoordinates = 18;
/// Largest number of constraint rows one element may have.
inline constexpr int kMaxElementRows = 6;

/// An element touches a few coordinates of the assembled model (its "local" coordinates, in
/// the order coordinates() lists their global indices). Every evaluation reads local arrays
/// and writes local outputs; the assembly gathers and scatters. No evaluation allocates.
/// Matrices are row-major with leading dimension n = coordinates().size().
class Element {
 public:
  explicit Element(std::string name) : name_(std::move(name)) {}
  virtual ~Element() = default;
  Element(const Element&) = delete;
  Element& operator=(const Element&) = delete;

  const std::string& name() const { return name_; }
  /// Registry type name (e.g. "distance").
  virtual const char* type() const = 0;
  const std::vector<int>& coordinates() const { return coordinates_; }
  int local_size() const { return static_cast<int>(coordinates_.size()); }

  // ---- constraint rows ------------------------------------------------------------------------
  /// Names of the holonomic rows (suffixes; "" for a single row named after the element).
  virtual std::vector<std::string> holonomic_rows() const { return {}; }
  virtual std::vector<std::string> nonholonomic_rows() const { return {}; }
  int n_holonomic() const { return static_cast<int>(holonomic_rows().size()); }
  int n_nonholonomic() const { return static_cast<int>(nonholonomic_rows().size()); }
  /// g(t, q) (rows); G = ∂g/∂q (rows × n) and ∂g/∂t (rows); b = −(d²/ds² g(t+s, q+s v)).
  virtual void holonomic(double /*t*/, const double* /*q*/, double* /*g*/) const {}
  virtual void holonomic_jacobian(double /*t*/, const double* /*q*/, double* /*G*/,
                                  double* /*gt*/) const {}
  virtual void holonomic_bias(double /*t*/, const double* /*q*/, const double* /*v*/,
                              double* /*b*/) const {}
  /// Local coordinates each constraint row depends on (holonomic rows, then non-holonomic), for
  /// the KKT sparsity pattern: G and H are exactly zero outside them at every state. Empty (the
  /// default): every row may depend on every local coordinate. A rolling ball declares its rows
  /// so that the KKT solve sees each ball's block as triangular (docs/theory.md §1.4).
  virtual std::vector<std::vector<int>> row_coordinates() const { return {}; }
  /// True when the rows depend on t explicitly (∂g/∂t ≠ 0); otherwise g_t is not evaluated.
  virtual bool time_dependent_rows() const { return false; }
  /// Σ_i λ_i ∇²g_i (n × n, added into H).
  virtual void add_constraint_curvature(double /*t*/, const double* /*q*/,
                                        const double* /*lambda*/, double* /*H*/) const {}
  /// Tangents of the velocity-level row ġ = G v + g_t and of the bias b at a moving state
  /// (linearisation about a transient): adds ∂ġ/∂q, ∂b/∂q and ∂b/∂v (rows × n, row-major).
  /// Elements with holonomic rows that do not override this cannot be linearised in motion.
  virtual void add_bias_tangents(double /*t*/, const double* /*q*/, const double* /*v*/,
                                 double* /*dgdot_dq*/, double* /*dbdq*/, double* /*dbdv*/) const {
    if (n_holonomic() > 0)
      throw InputError("element '" + name_ + "' (" + type() +
                       "): no exact bias tangents, so it cannot be linearised at a moving state");
  }
  /// The rows' terms of the acceleration solve in one call: G and b of the holonomic rows (when
  /// G is not null) and H and b of the non-holonomic rows (when H is not null). The default
  /// calls the separate functions; elements whose rows share work (one sin/cos of a carrier
  /// angle for G and b) override it.
  virtual void constraint_terms(double t, const double* q, const double* v, double* G, double* bh,
                                double* H, double* bn) const {
    if (G) {
      holonomic_jacobian(t, q, G, nullptr);
      holonomic_bias(t, q, v, bh);
    }
    if (H) {
      nonholonomic_jacobian(t, q, H);
      nonholonomic_bias(t, q, v, bn);
    }
  }
  /// h(t, q, v) = H(t, q) v + h₀(t, q); H = ∂h/∂v; b = −(∂h/∂q v + ∂h/∂t).
  virtual void nonholonomic(double /*t*/, const double* /*q*/, const double* /*v*/,
                            double* /*h*/) const {}
  virtual void nonholonomic_jacobian(double /*t*/, const double* /*q*/, double* /*H*/) const {}
  virtual void nonholonomic_bias(double /*t*/, const double* /*q*/, const double* /*v*/,
                                 double* /*b*/) const {}
  /// True when add_nonholonomic_tangents() is exact for this element (trivially without rows).
  virtual bool has_nonholonomic_tangents() const { return n_nonholonomic() == 0; }
  /// Adds ∂h/∂q (rows × n, row-major) and ∂(Hᵀλ)/∂q (n × n) for the rows' multipliers λ.
  virtual void add_nonholonomic_tangents(double /*t*/, const double* /*q*/, const double* /*v*/,
                                         const double* /*lambda*/, double* /*dhdq*/,
                                         double* /*dHtl_dq*/) const {}

  // ---- applied forces -----------------------------------------------------------------------
  /// Adds the generalised applied force f(t, q, v) (n).
  virtual void add_forces(double /*t*/, const double* /*q*/, const double* /*v*/,
                          double* /*f*/) const {}
  /// Adds ∂f/∂q and ∂f/∂v (n × n each).
  virtual void add_force_tangents(double /*t*/, const double* /*q*/, const double* /*v*/,
                                  double* /*dfdq*/, double* /*dfdv*/) const {}
  /// Elements with non-mechanical states (a voice coil's current): their global state
  /// indices, the state-dependent part of the force and the state rates ż = φ(t, q, v, z).
  const std::vector<int>& states() const { return states_; }
  virtual void add_state_forces(double /*t*/, const double* /*q*/, const double* /*v*/,
                                const double* /*z*/, double* /*f*/) const {}
  virtual void state_rates(double /*t*/, const double* /*q*/, const double* /*v*/,
                           const double* /*z*/, double* /*zdot*/) const {}
  /// Potential energy V(t, q) of the conservative part (0 if none).
  virtual double potential(double /*t*/, const double* /*q*/) const { return 0.0; }
  /// Adds ∂²V/∂q² (n × n) of that potential.
  virtual void add_potential_hessian(double /*t*/, const double* /*q*/, double* /*H*/) const {}
  /// True when the element dissipates or injects energy (damping, time-dependent forcing).
  virtual bool non_conservative() const { return false; }
  /// True for elastic elements, which hold massless coordinates (floats) in place.
  virtual bool holds_coordinates() const { return false; }

  // ---- linear analysis (docs/linear-analysis.md) ---------------------------------------------
  /// Exact tangents of the state part of the element (states() non-empty): adds ∂f_state/∂q
  /// (n × n), ∂f/∂z (n × nz_e), ∂ż/∂q (nz_e × n), ∂ż/∂v (nz_e × n) and ∂ż/∂z (nz_e × nz_e), all
  /// row-major. An element with states that does not override this cannot be linearised.
  /// True when add_state_tangents() is exact for this element's states (trivially without).
  virtual bool has_state_tangents() const { return states_.empty(); }
  virtual void add_state_tangents(double /*t*/, const double* /*q*/, const double* /*v*/,
                                  const double* /*z*/, double* /*dfdq*/, double* /*dfdz*/,
                                  double* /*dzdq*/, double* /*dzdv*/, double* /*dzdz*/) const {
    if (!states_.empty())
      throw InputError("element '" + name_ + "' (" + type() +
                       "): its states have no exact tangents, so it cannot be linearised");
  }
  /// Names of the inputs a linear analysis may drive through this element (a voice coil's
  /// "voltage" or "current"); the model input is "<element>.<name>".
  virtual std::vector<std::string> linear_inputs() const { return {}; }
  /// Column k of the input matrices: adds ∂f/∂u_k (n) and ∂ż/∂u_k (nz_e).
  virtual void add_input_column(int /*k*/, double /*t*/, const double* /*q*/, double* /*df*/,
                                double* /*dz*/) const {}

  /// Components k of the element's kinematic measure (a force element's length, stretch,
  /// relative pose); 0 when it has none. Linear outputs "measure:<element>" and
  /// "element_force:<element>" (wire tensions) use the two functions below.
  virtual int measure_size() const { return 0; }
  /// At (t, q, v): the measure s (k), J_s = ∂s/∂q (k × n, row-major), the force law F (k) and
  /// its derivatives ∂F/∂s, ∂F/∂ṡ (k × k).
  virtual void measure_tangents(double /*t*/, const double* /*q*/, const double* /*v*/,
                                double* /*s*/, double* /*J*/, double* /*F*/, double* /*Fs*/,
                                double* /*Fsd*/) const {}

  // ---- losses: damping tags and dissipation dilution (docs/suspensions.md §4) ---------------
  /// The damping tag of the element's potential term ("" = untagged: lossless, α = 1).
  const std::string& loss_tag() const { return loss_tag_; }
  void set_loss_tag(std::string tag) { loss_tag_ = std::move(tag); }
  /// True when the element can carry a damping tag (it knows its tension-off stiffness).
  virtual bool supports_loss_tag() const { return false; }
  /// Adds the tension-off stiffness at q (n × n): the stiffness with every static force the
  /// element carries removed — the part that strains lossy material. The rest of the element's
  /// stiffness (a static force turning through a changing geometry) is lossless.
  virtual void add_tension_off_stiffness(double /*t*/, const double* /*q*/, double* /*K*/) const {}

  // ---- wire flexure terms (docs/suspensions.md §2.3, §5) -----------------------------------
  /// 0 for ordinary elements; 1 torsion (Stage 1A), 2 bending strain (1B), 3 tension work (2).
  virtual int flexure_stage() const { return 0; }
  /// Flexure terms hold the wire's tension and length at an operating point fixed, and relaxed
  /// attachment tangents are the chord there: prepare() reads them at q (local). Before the
  /// equilibrium (after_equilibrium = false) only terms with given tangents act. Returns the
  /// relative change of the tension since the last call (for the fixed-point loop). The data are
  /// mutable: call it only while nothing evaluates the model concurrently.
  virtual double prepare(double /*t*/, const double* /*q*/, bool /*after_equilibrium*/) const { return 0.0; }

  // ---- state correction -------------------------------------------------------------------
  /// Local indices of coordinates whose *rates* this element's non-holonomic rows determine
  /// (they are dependent at velocity level even when independent at position level: a rolling
  /// ball's centre rates follow from the platform's). Default: none.
  virtual std::vector<int> rate_dependent_coordinates() const { return {}; }
  /// Closed-form correction of this element's dependent coordinates and rates from the others
  /// (local arrays, modified in place). Returns false when the element has none; the assembly
  /// uses explicit correction only when every constraint element has one.
  virtual bool explicit_correction(double /*t*/, double* /*q*/, double* /*v*/) const {
    return false;
  }
  virtual bool has_explicit_correction() const { return false; }

 protected:
  static double relative_change(double before, double after) {
    const double scale = std::max(std::abs(after), std::abs(before));
    return scale > 0.0 ? std::abs(after - before) / scale : 0.0;
  }
  void set_coordinates(std::vector<int> global_indices) {
    if (static_cast<int>(global_indices.size()) + 1 > kMaxLocalCoordinates)
      throw InputError("element '" + name_ + "': touches " +
                       std::to_string(global_indices.size()) + " coordinates; at most " +
                       std::to_string(kMaxLocalCoordinates - 1) + " are supported");
    coordinates_ = std::move(global_indices);
  }
  void set_states(std::vector<int> global_indices) { states_ = std::move(global_indices); }

 private:
  std::string name_;
  std::string loss_tag_;
  std::vector<int> coordinates_;
  std::vector<int> states_;
};

// ---- AD dispatch ------------------------------------------------------------------------------
/// Calls f.template operator()<N>() with the smallest supported fixed derivative count N ≥ n.
/// The cost of every dual operation is proportional to N, so the sizes follow the common element
/// shapes: 4 (two 2-D points), 6 (two planar bodies), 9 (an RIS ball with its platform), 13 (two
/// spatial bodies, + time), 18 (the maximum). Measured in bench/bench_elements.cpp (even sizes
/// 10 and 12 instead of 9 and 13 made no measurable difference).
template <class F>
void with_dual_size(int n, F&& f) {
  if (n <= 4) {
    f.template operator()<4>();
  } else if (n <= 6) {
    f.template operator()<6>();
  } else if (n <= 9) {
    f.template operator()<9>();
  } else if (n <= 13) {
    f.template operator()<13>();
  } else {
    f.template operator()<kMaxLocalCoordinates>();
  }
}

/// Seeds second-order duals (Dual<Dual<double, N>, N>) so that a function of q evaluated on
/// them carries its gradient (.v.d) and Hessian (.d[i].d[j]).
template <class D2>
void seed_second_order(const double* q, int n, D2* qd) {
  using D1 = decltype(D2{}.v);
  for (int i = 0; i < n; ++i) {
    qd[i] = D2(D1::variable(q[i], i));
    qd[i].d[static_cast<size_t>(i)] = D1(1.0);
  }
}

/// Whether an element's function depends on time explicitly (Derived::kTimeDependent, default
/// false). Time-independent elements skip the time derivative (one dual slot fewer).
template <class Derived>
constexpr bool time_dependent() {
  if constexpr (requires { Derived::kTimeDependent; })
    return Derived::kTimeDependent;
  else
    return false;
}

/// Holonomic constraint written once: Derived provides
///   static constexpr int kRows;  template <class T> void constraint(const T& t, const T* q, T* g) const;
/// and this adapter derives g, G, g_t (first-order duals over (q, t)), the acceleration bias
/// (second directional derivative along (1, v) with a nested dual) and Σ λ ∇²g (dual of duals).
template <class Derived>
class HolonomicElement : public Element {
 public:
  using Element::Element;

  void holonomic(double t, const double* q, double* g) const override {
    self().constraint(t, q, g);
  }
  bool time_dependent_rows() const override { return time_dependent<Derived>(); }

  void holonomic_jacobian(double t, const double* q, double* G, double* gt) const override {
    const int n = local_size();
    constexpr bool timed = time_dependent<Derived>();
    with_dual_size(timed ? n + 1 : n, [&]<int N>() {
      using D = Dual<double, N>;
      // N ≥ n: only what the element uses (zero-initialised); at least 7 so that code paths for
      // spatial and quaternion carriers, never taken with a small N, still index inside the array.
      D qd[N < 7 ? 7 : N];
      for (int i = 0; i < n; ++i) {
        qd[i].v = q[i];
        qd[i].d[static_cast<size_t>(i)] = 1.0;
      }
      const D td = timed ? D::variable(t, n) : D(t);
      D g[Derived::kRows];
      self().constraint(td, qd, g);
      for (int r = 0; r < Derived::kRows; ++r) {
        for (int i = 0; i < n; ++i) G[r * n + i] = g[r].d[static_cast<size_t>(i)];
        if (gt) gt[r] = timed ? g[r].d[static_cast<size_t>(n)] : 0.0;
      }
    });
  }

  /// b = −d²/ds² g(t + s, q + s v) at s = 0 = −(vᵀ∇²g v + 2 ∂G/∂t v + g_tt).
  void holonomic_bias(double t, const double* q, const double* v, double* b) const override {
    using D1 = Dual<double, 1>;
    using D2 = Dual<D1, 1>;
    const int n = local_size();
    D2 qd[kMaxLocalCoordinates];
    for (int i = 0; i < n; ++i) qd[i] = seed_along(q[i], v[i]);
    const D2 td = seed_along(t, 1.0);
    D2 g[Derived::kRows];
    self().constraint(td, qd, g);
    for (int r = 0; r < Derived::kRows; ++r) b[r] = -g[r].d[0].d[0];
  }

  /// Third-order duals: an outer dual over q (or v) around the hyper-dual of the bias, so that
  /// ∂/∂q_j of g, dg/ds and d²g/ds² along (1, v) come out of one evaluation per direction set.
  void add_bias_tangents(double t, const double* q, const double* v, double* dgdot_dq,
                         double* dbdq, double* dbdv) const override {
    const int n = local_size();
    with_dual_size(n, [&]<int N>() {
      using D2 = Dual<Dual<double, 1>, 1>;
      using D3 = Dual<D2, N>;
      for (int pass = 0; pass < 2; ++pass) {  // 0: ∂/∂q, 1: ∂/∂v
        D3 qd[kMaxLocalCoordinates];
        for (int i = 0; i < n; ++i) {
          qd[i] = D3(seed_along(q[i], v[i]));
          D2 unit;  // ∂(q_i + s v_i)/∂q_i = 1; ∂/∂v_i = s (first-order parts only)
          if (pass == 0) {
            unit.v.v = 1.0;
          } else {
            unit.v.d[0] = 1.0;
            unit.d[0].v = 1.0;
          }
          qd[i].d[static_cast<size_t>(i)] = unit;
        }
        D3 g[Derived::kRows];
        self().constraint(D3(seed_along(t, 1.0)), qd, g);
        for (int r = 0; r < Derived::kRows; ++r)
          for (int j = 0; j < n; ++j) {
            const D2& d = g[r].d[static_cast<size_t>(j)];
            if (pass == 0) {
              dgdot_dq[r * n + j] += d.v.d[0];
              dbdq[r * n + j] -= d.d[0].d[0];
            } else {
              dbdv[r * n + j] -= d.d[0].d[0];
            }
          }
      }
    });
  }

  void add_constraint_curvature(double t, const double* q, const double* lambda,
                                double* H) const override {
    const int n = local_size();
    with_dual_size(n, [&]<int N>() {
      using D1 = Dual<double, N>;
      using D2 = Dual<D1, N>;
      D2 qd[kMaxLocalCoordinates];
      seed_second_order(q, n, qd);
      D2 g[Derived::kRows];
      self().constraint(D2(t), qd, g);
      for (int r = 0; r < Derived::kRows; ++r)
        for (int i = 0; i < n; ++i)
          for (int j = 0; j < n; ++j)
            H[i * n + j] += lambda[r] * g[r].d[static_cast<size_t>(i)].d[static_cast<size_t>(j)];
    });
  }

 protected:
  /// x + s·ẋ + s·ẋ in a hyper-dual: both first-order parts carry the direction, so the mixed
  /// part holds the second derivative along it.
  static Dual<Dual<double, 1>, 1> seed_along(double x, double xdot) {
    Dual<Dual<double, 1>, 1> r;
    r.v.v = x;
    r.v.d[0] = xdot;
    r.d[0].v = xdot;
    return r;
  }

 private:
  const Derived& self() const { return static_cast<const Derived&>(*this); }
};

/// Force element written as a kinematic measure s(t, q) ∈ R^k (a length, a point position,
/// a coordinate, a relative pose) and a force law F(t, s, ṡ) ∈ R^k acting against it:
///   f = −J_sᵀ F,  J_s = ∂s/∂q,  ṡ = J_s v + ∂s/∂t,   V = potential(s) for the conservative part.
/// Derived provides
///   static constexpr int kMeasure;
///   template <class T> void measure(const T& t, const T* q, T* s) const;
///   void law(double t, const double* s, const double* sdot, double* F) const;
///   void law_derivatives(double t, const double* s, const double* sdot, double* dF_ds,
///                        double* dF_dsdot) const;   // k × k row-major
///   template <class T> T law_potential(const T* s) const;   // V(s), differentiable
/// Tangents: ∂f/∂q = −J_sᵀ (F_s J_s + F_ṡ ∂ṡ/∂q) − Σ_k F_k ∇²s_k with ∂ṡ/∂q = Σ_j ∇²s (v);
/// ∂f/∂v = −J_sᵀ F_ṡ J_s. The measure is differentiated by AD; the law (a few lines) by hand.
template <class Derived>
class MeasureForceElement : public Element {
 public:
  using Element::Element;
  static constexpr int kMaxMeasure = 6;

  void add_forces(double t, const double* q, const double* v, double* f) const override {
    const int n = local_size();
    constexpr int k = Derived::kMeasure;
    double sv[k], J[k * kMaxLocalCoordinates], sdot[k], F[k];
    first_order_measure(t, q, v, sv, J, sdot);
    self().law(t, sv, sdot, F);
    for (int m = 0; m < k; ++m)
      for (int i = 0; i < n; ++i) f[i] -= J[m * n + i] * F[m];
  }

  void add_force_tangents(double t, const double* q, const double* v, double* dfdq,
                          double* dfdv) const override {
    const int n = local_size();
    constexpr int k = Derived::kMeasure;
    constexpr bool timed = time_dependent<Derived>();
    with_dual_size(timed ? n + 1 : n, [&]<int N>() {
      using D1 = Dual<double, N>;
      using D2 = Dual<D1, N>;
      // Second-order duals over q (and t when the measure depends on it: one slot fewer
      // otherwise, the cost grows as the square of the slots): s, J_s, ∂s/∂t and ∇²s in one pass.
      D2 qd[kMaxLocalCoordinates];
      seed_second_order(q, n, qd);
      D2 td(timed ? D1::variable(t, n) : D1(t));
      if constexpr (timed) td.d[static_cast<size_t>(n)] = D1(1.0);
      D2 s[k];
      self().measure(td, qd, s);
      double sv[k], sdot[k], F[k], Fs[k * k], Fsd[k * k];
      double J[k][kMaxLocalCoordinates] = {}, dsdot_dq[k][kMaxLocalCoordinates] = {};
      for (int m = 0; m < k; ++m) {
        sv[m] = s[m].v.v;
        sdot[m] = timed ? s[m].v.d[static_cast<size_t>(n)] : 0.0;
        for (int i = 0; i < n; ++i) {
          J[m][i] = s[m].v.d[static_cast<size_t>(i)];
          sdot[m] += J[m][i] * v[i];
          // ∂ṡ/∂q_i = Σ_j ∂²s/∂q_i∂q_j v_j + ∂²s/∂q_i∂t
          double acc = timed ? s[m].d[static_cast<size_t>(i)].d[static_cast<size_t>(n)] : 0.0;
          for (int j = 0; j < n; ++j)
            acc += s[m].d[static_cast<size_t>(i)].d[static_cast<size_t>(j)] * v[j];
          dsdot_dq[m][i] = acc;
        }
      }
      self().law(t, sv, sdot, F);
      self().law_derivatives(t, sv, sdot, Fs, Fsd);
      for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
          double dq = 0.0, dv = 0.0;
          for (int a = 0; a < k; ++a) {
            double inner_q = 0.0, inner_v = 0.0;
            for (int b = 0; b < k; ++b) {
              inner_q += Fs[a * k + b] * J[b][j] + Fsd[a * k + b] * dsdot_dq[b][j];
              inner_v += Fsd[a * k + b] * J[b][j];
            }
            dq += J[a][i] * inner_q +
                  F[a] * s[a].d[static_cast<size_t>(i)].d[static_cast<size_t>(j)];
            dv += J[a][i] * inner_v;
          }
          dfdq[i * n + j] -= dq;
          dfdv[i * n + j] -= dv;
        }
      }
    });
  }

  int measure_size() const override { return Derived::kMeasure; }

  /// Elastic elements carry tags (a pure force or damper has no stiffness to make lossy).
  bool supports_loss_tag() const override { return holds_coordinates(); }
  /// K_off = J_sᵀ (∂F/∂s)_lossy J_s: the material stiffness of the law; the geometric part
  /// Σ F_k ∇²s_k of a loaded element is lossless. Derived may declare which part of ∂F/∂s
  /// strains lossy material by `void lossy_law_derivatives(const double* s, double* dF_ds)`
  /// (a wire's torsion: G J_e / l of (T J/A + G J_e)/l); by default all of it.
  void add_tension_off_stiffness(double t, const double* q, double* K) const override {
    const int n = local_size();
    constexpr int k = Derived::kMeasure;
    const double zero[kMaxLocalCoordinates] = {};
    double sv[k], J[k * kMaxLocalCoordinates], sdot[k], Fs[k * k], Fsd[k * k];
    first_order_measure(t, q, zero, sv, J, sdot);  // v = 0: a static operating point
    if constexpr (requires { self().lossy_law_derivatives(sv, Fs); }) {
      self().lossy_law_derivatives(sv, Fs);
    } else {
      self().law_derivatives(t, sv, zero, Fs, Fsd);
    }
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        double acc = 0.0;
        for (int a = 0; a < k; ++a)
          for (int b = 0; b < k; ++b) acc += J[a * n + i] * Fs[a * k + b] * J[b * n + j];
        K[i * n + j] += acc;
      }
  }

  void measure_tangents(double t, const double* q, const double* v, double* s, double* J,
                        double* F, double* Fs, double* Fsd) const override {
    double sdot[Derived::kMeasure];
    first_order_measure(t, q, v, s, J, sdot);
    self().law(t, s, sdot, F);
    self().law_derivatives(t, s, sdot, Fs, Fsd);
  }

  /// s, J_s = ∂s/∂q (k × n, row-major) and ṡ = J_s v + ∂s/∂t at (t, q, v), by first-order duals
  /// over (q, t) (t only for time-dependent measures).
  void first_order_measure(double t, const double* q, const double* v, double* s, double* J,
                           double* sdot) const {
    const int n = local_size();
    constexpr int k = Derived::kMeasure;
    constexpr bool timed = time_dependent<Derived>();
    with_dual_size(timed ? n + 1 : n, [&]<int N>() {
      using D = Dual<double, N>;
      D qd[N < 7 ? 7 : N];
      for (int i = 0; i < n; ++i) qd[i] = D::variable(q[i], i);
      D sd[k];
      self().measure(timed ? D::variable(t, n) : D(t), qd, sd);
      for (int m = 0; m < k; ++m) {
        s[m] = sd[m].v;
        sdot[m] = timed ? sd[m].d[static_cast<size_t>(n)] : 0.0;
        for (int i = 0; i < n; ++i) {
          J[m * n + i] = sd[m].d[static_cast<size_t>(i)];
          sdot[m] += J[m * n + i] * v[i];
        }
      }
    });
  }

  double potential(double t, const double* q) const override {
    double s[Derived::kMeasure];
    self().measure(t, q, s);
    return self().law_potential(s);
  }

  /// ∂²V(s(q))/∂q² by second-order duals through the measure and the potential.
  void add_potential_hessian(double t, const double* q, double* H) const override {
    const int n = local_size();
    with_dual_size(n, [&]<int N>() {
      using D1 = Dual<double, N>;
      using D2 = Dual<D1, N>;
      D2 qd[N < 7 ? 7 : N];
      seed_second_order(q, n, qd);
      D2 s[Derived::kMeasure];
      self().measure(D2(t), qd, s);
      const D2 v = self().law_potential(s);
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) H[i * n + j] += v.d[static_cast<size_t>(i)].d[static_cast<size_t>(j)];
    });
  }

 private:
  const Derived& self() const { return static_cast<const Derived&>(*this); }
};

}  // namespace gmbd::elements
