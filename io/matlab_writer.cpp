// MATLAB/Octave export of a linear model (io/matlab_writer.hpp): the .m script (%.17g text) and
// the level-5 .mat file through libmatio (memory ownership, completeness check of the file).
#include "io/matlab_writer.hpp"
#include "io/staged_file.hpp"

#include <matio.h>

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "gmbd/version.hpp"

namespace gmbd {
namespace {

// ---- shared -----------------------------------------------------------------------------------

std::string dims_text(Eigen::Index rows, Eigen::Index cols) {
  return std::to_string(rows) + "×" + std::to_string(cols);
}

/// The export must be consistent: A, E n×n, B n×m, C p×n, D p×m, one name per state, input and
/// output, and a mode table whose three columns have the same length. A mismatch is a bug of
/// the caller, reported before anything is written.
void check_export(const std::string& path, const MatlabLinearExport& d) {
  const Eigen::Index n = d.A.rows();
  const Eigen::Index m = d.B.cols();
  const Eigen::Index p = d.C.rows();
  std::string problem;
  auto expect = [&problem](const char* name, const Mat& matrix, Eigen::Index rows, Eigen::Index cols) {
    if (problem.empty() && (matrix.rows() != rows || matrix.cols() != cols)) {
      problem = std::string(name) + " is " + dims_text(matrix.rows(), matrix.cols()) + ", expected " +
                dims_text(rows, cols);
    }
  };
  expect("A", d.A, n, n);
  expect("E", d.E, n, n);
  expect("B", d.B, n, m);
  expect("C", d.C, p, n);
  expect("D", d.D, p, m);
  auto expect_count = [&problem](const char* what, std::size_t size, Eigen::Index count) {
    if (problem.empty() && static_cast<Eigen::Index>(size) != count) {
      problem = std::string(what) + " has " + std::to_string(size) + " entries, expected " +
                std::to_string(count);
    }
  };
  expect_count("state_names", d.state_names.size(), n);
  expect_count("input_names", d.input_names.size(), m);
  expect_count("output_names", d.output_names.size(), p);
  const auto n_modes = static_cast<Eigen::Index>(d.frequencies_hz.size());
  expect_count("damping_ratios", d.damping_ratios.size(), n_modes);
  expect_count("mode_names", d.mode_names.size(), n_modes);
  if (!d.q_losses.empty()) {
    expect_count("q_losses", d.q_losses.size(), n_modes);
    expect_count("q_naive", d.q_naive.size(), n_modes);
  }
  if (!d.mode_blocks.empty()) expect_count("mode_blocks", d.mode_blocks.size(), n_modes);
  if (!d.noise_outputs.empty()) {
    if (problem.empty() && (d.noise_psd.rows() != static_cast<Eigen::Index>(d.noise_frequencies_hz.size()) ||
                            d.noise_psd.cols() != static_cast<Eigen::Index>(d.noise_outputs.size())))
      problem = "noise_psd is " + dims_text(d.noise_psd.rows(), d.noise_psd.cols()) + ", expected " +
                dims_text(static_cast<Eigen::Index>(d.noise_frequencies_hz.size()),
                          static_cast<Eigen::Index>(d.noise_outputs.size()));
  }
  if (!problem.empty()) {
    throw std::invalid_argument("MATLAB export " + path + ": inconsistent linear model: " + problem);
  }
}

/// Removes what a failed write left behind; only a regular file (never a device such as
/// /dev/full, or whatever else the path names).
void remove_partial(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_regular_file(path, ec)) std::filesystem::remove(path, ec);
}

// ---- .m script --------------------------------------------------------------------------------

/// A number as MATLAB/Octave reads it back exactly: %.17g, Inf, -Inf, NaN.
void append_number(std::string& out, double value) {
  if (std::isnan(value)) {
    out += "NaN";
  } else if (std::isinf(value)) {
    out += value > 0 ? "Inf" : "-Inf";
  } else {
    char buf[32];
    const int len = std::snprintf(buf, sizeof buf, "%.17g", value);
    out.append(buf, static_cast<std::size_t>(len));
  }
}

/// A char row vector literal: single-quoted with quotes doubled; control characters (which a
/// quoted literal cannot hold) are spliced in as char(code): ['a', char(10), 'b'].
std::string char_literal(const std::string& text) {
  std::string out;  // the pieces, joined with ", "
  std::size_t pieces = 0;
  bool open = false;
  for (const char ch : text) {
    const auto byte = static_cast<unsigned char>(ch);
    if (byte < 0x20 || byte == 0x7f) {
      if (open) out.push_back('\'');
      open = false;
      if (pieces++ > 0) out.append(", ");
      out.append("char(").append(std::to_string(byte)).push_back(')');
      continue;
    }
    if (!open) {
      if (pieces++ > 0) out.append(", ");
      out.push_back('\'');
      open = true;
    }
    out.push_back(ch);
    if (ch == '\'') out.push_back('\'');
  }
  if (open) out.push_back('\'');
  if (pieces == 0) return "''";
  if (pieces > 1 || out.front() != '\'') {
    out.insert(out.begin(), '[');
    out.push_back(']');
  }
  return out;
}

void append_matrix(std::string& out, const char* name, const Mat& m) {
  out += name;
  if (m.rows() == 0 || m.cols() == 0) {
    out += " = zeros(" + std::to_string(m.rows()) + ", " + std::to_string(m.cols()) + ");\n";
    return;
  }
  out += " = [\n";
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    out += "  ";
    for (Eigen::Index j = 0; j < m.cols(); ++j) {
      if (j > 0) out += ", ";
      append_number(out, m(i, j));
    }
    out += i + 1 < m.rows() ? ";\n" : "\n";
  }
  out += "];\n";
}

