// AssembledModel: coordinate bookkeeping, gather/scatter of element contributions, the
// uniform inertial field of an accelerating ground, energy and the massless-coordinate check.
#include "elements/assembly.hpp"

#include <algorithm>
#include <cmath>

#include <Eigen/Dense>
#include <sstream>

#include "core/errors.hpp"
#include "elements/quaternion_norm.hpp"

namespace gmbd::elements {

namespace {
constexpr int kLocalMatrix = kMaxLocalCoordinates * kMaxLocalCoordinates;

/// Adds the element's local rows (row-major) into G or H at the entries [begin, end) of the
/// scatter list: only those its row_coordinates() declares; the rest are exact zeros.
template <class Entries>
void scatter_add(const Entries& entries, int begin, int end, const double* local, MatRef out) {
  for (int s = begin; s < end; ++s) {
    const auto& entry = entries[static_cast<size_t>(s)];
    out(entry.row, entry.column) += local[entry.local];
  }
}

/// Adds an element's local rows (rows × n, row-major) into rows row0… of a global matrix, columns
/// by the element's coordinates (the tangents' dense scatter; G and H use scatter_add).
void add_local_rows(const Element& e, int row0, int rows, const double* local, MatRef out) {
  const int n = e.local_size();
  for (int r = 0; r < rows; ++r)
    for (int i = 0; i < n; ++i) out(row0 + r, e.coordinates()[static_cast<size_t>(i)]) += local[r * n + i];
}

/// Adds an element's local n × n matrix (row-major) into a global nq × nq one.
void add_local_square(const Element& e, const double* local, MatRef out) {
  const int n = e.local_size();
  const auto& idx = e.coordinates();
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) out(idx[static_cast<size_t>(i)], idx[static_cast<size_t>(j)]) += local[i * n + j];
}

int translations(const Body& b) {
  return (b.kind == BodyKind::kPoint2 || b.kind == BodyKind::kPlanar) ? 2 : 3;
}
}  // namespace

AssembledModel::AssembledModel(std::string type_name, int dimension)
    : type_(std::move(type_name)), dimension_(dimension) {
  if (dimension != 2 && dimension != 3)
    throw InputError("dimension: expected 2 or 3, got " + std::to_string(dimension));
}

void AssembledModel::require_building(const char* method) const {
  if (finalized_)
    throw std::logic_error(std::string("AssembledModel::") + method + ": the model is finalized");
}

void AssembledModel::require_finalized(const char* method) const {
  // G and H are scattered through lists made by finalize().
  if (!finalized_)
    throw std::logic_error(std::string("AssembledModel::") + method + ": call finalize() first");
}

int AssembledModel::add_body(Body body) {
  require_building("add_body");
  if (elements_started())
    throw std::logic_error("AssembledModel::add_body: bodies must precede elements");
  body.first = nq();
  const auto names = body.coordinate_names();
  const auto units = body.coordinate_units();
  for (size_t i = 0; i < names.size(); ++i) add_coordinate(body.name + "." + names[i], units[i]);
  bodies_.push_back(std::move(body));
  // A quaternion body owns its unit row "<body>.unit": an element added now, so that body rows
  // come first and every model built from these bodies has them (elements_started() skips it).
  if (bodies_.back().kind == BodyKind::kQuaternion) {
    add_element(std::make_unique<QuaternionNorm>(bodies_.back()));
    ++body_elements_;
  }
  return static_cast<int>(bodies_.size()) - 1;
}

int AssembledModel::add_float_coordinate(const std::string& point_name) {
  require_building("add_float_coordinate");
  if (elements_started())
    throw std::logic_error("AssembledModel::add_float_coordinate: floats must precede elements");
  const int index = add_coordinate(point_name + ".s", "m");
  float_coordinates_.push_back(index);
  return index;
}

int AssembledModel::add_element_coordinate(const std::string& element_name,
                                           const std::string& suffix, const std::string& unit) {
  require_building("add_element_coordinate");
  if (elements_started())
    throw std::logic_error("AssembledModel::add_element_coordinate: must precede elements");
  return add_coordinate(element_name + "." + suffix, unit);
}

int AssembledModel::add_element_state(const std::string& element_name, const std::string& suffix,
                                      const std::string& unit) {
  require_building("add_element_state");
  return add_state(element_name + "." + suffix, unit);
}

int AssembledModel::add_point(PointDef point) {
  require_building("add_point");
  points_.push_back(std::move(point));
  return static_cast<int>(points_.size()) - 1;
}

void AssembledModel::set_ground_acceleration(std::shared_ptr<const Signal> ax,
                                             std::shared_ptr<const Signal> ay,
                                             std::shared_ptr<const Signal> az) {
  require_building("set_ground_acceleration");
  ground_acceleration_[0] = std::move(ax);
  ground_acceleration_[1] = std::move(ay);
  ground_acceleration_[2] = std::move(az);
}

void AssembledModel::add_element(std::unique_ptr<Element> element) {
  require_building("add_element");
  Slot slot;
  slot.holonomic_row = n_holonomic();
  slot.rows = element->n_holonomic();
  if (slot.rows > kMaxElementRows)
    throw std::logic_error("element '" + element->name() + "' has more rows than kMaxElementRows");
  for (const auto& row : element->holonomic_rows())
    add_holonomic(row.empty() ? element->name() : element->name() + "." + row);
  // Non-holonomic rows come after every holonomic row (Model convention), so their global
  // index is fixed at finalize(); here only the order among them.
  slot.nonholonomic_row = n_nonholonomic();
  slot.nonholonomic_rows = element->n_nonholonomic();
  if (slot.nonholonomic_rows > kMaxElementRows)
    throw std::logic_error("element '" + element->name() + "' has more rows than kMaxElementRows");
  for (const auto& row : element->nonholonomic_rows())
    add_nonholonomic(row.empty() ? element->name() : element->name() + "." + row);
  slots_.push_back(slot);
  elements_.push_back(std::move(element));
}

