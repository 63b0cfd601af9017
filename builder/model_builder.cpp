// Model files → AssembledModel: reads each body, point and element entry with SpecReader,
// checks it, binds its points and creates the element (field reference: docs/model-files.md).
#include "builder/model_builder.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <complex>
#include <memory>
#include <numbers>
#include <optional>
#include <functional>
#include <iomanip>
#include <map>
#include <sstream>

#include "core/errors.hpp"
#include "io/expression_signal.hpp"
#include "elements/body_torque.hpp"
#include "elements/joint_damper.hpp"
#include "elements/coincident.hpp"
#include "elements/distance.hpp"
#include "elements/applied_force.hpp"
#include "elements/point_on_line.hpp"
#include "elements/prismatic.hpp"
#include "elements/revolute.hpp"
#include "elements/rolling_ball.hpp"
#include "elements/spring6.hpp"
#include "elements/spring_damper.hpp"
#include "elements/voice_coil.hpp"
#include "elements/wire_flexure.hpp"
#include "elements/float_condensation.hpp"

namespace gmbd {

using elements::AssembledModel;
using elements::Body;
using elements::BodyKind;
using elements::LocalCoordinates;
using elements::PointBinding;
using elements::PointDef;
using elements::Vec3;

namespace {

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

/// A vector of `dimension` numbers as a 3-vector (z = 0 in planar models).
Vec3<double> read_vector(const SpecReader& r, const std::string& field, int dimension) {
  const std::vector<double> v = r.numbers(field, dimension);
  return {v[0], v[1], dimension == 3 ? v[2] : 0.0};
}

Vec3<double> read_vector_or(const SpecReader& r, const std::string& field, int dimension,
                            Vec3<double> fallback) {
  return r.has(field) ? read_vector(r, field, dimension) : fallback;
}

// ---- bodies ------------------------------------------------------------------------------------

elements::Mat3<double> read_inertia_tensor(const SpecReader& r) {
  elements::Mat3<double> I;
  if (!r.has("inertia")) return I;
  const std::vector<double> v = r.numbers("inertia", -1);
  if (v.size() == 3) {
    I(0, 0) = v[0], I(1, 1) = v[1], I(2, 2) = v[2];
  } else if (v.size() == 6) {  // Ixx Iyy Izz Ixy Ixz Iyz
    I(0, 0) = v[0], I(1, 1) = v[1], I(2, 2) = v[2];
    I(0, 1) = I(1, 0) = v[3];
    I(0, 2) = I(2, 0) = v[4];
    I(1, 2) = I(2, 1) = v[5];
  } else if (v.size() == 9) {
    for (size_t k = 0; k < 9; ++k) I.m[k] = v[k];
  } else {
    r.fail("inertia", "3 (principal Ixx, Iyy, Izz), 6 (Ixx, Iyy, Izz, Ixy, Ixz, Iyz) or 9 numbers",
           std::to_string(v.size()) + " numbers");
  }
  Eigen::Matrix3d m;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) m(i, j) = I(i, j);
  if ((m - m.transpose()).cwiseAbs().maxCoeff() > 1e-12 * (1.0 + m.cwiseAbs().maxCoeff()))
    r.fail("inertia", "a symmetric tensor", "an unsymmetric 3×3 matrix");
  const Eigen::Vector3d ev = Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(m).eigenvalues();
  if (ev.minCoeff() < -1e-12 * std::max(1.0, ev.maxCoeff())) {
    std::ostringstream got;
    got << "principal moments " << ev(0) << ", " << ev(1) << ", " << ev(2);
    r.fail("inertia", "a positive semi-definite tensor", got.str());
  }
  // Principal moments of a real body obey the triangle inequality I1 + I2 ≥ I3.
  if (ev(0) + ev(1) < ev(2) * (1.0 - 1e-9)) {
    std::ostringstream got;
    got << "principal moments " << ev(0) << ", " << ev(1) << ", " << ev(2);
    r.fail("inertia", "principal moments with I1 + I2 ≥ I3 (a physical mass distribution)", got.str());
  }
  return I;
}

Body read_body(const ModelFileSpec& spec, const SpecEntry& e) {
  const SpecReader r(spec, e);
  Body b;
  b.name = e.name;
  const std::string& type = e.type;
  if (type == "point") {
    r.allow_only({"mass"});
    b.kind = spec.dimension == 2 ? BodyKind::kPoint2 : BodyKind::kPoint3;
  } else if (type == "planar") {
    if (spec.dimension != 2)
      r.fail("type", "'spatial' or 'point' in a 3-D model (planar bodies need dimension: 2)",
             "'planar'");
    r.allow_only({"mass", "inertia"});
    b.kind = BodyKind::kPlanar;
    b.planar_inertia = r.number_or("inertia", 0.0);
    if (b.planar_inertia < 0.0)
      r.fail("inertia", "a non-negative moment of inertia (kg·m²)", std::to_string(b.planar_inertia));
  } else if (type == "spatial") {
    if (spec.dimension != 3)
      r.fail("type", "'planar' or 'point' in a 2-D model (spatial bodies need dimension: 3)",
             "'spatial'");
    r.allow_only({"mass", "inertia", "angles", "rotation"});
    b.kind = BodyKind::kSpatial;
    b.inertia = read_inertia_tensor(r);
    // `rotation`: three angles (the sequence in `angles`) or Euler parameters, which have no
    // singular attitude (coordinates e0..e3 and the body's unit row "<body>.unit").
    const std::string rotation = r.name_or("rotation", "angles");
    if (rotation == "quaternion") {
      if (r.has("angles"))
        r.fail("angles", "no `angles` on a body with `rotation: quaternion` (its Euler parameters "
                         "e0..e3 replace the angles; remove one of the two fields)",
               "'" + r.name("angles") + "'");
      b.kind = BodyKind::kQuaternion;
    } else if (rotation != "angles") {
      r.fail("rotation", "'angles' (three angles, sequence in `angles`) or 'quaternion' (Euler "
                         "parameters e0..e3, no singular attitude)",
             "'" + rotation + "'");
    }
    const std::string seq = r.name_or("angles", "zyx");
    if (seq == "zyx") {
      b.sequence = elements::AngleSequence::kZyx;
    } else if (seq == "xyz") {
      b.sequence = elements::AngleSequence::kXyz;
    } else {
      r.fail("angles", "'zyx' (yaw, pitch, roll: R = Rz·Ry·Rx) or 'xyz' (Bryant: R = Rx·Ry·Rz)",
             "'" + seq + "'");
    }
  } else {
    r.fail("type", "one of: " + join(model_file_body_types()), "'" + type + "'");
  }
  b.mass = r.number_or("mass", 0.0);
  if (b.mass < 0.0) r.fail("mass", "a non-negative mass (kg)", std::to_string(b.mass));
  return b;
}

// ---- points --------------------------------------------------------------------------------------

/// Resolves a reference to a point: a named point, a body name (its reference point), or
/// "ground" (the ground origin).
class PointTable {
 public:
  PointTable(const ModelFileSpec& spec, const AssembledModel& model) : spec_(spec), model_(model) {}

  PointDef resolve(const SpecReader& r, const std::string& field) const {
    const std::string name = r.name(field);
    if (name == "ground") return PointDef{"ground", -1, {}, -1, {}};
    const int p = model_.point_index(name);
    if (p >= 0) return model_.points()[static_cast<size_t>(p)];
    const int b = model_.body_index(name);
    if (b >= 0) return PointDef{name, b, {}, -1, {}};
    std::vector<std::string> known{"ground"};
    for (const auto& pt : model_.points()) known.push_back(pt.name);
    for (const auto& body : model_.bodies()) known.push_back(body.name);
    r.fail(field, "a point, a body or 'ground' (known: " + join(known) + ")", "'" + name + "'");
  }