void append_column(std::string& out, const std::string& name, const std::vector<double>& v) {
  out += name;
  if (v.empty()) {
    out += " = zeros(0, 1);\n";
    return;
  }
  out += " = [\n";
  for (std::size_t i = 0; i < v.size(); ++i) {
    out += "  ";
    append_number(out, v[i]);
    out += i + 1 < v.size() ? ";\n" : "\n";
  }
  out += "];\n";
}

void append_cell_column(std::string& out, const std::string& name, const std::vector<std::string>& v) {
  out += name;
  if (v.empty()) {
    out += " = cell(0, 1);\n";
    return;
  }
  out += " = {\n";
  for (std::size_t i = 0; i < v.size(); ++i) {
    out += "  " + char_literal(v[i]);
    out += i + 1 < v.size() ? ";\n" : "\n";
  }
  out += "};\n";
}

void append_complex_column(std::string& out, const char* name, const std::vector<std::complex<double>>& v) {
  out += name;
  if (v.empty()) {
    out += " = complex(zeros(0, 1), zeros(0, 1));\n";
    return;
  }
  out += " = [\n";
  for (std::size_t i = 0; i < v.size(); ++i) {
    out += "  complex(";
    append_number(out, v[i].real());
    out += ", ";
    append_number(out, v[i].imag());
    out += i + 1 < v.size() ? ");\n" : ")\n";
  }
  out += "];\n";
}

/// Each line of `text` as a % comment line.
void append_comment(std::string& out, const std::string& text) {
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find_first_of("\r\n", start);
    if (end == std::string::npos) end = text.size();
    out += "% " + text.substr(start, end - start) + "\n";
    start = end + 1;
  }
}

// ---- .mat file (matio) ------------------------------------------------------------------------

struct MatvarFree {
  void operator()(matvar_t* v) const { Mat_VarFree(v); }
};
/// A matio variable owned by us until handed to a cell or a struct (release()).
using Matvar = std::unique_ptr<matvar_t, MatvarFree>;

/// An open .mat file: closed by close(); on an error (destructor without close) the file is
/// closed and the partial file removed.
class MatFile {
 public:
  // Written under "<path>.partial" and renamed onto path by commit(): an earlier file of the
  // same name survives every failure.
  explicit MatFile(const std::string& path) : path_(path), staged_(path, "MAT file", false) {
    errno = 0;
    mat_ = Mat_CreateVer(staged_.staging_path().c_str(), nullptr, MAT_FT_MAT5);
    if (mat_ == nullptr) {
      const int err = errno;
      throw InputError("cannot write the MAT file " + path + ": " +
                       (err != 0 ? std::string(std::strerror(err)) : std::string("matio could not create it")));
    }
  }
  ~MatFile() {
    if (mat_ != nullptr) Mat_Close(mat_);
    if (!staged_.committed()) remove_partial(staged_.staging_path());
  }
  MatFile(const MatFile&) = delete;
  MatFile& operator=(const MatFile&) = delete;

