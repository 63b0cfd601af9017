// AssembledModel: a gmbd::Model built from bodies, points and elements. It gathers each
// element's coordinates, sums its contributions into M, f, g, G, biases and tangents, and scatters.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/model.hpp"
#include "core/signal.hpp"
#include "elements/declared_outputs.hpp"
#include "elements/element.hpp"
#include "elements/point.hpp"

namespace gmbd::elements {

/// The stiffness of the potential terms carrying one damping tag, over all coordinates:
/// `on` = their stiffness at the operating point, `off` = the same with every static force
/// removed (tension off; docs/suspensions.md §4).
struct TagStiffness {
  std::string tag;
  Mat on, off;
};

/// Build in two phases: bodies, points and float coordinates first (they define the
/// coordinates), then elements (which bind to them); finalize() freezes the model and checks
/// that every massless coordinate is held by a constraint or an elastic element.
///
/// Coordinates: each body's in body order ("<body>.x", "<body>.theta", …), then float
/// coordinates (sliding points: "<point>.s"). Constraint rows: element order, named
/// "<element>" or "<element>.<row>"; a quaternion body adds its unit row "<body>.unit" (an
/// internal QuaternionNorm element, elements/quaternion_norm.hpp) when it is added, so these
/// rows come first. A moving ground is represented by writing every coordinate
/// relative to it: a ground acceleration a_g(t) acts as the uniform inertial field −m a_g on
/// every body (exactly how the catalogue's RIS and pendulum models treat floor motion).
class AssembledModel final : public Model {
 public:
  explicit AssembledModel(std::string type_name, int dimension);

  // ---- phase 1: coordinates ---------------------------------------------------------------
  /// Adds the body's coordinates (and, for a quaternion body, its unit row).
  int add_body(Body body);
  /// A sliding coordinate (massless float) carried by point `point_name`.
  int add_float_coordinate(const std::string& point_name);
  int add_point(PointDef point);
  /// A coordinate owned by an element (e.g. a rolling ball's xb, yb, r, …): created before the
  /// elements, named "<element>.<suffix>". Massless; the element's rows must hold it.
  int add_element_coordinate(const std::string& element_name, const std::string& suffix,
                             const std::string& unit);
  /// A non-mechanical state owned by an element (a voice coil's current), "<element>.<suffix>".
  int add_element_state(const std::string& element_name, const std::string& suffix,
                        const std::string& unit);
  /// Before any element: elements bind ground points to this pose when they are added.
  void set_ground(Ground ground) {
    require_building("set_ground");
    if (elements_started()) throw std::logic_error("AssembledModel::set_ground: must precede elements");
    ground_ = ground;
  }
  /// Uniform gravity g (world axes, m/s²): f = m g on every body, V = −m g·r. Adds to any
  /// gravity set before (several `gravity` elements sum).
  void add_gravity(Vec3<double> g) { gravity_ = gravity_ + g; }
  const Vec3<double>& gravity() const { return gravity_; }
  /// Uniform inertial field from a ground acceleration: component k of a_g(t) is signals[k]
  /// (nullptr = 0).
  void set_ground_acceleration(std::shared_ptr<const Signal> ax, std::shared_ptr<const Signal> ay,
                               std::shared_ptr<const Signal> az);

  // ---- phase 2: elements -------------------------------------------------------------------
  void add_element(std::unique_ptr<Element> element);
  /// Per-coordinate DSC weights (0 = independent) by coordinate name.
  void set_independent(const std::vector<std::string>& coordinate_names);
  void record(const std::string& name, double value) { record_parameter(name, value); }
  /// Freezes the model; throws InputError naming a massless coordinate that no constraint
  /// holds — always when nothing holds it, and when only elastic elements do (a float) unless
  /// `allow_floats` (linear analysis condenses floats; time integration cannot).
  void finalize(bool allow_floats = false);

  int dimension() const { return dimension_; }
  const std::vector<Body>& bodies() const { return bodies_; }
  const std::vector<PointDef>& points() const { return points_; }
  const Ground& ground() const { return ground_; }
  /// Every element: first the bodies' own (body_element_count(): quaternion unit rows), then
  /// those added by add_element().
  const std::vector<std::unique_ptr<Element>>& elements() const { return elements_; }
  int body_element_count() const { return body_elements_; }
  int body_index(const std::string& name) const;   ///< −1 if none
  int point_index(const std::string& name) const;  ///< −1 if none
  /// World position of a named point (or body origin) at q.
  Vec3<double> point_position(int point, CVec q) const;