 private:
  const ModelFileSpec& spec_;
  const AssembledModel& model_;
};

void read_points(const ModelFileSpec& spec, AssembledModel& model) {
  // Sliding points own a float coordinate: create those first (coordinates precede elements).
  for (const auto& e : spec.points) {
    const SpecReader r(spec, e);
    r.allow_only({"body", "at", "slide", "slide_with"});
    PointDef p;
    p.name = e.name;
    const std::string body = r.name_or("body", "ground");
    if (body != "ground") {
      p.body = model.body_index(body);
      if (p.body < 0) {
        std::vector<std::string> known{"ground"};
        for (const auto& b : model.bodies()) known.push_back(b.name);
        r.fail("body", "a body name or 'ground' (known: " + join(known) + ")", "'" + body + "'");
      }
    }
    p.local = read_vector_or(r, "at", spec.dimension, {});
    if (r.has("slide")) {
      const Vec3<double> n = read_vector(r, "slide", spec.dimension);
      const double len = std::sqrt(n.squared_norm());
      if (!(len > 0.0)) r.fail("slide", "a non-zero direction", "a zero vector");
      p.direction = n * (1.0 / len);
      p.slide = model.add_float_coordinate(e.name);
    }
    if (r.has("slide_with")) {
      // Several points moved by one float (a blade tip carrying two wires): the coordinate and
      // direction of an earlier sliding point of the same carrier.
      if (r.has("slide")) r.fail("slide_with", "either slide (a new float) or slide_with (share one)", "both");
      const std::string other = r.name("slide_with");
      const int k = model.point_index(other);
      std::vector<std::string> sliding;
      for (const auto& q : model.points())
        if (q.slide >= 0 && q.body == p.body) sliding.push_back(q.name);
      if (k < 0 || model.points()[static_cast<size_t>(k)].slide < 0 || model.points()[static_cast<size_t>(k)].body != p.body)
        r.fail("slide_with", "an earlier sliding point of the same carrier (" +
                                 (sliding.empty() ? std::string("none") : join(sliding)) + ")",
               "'" + other + "'");
      p.slide = model.points()[static_cast<size_t>(k)].slide;
      p.direction = model.points()[static_cast<size_t>(k)].direction;
    }
    model.add_point(p);
  }
}

// ---- elements --------------------------------------------------------------------------------

struct ElementContext {
  const ModelFileSpec& spec;
  AssembledModel& model;
  const PointTable& points;
  const ModelInputs& inputs;
  /// Coordinates created for elements that own some (rolling balls), by element name.
  std::map<std::string, std::vector<int>> own_coordinates;
  /// Wire flexure terms built: 0 none, 1 torsion, 2 + bending strain, 3 + tension work.
  int max_flexure_stage = 3;
};

/// Suffixes and units of the coordinates a rolling_ball element owns (ris_xytheta's per ball).
const std::vector<std::pair<const char*, const char*>>& rolling_ball_coordinates() {
  static const std::vector<std::pair<const char*, const char*>> c = {
      {"xb", "m"}, {"yb", "m"}, {"r", "m"}, {"xt", "m"}, {"yt", "m"}, {"q", "m"}};
  return c;
}

using ElementReader = std::function<void(const SpecReader&, ElementContext&)>;

/// u(t) = a(t)·b(t): a load given as an expression of t times an input signal.
class ProductSignal final : public Signal {
 public:
  ProductSignal(std::shared_ptr<const Signal> a, std::shared_ptr<const Signal> b)
      : a_(std::move(a)), b_(std::move(b)) {}
  double value(double t) const override { return a_->value(t) * b_->value(t); }
  double sample_interval() const override {
    const double x = a_->sample_interval(), y = b_->sample_interval();
    return x == 0.0 ? y : (y == 0.0 ? x : std::min(x, y));
  }
  // A kink of either factor is a kink of the product.
  double next_breakpoint(double t) const override {
    return std::min(a_->next_breakpoint(t), b_->next_breakpoint(t));
  }
  std::string description() const override { return a_->description() + " × " + b_->description(); }