void AssembledModel::set_independent(const std::vector<std::string>& coordinate_names) {
  weights_.assign(static_cast<size_t>(nq()), 1.0);
  for (const auto& name : coordinate_names) weights_[static_cast<size_t>(coordinate_index(name))] = 0.0;
}

int AssembledModel::body_index(const std::string& name) const {
  for (size_t i = 0; i < bodies_.size(); ++i)
    if (bodies_[i].name == name) return static_cast<int>(i);
  return -1;
}

int AssembledModel::point_index(const std::string& name) const {
  for (size_t i = 0; i < points_.size(); ++i)
    if (points_[i].name == name) return static_cast<int>(i);
  return -1;
}

Vec3<double> AssembledModel::point_position(int point, CVec q) const {
  LocalCoordinates local;
  const PointBinding binding = local.bind(points_[static_cast<size_t>(point)], bodies_, ground_);
  double x[kMaxLocalCoordinates];
  for (size_t i = 0; i < local.global().size(); ++i) x[i] = q(local.global()[i]);
  return binding.position(x);
}

void AssembledModel::finalize(bool allow_floats) {
  require_building("finalize");
  if (weights_.empty()) weights_.assign(static_cast<size_t>(nq()), 1.0);
  // A coordinate without mass must be held by a constraint row, or the KKT matrix is singular
  // at the first evaluation; say so now, by name. One held only by elastic elements is a float
  // (a massless junction): its position follows from a force balance, which linear analysis
  // condenses but the acceleration-level KKT solve cannot represent.
  // M at q = 0, except quaternion bodies at the identity e = (1, 0, 0, 0) (their block is zero at
  // e = 0). A body's own unit row holds only |e|, not the rotation: it does not count as holding.
  Mat M = Mat::Zero(nq(), nq());
  Vec q = Vec::Zero(nq());
  for (const auto& b : bodies_)
    if (b.kind == BodyKind::kQuaternion) q(b.first + 3) = 1.0;
  mass_matrix(0.0, q, M);
  std::vector<bool> constrained(static_cast<size_t>(nq()), false), elastic(static_cast<size_t>(nq()), false);
  for (size_t k = static_cast<size_t>(body_elements_); k < elements_.size(); ++k) {
    const auto& e = elements_[k];
    const bool rows = e->n_holonomic() > 0 || e->n_nonholonomic() > 0;
    for (int c : e->coordinates()) {
      if (rows) constrained[static_cast<size_t>(c)] = true;
      if (e->holds_coordinates()) elastic[static_cast<size_t>(c)] = true;
    }
  }
  floats_.clear();
  for (int i = 0; i < nq(); ++i) {
    const auto k = static_cast<size_t>(i);
    if (M(i, i) != 0.0 || constrained[k]) continue;
    std::ostringstream msg;
    msg << "coordinate '" << coordinates()[k].name << "' has no mass and no constraint holds it";
    if (!elastic[k]) {
      msg << " (the motion would be undetermined); give its body mass/inertia or connect it";
      throw InputError(msg.str());
    }
    if (!allow_floats) {
      msg << ": it is a float (a massless junction held only by elastic elements), whose position "
             "is a force balance the acceleration-level KKT solve cannot represent; build the model "
             "with floats allowed (runs then condense them, elements/float_condensation.hpp) or give it a mass";
      throw InputError(msg.str());
    }
    floats_.push_back(i);
  }
  // Velocity-level weights: rates a rolling constraint determines are dependent.
  velocity_weights_ = weights_;
  for (const auto& e : elements_)
    for (int local : e->rate_dependent_coordinates())
      velocity_weights_[static_cast<size_t>(e->coordinates()[static_cast<size_t>(local)])] = 1.0;
  // Closed-form correction only when every constraint element has one.
  all_explicit_ = false;
  {
    bool any = false, all = true;
    for (const auto& e : elements_) {
      if (e->n_holonomic() == 0 && e->n_nonholonomic() == 0) continue;
      any = any || e->has_explicit_correction();
      all = all && e->has_explicit_correction();
    }
    all_explicit_ = any && all;
  }
  derive_partition();
  derive_sparsity();
  check_declared_row_patterns();
  finalized_ = true;
}

// The assembly copies only the declared entries of each element's G and H, so an entry missing
// from an element's row_coordinates() would be dropped silently: check every element with a
// declared pattern at two generic local states (values away from 0, ±1 and the element's own
// special points) that everything outside it is exactly zero.
void AssembledModel::check_declared_row_patterns() const {
  double lq[kMaxLocalCoordinates], lA[2 * kMaxElementRows * kMaxLocalCoordinates];
  for (size_t k = 0; k < elements_.size(); ++k) {
    const Element& e = *elements_[k];
    const Slot& slot = slots_[k];
    if (slot.rows + slot.nonholonomic_rows == 0) continue;
    const auto pattern = e.row_coordinates();
    if (pattern.empty()) continue;
    const int n = e.local_size();
    for (int state = 0; state < 2; ++state) {
      for (int i = 0; i < n; ++i) lq[i] = 0.37 + 0.11 * i + 0.53 * state * std::sin(1.0 + i);
      std::fill(lA, lA + (slot.rows + slot.nonholonomic_rows) * n, 0.0);
      if (slot.rows > 0) e.holonomic_jacobian(0.0, lq, lA, nullptr);
      if (slot.nonholonomic_rows > 0) e.nonholonomic_jacobian(0.0, lq, lA + slot.rows * n);
      for (int r = 0; r < slot.rows + slot.nonholonomic_rows; ++r)
        for (int c = 0; c < n; ++c) {
          const auto& row = pattern[static_cast<size_t>(r)];
          if (lA[r * n + c] == 0.0 || std::find(row.begin(), row.end(), c) != row.end()) continue;
          throw std::logic_error("element '" + e.name() + "' (" + e.type() + "): row " +
                                 std::to_string(r) + " depends on local coordinate " +
                                 std::to_string(c) + " ('" + coordinates()[static_cast<size_t>(e.coordinates()[static_cast<size_t>(c)])].name +
                                 "'), which its row_coordinates() leaves out");
        }
    }
  }
}