  // ---- Model ----------------------------------------------------------------------------------
  std::string type() const override { return type_; }
  void mass_matrix(double t, CVec q, MatRef M) const override;
  void forces(double t, CVec q, CVec v, CVec z, VecRef f) const override;
  void state_rates(double t, CVec q, CVec v, CVec z, VecRef zdot) const override;
  /// One pass over the elements: each gathers its coordinates once and computes its forces
  /// and rows together (Element::constraint_terms).
  void kkt_terms(double t, CVec q, CVec v, CVec z, MatRef M, VecRef f, MatRef G, VecRef bh,
                 MatRef H, VecRef bn) const override;
  void holonomic(double t, CVec q, VecRef g) const override;
  void holonomic_jacobian(double t, CVec q, MatRef G) const override;
  void holonomic_time_rate(double t, CVec q, VecRef gt) const override;
  void holonomic_bias(double t, CVec q, CVec v, VecRef b) const override;
  void nonholonomic(double t, CVec q, CVec v, VecRef h) const override;
  void nonholonomic_jacobian(double t, CVec q, MatRef H) const override;
  void nonholonomic_bias(double t, CVec q, CVec v, VecRef b) const override;
  bool has_energy() const override { return true; }
  bool conserves_energy() const override;
  /// Σ kinetic energies + Σ element potentials (ground frame).
  double energy(double t, CVec q, CVec v) const override;
  void correction_weights(VecRef w) const override;
  /// As correction_weights(), but 1 on coordinates whose rates a non-holonomic element
  /// determines (Element::rate_dependent_coordinates).
  void velocity_correction_weights(VecRef w) const override;
  /// Applies every constraint element's closed-form correction when all of them have one.
  bool explicit_correction(double t, VecRef q, VecRef v) const override;
  /// Derived from the element graph at finalize(): a coordinate touched by more than one
  /// constraint element (with all coordinates of its body) is border; the rest splits into
  /// connected groups through shared elements, each with its elements' rows (RIS: one group per
  /// ball, the platform as border). Empty (dense solve) when fewer than two groups appear.
  KktPartition kkt_partition() const override { return partition_; }
  /// Derived at finalize(): M has one dense block per body; each element's rows touch its
  /// coordinates. Chains and trees of bodies are then solved in linear time (KktSolver).
  KktSparsity kkt_sparsity() const override { return sparsity_; }

  // ---- declared outputs (docs/model-files.md, outputs) ----------------------------------------
  /// The model file's and run file's `outputs:`; may be set after finalize() (they do not
  /// change the dynamics).
  void set_declared_outputs(DeclaredOutputs outputs) { declared_ = std::move(outputs); }
  const DeclaredOutputs& declared_outputs() const { return declared_; }
  std::vector<NamedQuantity> output_quantities() const override { return declared_.columns(); }
  void derived_outputs(double t, CVec q, CVec v, CVec a, CVec lambda, CVec z,
                       VecRef out) const override;

