// Model bookkeeping: coordinate/constraint naming and lookup with helpful errors.
#include "core/model.hpp"

#include <sstream>

#include "core/errors.hpp"
#include "core/name_text.hpp"

namespace gmbd {

void Model::kkt_terms(double t, CVec q, CVec v, CVec z, MatRef M, VecRef f, MatRef G, VecRef bh,
                      MatRef H, VecRef bn) const {
  mass_matrix(t, q, M);
  forces(t, q, v, z, f);
  if (n_holonomic() > 0) {
    holonomic_jacobian(t, q, G);
    holonomic_bias(t, q, v, bh);
  }
  if (n_nonholonomic() > 0) {
    nonholonomic_jacobian(t, q, H);
    nonholonomic_bias(t, q, v, bn);
  }
}

void MotionTangents::resize(int nq, int nz, int nh, int nn, bool acceleration_rows) {
  K.resize(nq, nq);
  C.resize(nq, nq);
  Fz.resize(nq, nz);
  Zq.resize(nz, nq);
  Zv.resize(nz, nq);
  Zz.resize(nz, nz);
  Cq.resize(nh, nq);
  Bq.resize(nh, nq);
  Bv.resize(nh, nq);
  Gmu.resize(nq, nq);
  Hq.resize(nn, nq);
  Gaq.resize(acceleration_rows ? nh : 0, nq);
  set_zero();
}

void MotionTangents::set_zero() {
  for (Mat* m : {&K, &C, &Fz, &Zq, &Zv, &Zz, &Cq, &Bq, &Bv, &Gmu, &Hq, &Gaq}) m->setZero();
}

const std::string& Model::constraint_name(int row) const {
  return row < n_holonomic() ? holonomic_[static_cast<size_t>(row)]
                             : nonholonomic_[static_cast<size_t>(row - n_holonomic())];
}

std::vector<std::string> Model::coordinate_names() const {
  std::vector<std::string> names;
  for (const auto& c : coordinates_) names.push_back(c.name);
  return names;
}

std::vector<std::string> Model::constraint_names() const {
  std::vector<std::string> names = holonomic_;
  names.insert(names.end(), nonholonomic_.begin(), nonholonomic_.end());
  return names;
}

std::vector<std::string> Model::state_names() const {
  std::vector<std::string> names;
  for (const auto& s : states_) names.push_back(s.name);
  return names;
}

int Model::coordinate_index(std::string_view name) const {
  for (int i = 0; i < nq(); ++i) {
    if (coordinates_[static_cast<size_t>(i)].name == name) return i;
  }
  std::ostringstream msg;
  msg << "unknown coordinate '" << name << "'" << non_ascii_note(name) << " for model " << type() << "; expected one of:";
  for (const auto& c : coordinates_) msg << ' ' << c.name;
  throw InputError(msg.str());
}

int Model::add_coordinate(std::string name, std::string unit) {
  coordinates_.push_back({std::move(name), std::move(unit)});
  return nq() - 1;
}

int Model::add_holonomic(std::string name) {
  holonomic_.push_back(std::move(name));
  return n_holonomic() - 1;
}

int Model::add_nonholonomic(std::string name) {
  nonholonomic_.push_back(std::move(name));
  return n_holonomic() + n_nonholonomic() - 1;
}

int Model::add_state(std::string name, std::string unit) {
  states_.push_back({std::move(name), std::move(unit)});
  return nz() - 1;
}

void Model::record_parameter(std::string name, double value) {
  parameters_.emplace_back(std::move(name), value);
}

}  // namespace gmbd