void AssembledModel::derive_sparsity() {
  sparsity_ = {};
  scatter_.clear();
  for (const auto& b : bodies_) {
    if (b.kind == BodyKind::kQuaternion) {
      // m on the translations, the dense 4 × 4 block 4 Lᵀ I_b L + k e eᵀ on e: four blocks of M.
      for (int i = 0; i < 3; ++i) sparsity_.mass.emplace_back(b.first + i, b.first + i);
      for (int i = 3; i < 7; ++i)
        for (int j = 3; j <= i; ++j) sparsity_.mass.emplace_back(b.first + i, b.first + j);
      continue;
    }
    for (int i = 0; i < b.size(); ++i)
      for (int j = 0; j <= i; ++j) sparsity_.mass.emplace_back(b.first + i, b.first + j);
  }
  for (size_t k = 0; k < elements_.size(); ++k) {
    const Element& e = *elements_[k];
    const Slot& slot = slots_[k];
    const auto per_row = e.row_coordinates();
    const int rows = slot.rows + slot.nonholonomic_rows;
    if (!per_row.empty() && static_cast<int>(per_row.size()) != rows)
      throw std::logic_error("element '" + e.name() + "': row_coordinates() lists " +
                             std::to_string(per_row.size()) + " rows, the element has " +
                             std::to_string(rows));
    const int n = e.local_size();
    auto add_entry = [&](int r, int local) {
      const int column = e.coordinates()[static_cast<size_t>(local)];
      const bool holonomic = r < slots_[k].rows;
      const int row = holonomic ? slot.holonomic_row + r : slot.nonholonomic_row + (r - slot.rows);
      const int local_row = holonomic ? r : r - slot.rows;
      scatter_.push_back({local_row * n + local, row, column});
      sparsity_.constraints.emplace_back(holonomic ? row : n_holonomic() + row, column);
    };
    auto add_row = [&](int r) {
      if (per_row.empty()) {
        for (int local = 0; local < n; ++local) add_entry(r, local);
        return;
      }
      // Each local entry once (two points on one carrier list its angle twice).
      std::vector<int> locals = per_row[static_cast<size_t>(r)];
      std::sort(locals.begin(), locals.end());
      locals.erase(std::unique(locals.begin(), locals.end()), locals.end());
      for (int local : locals) {
        if (local < 0 || local >= n)
          throw std::logic_error("element '" + e.name() + "': row_coordinates() names local coordinate " +
                                 std::to_string(local) + " of " + std::to_string(n));
        add_entry(r, local);
      }
    };
    slots_[k].holonomic_begin = static_cast<int>(scatter_.size());
    for (int r = 0; r < slot.rows; ++r) add_row(r);
    slots_[k].holonomic_end = slots_[k].nonholonomic_begin = static_cast<int>(scatter_.size());
    for (int r = slot.rows; r < rows; ++r) add_row(r);
    slots_[k].nonholonomic_end = static_cast<int>(scatter_.size());
  }
}

void AssembledModel::derive_partition() {
  partition_ = {};
  const int n = nq();
  // Border: coordinates touched by more than one constraint element, with their whole body. A
  // quaternion body's own unit row does not count: like its mass block, it stays with the body.
  std::vector<int> touches(static_cast<size_t>(n), 0);
  for (size_t k = static_cast<size_t>(body_elements_); k < elements_.size(); ++k) {
    const auto& e = elements_[k];
    if (e->n_holonomic() + e->n_nonholonomic() == 0) continue;
    std::vector<int> seen;
    for (int c : e->coordinates())
      if (std::find(seen.begin(), seen.end(), c) == seen.end()) seen.push_back(c);
    for (int c : seen) ++touches[static_cast<size_t>(c)];
  }
  std::vector<bool> border(static_cast<size_t>(n), false);
  for (int i = 0; i < n; ++i) border[static_cast<size_t>(i)] = touches[static_cast<size_t>(i)] > 1;
  for (const auto& b : bodies_) {
    bool any = false;
    for (int i = 0; i < b.size(); ++i) any = any || border[static_cast<size_t>(b.first + i)];
    for (int i = 0; any && i < b.size(); ++i) border[static_cast<size_t>(b.first + i)] = true;
  }
  // Union-find over non-border coordinates joined by a body or an element.
  std::vector<int> parent(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) parent[static_cast<size_t>(i)] = i;
  auto find = [&](int x) {
    while (parent[static_cast<size_t>(x)] != x) x = parent[static_cast<size_t>(x)] = parent[static_cast<size_t>(parent[static_cast<size_t>(x)])];
    return x;
  };
  auto unite = [&](int a, int b) { parent[static_cast<size_t>(find(a))] = find(b); };
  auto join_all = [&](const std::vector<int>& coords) {
    int first = -1;
    for (int c : coords) {
      if (border[static_cast<size_t>(c)]) continue;
      if (first < 0) first = c; else unite(first, c);
    }
  };
  for (const auto& b : bodies_) {
    std::vector<int> coords;
    for (int i = 0; i < b.size(); ++i) coords.push_back(b.first + i);
    join_all(coords);
  }
  for (const auto& e : elements_) join_all(e->coordinates());
  // Groups: one per root; rows of an element go to the group of its non-border coordinates.
  std::vector<int> group_of(static_cast<size_t>(n), -1);
  for (int i = 0; i < n; ++i) {
    if (border[static_cast<size_t>(i)]) continue;
    const int root = find(i);
    if (group_of[static_cast<size_t>(root)] < 0) {
      group_of[static_cast<size_t>(root)] = static_cast<int>(partition_.groups.size());
      partition_.groups.emplace_back();
    }
    partition_.groups[static_cast<size_t>(group_of[static_cast<size_t>(root)])].coordinates.push_back(i);
  }
  for (size_t k = 0; k < elements_.size(); ++k) {
    const Element& e = *elements_[k];
    int group = -1;
    for (int c : e.coordinates())
      if (!border[static_cast<size_t>(c)]) group = group_of[static_cast<size_t>(find(c))];
    if (group < 0) continue;  // rows on border coordinates only: border rows
    auto& rows = partition_.groups[static_cast<size_t>(group)].rows;
    for (int r = 0; r < slots_[k].rows; ++r) rows.push_back(slots_[k].holonomic_row + r);
    for (int r = 0; r < slots_[k].nonholonomic_rows; ++r)
      rows.push_back(n_holonomic() + slots_[k].nonholonomic_row + r);
  }
  if (partition_.groups.size() < 2) partition_ = {};
}


