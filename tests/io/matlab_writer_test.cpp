// Tests of the MATLAB/Octave export (io/matlab_writer.hpp): the .m script and the .mat file read
// back by real GNU Octave (octave-cli) and by scipy.io.loadmat, bit-exact values, names with
// quotes, control and non-ASCII characters, empty shapes, and errors for unwritable paths.
#include <gtest/gtest.h>

#include <sys/resource.h>

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <bit>
#include <cmath>
#include <csignal>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <numbers>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "io/matlab_writer.hpp"
#include "support/cli_runner.hpp"
#include "support/temp_dir.hpp"

namespace gmbd {
namespace {

namespace fs = std::filesystem;
using test::run_command;
using test::TempDir;

constexpr const char* kInstallHint = "run scripts/install_deps.sh (it installs octave, python3-scipy)";

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (const char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string octave_quote(const std::string& s) {
  std::string q = "'";
  for (const char c : s) q += c == '\'' ? std::string("''") : std::string(1, c);
  return q + "'";
}

/// The octave-cli executable; records a failure (the CI installs Octave) when there is none.
std::string find_octave() {
  const auto r = run_command("command -v octave-cli");
  std::string path = r.output.substr(0, r.output.find('\n'));
  if (r.code != 0 || path.empty()) {
    ADD_FAILURE() << "octave-cli (GNU Octave) is not installed: " << kInstallHint;
    return "";
  }
  return path;
}

/// A 2-state oscillator with two inputs and two outputs, the eigenvalues of A from Eigen and
/// its one mode; names hold a quote, a comma and a non-ASCII character.
MatlabLinearExport small_export() {
  MatlabLinearExport d;
  d.A.resize(2, 2);
  d.A << 0.0, 1.0, -37.5, -0.2;
  d.B.resize(2, 2);
  d.B << 0.0, 0.0, 1.0 / 3.0, -2.5e-7;
  d.C.resize(2, 2);
  d.C << 1.0, 0.0, 0.1, 1e-300;
  d.D.resize(2, 2);
  d.D << 0.0, 0.0, 0.0, 1.0;
  d.E = Mat::Identity(2, 2);
  d.state_names = {"xi:θ_pendulum", "eta:θ_pendulum"};
  d.input_names = {"force:θ_pendulum", "a_g:O'Brien's support"};
  d.output_names = {"q:θ_pendulum", "force:rod, x"};
  const Eigen::EigenSolver<Mat> solver(d.A, false);
  for (Eigen::Index i = 0; i < solver.eigenvalues().size(); ++i) d.eigenvalues.push_back(solver.eigenvalues()(i));
  const std::complex<double> lambda = d.eigenvalues.front();
  d.frequencies_hz = {std::abs(lambda) / (2.0 * std::numbers::pi)};
  d.damping_ratios = {-lambda.real() / std::abs(lambda)};
  d.mode_names = {"q:θ_pendulum"};
  d.description = "examples/linear/pendulum.yaml linearised at t = 0 ('static equilibrium')";
  return d;
}

/// The lines of a dump that start with "<key> ", without that prefix.
std::vector<std::string> dump_lines(const std::string& output, const std::string& key) {
  std::vector<std::string> found;
  std::istringstream in(output);
  const std::string prefix = key + " ";
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(prefix, 0) == 0) found.push_back(line.substr(prefix.size()));
  }
  return found;
}

double number(const std::string& text) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  EXPECT_TRUE(end != text.c_str() && *end == '\0') << "not a number: '" << text << "'";
  return value;
}