  void write(const Matvar& var, const char* name) {
    if (Mat_VarWrite(mat_, var.get(), MAT_COMPRESSION_NONE) != 0) fail(std::string("writing ") + name);
  }
  void close() {
    errno = 0;
    const int rc = Mat_Close(mat_);
    mat_ = nullptr;
    if (rc != 0) {
      const int err = errno;
      throw InputError("cannot write the MAT file " + path_ + ": closing failed" +
                       (err != 0 ? std::string(": ") + std::strerror(err) : std::string()));
    }
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw InputError("cannot write the MAT file " + path_ + ": matio failed " + what);
  }
  const std::string& staging_path() const { return staged_.staging_path(); }
  void commit() { staged_.commit(); }

 private:
  std::string path_;
  StagedFile staged_;
  mat_t* mat_ = nullptr;
};

/// matio does not report failed writes (a full disk, a file size limit), so the closed file is
/// checked: the 128-byte header, then exactly `variables` top-level data elements (an 8-byte tag
/// with the element's size, then that many bytes) that end at the end of the file.
void check_written_mat5(const std::string& path, int variables) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  std::string problem;
  if (!in) {
    problem = "cannot reopen it";
  } else {
    const auto size = static_cast<std::uint64_t>(in.tellg());
    std::uint64_t pos = 128;
    int count = 0;
    while (pos + 8 <= size && count <= variables) {
      std::uint32_t tag[2] = {0, 0};
      in.seekg(static_cast<std::streamoff>(pos));
      if (!in.read(reinterpret_cast<char*>(tag), sizeof tag)) break;
      pos += 8 + static_cast<std::uint64_t>(tag[1]);
      ++count;
    }
    if (size < 128 || pos != size || count != variables) {
      problem = "the file is incomplete (" + std::to_string(size) + " bytes, " + std::to_string(count) + " of " +
                std::to_string(variables) + " variables)";
    }
  }
  if (!problem.empty()) {
    remove_partial(path);
    throw InputError("cannot write the MAT file " + path + ": " + problem);
  }
}

/// Throws unless matio returned a variable.
Matvar checked(matvar_t* var, const MatFile& file, const std::string& what) {
  if (var == nullptr) file.fail("creating " + what);
  return Matvar(var);
}

Matvar double_matrix(const MatFile& file, const char* name, const Mat& m) {
  // Copied by matio (no MAT_F_DONT_COPY_DATA); Eigen stores column-major like MATLAB.
  std::size_t dims[2] = {static_cast<std::size_t>(m.rows()), static_cast<std::size_t>(m.cols())};
  void* data = m.size() > 0 ? const_cast<double*>(m.data()) : nullptr;
  return checked(Mat_VarCreate(name, MAT_C_DOUBLE, MAT_T_DOUBLE, 2, dims, data, 0), file, name);
}

Matvar double_column(const MatFile& file, const char* name, const std::vector<double>& v) {
  std::size_t dims[2] = {v.size(), 1};
  void* data = v.empty() ? nullptr : const_cast<double*>(v.data());
  return checked(Mat_VarCreate(name, MAT_C_DOUBLE, MAT_T_DOUBLE, 2, dims, data, 0), file,
                 name != nullptr ? name : "a column");
}

Matvar complex_column(const MatFile& file, const char* name, const std::vector<std::complex<double>>& v) {
  // An empty complex variable is written as a real 0×1 (matio leaves the split parts of an
  // empty copy uninitialised).
  if (v.empty()) return double_column(file, name, {});
  std::vector<double> re(v.size()), im(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    re[i] = v[i].real();
    im[i] = v[i].imag();
  }
  mat_complex_split_t split{re.data(), im.data()};  // copied by matio
  std::size_t dims[2] = {v.size(), 1};
  return checked(Mat_VarCreate(name, MAT_C_DOUBLE, MAT_T_DOUBLE, 2, dims, &split, MAT_F_COMPLEX), file, name);
}