// ---- Model -------------------------------------------------------------------------------------

void AssembledModel::mass_matrix(double /*t*/, CVec q, MatRef M) const {
  double block[49];  // the largest body block: 7 × 7 (quaternion bodies)
  for (const auto& b : bodies_) {
    const int n = b.size();
    std::fill(block, block + n * n, 0.0);
    b.add_mass_matrix(q.data() + b.first, block, n);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) M(b.first + i, b.first + j) += block[i * n + j];
  }
}

void AssembledModel::add_body_forces(double t, CVec q, CVec v, VecRef f) const {
  double ag[3] = {0.0, 0.0, 0.0};
  for (int k = 0; k < 3; ++k)
    if (ground_acceleration_[k]) ag[k] = ground_acceleration_[k]->value(t);
  for (const auto& b : bodies_) {
    double local[7] = {0, 0, 0, 0, 0, 0, 0};
    b.add_velocity_product_force(q.data() + b.first, v.data() + b.first, local);
    for (int k = 0; k < translations(b); ++k) local[k] += b.mass * (gravity_[k] - ag[k]);
    for (int i = 0; i < b.size(); ++i) f(b.first + i) += local[i];
  }
}

void AssembledModel::add_element_forces(const Element& e, double t, const double* lq,
                                        const double* lv, CVec z, VecRef f) const {
  const int n = e.local_size();
  double lf[kMaxLocalCoordinates];
  std::fill(lf, lf + n, 0.0);
  e.add_forces(t, lq, lv, lf);
  if (!e.states().empty()) {
    double lz[kMaxElementRows];
    for (size_t k = 0; k < e.states().size(); ++k) lz[k] = z(e.states()[k]);
    e.add_state_forces(t, lq, lv, lz, lf);
  }
  for (int i = 0; i < n; ++i) f(e.coordinates()[static_cast<size_t>(i)]) += lf[i];
}

void AssembledModel::forces(double t, CVec q, CVec v, CVec z, VecRef f) const {
  // Velocity products of spatial bodies and the inertial field of an accelerating ground.
  add_body_forces(t, q, v, f);
  double lq[kMaxLocalCoordinates], lv[kMaxLocalCoordinates];
  for (const auto& e : elements_) {
    gather(*e, q.data(), lq);
    gather(*e, v.data(), lv);
    add_element_forces(*e, t, lq, lv, z, f);
  }
}

void AssembledModel::kkt_terms(double t, CVec q, CVec v, CVec z, MatRef M, VecRef f, MatRef G,
                               VecRef bh, MatRef H, VecRef bn) const {
  require_finalized("kkt_terms");
  mass_matrix(t, q, M);
  add_body_forces(t, q, v, f);
  double lq[kMaxLocalCoordinates], lv[kMaxLocalCoordinates];
  double lg[kMaxElementRows * kMaxLocalCoordinates], lh[kMaxElementRows * kMaxLocalCoordinates];
  for (size_t k = 0; k < elements_.size(); ++k) {
    const Element& e = *elements_[k];
    const Slot& slot = slots_[k];
    gather(e, q.data(), lq);
    gather(e, v.data(), lv);
    add_element_forces(e, t, lq, lv, z, f);
    if (slot.rows == 0 && slot.nonholonomic_rows == 0) continue;
    e.constraint_terms(t, lq, lv, slot.rows > 0 ? lg : nullptr, bh.data() + slot.holonomic_row,
                       slot.nonholonomic_rows > 0 ? lh : nullptr, bn.data() + slot.nonholonomic_row);
    scatter_add(scatter_, slot.holonomic_begin, slot.holonomic_end, lg, G);
    scatter_add(scatter_, slot.nonholonomic_begin, slot.nonholonomic_end, lh, H);
  }
}

void AssembledModel::state_rates(double t, CVec q, CVec v, CVec z, VecRef zdot) const {
  double lq[kMaxLocalCoordinates], lv[kMaxLocalCoordinates], lz[kMaxElementRows], lr[kMaxElementRows];
  for (const auto& e : elements_) {
    const auto& st = e->states();
    if (st.empty()) continue;
    gather(*e, q.data(), lq);
    gather(*e, v.data(), lv);
    for (size_t k = 0; k < st.size(); ++k) lz[k] = z(st[k]);
    e->state_rates(t, lq, lv, lz, lr);
    for (size_t k = 0; k < st.size(); ++k) zdot(st[k]) += lr[k];
  }
}

void AssembledModel::holonomic(double t, CVec q, VecRef g) const {
  double lq[kMaxLocalCoordinates];
  for (size_t k = 0; k < elements_.size(); ++k) {
    const Element& e = *elements_[k];
    if (slots_[k].rows == 0) continue;
    gather(e, q.data(), lq);
    e.holonomic(t, lq, g.data() + slots_[k].holonomic_row);
  }
}

void AssembledModel::holonomic_jacobian(double t, CVec q, MatRef G) const {
  require_finalized("holonomic_jacobian");
  double lq[kMaxLocalCoordinates], lg[kMaxElementRows * kMaxLocalCoordinates];
  for (size_t k = 0; k < elements_.size(); ++k) {
    const Element& e = *elements_[k];
    if (slots_[k].rows == 0) continue;
    gather(e, q.data(), lq);
    e.holonomic_jacobian(t, lq, lg, nullptr);
    scatter_add(scatter_, slots_[k].holonomic_begin, slots_[k].holonomic_end, lg, G);
  }
}