  // ---- tangents for linear analysis -----------------------------------------------------------
  /// ∂f/∂q and ∂f/∂v of the applied forces (nq × nq), including velocity-product terms.
  void force_tangents(double t, CVec q, CVec v, MatRef dfdq, MatRef dfdv) const;
  /// ∂²V/∂q² of the potential energy of the elements (gravity is linear: no contribution).
  void potential_hessian(double t, CVec q, MatRef H) const;
  /// Σ λᵢ ∇²gᵢ over the holonomic rows (nq × nq).
  void constraint_curvature(double t, CVec q, CVec lambda, MatRef H) const;
  /// Tangents of the state-dependent forces and the state rates ż = φ(t, q, v, z): adds
  /// ∂f/∂q (nq × nq, the state force's part), ∂f/∂z (nq × nz), ∂ż/∂q, ∂ż/∂v (nz × nq) and
  /// ∂ż/∂z (nz × nz). Throws InputError naming an element whose states have no exact tangents.
  void state_tangents(double t, CVec q, CVec v, CVec z, MatRef dfdq, MatRef dfdz, MatRef dzdq,
                      MatRef dzdv, MatRef dzdz) const;
  /// ∂(M(q) a)/∂q for a fixed a (nq × nq, added): spatial bodies' W_bᵀ I W_b and quaternion
  /// bodies' 4 Lᵀ I_b L + k e eᵀ by duals.
  void mass_product_tangent(CVec q, CVec a, MatRef out) const;
  /// Tangents of the holonomic rows at a moving state: ∂(G v + g_t)/∂q, ∂b/∂q, ∂b/∂v
  /// (n_holonomic × nq each, added).
  void bias_tangents(double t, CVec q, CVec v, MatRef dgdot_dq, MatRef dbdq, MatRef dbdv) const;
  /// Exact tangents for implicit integrators (Model::motion_tangents) from the ones above:
  /// available when every element with states or non-holonomic rows has exact tangents for
  /// them (the rolling ball does).
  bool has_motion_tangents() const override;
  void motion_tangents(double t, CVec q, CVec v, CVec z, CVec a, CVec lambda, CVec mu,
                       MotionTangents& out) const override;
  /// ∂h/∂q (n_nonholonomic × nq) and ∂(Hᵀλ_n)/∂q (nq × nq), added.
  void nonholonomic_tangents(double t, CVec q, CVec v, CVec lambda_n, MatRef dhdq, MatRef dHtl_dq) const;
  /// ∂(G(q) a)/∂q for a fixed a (n_holonomic × nq, added): the elements' ∂(G v + g_t)/∂q at
  /// v = a, less their ∂g_t/∂q (v = 0) for time-dependent rows.
  void acceleration_row_tangent(double t, CVec q, CVec a, MatRef out) const;
  /// Inputs elements offer to linear analysis, "<element>.<input>" (voice-coil voltages).
  std::vector<std::string> element_input_names() const;
  /// Column k (index into element_input_names()) of ∂f/∂u (nq) and ∂ż/∂u (nz), added.
  void element_input_column(int k, double t, CVec q, VecRef df, VecRef dz) const;
  /// ∂P/∂q (3 × nq, added) of a point (a model point or a body origin) by forward AD.
  void point_jacobian(const PointDef& point, CVec q, MatRef J) const;
  /// How a rigid translation of the ground moves the coordinates: column k (world axis k)
  /// has 1 on every body's k-th translation coordinate (nq × dimension()). Element-owned and
  /// sliding coordinates are relative to their carriers and do not move.
  Mat translation_map() const;
  /// Per damping tag (order of first appearance), the stiffness of the tagged elements at a
  /// static state (v = 0), tension on and off.
  std::vector<TagStiffness> tag_stiffness(double t, CVec q) const;
  /// Every damping tag the elements carry, in order of first appearance.
  std::vector<std::string> loss_tags() const;
  /// Massless coordinates that no constraint element touches and elastic elements hold (floats:
  /// blade tips), found by finalize(allow_floats = true).
  const std::vector<int>& float_coordinates() const { return floats_; }
  /// True when any element is a wire flexure term (torsion, bending).
  bool has_flexure_terms() const;
  /// Element::prepare() of every flexure term at q; returns the largest relative tension change.
  double prepare_flexure_terms(double t, CVec q, bool after_equilibrium) const;
  /// How a small rigid yaw s of everything (structure and model) about the world z axis moves
  /// the coordinates at q (nq): body positions (−y, x), a planar body's angle 1, a spatial body's
  /// angles W_s⁻¹ ẑ (1 on yaw for zyx), a quaternion body's e by ½ (−e3, −e2, e1, e0);
  /// element-owned and sliding coordinates do not move.
  Vec yaw_map(CVec q) const;
  /// Index of the element that owns holonomic row `row`, or −1.
  int element_of_holonomic_row(int row) const;
  /// First holonomic row of element k.
  int first_holonomic_row(int k) const { return slots_[static_cast<size_t>(k)].holonomic_row; }

 private:
  struct Slot {  // where an element's rows start and how many (cached: row names allocate)
    int holonomic_row = 0;
    int rows = 0;
    int nonholonomic_row = 0;
    int nonholonomic_rows = 0;
    // Its entries of G and H (Element::row_coordinates()): [begin, end) of scatter_.
    int holonomic_begin = 0, holonomic_end = 0, nonholonomic_begin = 0, nonholonomic_end = 0;
  };
  struct ScatterEntry {  // local row-major index r·n + i → (row of G or H, global coordinate)
    int local, row, column;
  };
  void derive_partition();
  void derive_sparsity();
  void require_building(const char* method) const;
  void require_finalized(const char* method) const;
  void check_declared_row_patterns() const;
  /// The element's entries of x into `local` (inline: it runs for every element evaluation).
  static void gather(const Element& e, const double* x, double* local) {
    const auto& idx = e.coordinates();
    for (size_t i = 0; i < idx.size(); ++i) local[i] = x[idx[i]];
  }
  /// Velocity products and the uniform fields (gravity, an accelerating ground) on every body.
  void add_body_forces(double t, CVec q, CVec v, VecRef f) const;
  /// One element's applied (and state) forces at its gathered coordinates, scattered into f.
  void add_element_forces(const Element& e, double t, const double* lq, const double* lv, CVec z,
                          VecRef f) const;
  /// True once an element other than a body's own has been added.
  bool elements_started() const { return static_cast<int>(elements_.size()) > body_elements_; }

  std::string type_;
  int dimension_;
  bool finalized_ = false;
  std::vector<Body> bodies_;
  KktSparsity sparsity_;
  DeclaredOutputs declared_;
  std::vector<PointDef> points_;
  std::vector<int> float_coordinates_;
  std::vector<int> floats_;
  Ground ground_;
  Vec3<double> gravity_;
  std::shared_ptr<const Signal> ground_acceleration_[3];
  std::vector<std::unique_ptr<Element>> elements_;
  std::vector<Slot> slots_;
  std::vector<ScatterEntry> scatter_;
  int body_elements_ = 0;  // elements_[0, body_elements_): the bodies' own (quaternion unit rows)
  std::vector<double> weights_, velocity_weights_;
  bool all_explicit_ = false;
  KktPartition partition_;
};

}  // namespace gmbd::elements