/// UTF-8 → UTF-16 code units (MATLAB's char); a malformed byte becomes U+FFFD.
std::vector<std::uint16_t> utf16(const std::string& text) {
  std::vector<std::uint16_t> out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    const auto b0 = static_cast<unsigned char>(text[i]);
    std::uint32_t code = 0xFFFD;
    std::size_t len = 1;
    std::size_t extra = 0;
    std::uint32_t min = 0;
    if (b0 < 0x80) {
      code = b0;
    } else if ((b0 & 0xE0) == 0xC0) {
      extra = 1;
      min = 0x80;
      code = b0 & 0x1Fu;
    } else if ((b0 & 0xF0) == 0xE0) {
      extra = 2;
      min = 0x800;
      code = b0 & 0x0Fu;
    } else if ((b0 & 0xF8) == 0xF0) {
      extra = 3;
      min = 0x10000;
      code = b0 & 0x07u;
    }
    if (extra > 0) {
      bool ok = i + extra < text.size();
      for (std::size_t k = 1; ok && k <= extra; ++k) {
        const auto b = static_cast<unsigned char>(text[i + k]);
        if ((b & 0xC0) != 0x80) ok = false;
        else code = (code << 6) | (b & 0x3Fu);
      }
      if (ok && code >= min && code <= 0x10FFFF && (code < 0xD800 || code > 0xDFFF)) {
        len = extra + 1;
      } else {
        code = 0xFFFD;
      }
    }
    if (code >= 0x10000) {
      code -= 0x10000;
      out.push_back(static_cast<std::uint16_t>(0xD800 + (code >> 10)));
      out.push_back(static_cast<std::uint16_t>(0xDC00 + (code & 0x3FFu)));
    } else {
      out.push_back(static_cast<std::uint16_t>(code));
    }
    i += len;
  }
  return out;
}

/// A char row vector (1×len, UTF-16 code units as MATLAB stores char).
Matvar char_row(const MatFile& file, const char* name, const std::string& text) {
  std::vector<std::uint16_t> units = utf16(text);
  std::size_t dims[2] = {1, units.size()};
  void* data = units.empty() ? nullptr : units.data();
  return checked(Mat_VarCreate(name, MAT_C_CHAR, MAT_T_UINT16, 2, dims, data, 0), file,
                 name != nullptr ? name : "a string");
}

/// A cell column of char row vectors; `label` names it in messages (a struct field has no name).
Matvar cell_column(const MatFile& file, const char* name, const std::string& label,
                   const std::vector<std::string>& texts) {
  if (texts.size() > static_cast<std::size_t>(INT_MAX)) file.fail("creating " + label + ": too many entries");
  std::size_t dims[2] = {texts.size(), 1};
  Matvar cell = checked(Mat_VarCreate(name, MAT_C_CELL, MAT_T_CELL, 2, dims, nullptr, 0), file, label);
  if (!texts.empty() && cell->data == nullptr) file.fail("allocating " + label);
  for (std::size_t i = 0; i < texts.size(); ++i) {
    Matvar element = char_row(file, nullptr, texts[i]);
    const int index = static_cast<int>(i);
    // Mat_VarSetCell returns the previous element (none here) or NULL on failure; the cell owns
    // the element only once it is in place.
    matvar_t* previous = Mat_VarSetCell(cell.get(), index, element.get());
    if (Mat_VarGetCell(cell.get(), index) != element.get()) file.fail("filling " + label);
    element.release();
    Mat_VarFree(previous);
  }
  return cell;
}

void set_field(const MatFile& file, const Matvar& structure, const char* field, Matvar value) {
  matvar_t* previous = Mat_VarSetStructFieldByName(structure.get(), field, 0, value.get());
  if (Mat_VarGetStructFieldByName(structure.get(), field, 0) != value.get()) {
    file.fail(std::string("setting modes.") + field);
  }
  value.release();  // owned by the struct now
  Mat_VarFree(previous);
}

}  // namespace