void AssembledModel::holonomic_time_rate(double t, CVec q, VecRef gt) const {
  // Only rheonomic rows have ∂g/∂t ≠ 0; the others would pay a whole Jacobian for zeros.
  double lq[kMaxLocalCoordinates], lg[kMaxElementRows * kMaxLocalCoordinates];
  for (size_t k = 0; k < elements_.size(); ++k) {
    const Element& e = *elements_[k];
    if (slots_[k].rows == 0 || !e.time_dependent_rows()) continue;
    gather(e, q.data(), lq);
    e.holonomic_jacobian(t, lq, lg, gt.data() + slots_[k].holonomic_row);
  }
}

void AssembledModel::holonomic_bias(double t, CVec q, CVec v, VecRef b) const {
  double lq[kMaxLocalCoordinates], lv[kMaxLocalCoordinates];
  for (size_t k = 0; k < elements_.size(); ++k) {
    const Element& e = *elements_[k];
    if (slots_[k].rows == 0) continue;
    gather(e, q.data(), lq);
    gather(e, v.data(), lv);
    e.holonomic_bias(t, lq, lv, b.data() + slots_[k].holonomic_row);
  }
}

void AssembledModel::nonholonomic(double t, CVec q, CVec v, VecRef h) const {
  double lq[kMaxLocalCoordinates], lv[kMaxLocalCoordinates];
  for (size_t k = 0; k < elements_.size(); ++k) {
    if (slots_[k].nonholonomic_rows == 0) continue;
    const Element& e = *elements_[k];
    gather(e, q.data(), lq);
    gather(e, v.data(), lv);
    e.nonholonomic(t, lq, lv, h.data() + slots_[k].nonholonomic_row);
  }
}

void AssembledModel::nonholonomic_jacobian(double t, CVec q, MatRef H) const {
  require_finalized("nonholonomic_jacobian");
  double lq[kMaxLocalCoordinates], lh[kMaxElementRows * kMaxLocalCoordinates];
  for (size_t k = 0; k < elements_.size(); ++k) {
    if (slots_[k].nonholonomic_rows == 0) continue;
    const Element& e = *elements_[k];
    gather(e, q.data(), lq);
    e.nonholonomic_jacobian(t, lq, lh);
    scatter_add(scatter_, slots_[k].nonholonomic_begin, slots_[k].nonholonomic_end, lh, H);
  }
}

void AssembledModel::nonholonomic_bias(double t, CVec q, CVec v, VecRef b) const {
  double lq[kMaxLocalCoordinates], lv[kMaxLocalCoordinates];
  for (size_t k = 0; k < elements_.size(); ++k) {
    if (slots_[k].nonholonomic_rows == 0) continue;
    const Element& e = *elements_[k];
    gather(e, q.data(), lq);
    gather(e, v.data(), lv);
    e.nonholonomic_bias(t, lq, lv, b.data() + slots_[k].nonholonomic_row);
  }
}

void AssembledModel::velocity_correction_weights(VecRef w) const {
  for (int i = 0; i < nq(); ++i)
    w(i) = velocity_weights_.empty() ? 1.0 : velocity_weights_[static_cast<size_t>(i)];
}

bool AssembledModel::explicit_correction(double t, VecRef q, VecRef v) const {
  if (!all_explicit_) return false;
  double lq[kMaxLocalCoordinates], lv[kMaxLocalCoordinates];
  for (size_t k = 0; k < elements_.size(); ++k) {
    const Element& e = *elements_[k];
    if (slots_[k].rows == 0 && slots_[k].nonholonomic_rows == 0) continue;
    double* qd = q.data();
    double* vd = v.data();
    gather(e, qd, lq);
    gather(e, vd, lv);
    e.explicit_correction(t, lq, lv);
    // Scatter back (a coordinate listed twice receives the same value twice).
    const auto& idx = e.coordinates();
    for (size_t i = 0; i < idx.size(); ++i) {
      qd[idx[i]] = lq[i];
      vd[idx[i]] = lv[i];
    }
  }
  return true;
}

bool AssembledModel::conserves_energy() const {
  for (const auto& s : ground_acceleration_)
    if (s) return false;
  return std::none_of(elements_.begin(), elements_.end(),
                      [](const auto& e) { return e->non_conservative(); });
}

double AssembledModel::energy(double t, CVec q, CVec v) const {
  double e = 0.0;
  for (const auto& b : bodies_) {
    e += b.kinetic_energy(q.data() + b.first, v.data() + b.first);
    for (int k = 0; k < translations(b); ++k) e -= b.mass * gravity_[k] * q(b.first + k);
  }
  double lq[kMaxLocalCoordinates];
  for (const auto& el : elements_) {
    gather(*el, q.data(), lq);
    e += el->potential(t, lq);
  }
  return e;
}

void AssembledModel::correction_weights(VecRef w) const {
  for (int i = 0; i < nq(); ++i) w(i) = weights_.empty() ? 1.0 : weights_[static_cast<size_t>(i)];
}

// ---- tangents ----------------------------------------------------------------------------------

void AssembledModel::force_tangents(double t, CVec q, CVec v, MatRef dfdq, MatRef dfdv) const {
  // Velocity-product forces of spatial bodies: differentiate f_gyro(q, v) with duals.
  for (const auto& b : bodies_) {
    if (b.kind == BodyKind::kQuaternion) {
      for (int j = 0; j < 14; ++j) {  // as below: one directional dual per coordinate and rate
        using D = Dual<double, 1>;
        D c[7], cd[7], out[7];
        for (int i = 0; i < 7; ++i) {
          c[i] = D(q(b.first + i));
          cd[i] = D(v(b.first + i));
        }
        (j < 7 ? c[j] : cd[j - 7]).d[0] = 1.0;
        quaternion_velocity_product_force(b, c, cd, out);
        for (int i = 3; i < 7; ++i) {
          if (j < 7)
            dfdq(b.first + i, b.first + j) += out[i].d[0];
          else
            dfdv(b.first + i, b.first + j - 7) += out[i].d[0];
        }
      }
      continue;
    }
    if (b.kind != BodyKind::kSpatial) continue;
    for (int j = 0; j < 12; ++j) {
      // Exact directional derivatives, one coordinate at a time: f_gyro is a few dozen flops.
      using D = Dual<double, 1>;
      D c[6], cd[6];
      for (int i = 0; i < 6; ++i) {
        c[i] = D(q(b.first + i));
        cd[i] = D(v(b.first + i));
      }
      (j < 6 ? c[j] : cd[j - 6]).d[0] = 1.0;
      D out[6];
      velocity_product_force(b, c, cd, out);
      for (int i = 0; i < 6; ++i) {
        if (j < 6)
          dfdq(b.first + i, b.first + j) += out[i].d[0];
        else
          dfdv(b.first + i, b.first + j - 6) += out[i].d[0];
      }
    }
  }
  double lq[kMaxLocalCoordinates], lv[kMaxLocalCoordinates], tq[kLocalMatrix], tv[kLocalMatrix];
  for (const auto& e : elements_) {
    const int n = e->local_size();
    gather(*e, q.data(), lq);
    gather(*e, v.data(), lv);
    std::fill(tq, tq + n * n, 0.0);
    std::fill(tv, tv + n * n, 0.0);
    e->add_force_tangents(t, lq, lv, tq, tv);
    add_local_square(*e, tq, dfdq);
    add_local_square(*e, tv, dfdv);
  }
}