 private:
  std::shared_ptr<const Signal> a_, b_;
};

/// Raw text of a field's items (scalars and lists alike).
const SpecField* raw_field(const SpecEntry& e, const std::string& name) {
  for (const auto& [field, value] : e.fields)
    if (field == name) return &value;
  return nullptr;
}

/// A load component from its text: a constant, or an expression of the time t (then a signal);
/// multiplied by the entry's `input:` signal when it names one.
elements::LoadComponent load(const SpecReader& r, const ElementContext& c, const std::string& field,
                             size_t item) {
  elements::LoadComponent l;
  const SpecField* f = raw_field(r.entry(), field);
  if (f == nullptr) r.fail(field, "a value (N, N·m; a number or an expression of t)", "nothing");
  if (item >= f->items.size()) {
    l.scale = 0.0;  // 2-D models have no z component
    return l;
  }
  std::string where = r.where(field);
  if (f->is_list) where += "[" + std::to_string(item) + "]";
  auto expression = std::make_shared<ExpressionSignal>(f->items[item], c.spec.parameters.symbols(), where);
  const double at0 = expression->value(0.0);
  if (!std::isfinite(at0)) r.fail(field, "a finite value", f->items[item] + " = " + std::to_string(at0));
  if (expression->expression().is_constant()) {
    l.scale = at0;
  } else {
    l.scale = 1.0;
    l.signal = expression;
  }
  if (r.has("input")) {
    const std::string name = r.name("input");
    auto input = c.inputs.find(name);
    if (!input) input = std::make_shared<ZeroSignal>();  // unassigned input: at rest
    if (l.signal) {
      // expression × input: both time functions
      auto product = std::make_shared<ProductSignal>(l.signal, input);
      l.signal = product;
    } else {
      l.signal = input;
    }
  }
  return l;
}

int coordinate_of(const SpecReader& r, const AssembledModel& model, const std::string& field) {
  const std::string name = r.name(field);
  for (int i = 0; i < model.nq(); ++i)
    if (model.coordinates()[static_cast<size_t>(i)].name == name) return i;
  r.fail(field, "a coordinate name (" + join(model.coordinate_names()) + ")", "'" + name + "'");
}

double positive(const SpecReader& r, const std::string& field, const char* unit) {
  const double v = r.number(field);
  if (!(v > 0.0)) r.fail(field, std::string("a positive value (") + unit + ")", std::to_string(v));
  return v;
}

double non_negative_or(const SpecReader& r, const std::string& field, const char* unit) {
  const double v = r.number_or(field, 0.0);
  if (v < 0.0) r.fail(field, std::string("a non-negative value (") + unit + ")", std::to_string(v));
  return v;
}

void read_gravity(const SpecReader& r, ElementContext& c) {
  r.allow_only({"g"});
  const Vec3<double> down = c.spec.dimension == 2 ? Vec3<double>{0, -9.81, 0} : Vec3<double>{0, 0, -9.81};
  c.model.add_gravity(read_vector_or(r, "g", c.spec.dimension, down));
}

void read_distance(const SpecReader& r, ElementContext& c) {
  r.allow_only({"a", "b", "length", "form"});
  LocalCoordinates local;
  const PointBinding a = local.bind(c.points.resolve(r, "a"), c.model.bodies(), c.model.ground());
  const PointBinding b = local.bind(c.points.resolve(r, "b"), c.model.bodies(), c.model.ground());
  const double length = positive(r, "length", "m");
  const std::string form = r.name_or("form", "length");
  if (form != "length" && form != "squared")
    r.fail("form", "'length' (g = |d| − L) or 'squared' (g = |d|² − L²)", "'" + form + "'");
  c.model.add_element(std::make_unique<elements::DistanceConstraint>(
      r.entry().name, local, a, b, length,
      form == "squared" ? elements::DistanceConstraint::Form::kSquared
                        : elements::DistanceConstraint::Form::kLength));
}

void read_coincident(const SpecReader& r, ElementContext& c) {
  r.allow_only({"a", "b"});
  LocalCoordinates local;
  const PointBinding a = local.bind(c.points.resolve(r, "a"), c.model.bodies(), c.model.ground());
  const PointBinding b = local.bind(c.points.resolve(r, "b"), c.model.bodies(), c.model.ground());
  if (c.spec.dimension == 2)
    c.model.add_element(std::make_unique<elements::CoincidentConstraint<2>>(r.entry().name, local, a, b));
  else
    c.model.add_element(std::make_unique<elements::CoincidentConstraint<3>>(r.entry().name, local, a, b));
}

void read_revolute(const SpecReader& r, ElementContext& c) {
  if (c.spec.dimension != 3)
    r.fail("type", "'coincident' for a pin joint in a 2-D model", "'revolute'");
  r.allow_only({"a", "b", "axis", "axis_b"});
  LocalCoordinates local;
  const PointBinding a = local.bind(c.points.resolve(r, "a"), c.model.bodies(), c.model.ground());
  const PointBinding b = local.bind(c.points.resolve(r, "b"), c.model.bodies(), c.model.ground());
  const Vec3<double> axis = read_vector(r, "axis", 3);
  if (!(axis.squared_norm() > 0.0)) r.fail("axis", "a non-zero vector", "a zero vector");
  const Vec3<double> axis_b = read_vector_or(r, "axis_b", 3, axis);
  if (!(axis_b.squared_norm() > 0.0)) r.fail("axis_b", "a non-zero vector", "a zero vector");
  c.model.add_element(std::make_unique<elements::RevoluteJoint>(r.entry().name, local, a, b, axis, axis_b));
}

void read_point_on_line(const SpecReader& r, ElementContext& c) {
  r.allow_only({"point", "origin", "direction", "lock_rotation"});
  LocalCoordinates local;
  const PointDef origin = r.has("origin") ? c.points.resolve(r, "origin") : PointDef{"ground", -1, {}, -1, {}};
  const PointDef guided = c.points.resolve(r, "point");
  const PointBinding a = local.bind(origin, c.model.bodies(), c.model.ground());
  const PointBinding p = local.bind(guided, c.model.bodies(), c.model.ground());
  const Vec3<double> d = read_vector(r, "direction", c.spec.dimension);
  if (!(d.squared_norm() > 0.0)) r.fail("direction", "a non-zero vector", "a zero vector");
  Vec3<double> unit, n1, n2;
  elements::orthonormal_complement(d, unit, n1, n2);
  const std::string lock = r.name_or("lock_rotation", "false");
  if (lock != "true" && lock != "false") r.fail("lock_rotation", "true or false", "'" + lock + "'");
  const auto& name = r.entry().name;
  if (c.spec.dimension == 2) {
    const Vec3<double> normal{-unit.y, unit.x, 0.0};
    if (lock == "true") {
      // The relative angle is locked at zero: bodies must be planar (or ground).
      auto angle_of = [&](const PointDef& pt, const PointBinding& bnd, const std::string& field) {
        if (pt.body < 0) return -1;
        if (bnd.body->kind != BodyKind::kPlanar)
          r.fail(field, "a point of a planar body (lock_rotation needs an angle)", "'" + pt.name + "'");
        return bnd.offset + 2;
      };
      const int aa = angle_of(origin, a, "origin");
      const int ap = angle_of(guided, p, "point");
      if (ap < 0) r.fail("point", "a point of a planar body (lock_rotation needs an angle)", "'ground'");
      c.model.add_element(std::make_unique<elements::PointOnLine<2>>(name, local, a, p, normal, normal, aa, ap, 0.0));
    } else {
      c.model.add_element(std::make_unique<elements::PointOnLine<1>>(name, local, a, p, normal, normal, -1, -1, 0.0));
    }
  } else {
    if (lock == "true") {
      if (guided.body < 0 || !p.body->rotates())
        r.fail("point", "a point of a spatial body (lock_rotation locks its orientation)", "'" + guided.name + "'");
      c.model.add_element(std::make_unique<elements::Prismatic3>(name, local, a, p, n1, n2));
      return;
    }
    c.model.add_element(std::make_unique<elements::PointOnLine<2>>(name, local, a, p, n1, n2, -1, -1, 0.0));
  }
}

void read_spring_damper(const SpecReader& r, ElementContext& c) {
  r.allow_only({"a", "b", "stiffness", "damping", "rest_length", "preload", "direction"});
  LocalCoordinates local;
  const PointBinding a = local.bind(c.points.resolve(r, "a"), c.model.bodies(), c.model.ground());
  const PointBinding b = local.bind(c.points.resolve(r, "b"), c.model.bodies(), c.model.ground());
  const double k = non_negative_or(r, "stiffness", "N/m");
  const double damping = non_negative_or(r, "damping", "N·s/m");
  const double rest = non_negative_or(r, "rest_length", "m");
  const double preload = r.number_or("preload", 0.0);
  if (r.has("direction")) {
    const Vec3<double> d = read_vector(r, "direction", c.spec.dimension);
    const double len = std::sqrt(d.squared_norm());
    if (!(len > 0.0)) r.fail("direction", "a non-zero vector", "a zero vector");
    const Vec3<double> unit = d * (1.0 / len);
    c.model.add_element(std::make_unique<elements::SpringDamper>(r.entry().name, local, a, b, k, damping,
                                                                 rest, preload, "spring_damper", &unit));
    return;
  }
  c.model.add_element(std::make_unique<elements::SpringDamper>(r.entry().name, local, a, b, k,
                                                               damping, rest, preload));
}

/// A 3-vector field in a body frame, or the word `relaxed` (nullopt) — attachment tangents.
std::optional<Vec3<double>> tangent_or_relaxed(const SpecReader& r, const char* field) {
  if (!r.has(field)) return std::nullopt;
  for (const auto& [name, value] : r.entry().fields)
    if (name == field && !value.is_list) {
      if (value.items.size() == 1 && value.items[0] == "relaxed") return std::nullopt;
      r.fail(field, "a 3-vector (the clamp tangent in the carrier's frame, pointing along the wire) or 'relaxed'",
             "'" + (value.items.empty() ? std::string() : value.items[0]) + "'");
    }
  const Vec3<double> v = read_vector(r, field, 3);
  if (!(v.squared_norm() > 0.0)) r.fail(field, "a non-zero vector (body frame) or 'relaxed'", "a zero vector");
  return v;
}

bool flag(const SpecReader& r, const char* field) {
  const std::string v = r.name_or(field, "false");
  if (v != "true" && v != "false") r.fail(field, "true or false", "'" + v + "'");
  return v == "true";
}

void read_wire(const SpecReader& r, ElementContext& c) {
  r.allow_only({"a", "b", "length", "stiffness", "youngs_modulus", "radius", "area", "bending", "torsion",
                "moment_of_area", "principal_axis", "tangent_a", "tangent_b", "bending_tag", "shear_modulus",
                "torsion_constant", "polar_moment", "torsion_area", "torsion_tag"});
  LocalCoordinates local;
  const PointBinding a = local.bind(c.points.resolve(r, "a"), c.model.bodies(), c.model.ground());
  const PointBinding b = local.bind(c.points.resolve(r, "b"), c.model.bodies(), c.model.ground());
  const double length = positive(r, "length", "m (unstretched)");
  const double radius = r.has("radius") ? positive(r, "radius", "m") : 0.0;
  if (r.has("radius") && r.has("area")) r.fail("area", "either radius or area", "both");
  const double area = r.has("area") ? positive(r, "area", "m²") : std::numbers::pi * radius * radius;
  const double E = r.has("youngs_modulus") ? positive(r, "youngs_modulus", "Pa") : 0.0;
  // The stretch: k given (as the published quad model does, from the equilibrium length), or E A / L₀.
  double k = 0.0;
  if (r.has("stiffness")) {
    k = positive(r, "stiffness", "N/m");
  } else {
    if (!r.has("youngs_modulus")) r.fail("stiffness", "stiffness (N/m) or youngs_modulus with radius or area", "neither");
    if (!(area > 0.0)) r.fail("radius", "radius or area (with youngs_modulus)", "neither");
    k = E * area / length;
  }
  const std::string& name = r.entry().name;
  c.model.add_element(std::make_unique<elements::SpringDamper>(name, local, a, b, k, 0.0, length, 0.0, "wire"));
  const bool bending = flag(r, "bending"), torsion = flag(r, "torsion");
  for (const char* f : {"moment_of_area", "principal_axis", "tangent_a", "tangent_b", "bending_tag"})
    if (!bending && r.has(f)) r.fail(f, std::string("no ") + f + " without bending: true", "a value");
  for (const char* f : {"shear_modulus", "torsion_constant", "polar_moment", "torsion_area", "torsion_tag"})
    if (!torsion && r.has(f)) r.fail(f, std::string("no ") + f + " without torsion: true", "a value");
  const elements::WireFlexureBase base{a, b, k, length};
  if (torsion && c.max_flexure_stage >= 1) {
    const double G = positive(r, "shear_modulus", "Pa");
    const double round_J = std::numbers::pi * std::pow(radius, 4) / 2.0;
    auto or_round = [&](const char* field, double round, const char* unit) {
      if (r.has(field)) return positive(r, field, unit);
      if (!(radius > 0.0)) r.fail(field, std::string("a value (") + unit + "; or radius for a round wire)", "nothing");
      return round;
    };
    const double Je = or_round("torsion_constant", round_J, "m⁴");
    const double J = or_round("polar_moment", round_J, "m⁴");
    const double At = r.has("torsion_area") ? positive(r, "torsion_area", "m²") : area;
    auto e = std::make_unique<elements::WireTorsion>(name + ".torsion", local, base, G, Je, J, At);
    if (r.has("torsion_tag")) e->set_loss_tag(r.name("torsion_tag"));
    c.model.add_element(std::move(e));
  }
  if (bending && c.max_flexure_stage >= 2) {
    if (!r.has("youngs_modulus")) r.fail("youngs_modulus", "Young's modulus (Pa) for the bending of the wire", "nothing");
    double I1 = std::numbers::pi * std::pow(radius, 4) / 4.0, I2 = I1;
    if (r.has("moment_of_area")) {
      const auto v = r.numbers("moment_of_area", -1);
      if (v.size() > 2) r.fail("moment_of_area", "I (round) or [I1, I2] (m⁴)", std::to_string(v.size()) + " numbers");
      I1 = v[0];
      I2 = v.size() == 2 ? v[1] : v[0];
      if (!(I1 > 0.0 && I2 > 0.0)) r.fail("moment_of_area", "positive moments of area (m⁴)", "a value ≤ 0");
    } else if (!(radius > 0.0)) {
      r.fail("moment_of_area", "I or [I1, I2] (m⁴; or radius for a round wire)", "nothing");
    }
    const auto ta = tangent_or_relaxed(r, "tangent_a"), tb = tangent_or_relaxed(r, "tangent_b");
    std::optional<Vec3<double>> axis;
    if (r.has("principal_axis")) {
      axis = read_vector(r, "principal_axis", 3);
      if (!(axis->squared_norm() > 0.0)) r.fail("principal_axis", "a non-zero vector (frame of end a)", "a zero vector");
    }
    using Part = elements::WireBending::Part;
    for (const Part part : {Part::kStrain, Part::kTensionWork}) {
      if (part == Part::kTensionWork && c.max_flexure_stage < 3) break;
      auto e = std::make_unique<elements::WireBending>(
          name + (part == Part::kStrain ? ".bending" : ".bending_stretch"), local, base, part, E, I1, I2,
          ta ? &*ta : nullptr, tb ? &*tb : nullptr, axis ? &*axis : nullptr);
      if (r.has("bending_tag")) e->set_loss_tag(r.name("bending_tag"));
      c.model.add_element(std::move(e));
    }
  }
}

void read_point_force(const SpecReader& r, ElementContext& c) {
  r.allow_only({"point", "force", "input"});
  LocalCoordinates local;
  const PointBinding p = local.bind(c.points.resolve(r, "point"), c.model.bodies(), c.model.ground());
  const SpecField* f = raw_field(r.entry(), "force");
  if (f == nullptr || static_cast<int>(f->items.size()) != c.spec.dimension)
    r.fail("force", std::to_string(c.spec.dimension) + " components (numbers or expressions of t)",
           f ? std::to_string(f->items.size()) : std::string("nothing"));
  c.model.add_element(std::make_unique<elements::PointForce>(r.entry().name, local, p, load(r, c, "force", 0),
                                                             load(r, c, "force", 1), load(r, c, "force", 2)));
}

void read_coordinate_force(const SpecReader& r, ElementContext& c) {
  r.allow_only({"coordinate", "value", "input"});
  const int i = coordinate_of(r, c.model, "coordinate");
  c.model.add_element(std::make_unique<elements::CoordinateForce>(r.entry().name, i, load(r, c, "value", 0)));
}

void read_body_torque(const SpecReader& r, ElementContext& c) {
  r.allow_only({"body", "torque", "input"});
  const std::string name = r.name("body");
  const int b = c.model.body_index(name);
  if (b < 0 || !c.model.bodies()[static_cast<size_t>(b)].rotates())
    r.fail("body", "the name of a planar or spatial body", "'" + name + "'");
  const SpecField* f = raw_field(r.entry(), "torque");
  const int components = c.spec.dimension == 2 ? 1 : 3;
  if (f == nullptr || static_cast<int>(f->items.size()) != components)
    r.fail("torque", c.spec.dimension == 2 ? "one value (N·m about z)" : "3 components (N·m, world axes)",
           f ? std::to_string(f->items.size()) : std::string("nothing"));
  const auto& body = c.model.bodies()[static_cast<size_t>(b)];
  if (components == 1) {
    c.model.add_element(std::make_unique<elements::BodyTorque>(r.entry().name, body, elements::LoadComponent{},
                                                               elements::LoadComponent{}, load(r, c, "torque", 0)));
  } else {
    c.model.add_element(std::make_unique<elements::BodyTorque>(r.entry().name, body, load(r, c, "torque", 0),
                                                               load(r, c, "torque", 1), load(r, c, "torque", 2)));
  }
}

void read_coordinate_damper(const SpecReader& r, ElementContext& c) {
  r.allow_only({"coordinate", "damping"});
  const int i = coordinate_of(r, c.model, "coordinate");
  c.model.add_element(std::make_unique<elements::CoordinateDamper>(r.entry().name, i,
                                                                   non_negative_or(r, "damping", "N·s/m or N·m·s/rad")));
}

void read_joint_damper(const SpecReader& r, ElementContext& c) {
  if (c.spec.dimension != 2) r.fail("type", "a 2-D model (dimension: 2) for joint_damper", "dimension 3");
  r.allow_only({"a", "b", "c", "damping", "stiffness", "rest_angle"});
  LocalCoordinates local;
  const PointBinding a = local.bind(c.points.resolve(r, "a"), c.model.bodies(), c.model.ground());
  const PointBinding b = local.bind(c.points.resolve(r, "b"), c.model.bodies(), c.model.ground());
  const PointBinding cc = local.bind(c.points.resolve(r, "c"), c.model.bodies(), c.model.ground());
  c.model.add_element(std::make_unique<elements::JointDamper>(
      r.entry().name, local, a, b, cc, non_negative_or(r, "stiffness", "N·m/rad"),
      non_negative_or(r, "damping", "N·m·s/rad"), r.number_or("rest_angle", 0.0)));
}

void read_rolling_ball(const SpecReader& r, ElementContext& c) {
  if (c.spec.dimension != 2) r.fail("type", "a 2-D model (dimension: 2) for rolling_ball", "dimension 3");
  r.allow_only({"platform", "bottom", "top", "load", "a0", "a1", "a2", "a3", "a4", "R", "b0", "b1",
                "v0", "rho_dead"});
  const std::string platform = r.name("platform");
  const int body = c.model.body_index(platform);
  if (body < 0 || c.model.bodies()[static_cast<size_t>(body)].kind != BodyKind::kPlanar)
    r.fail("platform", "the name of a planar body", "'" + platform + "'");
  const PointDef bottom = c.points.resolve(r, "bottom");
  if (bottom.body >= 0) r.fail("bottom", "a point on the ground (the bottom dish centre)", "'" + bottom.name + "'");
  const PointDef top = c.points.resolve(r, "top");
  if (top.body != body) r.fail("top", "a point of the platform '" + platform + "' (the top dish centre)", "'" + top.name + "'");
  LocalCoordinates local;
  const PointBinding top_binding = local.bind(top, c.model.bodies(), c.model.ground());
  const PointBinding bottom_binding = local.bind(bottom, c.model.bodies(), c.model.ground());
  std::array<int, 6> own{};
  const auto& globals = c.own_coordinates.at(r.entry().name);
  for (size_t k = 0; k < 6; ++k) own[k] = local.add_coordinate(globals[k]);
  elements::DishProfile dish;  // defaults: the published dish
  if (r.has("a0")) dish.a0 = positive(r, "a0", "m");
  if (r.has("a1")) dish.a1 = non_negative_or(r, "a1", "−");
  if (r.has("a2")) dish.a2 = non_negative_or(r, "a2", "m");
  if (r.has("a3")) dish.a3 = non_negative_or(r, "a3", "m");
  if (r.has("a4")) dish.a4 = non_negative_or(r, "a4", "m");
  if (r.has("R")) dish.R = positive(r, "R", "m");
  elements::RollingResistance res;
  res.b0 = r.number_or("b0", 0.0);
  res.b1 = r.number_or("b1", 0.0);
  res.v0 = r.has("v0") ? positive(r, "v0", "m/s") : 0.005;
  res.rho_dead = non_negative_or(r, "rho_dead", "m");
  const double load = non_negative_or(r, "load", "N");
  c.model.add_element(std::make_unique<elements::RollingBall>(r.entry().name, local, own, bottom_binding,
                                                              top_binding, top_binding.offset, dish, load, res));
}

void read_spring6(const SpecReader& r, ElementContext& c) {
  if (c.spec.dimension != 3) r.fail("type", "a 3-D model (dimension: 3) for spring6", "dimension 2");
  r.allow_only({"a", "b", "angles_a", "angles_b", "stiffness", "preload"});
  LocalCoordinates local;
  const PointBinding a = local.bind(c.points.resolve(r, "a"), c.model.bodies(), c.model.ground());
  const PointBinding b = local.bind(c.points.resolve(r, "b"), c.model.bodies(), c.model.ground());
  auto attachment = [&](const char* field) {
    if (!r.has(field)) return elements::Mat3<double>::identity();
    const auto ang = r.numbers(field, 3);  // yaw, pitch, roll
    return elements::rotation(elements::AngleSequence::kZyx, ang[0], ang[1], ang[2]);
  };
  const std::vector<double> k = r.numbers("stiffness", -1);
  std::array<double, 36> K{};
  if (k.size() == 6) {
    for (size_t i = 0; i < 6; ++i) K[7 * i] = k[i];
  } else if (k.size() == 36) {
    for (size_t i = 0; i < 36; ++i) K[i] = k[i];
    for (size_t i = 0; i < 6; ++i)
      for (size_t j = 0; j < i; ++j)
        if (std::abs(K[6 * i + j] - K[6 * j + i]) > 1e-12 * (std::abs(K[6 * i + j]) + std::abs(K[6 * j + i]) + 1e-300))
          r.fail("stiffness", "a symmetric 6×6 matrix (a potential)",
                 "K[" + std::to_string(i) + "][" + std::to_string(j) + "] ≠ K[" + std::to_string(j) + "][" + std::to_string(i) + "]");
  } else {
    r.fail("stiffness", "6 numbers (diagonal) or 36 (6×6, row-major; N/m, N/rad, N·m/m, N·m/rad)",
           std::to_string(k.size()) + " numbers");
  }
  std::array<double, 6> f{};
  if (r.has("preload")) {
    const auto p = r.numbers("preload", 6);
    for (size_t i = 0; i < 6; ++i) f[i] = p[i];
  }
  c.model.add_element(std::make_unique<elements::Spring6>(r.entry().name, local, a, b, attachment("angles_a"),
                                                          attachment("angles_b"), K, f));
}

void read_voice_coil(const SpecReader& r, ElementContext& c) {
  r.allow_only({"point", "direction", "coordinate", "A", "current", "voltage", "input", "L", "R"});
  LocalCoordinates local;
  PointBinding point;
  Vec3<double> unit;
  int coordinate = -1;
  if (r.has("coordinate")) {
    if (r.has("point")) r.fail("point", "either point (with direction) or coordinate", "both");
    coordinate = local.add_coordinate(coordinate_of(r, c.model, "coordinate"));
  } else {
    point = local.bind(c.points.resolve(r, "point"), c.model.bodies(), c.model.ground());
    const Vec3<double> d = read_vector(r, "direction", c.spec.dimension);
    const double len = std::sqrt(d.squared_norm());
    if (!(len > 0.0)) r.fail("direction", "a non-zero vector", "a zero vector");
    unit = d * (1.0 / len);
  }
  const double A = r.number("A");
  if (!std::isfinite(A)) r.fail("A", "a finite actuator constant (N/A)", std::to_string(A));
  const bool current = r.has("current"), voltage = r.has("voltage");
  if (current == voltage)
    r.fail(current ? "voltage" : "current", "exactly one of current (A) or voltage (V, with L and R)",
           current ? "both" : "neither");
  if (current) {
    if (r.has("L") || r.has("R")) r.fail(r.has("L") ? "L" : "R", "no L or R under current control", "a value");
    c.model.add_element(std::make_unique<elements::VoiceCoil>(
        r.entry().name, local, point, unit, coordinate, A, elements::VoiceCoil::Drive::kCurrent,
        load(r, c, "current", 0), 0.0, 0.0, -1));
    return;
  }
  const double L = positive(r, "L", "H");
  const double R = non_negative_or(r, "R", "Ω");
  const int state = c.model.add_element_state(r.entry().name, "I", "A");
  c.model.add_element(std::make_unique<elements::VoiceCoil>(
      r.entry().name, local, point, unit, coordinate, A, elements::VoiceCoil::Drive::kVoltage,
      load(r, c, "voltage", 0), L, R, state));
}

const std::vector<std::pair<std::string, ElementReader>>& element_readers() {
  static const std::vector<std::pair<std::string, ElementReader>> readers = {
      {"gravity", read_gravity},
      {"distance", read_distance},
      {"coincident", read_coincident},
      {"revolute", read_revolute},
      {"point_on_line", read_point_on_line},
      {"spring_damper", read_spring_damper},
      {"wire", read_wire},
      {"point_force", read_point_force},
      {"coordinate_force", read_coordinate_force},
      {"coordinate_damper", read_coordinate_damper},
      {"joint_damper", read_joint_damper},
      {"body_torque", read_body_torque},
      {"rolling_ball", read_rolling_ball},
      {"voice_coil", read_voice_coil},
      {"spring6", read_spring6},
  };
  return readers;
}

// ---- ground ---------------------------------------------------------------------------------------

/// An acceleration entry names an input signal when it is a bare identifier that is neither a
/// parameter nor the time t; anything else is a number or an expression of t.
bool is_input_name(const std::string& item, const ModelFileSpec& spec) {
  if (item.empty() || !(std::isalpha(static_cast<unsigned char>(item[0])) || item[0] == '_')) return false;
  for (char ch : item)
    if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '_')) return false;
  return item != "t" && item != "pi" && item != "e" && !spec.parameters.contains(item);
}