/// Bitwise equality; NaN equals NaN.
bool same_double(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

/// "r c" of the shape line and every value (column-major, one per line) equal to the last bit.
void expect_matrix(const std::string& output, const std::string& tag, const std::string& name, const Mat& expected) {
  SCOPED_TRACE(tag + " " + name);
  const auto size = dump_lines(output, tag + " size " + name);
  ASSERT_EQ(size.size(), 1u);
  EXPECT_EQ(size[0], std::to_string(expected.rows()) + " " + std::to_string(expected.cols()));
  const auto values = dump_lines(output, tag + " value " + name);
  ASSERT_EQ(static_cast<Eigen::Index>(values.size()), expected.size());
  for (Eigen::Index k = 0; k < expected.size(); ++k) {
    EXPECT_TRUE(same_double(number(values[static_cast<std::size_t>(k)]), expected.data()[k]))
        << "element " << k << ": read " << values[static_cast<std::size_t>(k)] << ", wrote " << expected.data()[k];
  }
}

void expect_column(const std::string& output, const std::string& tag, const std::string& name,
                   const std::vector<double>& expected) {
  expect_matrix(output, tag, name,
                Eigen::Map<const Vec>(expected.data(), static_cast<Eigen::Index>(expected.size())));
}

/// Names are dumped as their byte codes ("[ 120 39]"), so that any character compares exactly.
std::string codes(const std::string& text) {
  std::string s = "[";
  for (const char c : text) s.append(" ").append(std::to_string(static_cast<unsigned char>(c)));
  s.push_back(']');
  return s;
}

void expect_names(const std::string& output, const std::string& tag, const std::string& list,
                  const std::vector<std::string>& expected) {
  SCOPED_TRACE(tag + " " + list);
  const auto size = dump_lines(output, tag + " size " + list);
  ASSERT_EQ(size.size(), 1u);
  EXPECT_EQ(size[0], std::to_string(expected.size()) + " 1 1");  // rows, columns, iscellstr
  std::vector<std::string> want;
  for (const auto& name : expected) want.push_back(codes(name));
  EXPECT_EQ(dump_lines(output, tag + " name " + list), want);
}

/// An Octave program that loads each (tag, file) pair — a .m script with source, a .mat file
/// with load — and dumps every variable of the export with the tag as line prefix.
std::string octave_program(const std::vector<std::pair<std::string, std::string>>& files) {
  std::string p = R"OCT(1;
function S = run_script(script_path__)
  source(script_path__);
  clear script_path__;
  names__ = who();
  S = struct();
  for k__ = 1:numel(names__)
    S.(names__{k__}) = eval(names__{k__});
  end
end
function s = codes(x)
  s = '';
  if ~isempty(x)
    s = sprintf(' %d', double(x));
  end
end
function dump_names(tag, list, c)
  printf('%s size %s %d %d %d\n', tag, list, rows(c), columns(c), iscellstr(c));
  for j = 1:numel(c)
    printf('%s name %s [%s]\n', tag, list, codes(c{j}));
  end
end
function dump_values(tag, name, x)
  printf('%s size %s %d %d\n', tag, name, rows(x), columns(x));
  for j = 1:numel(x)
    printf('%s value %s %.17g\n', tag, name, x(j));
  end
end
function dump(tag, S)
  f = sort(fieldnames(S));
  printf('%s variables %s\n', tag, strjoin(f', ','));
  for name = {'A', 'B', 'C', 'D', 'E'}
    dump_values(tag, name{1}, S.(name{1}));
  end
  if all(isfinite(S.A(:)))
    ev = eig(S.A);
    for j = 1:numel(ev)
      printf('%s eig %.17g %.17g\n', tag, real(ev(j)), imag(ev(j)));
    end
  end
  printf('%s size eigenvalues %d %d\n', tag, size(S.eigenvalues));
  for j = 1:numel(S.eigenvalues)
    printf('%s eigenvalue %.17g %.17g\n', tag, real(S.eigenvalues(j)), imag(S.eigenvalues(j)));
  end
  dump_names(tag, 'state_names', S.state_names);
  dump_names(tag, 'input_names', S.input_names);
  dump_names(tag, 'output_names', S.output_names);
  printf('%s modes %d %s\n', tag, isstruct(S.modes), strjoin(sort(fieldnames(S.modes))', ','));
  dump_values(tag, 'frequency_hz', S.modes.frequency_hz);
  dump_values(tag, 'damping_ratio', S.modes.damping_ratio);
  dump_names(tag, 'modes.name', S.modes.name);
  printf('%s description [%s]\n', tag, codes(S.description));
end
)OCT";
  for (const auto& [tag, file] : files) {
    if (file.size() > 2 && file.substr(file.size() - 2) == ".m") {
      p += "dump('" + tag + "', run_script(" + octave_quote(file) + "));\n";
    } else {
      p += "dump('" + tag + "', load(" + octave_quote(file) + "));\n";
    }
  }
  return p;
}

/// Runs the program in one octave-cli process; its output, or a recorded failure.
std::string run_octave(const TempDir& dir, const std::string& program) {
  const std::string octave = find_octave();
  if (octave.empty()) return "";
  const std::string script = dir.write("check_export.m", program);
  const auto r = run_command("LC_ALL=C " + shell_quote(octave) +
                             " --norc --no-history --quiet --no-window-system " + shell_quote(script));
  EXPECT_EQ(r.code, 0) << "octave-cli failed:\n" << r.output;
  return r.output;
}

/// Everything of `d` as dumped under `tag`, values to the last bit.
void expect_export(const std::string& out, const std::string& tag, const MatlabLinearExport& d) {
  EXPECT_EQ(dump_lines(out, tag + " variables"),
            std::vector<std::string>{"A,B,C,D,E,description,eigenvalues,input_names,modes,output_names,state_names"});
  expect_matrix(out, tag, "A", d.A);
  expect_matrix(out, tag, "B", d.B);
  expect_matrix(out, tag, "C", d.C);
  expect_matrix(out, tag, "D", d.D);
  expect_matrix(out, tag, "E", d.E);
  expect_names(out, tag, "state_names", d.state_names);
  expect_names(out, tag, "input_names", d.input_names);
  expect_names(out, tag, "output_names", d.output_names);
  const auto size = dump_lines(out, tag + " size eigenvalues");
  ASSERT_EQ(size.size(), 1u);
  EXPECT_EQ(size[0], std::to_string(d.eigenvalues.size()) + " 1");
  const auto ev = dump_lines(out, tag + " eigenvalue");
  ASSERT_EQ(ev.size(), d.eigenvalues.size());
  for (std::size_t i = 0; i < ev.size(); ++i) {
    const auto space = ev[i].find(' ');
    EXPECT_TRUE(same_double(number(ev[i].substr(0, space)), d.eigenvalues[i].real())) << ev[i];
    EXPECT_TRUE(same_double(number(ev[i].substr(space + 1)), d.eigenvalues[i].imag())) << ev[i];
  }
  EXPECT_EQ(dump_lines(out, tag + " modes"), std::vector<std::string>{"1 damping_ratio,frequency_hz,name"});
  expect_column(out, tag, "frequency_hz", d.frequencies_hz);
  expect_column(out, tag, "damping_ratio", d.damping_ratios);
  expect_names(out, tag, "modes.name", d.mode_names);
  EXPECT_EQ(dump_lines(out, tag + " description"), std::vector<std::string>{codes(d.description)});
}

/// Octave's eig(A) under `tag` matches Eigen's eigenvalues to 1e-12 (relative).
void expect_octave_eigenvalues(const std::string& out, const std::string& tag, const MatlabLinearExport& d) {
  SCOPED_TRACE(tag + " eig(A)");
  std::vector<std::complex<double>> octave;
  for (const auto& line : dump_lines(out, tag + " eig")) {
    const auto space = line.find(' ');
    octave.emplace_back(number(line.substr(0, space)), number(line.substr(space + 1)));
  }
  const Eigen::EigenSolver<Mat> solver(d.A, false);
  ASSERT_EQ(static_cast<Eigen::Index>(octave.size()), solver.eigenvalues().size());
  for (Eigen::Index i = 0; i < solver.eigenvalues().size(); ++i) {
    const std::complex<double> lambda = solver.eigenvalues()(i);
    double nearest = std::numeric_limits<double>::infinity();
    for (const auto& mu : octave) nearest = std::min(nearest, std::abs(mu - lambda));
    EXPECT_LE(nearest, 1e-12 * std::max(1.0, std::abs(lambda))) << "Eigen eigenvalue " << lambda;
  }
}

TEST(MatlabExport, ScriptAndMatFileReadBackInOctave) {
  const TempDir dir("gmbd_matlab_");
  const MatlabLinearExport d = small_export();
  const std::string script = dir.file("pendulum_linear.m");
  const std::string mat = dir.file("pendulum_linear.mat");
  write_matlab_script(script, d);
  write_matlab_mat(mat, d);

  const std::string out = run_octave(dir, octave_program({{"M", script}, {"T", mat}}));
  ASSERT_FALSE(out.empty());
  for (const char* tag : {"M", "T"}) {
    SCOPED_TRACE(std::string(tag) == "M" ? ".m script" : ".mat file");
    expect_export(out, tag, d);
    expect_octave_eigenvalues(out, tag, d);
  }
}

TEST(MatlabExport, EdgeValuesAndEmptyShapesReadBackInOctave) {
  const TempDir dir("gmbd_matlab_");
  // Non-finite, signed-zero and subnormal values; no inputs, outputs or modes; names that are
  // empty or hold a line break; then a model with no state at all.
  MatlabLinearExport edge;
  edge.A.resize(2, 2);
  edge.A << std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
      std::numeric_limits<double>::quiet_NaN(), -0.0;
  edge.E.resize(2, 2);
  edge.E << std::numeric_limits<double>::denorm_min(), 1e308, -1.0 / 3.0, 0.0;
  edge.B = Mat::Zero(2, 0);
  edge.C = Mat::Zero(0, 2);
  edge.D = Mat::Zero(0, 0);
  edge.state_names = {"", "line\nbreak 'quoted'\t"};
  edge.eigenvalues = {{1.0, 2.0}, {-0.0, -1e-310}};
  edge.description = "two lines:\nsecond";
  MatlabLinearExport none;
  none.A = none.B = none.C = none.D = none.E = Mat::Zero(0, 0);

  std::vector<std::pair<std::string, std::string>> files;
  for (const auto& [name, data] : {std::pair{"edge", &edge}, std::pair{"none", &none}}) {
    const std::string script = dir.file(std::string(name) + "_model.m");
    const std::string mat = dir.file(std::string(name) + "_model.mat");
    write_matlab_script(script, *data);
    write_matlab_mat(mat, *data);
    files.emplace_back(std::string(name) + "M", script);
    files.emplace_back(std::string(name) + "T", mat);
  }
  const std::string out = run_octave(dir, octave_program(files));
  ASSERT_FALSE(out.empty());
  for (const char* tag : {"edgeM", "edgeT"}) expect_export(out, tag, edge);
  for (const char* tag : {"noneM", "noneT"}) expect_export(out, tag, none);
}

TEST(MatlabExport, MatFileReadsInScipy) {
  const TempDir dir("gmbd_matlab_");
  const MatlabLinearExport d = small_export();
  const std::string mat = dir.file("pendulum_linear.mat");
  write_matlab_mat(mat, d);
  // MATLAB stores char as UTF-16; scipy decodes non-ASCII uint16 chars only with this codec.
  const std::string python = dir.write("read_mat.py", R"PY(import sys
try:
    import scipy.io
except ImportError:
    print("NO_SCIPY")
    sys.exit(3)
m = scipy.io.loadmat(sys.argv[1], uint16_codec="utf-16-le")
def text(a):
    return "".join(a) if a.size else ""
def codes(s):
    return "[" + "".join(" %d" % b for b in s.encode("utf-8")) + "]"
for k in "ABCDE":
    a = m[k]
    print("T size", k, a.shape[0], a.shape[1])
    for x in a.flatten(order="F"):
        print("T value", k, repr(float(x)))
for k in ("state_names", "input_names", "output_names"):
    c = m[k]
    print("T size", k, c.shape[0], c.shape[1], 1)
    for e in c.flatten(order="F"):
        print("T name", k, codes(text(e)))
ev = m["eigenvalues"]
print("T size eigenvalues", ev.shape[0], ev.shape[1])
for z in ev.flatten(order="F"):
    print("T eigenvalue", repr(float(z.real)), repr(float(z.imag)))
modes = m["modes"][0, 0]
print("T modes 1", ",".join(sorted(modes.dtype.names)))
for k in ("frequency_hz", "damping_ratio"):
    a = modes[k]
    print("T size", k, a.shape[0], a.shape[1])
    for x in a.flatten(order="F"):
        print("T value", k, repr(float(x)))
c = modes["name"]
print("T size modes.name", c.shape[0], c.shape[1], 1)
for e in c.flatten(order="F"):
    print("T name modes.name", codes(text(e)))
print("T description", codes(text(m["description"])))
print("T variables", ",".join(sorted(k for k in m if not k.startswith("__"))))
)PY");
  const auto r = run_command("/usr/bin/python3 " + shell_quote(python) + " " + shell_quote(mat));
  ASSERT_EQ(r.output.find("NO_SCIPY"), std::string::npos) << "python3-scipy is not installed: " << kInstallHint;
  ASSERT_EQ(r.code, 0) << r.output;
  expect_export(r.output, "T", d);
}

TEST(MatlabExport, UnwritablePathIsAnInputErrorNamingIt) {
  const TempDir dir("gmbd_matlab_");
  const MatlabLinearExport d = small_export();
  for (const std::string name : {"model.m", "model.mat"}) {
    const std::string path = dir.file("no_such_directory/" + name);
    try {
      if (name == "model.m") {
        write_matlab_script(path, d);
      } else {
        write_matlab_mat(path, d);
      }
      ADD_FAILURE() << "no error for " << path;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("No such file or directory"), std::string::npos) << e.what();
    }
  }
}

/// Lowers this process's soft file-size limit while alive: writes beyond it fail with EFBIG
/// (SIGXFSZ ignored), like on a full disk.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    active_ = getrlimit(RLIMIT_FSIZE, &saved_) == 0;
    previous_ = std::signal(SIGXFSZ, SIG_IGN);
    rlimit lowered = saved_;
    lowered.rlim_cur = bytes;
    active_ = active_ && (saved_.rlim_max == RLIM_INFINITY || bytes <= saved_.rlim_max) &&
              setrlimit(RLIMIT_FSIZE, &lowered) == 0;
  }
  ~FileSizeLimit() {
    if (active_) setrlimit(RLIMIT_FSIZE, &saved_);
    std::signal(SIGXFSZ, previous_);
  }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;
  bool active() const { return active_; }

 private:
  rlimit saved_{};
  bool active_ = false;
  void (*previous_)(int) = SIG_DFL;
};

TEST(MatlabExport, FailedWritesAreInputErrorsAndLeaveNoFile) {
  const TempDir dir("gmbd_matlab_");
  MatlabLinearExport d;
  const Eigen::Index n = 30;
  d.A = Mat::Constant(n, n, 1.0 / 3.0);
  d.E = Mat::Identity(n, n);
  d.B = Mat::Constant(n, 1, 0.1);
  d.C = Mat::Constant(1, n, 0.7);
  d.D = Mat::Zero(1, 1);
  for (Eigen::Index i = 0; i < n; ++i) {
    d.state_names.push_back("state " + std::to_string(i));
    d.eigenvalues.emplace_back(-0.1 * static_cast<double>(i), 1.0);
  }
  d.input_names = {"u"};
  d.output_names = {"y"};
  const std::string script = dir.file("big.m");
  const std::string mat = dir.file("big.mat");
  {
    const FileSizeLimit limit(2000);  // both files need far more (about 20 kB)
    ASSERT_TRUE(limit.active()) << "cannot lower RLIMIT_FSIZE";
    for (const std::string& path : {script, mat}) {
      try {
        if (path == script) {
          write_matlab_script(path, d);
        } else {
          write_matlab_mat(path, d);
        }
        ADD_FAILURE() << "no error for " << path << " beyond the file size limit";
      } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
      }
    }
  }
  EXPECT_FALSE(fs::exists(script)) << "partial file left behind";
  EXPECT_FALSE(fs::exists(mat)) << "partial file left behind";
  write_matlab_script(script, d);
  write_matlab_mat(mat, d);
  EXPECT_GT(fs::file_size(script), 2000u);
  EXPECT_GT(fs::file_size(mat), 2000u);
}

TEST(MatlabExport, InconsistentShapesAreRefusedBeforeWriting) {
  const TempDir dir("gmbd_matlab_");
  MatlabLinearExport d = small_export();
  d.input_names.pop_back();
  const std::string script = dir.file("bad.m");
  const std::string mat = dir.file("bad.mat");
  EXPECT_THROW(write_matlab_script(script, d), std::invalid_argument);
  EXPECT_THROW(write_matlab_mat(mat, d), std::invalid_argument);
  d = small_export();
  d.E = Mat::Identity(3, 3);
  EXPECT_THROW(write_matlab_mat(mat, d), std::invalid_argument);
  EXPECT_FALSE(fs::exists(script));
  EXPECT_FALSE(fs::exists(mat));
}

}  // namespace
}  // namespace gmbd