bool AssembledModel::has_flexure_terms() const {
  return std::any_of(elements_.begin(), elements_.end(), [](const auto& e) { return e->flexure_stage() > 0; });
}

double AssembledModel::prepare_flexure_terms(double t, CVec q, bool after_equilibrium) const {
  double change = 0.0, lq[kMaxLocalCoordinates];
  for (const auto& e : elements_) {
    if (e->flexure_stage() == 0) continue;
    gather(*e, q.data(), lq);
    change = std::max(change, e->prepare(t, lq, after_equilibrium));
  }
  return change;
}

std::vector<std::string> AssembledModel::loss_tags() const {
  std::vector<std::string> tags;
  for (const auto& e : elements_)
    if (!e->loss_tag().empty() && std::find(tags.begin(), tags.end(), e->loss_tag()) == tags.end())
      tags.push_back(e->loss_tag());
  return tags;
}

std::vector<TagStiffness> AssembledModel::tag_stiffness(double t, CVec q) const {
  const auto tags = loss_tags();
  std::vector<TagStiffness> out;
  for (const auto& tag : tags) out.push_back({tag, Mat::Zero(nq(), nq()), Mat::Zero(nq(), nq())});
  double lq[kMaxLocalCoordinates], lv[kMaxLocalCoordinates] = {}, on[kLocalMatrix], dv[kLocalMatrix],
      off[kLocalMatrix];
  for (const auto& e : elements_) {
    if (e->loss_tag().empty()) continue;
    auto& target = out[static_cast<size_t>(std::find(tags.begin(), tags.end(), e->loss_tag()) - tags.begin())];
    const int n = e->local_size();
    gather(*e, q.data(), lq);
    std::fill(on, on + n * n, 0.0);
    std::fill(dv, dv + n * n, 0.0);
    std::fill(off, off + n * n, 0.0);
    e->add_force_tangents(t, lq, lv, on, dv);
    e->add_tension_off_stiffness(t, lq, off);
    const auto& idx = e->coordinates();
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        const auto gi = idx[static_cast<size_t>(i)], gj = idx[static_cast<size_t>(j)];
        target.on(gi, gj) -= on[i * n + j];  // stiffness = −∂f/∂q
        target.off(gi, gj) += off[i * n + j];
      }
  }
  return out;
}

void AssembledModel::potential_hessian(double t, CVec q, MatRef H) const {
  double lq[kMaxLocalCoordinates], h[kLocalMatrix];
  for (const auto& e : elements_) {
    const int n = e->local_size();
    gather(*e, q.data(), lq);
    std::fill(h, h + n * n, 0.0);
    e->add_potential_hessian(t, lq, h);
    add_local_square(*e, h, H);
  }
}

void AssembledModel::constraint_curvature(double t, CVec q, CVec lambda, MatRef H) const {
  double lq[kMaxLocalCoordinates], h[kLocalMatrix];
  for (size_t k = 0; k < elements_.size(); ++k) {
    const Element& e = *elements_[k];
    if (slots_[k].rows == 0) continue;
    const int n = e.local_size();
    gather(e, q.data(), lq);
    std::fill(h, h + n * n, 0.0);
    e.add_constraint_curvature(t, lq, lambda.data() + slots_[k].holonomic_row, h);
    add_local_square(e, h, H);
  }
}

// ---- linear-analysis helpers -------------------------------------------------------------------

void AssembledModel::state_tangents(double t, CVec q, CVec v, CVec z, MatRef dfdq, MatRef dfdz,
                                    MatRef dzdq, MatRef dzdv, MatRef dzdz) const {
  double lq[kMaxLocalCoordinates], lv[kMaxLocalCoordinates], lz[kMaxElementRows];
  double tq[kLocalMatrix], tz[kMaxLocalCoordinates * kMaxElementRows];
  double zq[kMaxElementRows * kMaxLocalCoordinates], zv[kMaxElementRows * kMaxLocalCoordinates];
  double zz[kMaxElementRows * kMaxElementRows];
  for (const auto& e : elements_) {
    const auto& st = e->states();
    if (st.empty()) continue;
    const int n = e->local_size();
    const int m = static_cast<int>(st.size());
    gather(*e, q.data(), lq);
    gather(*e, v.data(), lv);
    for (int k = 0; k < m; ++k) lz[k] = z(st[static_cast<size_t>(k)]);
    std::fill(tq, tq + n * n, 0.0);
    std::fill(tz, tz + n * m, 0.0);
    std::fill(zq, zq + m * n, 0.0);
    std::fill(zv, zv + m * n, 0.0);
    std::fill(zz, zz + m * m, 0.0);
    e->add_state_tangents(t, lq, lv, lz, tq, tz, zq, zv, zz);
    const auto& idx = e->coordinates();
    for (int i = 0; i < n; ++i) {
      const int gi = idx[static_cast<size_t>(i)];
      for (int j = 0; j < n; ++j) dfdq(gi, idx[static_cast<size_t>(j)]) += tq[i * n + j];
      for (int k = 0; k < m; ++k) {
        const int gk = st[static_cast<size_t>(k)];
        dfdz(gi, gk) += tz[i * m + k];
        dzdq(gk, gi) += zq[k * n + i];
        dzdv(gk, gi) += zv[k * n + i];
      }
    }
    for (int a = 0; a < m; ++a)
      for (int b = 0; b < m; ++b) dzdz(st[static_cast<size_t>(a)], st[static_cast<size_t>(b)]) += zz[a * m + b];
  }
}