void read_ground(const ModelFileSpec& spec, AssembledModel& model, const ModelInputs& inputs) {
  if (spec.ground.line == 0 && spec.ground.fields.empty()) return;
  const SpecReader r(spec, spec.ground);
  const std::string type = spec.ground.type.empty() ? "fixed" : spec.ground.type;
  if (type != "fixed" && type != "accelerated")
    r.fail("type", "'fixed' or 'accelerated'", "'" + type + "'");
  r.allow_only(type == "fixed" ? std::vector<std::string>{"origin", "angles"}
                               : std::vector<std::string>{"origin", "angles", "acceleration"});
  elements::Ground g;
  g.origin = read_vector_or(r, "origin", spec.dimension, {});
  if (r.has("angles")) {
    if (spec.dimension == 2) {
      g.rotation = elements::rotation_z(r.number("angles"));
    } else {
      const auto a = r.numbers("angles", 3);  // yaw, pitch, roll of the structure
      g.rotation = elements::rotation(elements::AngleSequence::kZyx, a[0], a[1], a[2]);
    }
  }
  model.set_ground(g);
  if (type == "accelerated") {
    // Each component names an input signal (m/s²) or is 0.
    std::shared_ptr<const Signal> s[3];
    const SpecField* field = nullptr;
    for (const auto& [name, f] : spec.ground.fields)
      if (name == "acceleration") field = &f;
    if (!field) r.fail("acceleration", "a list of input names (or 0) per axis", "nothing");
    if (static_cast<int>(field->items.size()) != spec.dimension)
      r.fail("acceleration", std::to_string(spec.dimension) + " entries (input names or 0)",
             std::to_string(field->items.size()));
    const auto symbols = spec.parameters.symbols();
    for (size_t k = 0; k < field->items.size(); ++k) {
      const std::string& item = field->items[k];
      if (is_input_name(item, spec)) {
        s[k] = inputs.find(item);
        if (!s[k]) s[k] = std::make_shared<ZeroSignal>();  // declared but unassigned: at rest
        continue;
      }
      // A number or an expression of t (m/s²).
      auto e = std::make_shared<ExpressionSignal>(item, symbols, r.where("acceleration") + "[" + std::to_string(k) + "]");
      if (e->expression().is_constant() && e->value(0.0) == 0.0) continue;
      s[k] = e;
    }
    model.set_ground_acceleration(s[0], s[1], s[2]);
  }
}

}  // namespace

