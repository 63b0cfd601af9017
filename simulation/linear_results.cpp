// Writes a linear analysis to HDF5 (groups operating_point, reduction, state_space,
// second_order, modes, transfer_functions; docs/results-format.md) and fills the MATLAB export.
#include "simulation/linear_results.hpp"

#include <hdf5.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <map>

#include <Eigen/Dense>

#include "core/errors.hpp"
#include "elements/spatial_math.hpp"
#include "io/hdf5_support.hpp"
#include "io/staged_file.hpp"

namespace gmbd {

namespace {

using hdf5_support::Handle;
using hdf5_support::hdf5_error_detail;

class LinearFile {
 public:
  // Written under "<path>.partial" and renamed onto path by close(): a failed analysis or write
  // never leaves a truncated file in place of an earlier result.
  explicit LinearFile(const std::string& path) : path_(path), staged_(path, "linear results file", false) {
    hdf5_support::SilenceHdf5Errors quiet;
    file_ = Handle(hdf5_support::create_staged_hdf5(staged_.staging_path()), H5Fclose);
    if (!file_.valid())
      throw InputError("linear results: cannot create HDF5 file '" + path + "' (" + hdf5_error_detail() + ")");
  }

  hid_t root() const { return file_.get(); }

  Handle group(const std::string& name) {
    hdf5_support::SilenceHdf5Errors quiet;
    Handle g(H5Gcreate2(file_.get(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
    check(g.valid(), name);
    return g;
  }

  /// A double dataset of the given dims (row-major data).
  Handle dataset(hid_t where, const std::string& name, const std::vector<hsize_t>& dims,
                 const double* data) {
    hdf5_support::SilenceHdf5Errors quiet;
    Handle space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose);
    check(space.valid(), name);
    Handle set(H5Dcreate2(where, name.c_str(), H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT,
                          H5P_DEFAULT),
               H5Dclose);
    check(set.valid(), name);
    size_t count = 1;
    for (auto d : dims) count *= d;
    if (count > 0) check(H5Dwrite(set.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0, name);
    return set;
  }

  Handle matrix(hid_t where, const std::string& name, const Mat& m) {
    const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> r = m;
    return dataset(where, name, {static_cast<hsize_t>(m.rows()), static_cast<hsize_t>(m.cols())}, r.data());
  }
  Handle vector(hid_t where, const std::string& name, const std::vector<double>& v) {
    return dataset(where, name, {v.size()}, v.data());
  }
  Handle vector(hid_t where, const std::string& name, const Vec& v) {
    return dataset(where, name, {static_cast<hsize_t>(v.size())}, v.data());
  }

  void names(hid_t object, const std::string& attr, const std::vector<std::string>& values) {
    check(hdf5_support::write_string_array_attribute(object, attr, values), attr);
  }
  void text(hid_t object, const std::string& attr, const std::string& value) {
    check(hdf5_support::write_string_attribute(object, attr, value), attr);
  }
  void number(hid_t object, const std::string& attr, double value) {
    check(hdf5_support::write_double_attribute(object, attr, value), attr);
  }

  void close() {
    if (!file_.reset()) throw InputError("linear results: cannot close '" + path_ + "'");
    staged_.commit();
  }

 private:
  void check(bool ok, const std::string& what) const {
    if (!ok)
      throw InputError("linear results: cannot write '" + what + "' to '" + path_ + "' (" +
                       hdf5_error_detail() + ")");
  }
  std::string path_;
  StagedFile staged_;  // before file_: the HDF5 handle closes before the lock is released
  Handle file_;
};

std::vector<std::string> names_of(const std::vector<std::string>& all, const std::vector<int>& idx) {
  std::vector<std::string> out;
  for (int i : idx) out.push_back(all[static_cast<size_t>(i)]);
  return out;
}


/// Mode shapes of spatial bodies as small rotations (docs/suspensions.md §8): the angle
/// increments (δψ, δθ, δφ) mapped to the space-frame rotation W_s δa = R W_b δa and the
/// body-frame rotation W_b δa at the operating point (equal to the increments, reordered, at zero
/// angles); for a quaternion body the Euler-parameter increments δe mapped to δφ_b = 2 L(e) δe and
/// δφ_s = R δφ_b (Body::body_angular_velocity; the radial part of δe, which the unit row removes,
/// maps to zero). Columns "<body>.rx|ry|rz", one row per mode; real and imaginary parts.
void write_rotations(LinearFile& f, hid_t group, const elements::AssembledModel& model,
                     const analysis::LinearAnalysis& r) {
  std::vector<const elements::Body*> spatial;
  for (const auto& b : model.bodies())
    if (b.spatial()) spatial.push_back(&b);
  if (spatial.empty() || r.modal.modes.empty()) return;
  const Eigen::Index nm = static_cast<Eigen::Index>(r.modal.modes.size()), nc = 3 * static_cast<Eigen::Index>(spatial.size());
  Mat space_re = Mat::Zero(nm, nc), space_im = space_re, body_re = space_re, body_im = space_re;
  std::vector<std::string> columns;
  const auto& q = r.model.point.q;
  for (size_t b = 0; b < spatial.size(); ++b) {
    const auto& B = *spatial[b];
    for (const char* axis : {".rx", ".ry", ".rz"}) columns.push_back(B.name + axis);
    const double* c = q.data() + B.first;
    const auto R = B.orientation(c);
    for (Eigen::Index k = 0; k < nm; ++k) {
      const auto& shape = r.modal.modes[static_cast<size_t>(k)].shape;
      for (int part = 0; part < 2; ++part) {
        double dc[7] = {0, 0, 0, 0, 0, 0, 0};  // the body's coordinate increments (one part)
        for (int i = 3; i < B.size(); ++i)
          dc[i] = part ? shape(B.first + i).imag() : shape(B.first + i).real();
        const auto wb = B.body_angular_velocity(c, dc);  // W_b δa or 2 L(e) δe
        const auto ws = R * wb;
        Mat& S = part ? space_im : space_re;
        Mat& Bm = part ? body_im : body_re;
        for (int i = 0; i < 3; ++i) {
          S(k, 3 * static_cast<Eigen::Index>(b) + i) = ws[i];
          Bm(k, 3 * static_cast<Eigen::Index>(b) + i) = wb[i];
        }
      }
    }
  }
  for (const auto& [name, m] : {std::pair<const char*, const Mat*>{"space_rotation_real", &space_re},
                                {"space_rotation_imag", &space_im},
                                {"body_rotation_real", &body_re},
                                {"body_rotation_imag", &body_im}}) {
    Handle d = f.matrix(group, name, *m);
    f.names(d.get(), "columns", columns);
  }
}

void write_modes(LinearFile& f, const elements::AssembledModel& model, const analysis::LinearAnalysis& r) {
  Handle g = f.group("/modes");
  const auto& modes = r.modal.modes;
  const size_t nm = modes.size();
  std::vector<double> freq, zeta, q, re, im, share;
  std::vector<std::string> dominant;
  Mat shape_re = Mat::Zero(static_cast<Eigen::Index>(nm), model.nq());
  Mat shape_im = shape_re;
  for (size_t k = 0; k < nm; ++k) {
    const auto& m = modes[k];
    freq.push_back(m.frequency_hz);
    zeta.push_back(m.damping_ratio);
    q.push_back(m.q_factor);
    re.push_back(m.eigenvalue.real());
    im.push_back(m.eigenvalue.imag());
    share.push_back(m.dominant_share);
    dominant.push_back(m.dominant);
    shape_re.row(static_cast<Eigen::Index>(k)) = m.shape.real().transpose();
    shape_im.row(static_cast<Eigen::Index>(k)) = m.shape.imag().transpose();
  }
  f.vector(g.get(), "frequency_hz", freq);
  f.vector(g.get(), "damping_ratio", zeta);
  f.vector(g.get(), "q_factor", q);
  f.vector(g.get(), "eigenvalue_real", re);
  f.vector(g.get(), "eigenvalue_imag", im);
  f.vector(g.get(), "dominant_share", share);
  f.names(g.get(), "dominant", dominant);
  Handle sr = f.matrix(g.get(), "shape_real", shape_re);
  f.names(sr.get(), "coordinates", model.coordinate_names());
  Handle si = f.matrix(g.get(), "shape_imag", shape_im);
  f.names(si.get(), "coordinates", model.coordinate_names());
  write_rotations(f, g.get(), model, r);
  f.text(g.get(), "balancing", r.modal.balancing_used);
  f.number(g.get(), "eigenvector_rcond", r.modal.eigenvector_rcond);
  f.text(g.get(), "order", "ascending frequency; one mode per conjugate pair (Im λ ≥ 0)");
  // Energy tables: the union of (owner, component) keys over the modes, one row per mode.
  auto table = [&](const char* name, auto member) {
    std::vector<std::pair<std::string, std::string>> keys;
    for (const auto& e : r.energies)
      for (const auto& s : e.*member)
        if (std::find(keys.begin(), keys.end(), std::make_pair(s.owner, s.component)) == keys.end())
          keys.emplace_back(s.owner, s.component);
    Mat t = Mat::Zero(static_cast<Eigen::Index>(nm), static_cast<Eigen::Index>(keys.size()));
    for (size_t k = 0; k < r.energies.size(); ++k)
      for (const auto& s : r.energies[k].*member) {
        const auto it = std::find(keys.begin(), keys.end(), std::make_pair(s.owner, s.component));
        t(static_cast<Eigen::Index>(k), it - keys.begin()) = s.fraction;
      }
    Handle d = f.matrix(g.get(), name, t);
    std::vector<std::string> owners, components;
    for (const auto& [o, c] : keys) {
      owners.push_back(o);
      components.push_back(c);
    }
    f.names(d.get(), "owners", owners);
    f.names(d.get(), "components", components);
  };
  table("kinetic_energy_fraction", &analysis::ModeEnergy::kinetic);
  table("strain_energy_fraction", &analysis::ModeEnergy::strain);
  table("dissipative_energy_fraction", &analysis::ModeEnergy::dissipative);
  std::vector<double> computed, peak, strain_total, dissipated;
  for (size_t k = 0; k < r.energies.size(); ++k) {
    computed.push_back(k < r.energy_computed.size() && r.energy_computed[k] ? 1.0 : 0.0);
    peak.push_back(r.energies[k].peak_kinetic);
    strain_total.push_back(r.energies[k].strain_total);
    dissipated.push_back(r.energies[k].dissipated_per_cycle);
  }
  f.vector(g.get(), "energy_computed", computed);
  f.vector(g.get(), "peak_kinetic_energy", peak);
  f.vector(g.get(), "strain_energy", strain_total);
  f.vector(g.get(), "dissipated_per_cycle", dissipated);
}

void write_response(LinearFile& f, const analysis::LinearAnalysis& r) {
  Handle g = f.group("/transfer_functions");
  const auto& fr = r.response;
  const hsize_t nf = fr.frequencies.size();
  const hsize_t ny = static_cast<hsize_t>(r.model.C.rows()), nu = static_cast<hsize_t>(r.model.B.cols());
  std::vector<double> re(nf * ny * nu), im(nf * ny * nu);
  for (hsize_t k = 0; k < nf; ++k)
    for (hsize_t i = 0; i < ny; ++i)
      for (hsize_t j = 0; j < nu; ++j) {
        const auto h = fr.H[k](static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j));
        re[(k * ny + i) * nu + j] = h.real();
        im[(k * ny + i) * nu + j] = h.imag();
      }
  f.vector(g.get(), "frequency_hz", fr.frequencies);
  f.dataset(g.get(), "H_real", {nf, ny, nu}, re.data());
  f.dataset(g.get(), "H_imag", {nf, ny, nu}, im.data());
  f.names(g.get(), "input_names", r.model.input_names);
  f.names(g.get(), "output_names", r.model.output_names);
  f.text(g.get(), "method", r.response_method == "state space"
                                 ? "state space, H = C (sI - A)^-1 B + D, s = 2 pi i f"
                                 : "direct solves of E(f) = K(f) - (2 pi f)^2 M + i 2 pi f D with the loss functions");
  f.number(g.get(), "direct_solve_max_relative_difference", r.direct_difference);
}

/// /losses: the loss function of each tag, the stage's dilution switch, Q per mode (diluted
/// and naive), the state space's treatment; /thermal_noise: PSD per output.
void write_losses(LinearFile& f, const analysis::LinearAnalysis& r, const LinearFileMetadata& meta) {
  if (r.quality.empty()) return;
  Handle g = f.group("/losses");
  std::vector<std::string> tags, texts;
  for (const auto& t : r.model.tag_stiffness) tags.push_back(t.tag);
  f.names(g.get(), "tags", tags);
  f.names(g.get(), "loss_functions", meta.loss_functions);
  f.text(g.get(), "stage", meta.stage);
  f.text(g.get(), "state_space", r.model.state_space_losses);
  std::vector<double> fq, q, qn;
  for (size_t k = 0; k < r.quality.size(); ++k) {
    fq.push_back(r.quality[k].frequency_hz);
    q.push_back(r.quality[k].q);
    qn.push_back(r.quality_naive[k].q);
  }
  f.vector(g.get(), "mode_frequency_hz", fq);
  f.vector(g.get(), "q", q);
  f.vector(g.get(), "q_naive", qn);
  if (r.noise_outputs.empty()) return;
  Handle n = f.group("/thermal_noise");
  f.vector(n.get(), "frequency_hz", r.response.frequencies);
  Handle psd = f.matrix(n.get(), "psd", r.noise_psd);
  f.names(psd.get(), "outputs", r.noise_outputs);
  f.text(psd.get(), "units", "one-sided displacement PSD, m^2/Hz (rad^2/Hz for angles)");
  f.number(n.get(), "temperature_K", r.temperature);
}

void write_symmetry(LinearFile& f, const analysis::LinearAnalysis& r) {
  if (!r.symmetry.applicable) return;
  Handle g = f.group("/symmetry");
  f.names(g.get(), "mode_block", r.symmetry.mode_block);
  f.number(g.get(), "max_off_block_stiffness", r.symmetry.max_off_block);
  f.text(g.get(), "worst_pair", r.symmetry.worst_pair);
  f.text(g.get(), "blocks", "LP = {x, pitch}, TR = {y, roll}, Y = {yaw}, V = {z}");
}

}  // namespace

void write_linear_hdf5(const std::string& path, const elements::AssembledModel& model,
                       const analysis::LinearAnalysis& r, const LinearFileMetadata& meta) {
  LinearFile f(path);
  f.text(f.root(), "format", "gaussmbd-linear");
  f.number(f.root(), "format_version", 1);
  f.text(f.root(), "created", hdf5_support::utc_timestamp());
  f.text(f.root(), "model_type", model.type());
  if (!meta.model_file.empty()) f.text(f.root(), "model_file", meta.model_file);
  if (!meta.model_file_text.empty()) f.text(f.root(), "model_file_text", meta.model_file_text);
  if (!meta.command.empty()) f.text(f.root(), "command", meta.command);
  for (const auto& [k, v] : meta.attributes) f.text(f.root(), k, v);
  const auto coordinates = model.coordinate_names();
  {
    Handle g = f.group("/operating_point");
    const auto& op = r.model.point;
    f.number(g.get(), "t", op.t);
    f.number(g.get(), "iterations", r.equilibrium.iterations);
    f.number(g.get(), "force_residual", r.equilibrium.force_residual);
    f.number(g.get(), "constraint_residual", r.equilibrium.constraint_residual);
    f.text(g.get(), "kind", r.operating_point.empty() ? "static equilibrium" : r.operating_point);
    Handle v = f.vector(g.get(), "v", op.v);
    f.names(v.get(), "names", coordinates);
    Handle q = f.vector(g.get(), "q", op.q);
    f.names(q.get(), "names", coordinates);
    std::vector<std::string> holonomic;
    for (int i = 0; i < model.n_holonomic(); ++i) holonomic.push_back(model.constraint_name(i));
    Handle l = f.vector(g.get(), "lambda", op.lambda);
    f.names(l.get(), "names", holonomic);
    Handle z = f.vector(g.get(), "z", op.z);
    f.names(z.get(), "names", model.state_names());
  }
  {
    Handle g = f.group("/reduction");
    const auto& lm = r.model;
    const auto kept = names_of(coordinates, lm.kept);
    const auto floats = names_of(coordinates, lm.floats);
    f.names(g.get(), "kept_coordinates", kept);
    f.names(g.get(), "float_coordinates", floats);
    f.number(g.get(), "n_position", lm.n_position);
    f.number(g.get(), "n_velocity", lm.n_velocity);
    f.number(g.get(), "n_states", lm.n_states);
    Handle nq = f.matrix(g.get(), "Nq", lm.Nq);
    f.names(nq.get(), "rows", kept);
    Handle nv = f.matrix(g.get(), "Nv", lm.Nv);
    f.names(nv.get(), "rows", kept);
    Handle fq = f.matrix(g.get(), "Fq", lm.Fq);
    f.names(fq.get(), "rows", floats);
    f.names(fq.get(), "columns", kept);
    Handle fz = f.matrix(g.get(), "Fz", lm.Fz);
    f.names(fz.get(), "rows", floats);
    f.names(fz.get(), "columns", model.state_names());
    Handle fu = f.matrix(g.get(), "Fu", lm.Fu);
    f.names(fu.get(), "columns", lm.input_names);
  }
  {
    Handle g = f.group("/state_space");
    const auto& lm = r.model;
    f.matrix(g.get(), "A", lm.A);
    f.matrix(g.get(), "B", lm.B);
    f.matrix(g.get(), "C", lm.C);
    f.matrix(g.get(), "D", lm.D);
    f.matrix(g.get(), "E", lm.E);
    if (lm.B1.size()) f.matrix(g.get(), "B1", lm.B1);
    f.names(g.get(), "state_names", lm.state_names);
    f.names(g.get(), "input_names", lm.input_names);
    f.names(g.get(), "output_names", lm.output_names);
    f.text(g.get(), "convention", "E dx/dt = A x + B u, y = C x + D u");
  }
  {
    Handle g = f.group("/second_order");
    const auto kept = names_of(coordinates, r.model.kept);
    f.names(g.get(), "coordinates", kept);
    f.matrix(g.get(), "M", r.model.M);
    f.matrix(g.get(), "K", r.model.K);
    f.matrix(g.get(), "D", r.model.Dv);
  }
  write_modes(f, model, r);
  write_response(f, r);
  write_losses(f, r, meta);
  write_symmetry(f, r);
  f.close();
}

MatlabLinearExport matlab_export(const analysis::LinearAnalysis& r, const std::string& description) {
  MatlabLinearExport e;
  e.A = r.model.A;
  e.B = r.model.B;
  e.C = r.model.C;
  e.D = r.model.D;
  e.E = r.model.E;
  e.state_names = r.model.state_names;
  e.input_names = r.model.input_names;
  e.output_names = r.model.output_names;
  Eigen::EigenSolver<Mat> es(r.model.A, false);
  for (Eigen::Index k = 0; k < es.eigenvalues().size(); ++k) e.eigenvalues.push_back(es.eigenvalues()(k));
  for (const auto& m : r.modal.modes) {
    e.frequencies_hz.push_back(m.frequency_hz);
    e.damping_ratios.push_back(m.damping_ratio);
    e.mode_names.push_back(m.dominant);
  }
  for (size_t k = 0; k < r.quality.size(); ++k) {
    e.q_losses.push_back(r.quality[k].q);
    e.q_naive.push_back(r.quality_naive[k].q);
  }
  if (r.symmetry.applicable) e.mode_blocks = r.symmetry.mode_block;
  if (!r.noise_outputs.empty()) {
    e.noise_frequencies_hz = r.response.frequencies;
    e.noise_outputs = r.noise_outputs;
    e.noise_psd = r.noise_psd;
    e.temperature = r.temperature;
  }
  e.description = description;
  return e;
}

}  // namespace gmbd