void AssembledModel::mass_product_tangent(CVec q, CVec a, MatRef out) const {
  for (const auto& b : bodies_) {
    if (b.kind == BodyKind::kQuaternion) {  // ∂/∂e of (4 Lᵀ I_b L + k e eᵀ) a_e
      for (int j = 0; j < 4; ++j) {
        using D = Dual<double, 1>;
        D e[4], alpha[4], r[4];
        for (int i = 0; i < 4; ++i) {
          e[i] = D(q(b.first + 3 + i));
          alpha[i] = D(a(b.first + 3 + i));
        }
        e[j].d[0] = 1.0;
        quaternion_mass_times(b, e, alpha, r);
        for (int i = 0; i < 4; ++i) out(b.first + 3 + i, b.first + 3 + j) += r[i].d[0];
      }
      continue;
    }
    if (b.kind != BodyKind::kSpatial) continue;  // constant mass blocks otherwise
    for (int j = 0; j < 3; ++j) {
      using D = Dual<double, 1>;
      D angle[3];
      for (int i = 0; i < 3; ++i) angle[i] = D(q(b.first + 3 + i));
      angle[j].d[0] = 1.0;
      const Mat3<D> w = body_rate_matrix(b.sequence, angle[0], angle[1], angle[2]);
      Mat3<D> inertia;
      for (size_t i = 0; i < 9; ++i) inertia.m[i] = D(b.inertia.m[i]);
      const Vec3<D> alpha{D(a(b.first + 3)), D(a(b.first + 4)), D(a(b.first + 5))};
      const Vec3<D> r = w.transpose_times(inertia * (w * alpha));  // W_bᵀ I W_b α
      out(b.first + 3, b.first + 3 + j) += r.x.d[0];
      out(b.first + 4, b.first + 3 + j) += r.y.d[0];
      out(b.first + 5, b.first + 3 + j) += r.z.d[0];
    }
  }
}

void AssembledModel::bias_tangents(double t, CVec q, CVec v, MatRef dgdot_dq, MatRef dbdq,
                                   MatRef dbdv) const {
  double lq[kMaxLocalCoordinates], lv[kMaxLocalCoordinates];
  double c[kMaxElementRows * kMaxLocalCoordinates], bq[kMaxElementRows * kMaxLocalCoordinates],
      bv[kMaxElementRows * kMaxLocalCoordinates];
  for (size_t k = 0; k < elements_.size(); ++k) {
    const Element& e = *elements_[k];
    const int rows = slots_[k].rows;
    if (rows == 0) continue;
    const int size = rows * e.local_size();
    gather(e, q.data(), lq);
    gather(e, v.data(), lv);
    for (double* local : {c, bq, bv}) std::fill(local, local + size, 0.0);
    e.add_bias_tangents(t, lq, lv, c, bq, bv);
    const int row0 = slots_[k].holonomic_row;
    add_local_rows(e, row0, rows, c, dgdot_dq);
    add_local_rows(e, row0, rows, bq, dbdq);
    add_local_rows(e, row0, rows, bv, dbdv);
  }
}

bool AssembledModel::has_motion_tangents() const {
  return std::all_of(elements_.begin(), elements_.end(), [](const auto& e) {
    return e->has_state_tangents() && e->has_nonholonomic_tangents();
  });
}

void AssembledModel::motion_tangents(double t, CVec q, CVec v, CVec z, CVec a, CVec lambda, CVec mu,
                                     MotionTangents& out) const {
  require_finalized("motion_tangents");
  // ∂f/∂q, ∂f/∂v, ∂f/∂z first (added), then the sign of the residual r = M a + Gᵀλ − f.
  force_tangents(t, q, v, out.K, out.C);
  if (nz() > 0) state_tangents(t, q, v, z, out.K, out.Fz, out.Zq, out.Zv, out.Zz);
  out.K *= -1.0;
  out.C *= -1.0;
  out.Fz *= -1.0;
  mass_product_tangent(q, a, out.K);
  const int nh = n_holonomic();
  if (n_nonholonomic() > 0) nonholonomic_tangents(t, q, v, lambda.tail(n_nonholonomic()), out.Hq, out.K);
  if (nh == 0) return;
  constraint_curvature(t, q, lambda.head(nh), out.K);
  // μ is zero for index 3 and for CVODE: their Σ μ_i ∇²g_i is not evaluated.
  if (!mu.head(nh).isZero(0.0)) constraint_curvature(t, q, mu.head(nh), out.Gmu);
  bias_tangents(t, q, v, out.Cq, out.Bq, out.Bv);
  if (out.Gaq.rows() == nh) acceleration_row_tangent(t, q, a, out.Gaq);
}

void AssembledModel::nonholonomic_tangents(double t, CVec q, CVec v, CVec lambda_n, MatRef dhdq,
                                           MatRef dHtl_dq) const {
  double lq[kMaxLocalCoordinates], lv[kMaxLocalCoordinates];
  double hq[kMaxElementRows * kMaxLocalCoordinates], k[kLocalMatrix];
  for (size_t e_index = 0; e_index < elements_.size(); ++e_index) {
    const Slot& slot = slots_[e_index];
    if (slot.nonholonomic_rows == 0) continue;
    const Element& e = *elements_[e_index];
    const int n = e.local_size(), rows = slot.nonholonomic_rows, row0 = slot.nonholonomic_row;
    gather(e, q.data(), lq);
    gather(e, v.data(), lv);
    std::fill(hq, hq + rows * n, 0.0);
    std::fill(k, k + n * n, 0.0);
    e.add_nonholonomic_tangents(t, lq, lv, lambda_n.data() + row0, hq, k);
    add_local_rows(e, row0, rows, hq, dhdq);
    add_local_square(e, k, dHtl_dq);
  }
}