const std::vector<std::string>& model_file_body_types() {
  static const std::vector<std::string> types = {"point", "planar", "spatial"};
  return types;
}

const std::vector<std::string>& model_file_element_types() {
  static const std::vector<std::string> types = [] {
    std::vector<std::string> t;
    for (const auto& [name, reader] : element_readers()) t.push_back(name);
    return t;
  }();
  return types;
}

std::vector<std::string> model_file_inputs(const ModelFileSpec& spec) {
  std::vector<std::string> names;
  auto add = [&](const std::string& n) {
    if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  };
  for (const auto& [field, value] : spec.ground.fields)
    if (field == "acceleration")
      for (const auto& item : value.items)
        if (is_input_name(item, spec)) add(item);
  for (const auto& e : spec.elements)
    for (const auto& [field, value] : e.fields)
      if (field == "input" && !value.items.empty()) add(value.items[0]);
  return names;
}

// ---- declared outputs (docs/model-files.md, outputs) --------------------------------------------

namespace {

const std::vector<std::string>& output_types() {
  static const std::vector<std::string> types{"position", "velocity", "acceleration", "angle",
                                              "distance", "orientation", "element_force",
                                              "multiplier", "expression"};
  return types;
}

/// A body by name ("ground" → nullptr when `ground_ok`); fails naming the known bodies.
const Body* body_field(const SpecReader& r, const AssembledModel& model, const std::string& field,
                       bool ground_ok) {
  const std::string name = r.name(field);
  if (ground_ok && name == "ground") return nullptr;
  const int b = model.body_index(name);
  if (b < 0 || !model.bodies()[static_cast<size_t>(b)].rotates()) {
    std::vector<std::string> known;
    if (ground_ok) known.emplace_back("ground");
    for (const auto& body : model.bodies())
      if (body.rotates()) known.push_back(body.name);
    r.fail(field, "a rigid body" + std::string(ground_ok ? " or 'ground'" : "") + " (known: " + join(known) + ")",
           "'" + name + "'");
  }
  return &model.bodies()[static_cast<size_t>(b)];
}

/// Kinematic columns "<name>.x", ".y"(, ".z") or one column "<name>".
void axis_columns(elements::DeclaredOutput& o, int dimension, const char* unit) {
  static const char* const kAxis[] = {"x", "y", "z"};
  for (int k = 0; k < dimension; ++k) o.columns.push_back({o.name + "." + kAxis[k], unit});
}

elements::DeclaredOutput read_output(const SpecReader& r, const AssembledModel& model,
                                     const PointTable& points, const elements::DeclaredOutputs& earlier,
                                     const ModelFileSpec& spec) {
  const SpecEntry& e = r.entry();
  elements::DeclaredOutput o;
  o.name = e.name;
  o.dimension = model.dimension();
  LocalCoordinates local;
  const auto bind_body = [&](const Body* body) { return body != nullptr ? local.add_body(*body) : -1; };
  if (e.type == "position" || e.type == "velocity" || e.type == "acceleration") {
    r.allow_only({"point", "frame"});
    o.kind = e.type == "position" ? elements::OutputKind::kPosition
             : e.type == "velocity" ? elements::OutputKind::kVelocity
                                    : elements::OutputKind::kAcceleration;
    o.a = local.bind(points.resolve(r, "point"), model.bodies(), model.ground());
    if (r.has("frame")) {
      o.frame = body_field(r, model, "frame", true);
      o.frame_offset = bind_body(o.frame);
    }
    axis_columns(o, o.dimension, e.type == "position" ? "m" : e.type == "velocity" ? "m/s" : "m/s²");
  } else if (e.type == "distance") {
    r.allow_only({"a", "b"});
    o.kind = elements::OutputKind::kDistance;
    o.a = local.bind(points.resolve(r, "a"), model.bodies(), model.ground());
    o.b = local.bind(points.resolve(r, "b"), model.bodies(), model.ground());
    o.columns.push_back({o.name, "m"});
  } else if (e.type == "angle") {
    o.kind = elements::OutputKind::kAngle;
    if (o.dimension == 2) {
      r.allow_only({"a", "b"});
    } else {
      r.allow_only({"a", "b", "axis"});
    }
    o.body_a = r.has("a") ? body_field(r, model, "a", true) : nullptr;
    o.body_b = body_field(r, model, "b", false);
    o.offset_a = bind_body(o.body_a);
    o.offset_b = bind_body(o.body_b);
    if (o.dimension == 3) {
      const Vec3<double> axis = r.has("axis") ? read_vector(r, "axis", 3) : Vec3<double>{0, 0, 1};
      const double norm = std::sqrt(axis.squared_norm());
      if (!(norm > 0.0)) r.fail("axis", "a non-zero direction in a's frame", "the zero vector");
      o.axis = axis * (1.0 / norm);
    }
    o.columns.push_back({o.name, "rad"});
  } else if (e.type == "orientation") {
    r.allow_only({"body"});
    o.kind = elements::OutputKind::kOrientation;
    o.body_a = body_field(r, model, "body", false);
    o.offset_a = bind_body(o.body_a);
    if (o.dimension == 2) {
      o.columns.push_back({o.name, "rad"});
    } else {
      for (const char* a : {"yaw", "pitch", "roll"}) o.columns.push_back({o.name + "." + a, "rad"});
    }
  } else if (e.type == "element_force") {
    r.allow_only({"element"});
    o.kind = elements::OutputKind::kElementForce;
    const std::string name = r.name("element");
    std::vector<std::string> known;
    for (size_t k = 0; k < model.elements().size(); ++k) {
      const auto& el = *model.elements()[k];
      if (el.measure_size() == 0) continue;
      known.push_back(el.name());
      if (el.name() == name && o.element < 0) o.element = static_cast<int>(k);
    }
    if (o.element < 0)
      r.fail("element", "a force element with a force law (known: " + join(known) + ")", "'" + name + "'");
    const int k = model.elements()[static_cast<size_t>(o.element)]->measure_size();
    for (int c = 0; c < k; ++c) o.columns.push_back({k == 1 ? o.name : o.name + "." + std::to_string(c), "N"});
  } else if (e.type == "multiplier") {
    r.allow_only({"constraint"});
    o.kind = elements::OutputKind::kMultiplier;
    const std::string name = r.name("constraint");
    const auto rows = model.constraint_names();
    for (size_t i = 0; i < rows.size(); ++i) {
      if (rows[i] == name) {
        o.rows = {static_cast<int>(i)};
        o.columns.push_back({o.name, ""});
        break;
      }
    }
    if (o.rows.empty()) {
      for (size_t i = 0; i < rows.size(); ++i) {
        if (rows[i].rfind(name + ".", 0) != 0) continue;
        o.rows.push_back(static_cast<int>(i));
        o.columns.push_back({o.name + rows[i].substr(name.size()), ""});
      }
    }
    if (o.rows.empty())
      r.fail("constraint", "a constraint row or a constraint element (rows: " + join(rows) + ")", "'" + name + "'");
  } else if (e.type == "expression") {
    r.allow_only({"value", "unit"});
    o.kind = elements::OutputKind::kExpression;
    const std::string text = r.text("value");
    // Earlier outputs' columns by their names with '.' written '_' (B0.x → B0_x), and t.
    std::vector<std::string> available;
    for (const auto& c : earlier.columns()) {
      std::string symbol = c.name;
      std::replace(symbol.begin(), symbol.end(), '.', '_');
      available.push_back(symbol);
    }
    std::vector<std::string> variables;
    const auto symbols = spec.parameters.symbols();
    for (const auto& used : expression_symbols(text, r.where("value"))) {
      if (symbols.contains(used) && used != "t") continue;  // a parameter: a constant
      const auto it = std::find(available.begin(), available.end(), used);
      if (it != available.end()) {
        o.inputs.push_back(static_cast<int>(it - available.begin()));
        variables.push_back(used);
      } else if (used == "t") {
        o.inputs.push_back(-1);
        variables.push_back(used);
      }
    }
    if (static_cast<int>(variables.size()) > elements::DeclaredOutputs::kMaxExpressionInputs)
      r.fail("value", "an expression of at most " + std::to_string(elements::DeclaredOutputs::kMaxExpressionInputs) +
                          " output columns", std::to_string(variables.size()));
    // Unknown names fail here, naming the parameters and the columns declared before.
    auto compiled = std::make_shared<const CompiledExpression>(text, symbols, r.where("value"), variables);
    o.value = [compiled](const double* x) { return compiled->value_at(x); };
    o.derivative = [compiled](const double* x, int k) { return compiled->derivative(x, k); };
    o.columns.push_back({o.name, r.has("unit") ? r.name("unit") : ""});
  } else {
    r.fail("type", "one of: " + join(output_types()), "'" + e.type + "'");
  }
  o.coordinates = local.global();
  if (static_cast<int>(o.coordinates.size()) + 1 > elements::kMaxLocalCoordinates)
    r.fail("type", "an output touching at most " + std::to_string(elements::kMaxLocalCoordinates - 1) + " coordinates",
           std::to_string(o.coordinates.size()));
  return o;
}

}  // namespace