void write_matlab_script(const std::string& path, const MatlabLinearExport& data) {
  check_export(path, data);
  std::string out;
  if (!data.description.empty()) append_comment(out, data.description);
  out += "% Linear model E*dx/dt = A*x + B*u, y = C*x + D*u, written by GaussMBD ";
  out += kVersion;
  out += ".\n"
         "% Defines A, B, C, D, E, state_names, input_names, output_names (cell columns of char),\n"
         "% eigenvalues (of A, complex column), modes (frequency_hz, damping_ratio, name; with loss\n"
         "% functions also q_losses, q_naive, block), thermal_noise (when computed) and\n"
         "% description. Run it (run('file.m') or source) in MATLAB or GNU Octave.\n\n";
  out += "description = " + char_literal(data.description) + ";\n";
  append_matrix(out, "A", data.A);
  append_matrix(out, "B", data.B);
  append_matrix(out, "C", data.C);
  append_matrix(out, "D", data.D);
  append_matrix(out, "E", data.E);
  append_cell_column(out, "state_names", data.state_names);
  append_cell_column(out, "input_names", data.input_names);
  append_cell_column(out, "output_names", data.output_names);
  append_complex_column(out, "eigenvalues", data.eigenvalues);
  out += "modes = struct();\n";
  append_column(out, "modes.frequency_hz", data.frequencies_hz);
  append_column(out, "modes.damping_ratio", data.damping_ratios);
  append_cell_column(out, "modes.name", data.mode_names);
  if (!data.q_losses.empty()) {
    append_column(out, "modes.q_losses", data.q_losses);
    append_column(out, "modes.q_naive", data.q_naive);
  }
  if (!data.mode_blocks.empty()) append_cell_column(out, "modes.block", data.mode_blocks);
  if (!data.noise_outputs.empty()) {
    out += "thermal_noise = struct();\n";
    append_column(out, "thermal_noise.frequency_hz", data.noise_frequencies_hz);
    append_matrix(out, "thermal_noise.psd", data.noise_psd);
    append_cell_column(out, "thermal_noise.outputs", data.noise_outputs);
    append_column(out, "thermal_noise.temperature_K", {data.temperature});
  }

  StagedFile staged(path, "MATLAB script");  // an earlier script survives a failed write
  std::FILE* f = staged.open_stdio(true);
  if (f == nullptr) {
    throw InputError("cannot write the MATLAB script " + path + ": " + std::strerror(errno));
  }
  const std::size_t written = std::fwrite(out.data(), 1, out.size(), f);
  const int write_errno = errno;
  const bool write_ok = written == out.size() && std::ferror(f) == 0;
  const bool close_ok = std::fclose(f) == 0;
  if (!write_ok || !close_ok) {
    const int err = !write_ok ? write_errno : errno;
    if (!staged.in_place()) remove_partial(staged.staging_path());
    throw InputError("cannot write the MATLAB script " + path + ": " + std::strerror(err));
  }
  staged.commit();
}

void write_matlab_mat(const std::string& path, const MatlabLinearExport& data) {
  check_export(path, data);
  MatFile file(path);
  file.write(char_row(file, "description", data.description), "description");
  file.write(double_matrix(file, "A", data.A), "A");
  file.write(double_matrix(file, "B", data.B), "B");
  file.write(double_matrix(file, "C", data.C), "C");
  file.write(double_matrix(file, "D", data.D), "D");
  file.write(double_matrix(file, "E", data.E), "E");
  file.write(cell_column(file, "state_names", "state_names", data.state_names), "state_names");
  file.write(cell_column(file, "input_names", "input_names", data.input_names), "input_names");
  file.write(cell_column(file, "output_names", "output_names", data.output_names), "output_names");
  file.write(complex_column(file, "eigenvalues", data.eigenvalues), "eigenvalues");

  std::vector<const char*> fields = {"frequency_hz", "damping_ratio", "name"};
  if (!data.q_losses.empty()) fields.insert(fields.end(), {"q_losses", "q_naive"});
  if (!data.mode_blocks.empty()) fields.push_back("block");
  std::size_t dims[2] = {1, 1};
  Matvar modes = checked(Mat_VarCreateStruct("modes", 2, dims, fields.data(), static_cast<unsigned>(fields.size())),
                         file, "modes");
  set_field(file, modes, "frequency_hz", double_column(file, nullptr, data.frequencies_hz));
  set_field(file, modes, "damping_ratio", double_column(file, nullptr, data.damping_ratios));
  set_field(file, modes, "name", cell_column(file, nullptr, "modes.name", data.mode_names));
  if (!data.q_losses.empty()) {
    set_field(file, modes, "q_losses", double_column(file, nullptr, data.q_losses));
    set_field(file, modes, "q_naive", double_column(file, nullptr, data.q_naive));
  }
  if (!data.mode_blocks.empty()) set_field(file, modes, "block", cell_column(file, nullptr, "modes.block", data.mode_blocks));
  file.write(modes, "modes");
  int variables = 11;
  if (!data.noise_outputs.empty()) {
    const char* noise_fields[] = {"frequency_hz", "psd", "outputs", "temperature_K"};
    Matvar noise = checked(Mat_VarCreateStruct("thermal_noise", 2, dims, noise_fields, 4), file, "thermal_noise");
    set_field(file, noise, "frequency_hz", double_column(file, nullptr, data.noise_frequencies_hz));
    set_field(file, noise, "psd", double_matrix(file, "psd", data.noise_psd));
    set_field(file, noise, "outputs", cell_column(file, nullptr, "thermal_noise.outputs", data.noise_outputs));
    set_field(file, noise, "temperature_K", double_column(file, nullptr, {data.temperature}));
    file.write(noise, "thermal_noise");
    ++variables;
  }
  file.close();
  check_written_mat5(file.staging_path(), variables);
  file.commit();
}

}  // namespace gmbd