void AssembledModel::acceleration_row_tangent(double t, CVec q, CVec a, MatRef out) const {
  double lq[kMaxLocalCoordinates], la[kMaxLocalCoordinates], zero[kMaxLocalCoordinates] = {};
  double c[kMaxElementRows * kMaxLocalCoordinates], c0[kMaxElementRows * kMaxLocalCoordinates],
      bq[kMaxElementRows * kMaxLocalCoordinates], bv[kMaxElementRows * kMaxLocalCoordinates];
  for (size_t k = 0; k < elements_.size(); ++k) {
    const Element& e = *elements_[k];
    const int rows = slots_[k].rows;
    if (rows == 0) continue;
    const int n = e.local_size();
    gather(e, q.data(), lq);
    gather(e, a.data(), la);
    for (double* local : {c, c0, bq, bv}) std::fill(local, local + rows * n, 0.0);
    e.add_bias_tangents(t, lq, la, c, bq, bv);
    if (e.time_dependent_rows()) e.add_bias_tangents(t, lq, zero, c0, bq, bv);
    for (int i = 0; i < rows * n; ++i) c[i] -= c0[i];
    add_local_rows(e, slots_[k].holonomic_row, rows, c, out);
  }
}

std::vector<std::string> AssembledModel::element_input_names() const {
  std::vector<std::string> names;
  for (const auto& e : elements_)
    for (const auto& input : e->linear_inputs()) names.push_back(e->name() + "." + input);
  return names;
}

void AssembledModel::element_input_column(int k, double t, CVec q, VecRef df, VecRef dz) const {
  double lq[kMaxLocalCoordinates], lf[kMaxLocalCoordinates], lz[kMaxElementRows];
  int seen = 0;
  for (const auto& e : elements_) {
    const int count = static_cast<int>(e->linear_inputs().size());
    if (k >= seen + count) {
      seen += count;
      continue;
    }
    const int n = e->local_size();
    const auto& st = e->states();
    gather(*e, q.data(), lq);
    std::fill(lf, lf + n, 0.0);
    std::fill(lz, lz + kMaxElementRows, 0.0);
    e->add_input_column(k - seen, t, lq, lf, lz);
    for (int i = 0; i < n; ++i) df(e->coordinates()[static_cast<size_t>(i)]) += lf[i];
    for (size_t s = 0; s < st.size(); ++s) dz(st[s]) += lz[s];
    return;
  }
  throw std::out_of_range("AssembledModel::element_input_column: no input " + std::to_string(k));
}

void AssembledModel::point_jacobian(const PointDef& point, CVec q, MatRef J) const {
  LocalCoordinates local;
  const PointBinding binding = local.bind(point, bodies_, ground_);
  const auto& idx = local.global();
  const int n = static_cast<int>(idx.size());
  with_dual_size(n, [&]<int N>() {
    using D = Dual<double, N>;
    D x[N < 7 ? 7 : N];
    for (int i = 0; i < n; ++i) x[i] = D::variable(q(idx[static_cast<size_t>(i)]), i);
    const Vec3<D> p = binding.position(x);
    for (int i = 0; i < n; ++i) {
      J(0, idx[static_cast<size_t>(i)]) += p.x.d[static_cast<size_t>(i)];
      J(1, idx[static_cast<size_t>(i)]) += p.y.d[static_cast<size_t>(i)];
      J(2, idx[static_cast<size_t>(i)]) += p.z.d[static_cast<size_t>(i)];
    }
  });
}

Mat AssembledModel::translation_map() const {
  Mat T = Mat::Zero(nq(), dimension_);
  for (const auto& b : bodies_)
    for (int k = 0; k < std::min(translations(b), dimension_); ++k) T(b.first + k, k) = 1.0;
  return T;
}

Vec AssembledModel::yaw_map(CVec q) const {
  Vec Y = Vec::Zero(nq());
  for (const auto& b : bodies_) {
    const double* c = q.data() + b.first;
    if (translations(b) >= 2) {
      Y(b.first) = -c[1];
      Y(b.first + 1) = c[0];
    }
    if (b.kind == BodyKind::kPlanar) Y(b.first + 2) = 1.0;
    if (b.kind == BodyKind::kSpatial) {
      // R' = Rz(s) R: the angle rates with space angular velocity ẑ, W_s δa = ẑ, W_s = R W_b.
      const auto Ws = b.orientation(c) * body_rate_matrix(b.sequence, c[3], c[4], c[5]);
      Eigen::Matrix3d W;
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) W(i, j) = Ws(i, j);
      const Eigen::Vector3d da = W.partialPivLu().solve(Eigen::Vector3d::UnitZ());
      for (int i = 0; i < 3; ++i) Y(b.first + 3 + i) = da(i);
    }
    if (b.kind == BodyKind::kQuaternion) {
      // e' = (cos s/2, 0, 0, sin s/2) ⊗ e: d/ds at 0 = ½ (0, ẑ) ⊗ e = ½ (−e3, −e2, e1, e0).
      Y(b.first + 3) = -0.5 * c[6];
      Y(b.first + 4) = -0.5 * c[5];
      Y(b.first + 5) = 0.5 * c[4];
      Y(b.first + 6) = 0.5 * c[3];
    }
  }
  return Y;
}

int AssembledModel::element_of_holonomic_row(int row) const {
  for (size_t k = 0; k < slots_.size(); ++k)
    if (row >= slots_[k].holonomic_row && row < slots_[k].holonomic_row + slots_[k].rows)
      return static_cast<int>(k);
  return -1;
}

void AssembledModel::derived_outputs(double t, CVec q, CVec v, CVec a, CVec lambda, CVec /*z*/,
                                     VecRef out) const {
  declared_.evaluate(*this, t, q, v, a, lambda, out);
}

}  // namespace gmbd::elements