elements::DeclaredOutputs read_declared_outputs(const ModelFileSpec& spec, const std::vector<SpecEntry>& run_entries,
                                                const std::string& run_source, const AssembledModel& model) {
  elements::DeclaredOutputs outputs;
  const PointTable points(spec, model);
  ModelFileSpec run_spec;  // run-file entries: the model's parameters, the run file's name in messages
  if (!run_entries.empty()) {
    run_spec = spec;
    run_spec.source = run_source;
  }
  std::vector<std::string> names;
  const auto add = [&](const ModelFileSpec& owner, const SpecEntry& e) {
    const SpecReader r(owner, e);
    if (std::find(names.begin(), names.end(), e.name) != names.end())
      r.fail("type", "an output name not used before (the model file and the run file share one namespace)",
             "'" + e.name + "' again");
    names.push_back(e.name);
    elements::DeclaredOutput o = read_output(r, model, points, outputs, owner);
    // An expression's inputs index the earlier columns; '−1' (t) stays.
    outputs.add(std::move(o));
  };
  for (const auto& e : spec.outputs) add(spec, e);
  for (const auto& e : run_entries) add(run_spec, e);
  return outputs;
}

std::unique_ptr<AssembledModel> build_assembled_model(const ModelFileSpec& spec,
                                                      const ModelInputs& inputs, bool allow_floats,
                                                      int max_flexure_stage) {
  auto model = std::make_unique<AssembledModel>(spec.name.empty() ? "model_file" : spec.name,
                                                spec.dimension);
  for (const auto& e : spec.bodies) model->add_body(read_body(spec, e));
  read_ground(spec, *model, inputs);
  read_points(spec, *model);
  const PointTable points(spec, *model);
  ElementContext context{spec, *model, points, inputs, {}, max_flexure_stage};
  // Elements that own coordinates create them now (coordinates precede elements).
  for (const auto& e : spec.elements) {
    if (e.type != "rolling_ball") continue;
    auto& own = context.own_coordinates[e.name];
    for (const auto& [suffix, unit] : rolling_ball_coordinates())
      own.push_back(model->add_element_coordinate(e.name, suffix, unit));
  }
  for (const auto& e : spec.elements) {
    // `tag` (a damping tag) is common to every element with a potential: read it here, hand
    // the reader the entry without it, and attach it to what the reader built.
    SpecEntry stripped = e;
    std::erase_if(stripped.fields, [](const auto& f) { return f.first == "tag"; });
    const SpecReader tagged(spec, e);
    const std::string tag = tagged.has("tag") ? tagged.name("tag") : "";
    const SpecReader r(spec, stripped);
    const auto& readers = element_readers();
    const auto it = std::find_if(readers.begin(), readers.end(),
                                 [&](const auto& p) { return p.first == e.type; });
    if (it == readers.end())
      r.fail("type", "one of: " + join(model_file_element_types()), "'" + e.type + "'");
    const size_t before = model->elements().size();
    it->second(r, context);
    if (tag.empty()) continue;
    if (model->elements().size() == before)
      tagged.fail("tag", "no damping tag on a '" + e.type + "' element (it has no potential term of its own)",
                  "'" + tag + "'");
    for (size_t k = before; k < model->elements().size(); ++k) {
      auto& element = *model->elements()[k];
      if (!element.supports_loss_tag())
        tagged.fail("tag", "no damping tag on a '" + e.type +
                               "' element (tags go on elements with a potential: wire, spring_damper, spring6)",
                    "'" + tag + "'");
      if (element.loss_tag().empty()) element.set_loss_tag(tag);  // a wire's own bending/torsion tags stay
    }
  }
  if (!spec.independent.empty()) {
    for (const auto& name : spec.independent) {
      bool known = false;
      for (const auto& c : model->coordinates()) known = known || c.name == name;
      if (!known)
        throw InputError(spec.source + ":" + std::to_string(spec.independent_line) +
                         ": independent: unknown coordinate '" + name + "' (expected one of: " +
                         join(model->coordinate_names()) + ")");
    }
    model->set_independent(spec.independent);
  }
  for (const auto& p : spec.parameters.entries()) model->record(p.name, p.value);
  try {
    model->finalize(allow_floats);
  } catch (const InputError& e) {
    throw InputError(spec.source + ": " + e.what());
  }
  if (!spec.outputs.empty()) model->set_declared_outputs(read_declared_outputs(spec, {}, "", *model));
  return model;
}

analysis::LossModel model_file_losses(const ModelFileSpec& spec, const AssembledModel& model) {
  analysis::LossModel losses;
  const auto in_use = model.loss_tags();
  const auto symbols = spec.parameters.symbols();
  for (const auto& e : spec.losses) {
    const SpecReader r(spec, e);
    const std::string where = spec.source + ":" + std::to_string(e.line) + ": losses." + e.name;
    if (std::find(in_use.begin(), in_use.end(), e.name) == in_use.end())
      throw InputError(where + ": no element carries the damping tag '" + e.name + "' (tags in use: " +
                       (in_use.empty() ? std::string("none; give elements a `tag:` field") : join(in_use)) + ")");
    // An expression of the frequency f (Hz) compiled once; shared by the loss function's copies.
    auto of_f = [&](const char* field, const char* fallback) {
      return std::make_shared<const CompiledExpression>(r.has(field) ? r.text(field) : std::string(fallback),
                                                        symbols, r.where(field), "f");
    };
    analysis::LossFunction fn;
    if (e.type == "loss_angle") {
      r.allow_only({"phi"});
      if (!r.has("phi")) r.fail("phi", "the loss angle φ (a number or an expression of f in Hz)", "nothing");
      const auto phi = of_f("phi", "0");
      std::ostringstream text;
      text << "loss angle " << phi->text();
      if (phi->is_constant() && phi->text() != std::to_string(phi->value(0.0))) text << " = " << phi->value(0.0);
      fn = {[phi](double f) { return std::complex<double>(1.0, phi->value(f)); }, text.str()};
    } else if (e.type == "viscous") {
      r.allow_only({"damping", "stiffness"});
      const double b = r.number("damping"), k = r.number("stiffness");
      if (!(b >= 0.0)) r.fail("damping", "a non-negative damping coefficient (N·s/m)", std::to_string(b));
      if (!(k > 0.0)) r.fail("stiffness", "the positive stiffness it damps (N/m)", std::to_string(k));
      fn = analysis::LossModel::viscous(b, k);
    } else if (e.type == "complex") {
      r.allow_only({"real", "imag"});
      const auto re = of_f("real", "1"), im = of_f("imag", "0");
      fn = {[re, im](double f) { return std::complex<double>(re->value(f), im->value(f)); },
            "α = (" + re->text() + ") + i(" + im->text() + ")"};
    } else {
      r.fail("type", "loss_angle, viscous or complex", "'" + e.type + "'");
    }
    try {
      losses.set(e.name, std::move(fn));
    } catch (const InputError& err) {
      throw InputError(where + ": " + err.what());
    }
  }
  return losses;
}

std::unique_ptr<AssembledModel> build_model_for_linear_analysis(const ModelFileSpec& spec, int max_flexure_stage) {
  ModelInputs zero;
  const auto zero_signal = std::make_shared<const ZeroSignal>();
  for (const auto& name : model_file_inputs(spec)) zero.signals.emplace_back(name, zero_signal);
  return build_assembled_model(spec, zero, true, max_flexure_stage);
}

namespace {

/// Fields of `initial:` / `initial_velocity:` that are not coordinates: a quaternion body's
/// orientation as zyx angles (`<body>.yaw`, `.pitch`, `.roll`, rad) and its body-frame angular
/// velocity (`<body>.wx`, `.wy`, `.wz`, rad/s). Converted after the coordinates are read.
struct QuaternionInitial {
  const Body* body = nullptr;
  double angles[3] = {0.0, 0.0, 0.0}, omega[3] = {0.0, 0.0, 0.0};
  const SpecField* first_angle = nullptr;  // the first given, for messages
  const SpecField* first_omega = nullptr;
  const SpecField* first_e = nullptr;      // the first e0..e3 given in `initial:`
  const SpecField* first_rate = nullptr;   // the first e0..e3 given in `initial_velocity:`
};

}  // namespace

void model_file_initial_state(const ModelFileSpec& spec, const Model& model, VecRef q0, VecRef v0) {
  auto symbols = spec.parameters.symbols();
  // Quaternion bodies (model files always build an AssembledModel; other models have none).
  std::vector<QuaternionInitial> quaternions;
  if (const auto* assembled = dynamic_cast<const AssembledModel*>(&model))
    for (const auto& b : assembled->bodies())
      if (b.kind == BodyKind::kQuaternion) quaternions.push_back({&b});
  // The quaternion body and suffix of an entry name "<body>.<suffix>" (nullptr: not one).
  auto quaternion_of = [&](const std::string& name, std::string& suffix) -> QuaternionInitial* {
    for (auto& qi : quaternions) {
      const std::string& body = qi.body->name;
      if (name.size() > body.size() + 1 && name.compare(0, body.size(), body) == 0 && name[body.size()] == '.') {
        suffix = name.substr(body.size() + 1);
        return &qi;
      }
    }
    return nullptr;
  };
  std::string extra_names;  // accepted non-coordinate names, for the unknown-name message
  auto fill = [&](const std::vector<std::pair<std::string, SpecField>>& entries, VecRef out,
                  const char* section, bool positions) {
    for (const auto& entry : entries) {
      // Not a structured binding: clang (the fuzz build) does not let a lambda capture one.
      const std::string& name = entry.first;
      const SpecField& field = entry.second;
      const std::string where = spec.source + ":" + std::to_string(field.line) + ": " + section + "." + name;
      auto evaluate = [&] {
        if (field.items.size() != 1) throw InputError(where + ": expected a number, got a list");
        const double value = evaluate_expression(field.items[0], symbols, where);
        if (!std::isfinite(value)) throw InputError(where + ": expected a finite number, got " + field.items[0]);
        return value;
      };
      std::string suffix;
      if (QuaternionInitial* qi = quaternion_of(name, suffix)) {
        const int angle = positions ? name_suffix_index(suffix, {"yaw", "pitch", "roll"}) : -1;
        const int omega = positions ? -1 : name_suffix_index(suffix, {"wx", "wy", "wz"});
        const bool is_e = name_suffix_index(suffix, {"e0", "e1", "e2", "e3"}) >= 0;
        if (angle >= 0) {
          qi->angles[angle] = evaluate();
          if (!qi->first_angle) qi->first_angle = &field;
          continue;
        }
        if (omega >= 0) {
          qi->omega[omega] = evaluate();
          if (!qi->first_omega) qi->first_omega = &field;
          continue;
        }
        if (is_e && positions && !qi->first_e) qi->first_e = &field;
        if (is_e && !positions && !qi->first_rate) qi->first_rate = &field;
      }
      int index = -1;
      for (int i = 0; i < model.nq(); ++i)
        if (model.coordinates()[static_cast<size_t>(i)].name == name) index = i;
      if (index < 0)
        throw InputError(where + ": unknown coordinate (expected one of: " +
                         join(model.coordinate_names()) + extra_names + ")");
      out(index) = evaluate();
    }
  };
  q0.setZero();
  v0.setZero();
  for (const auto& qi : quaternions) {
    const std::string& b = qi.body->name;
    extra_names += "; for quaternion body '" + b + "' also " + b + ".yaw, " + b + ".pitch, " + b +
                   ".roll (initial) and " + b + ".wx, " + b + ".wy, " + b + ".wz (initial_velocity)";
  }
  fill(spec.initial_position, q0, "initial", true);
  fill(spec.initial_velocity, v0, "initial_velocity", false);
  for (const auto& qi : quaternions) {
    const Body& b = *qi.body;
    const int e = b.first + 3;
    const std::string prefix = b.name + ".";
    auto at = [&](const SpecField* f, const char* section, const std::string& field) {
      return spec.source + ":" + std::to_string(f->line) + ": " + section + "." + prefix + field;
    };
    if (qi.first_angle && qi.first_e)
      throw InputError(at(qi.first_angle, "initial", "yaw/pitch/roll") +
                       ": expected the orientation of quaternion body '" + b.name +
                       "' either as Euler parameters (" + prefix + "e0..e3) or as zyx angles (" +
                       prefix + "yaw, pitch, roll), got both (" + prefix + "e… at line " +
                       std::to_string(qi.first_e->line) + ")");
    if (qi.first_omega && qi.first_rate)
      throw InputError(at(qi.first_omega, "initial_velocity", "wx/wy/wz") +
                       ": expected the rotation rate of quaternion body '" + b.name +
                       "' either as Euler-parameter rates (" + prefix + "e0..e3) or as the body-frame "
                       "angular velocity (" + prefix + "wx, wy, wz), got both (" + prefix + "e… at line " +
                       std::to_string(qi.first_rate->line) + ")");
    const std::optional<double> none[3];
    if (qi.first_angle) {
      // R = Rz(yaw) Ry(pitch) Rx(roll), as a `spatial` body with `angles: zyx` would have it
      // (angles not given are 0).
      q0(e) = 1.0;
      const std::optional<double> angles[3] = {qi.angles[0], qi.angles[1], qi.angles[2]};
      set_quaternion_body_state(b, angles, none, q0, v0, false);
    } else if (!qi.first_e) {
      q0(e) = 1.0;  // no orientation given: the identity
    } else {
      // Given e0..e3 (missing ones 0) must be a unit quaternion; the initial projection only
      // removes round-off, it must not silently rescale a mistyped value.
      const double length = std::sqrt(q0(e) * q0(e) + q0(e + 1) * q0(e + 1) + q0(e + 2) * q0(e + 2) +
                                      q0(e + 3) * q0(e + 3));
      if (!(std::abs(length - 1.0) <= 1e-6)) {
        std::ostringstream got;
        got << std::setprecision(10) << "|e| = " << length << " (e = (" << q0(e) << ", " << q0(e + 1)
            << ", " << q0(e + 2) << ", " << q0(e + 3) << "))";
        throw InputError(at(qi.first_e, "initial", "e0..e3") + ": expected a unit quaternion for body '" +
                         b.name + "', |e| = 1 (within 1e-6), got " + got.str());
      }
    }
    if (qi.first_omega) {
      // Components not given are 0: every one is passed.
      const std::optional<double> omega[3] = {qi.omega[0], qi.omega[1], qi.omega[2]};
      set_quaternion_body_state(b, none, omega, q0, v0, false);
    }
  }
}

int name_suffix_index(const std::string& suffix, std::initializer_list<const char*> names) {
  int k = 0;
  for (const char* n : names) {
    if (suffix == n) return k;
    ++k;
  }
  return -1;
}

void set_quaternion_body_state(const Body& body, const std::optional<double> (&angles)[3],
                               const std::optional<double> (&omega)[3], VecRef q, VecRef v,
                               bool keep_body_rate) {
  const int e = body.first + 3;
  // The body angular velocity before any change: a new orientation keeps it.
  const Vec3<double> w0 = body.body_angular_velocity(q.data(), v.data());
  const bool new_orientation = angles[0] || angles[1] || angles[2];
  if (new_orientation) {
    const Vec3<double> a0 = elements::zyx_angles_from_rotation(body.orientation(q.data()));
    const auto eq = elements::quaternion_from_zyx(angles[0].value_or(a0.x), angles[1].value_or(a0.y),
                                                  angles[2].value_or(a0.z));
    for (int i = 0; i < 4; ++i) q(e + i) = eq[static_cast<size_t>(i)];
  }
  if (!(omega[0] || omega[1] || omega[2]) && !(new_orientation && keep_body_rate)) return;
  // ė = ½ L(e)ᵀ ω_b: the rates with body angular velocity 2 L ė = ω_b (L Lᵀ = I) and eᵀė = 0.
  const Vec3<double> w{omega[0].value_or(w0.x), omega[1].value_or(w0.y), omega[2].value_or(w0.z)};
  const double ev[4] = {q(e), q(e + 1), q(e + 2), q(e + 3)};
  double rate[4];
  elements::quaternion_body_rate_transpose(ev, w, rate);
  for (int i = 0; i < 4; ++i) v(e + i) = 0.5 * rate[i];
}

BuiltModel build_requested_model(const ModelRequest& config, const ModelInputs& inputs) {
  if (config.model_file.empty()) {
    if (!config.outputs.empty())
      throw InputError(config.source + ": outputs: declared outputs need a model file (model: {file: …}); the "
                       "catalogue model '" + config.model + "' has its own outputs (gmbd models)");
    return build_model(config.model, config.parameters, config.source + ": model.parameters", inputs);
  }
  auto spec = std::make_shared<ModelFileSpec>(
      config.model_file_text ? parse_model_file(*config.model_file_text, config.model_file, config.model_changes)
                             : load_model_file(config.model_file, config.model_changes));
  const std::vector<std::string> accepted = model_file_inputs(*spec);
  for (const auto& [name, signal] : inputs.signals) {
    if (std::find(accepted.begin(), accepted.end(), name) == accepted.end()) {
      std::string msg = config.source + ": inputs." + name + ": model file " + spec->source +
                        " has no input '" + name + "'; expected one of:";
      if (accepted.empty()) msg += " (none: the model file names no input signal)";
      for (const auto& a : accepted) msg += " " + a;
      throw InputError(msg);
    }
  }
  BuiltModel built;
  std::unique_ptr<AssembledModel> model = build_assembled_model(*spec, inputs, true);
  if (!config.outputs.empty())
    model->set_declared_outputs(read_declared_outputs(*spec, config.outputs, config.source, *model));
  built.q0 = Vec::Zero(model->nq());
  built.v0 = Vec::Zero(model->nq());
  model_file_initial_state(*spec, *model, built.q0, built.v0);
  // A run's wire flexure terms hold the tension of the initial state and relax their tangents
  // there (an initial state at rest in equilibrium: the linear analysis's operating point).
  if (model->has_flexure_terms()) model->prepare_flexure_terms(0.0, built.q0, true);
  // Floats (blade tips): condensed by their force balance at every evaluation.
  if (!model->float_coordinates().empty()) {
    auto condensed = std::make_unique<elements::FloatCondensedModel>(std::shared_ptr<const AssembledModel>(std::move(model)),
                                                                     built.q0);
    built.q0 = condensed->kept_part(built.q0);
    built.v0 = condensed->kept_part(built.v0);
    built.model = std::move(condensed);
  } else {
    built.model = std::move(model);
  }
  built.project_initial_state = true;
  built.file = std::move(spec);
  return built;
}

}  // namespace gmbd
