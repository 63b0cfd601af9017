// File readers of io/motion.hpp: format detection, PEER AT2, CSMIP/CGS V2, COSMOS V1.20,
// USGS SMC, free-format values (text-npts-dt, values) and plain columns (CSV); layouts and traps
// in docs/motions.md and data/motions/README.md.
#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "core/errors.hpp"
#include "io/motion.hpp"

namespace gmbd {

namespace {

constexpr double kMaxFileValue = 1e10;  // |value| above this in file units: a missing-value marker
constexpr size_t kMaxHeaderScan = 200;  // lines searched for a CSMIP data header

// ---------------------------------------------------------------------------------------------
// Text helpers

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string lower(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

std::string upper(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return r;
}

bool icontains(std::string_view s, std::string_view what) {
  return lower(s).find(lower(what)) != std::string::npos;
}

bool istarts_with(std::string_view s, std::string_view what) {
  return s.size() >= what.size() && lower(s.substr(0, what.size())) == lower(what);
}

bool is_blank(std::string_view s) { return trim(s).empty(); }

// Trimmed, with runs of blanks collapsed to one space (station and event names).
std::string squeeze(std::string_view s) {
  std::string r;
  for (const char c : trim(s)) {
    const bool space = std::isspace(static_cast<unsigned char>(c)) != 0;
    if (space && !r.empty() && r.back() == ' ') continue;
    r += space ? ' ' : c;
  }
  return r;
}

// Printable excerpt of file content for error messages: control bytes as \xHH, ≤ 90 chars.
std::string excerpt(std::string_view s) {
  std::string r;
  for (const char c : s.substr(0, 90)) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", u);
      r += buf;
    } else {
      r += c;
    }
  }
  if (s.size() > 90) r += "...";
  return r;
}

std::string fmt_g(double x) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.10g", x);
  return buf;
}

// A number written in a data file: optional sign, digits and/or '.', optional exponent (E or
// Fortran D). Rejects nan/inf spellings, trailing characters (touching numbers), values that
// overflow a double. Leading/trailing blanks are ignored.
bool parse_number(std::string_view s, double& out) {
  s = trim(s);
  if (s.empty() || s.size() > 60) return false;
  std::array<char, 64> buf{};
  size_t n = 0;
  size_t i = 0;
  if (s[0] == '+') i = 1;  // std::from_chars does not accept a leading '+'
  for (; i < s.size(); ++i) buf[n++] = (s[i] == 'D' || s[i] == 'd') ? 'E' : s[i];
  const size_t first = (n > 0 && buf[0] == '-') ? 1 : 0;
  if (first >= n) return false;
  const auto c = static_cast<unsigned char>(buf[first]);
  if (!std::isdigit(c) && c != '.') return false;
  const auto [ptr, ec] = std::from_chars(buf.data(), buf.data() + n, out);
  return ec == std::errc() && ptr == buf.data() + n && std::isfinite(out);
}

// A count written as digits: its value, or −1 if empty or longer than 9 digits.
long to_count(std::string_view digits) {
  if (digits.empty() || digits.size() > 9) return -1;
  long v = 0;
  for (const char c : digits) v = 10 * v + (c - '0');
  return v;
}

bool parse_integer(std::string_view s, long& out) {
  double v = 0.0;
  if (!parse_number(s, v) || v != std::floor(v) || std::abs(v) > 2e9) return false;
  out = static_cast<long>(v);
  return true;
}

// Case-insensitive position of `what` in `s` at or after `from`, or npos.
size_t ifind(std::string_view s, std::string_view what, size_t from = 0) {
  if (from > s.size()) return std::string_view::npos;
  const auto eq = [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) ==
           std::tolower(static_cast<unsigned char>(b));
  };
  const auto it =
      std::search(s.begin() + static_cast<long>(from), s.end(), what.begin(), what.end(), eq);
  return it == s.end() && !what.empty() ? std::string_view::npos
                                        : static_cast<size_t>(it - s.begin());
}

bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
bool is_alpha(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }
bool is_decimal(char c) { return is_digit(c) || c == '.'; }
bool is_number_char(char c) {
  return is_decimal(c) || (c != '\0' && std::strchr("+-EeDd", c) != nullptr);
}
bool is_token_char(char c) { return std::isspace(static_cast<unsigned char>(c)) == 0; }

// Left-to-right scanner for the fixed phrases of header lines ("NPTS= 6181, DT= .0100 SEC",
// "100 Integer-header values follow on 10 lines"): every step first skips blanks.
class Scan {
 public:
  explicit Scan(std::string_view s, size_t pos = 0) : s_(s), p_(std::min(pos, s.size())) {}
  // The literal `w` (case-insensitive) next; advances past it on success.
  bool lit(std::string_view w) {
    blanks();
    if (s_.size() - p_ < w.size() || ifind(s_.substr(p_, w.size()), w) != 0) return false;
    p_ += w.size();
    return true;
  }
  // The longest run of characters satisfying `pred` next (empty if none).
  std::string_view run(bool (*pred)(char)) {
    blanks();
    const size_t q0 = p_;
    while (p_ < s_.size() && pred(s_[p_])) ++p_;
    return s_.substr(q0, p_ - q0);
  }
  std::string_view digits() { return run(is_digit); }
  std::string_view number() { return run(is_number_char); }  // validated by parse_number
  std::string_view word() { return run(is_alpha); }
  std::string_view token() { return run(is_token_char); }
  size_t pos() const { return p_; }

 private:
  void blanks() {
    while (p_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[p_]))) ++p_;
  }
  std::string_view s_;
  size_t p_;
};

// The text after "<key> =" (blanks allowed around '='), or nullopt if `key =` is absent.
std::optional<Scan> after_key(std::string_view s, std::string_view key) {
  for (size_t p = ifind(s, key); p != std::string_view::npos; p = ifind(s, key, p + 1)) {
    Scan c(s, p + key.size());
    if (c.lit("=")) return c;
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// The file as lines, and errors that name file, line, expected and found content

struct TextFile {
  std::string path;
  std::string data;
  std::vector<std::string_view> lines;  // without the line break and trailing '\r'
  size_t size() const { return lines.size(); }
};

// "<path>:<line>: <what>: expected <expected>, found '<line content>'"; with `got`:
// "..., found <got> in '<line content>'". li == f.size() reports the end of the file.
[[noreturn]] void fail_at(const TextFile& f, size_t li, const std::string& what,
                          const std::string& expected, const std::string& got = "") {
  const std::string content = li < f.size()
                                  ? "'" + excerpt(f.lines[li]) + "'"
                                  : "the end of the file (" + std::to_string(f.size()) + " lines)";
  const size_t shown = li < f.size() ? li + 1 : f.size();
  throw InputError(f.path + ":" + std::to_string(shown) + ": " + what + ": expected " + expected +
                   ", found " + (got.empty() ? content : got + " in " + content));
}

[[noreturn]] void fail_field(const TextFile& f, size_t li, const std::string& what,
                             const std::string& expected, std::string_view found) {
  throw InputError(f.path + ":" + std::to_string(li + 1) + ": " + what + ": expected " + expected +
                   ", found '" + excerpt(found) + "'");
}

// Loads a text file. CRLF and CR-CR-LF endings are read as LF; 0x1A (DOS end-of-file) bytes
// and blank lines at the end are dropped. Throws InputError for a missing, unreadable, empty
// or binary (NUL bytes) file.
TextFile load_text(const std::string& path, const char* who) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (ec || !fs::exists(status))
    throw InputError(std::string(who) + ": " + path + ": cannot open: expected an existing file, " +
                     "found no such file or directory");
  if (!fs::is_regular_file(status))
    throw InputError(std::string(who) + ": " + path + ": cannot read: expected a regular file, " +
                     "found a directory or special file");
  // The text is held in memory while it is parsed (about four times its size at the peak): a
  // bound keeps a wrong file (a disk image, a log) from exhausting memory.
  constexpr std::uintmax_t kMaxMotionFileBytes = std::uintmax_t{1} << 30;
  if (const auto size = fs::file_size(path, ec); !ec && size > kMaxMotionFileBytes) {
    throw InputError(std::string(who) + ": " + path + ": a file of " + std::to_string(size) +
                     " bytes; expected a motion record of at most 1 GiB (" + std::to_string(kMaxMotionFileBytes) +
                     " bytes): split or decimate the record");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw InputError(std::string(who) + ": " + path + ": cannot open: expected a readable file, " +
                     "found no read permission");
  TextFile f;
  f.path = path;
  {
    std::ostringstream ss;
    ss << in.rdbuf();
    f.data = ss.str();
  }
  if (in.bad()) throw InputError(std::string(who) + ": " + path + ": read error");
  // Drop trailing 0x1A bytes and blank space; the file must hold something else.
  size_t end = f.data.size();
  while (end > 0) {
    const char c = f.data[end - 1];
    if (c == '\x1a' || std::isspace(static_cast<unsigned char>(c)))
      --end;
    else
      break;
  }
  if (end == 0)
    throw InputError(path + ":1: " + who + ": expected a motion record, found an empty file" +
                     (f.data.empty() ? "" : " (only blanks / 0x1A bytes)"));
  if (const auto nul = f.data.find('\0'); nul != std::string::npos && nul < end) {
    const auto line = std::count(f.data.begin(), f.data.begin() + static_cast<long>(nul), '\n');
    throw InputError(path + ":" + std::to_string(line + 1) + ": " + who +
                     ": expected a text file, found a NUL byte (binary data)");
  }
  std::string_view all(f.data.data(), end);
  size_t pos = 0;
  while (pos <= all.size()) {
    size_t nl = all.find('\n', pos);
    if (nl == std::string_view::npos) nl = all.size();
    std::string_view line = all.substr(pos, nl - pos);
    while (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    f.lines.push_back(line);
    pos = nl + 1;
  }
  return f;
}

// ---------------------------------------------------------------------------------------------
// Fixed-width (Fortran) fields

struct FortranFormat {
  int per_line = 0;
  int width = 0;
};

std::string describe(const FortranFormat& ff) {
  return std::to_string(ff.per_line) + (ff.per_line == 1 ? " field" : " fields") + " of " +
         std::to_string(ff.width) + " columns";
}

// The last "(nEw.d)"-style edit descriptor in `s` (E, F, G, D or I; n defaults to 1).
std::optional<FortranFormat> find_fortran_format(std::string_view s) {
  s = s.substr(0, 400);
  std::optional<FortranFormat> r;
  for (size_t open = s.find('('); open != std::string_view::npos; open = s.find('(', open + 1)) {
    Scan c(s, open + 1);
    const std::string_view n = c.digits();
    const std::string_view letter = c.word();
    if (letter.size() != 1 || std::strchr("EFGDIefgdi", letter[0]) == nullptr) continue;
    const std::string_view w = c.digits();
    if (c.lit(".") && c.digits().empty()) continue;
    if (!c.lit(")")) continue;
    const long per_line = n.empty() ? 1 : to_count(n), width = to_count(w);
    if (per_line >= 1 && per_line <= 100 && width >= 1 && width <= 60)
      r = FortranFormat{static_cast<int>(per_line), static_cast<int>(width)};
  }
  return r;
}

// Reads `count` numbers written `ff.per_line` to a line in fields of `ff.width` columns, starting
// at line `li`; returns the index of the line after the block. Fields are cut by column, never
// by blanks, so touching numbers are split correctly. Every field must be a number, the rest of
// each line blank; the file must not end early.
size_t read_fixed(const TextFile& f, size_t li, size_t count, const FortranFormat& ff,
                  const std::string& what, std::vector<double>& out,
                  double max_abs = std::numeric_limits<double>::infinity()) {
  out.clear();
  const size_t per_line = static_cast<size_t>(ff.per_line);
  const size_t width = static_cast<size_t>(ff.width);
  const size_t lines_left = li < f.size() ? f.size() - li : 0;
  out.reserve(std::min(count, lines_left * per_line));
  size_t done = 0;
  while (done < count) {
    if (li >= f.size())
      fail_at(f, li, what + " truncated",
              std::to_string(count) + " values (" + describe(ff) + " per line), read " +
                  std::to_string(done));
    const std::string_view line = f.lines[li];
    const size_t k = std::min(per_line, count - done);
    for (size_t j = 0; j < k; ++j) {
      const size_t a = j * width;
      const std::string_view field = a < line.size() ? line.substr(a, width) : std::string_view{};
      double v = 0.0;
      if (!parse_number(field, v))
        fail_field(
            f, li, what + " value " + std::to_string(done + 1) + " of " + std::to_string(count),
            "a finite number in columns " + std::to_string(a + 1) + "-" + std::to_string(a + width),
            is_blank(field) ? std::string_view(line) : field);
      if (std::abs(v) > max_abs)
        fail_field(f, li,
                   what + " value " + std::to_string(done + 1) + " of " + std::to_string(count),
                   "|value| <= " + fmt_g(max_abs) + " in columns " + std::to_string(a + 1) + "-" +
                       std::to_string(a + width) + " (larger: a missing-value marker?)",
                   field);
      out.push_back(v);
      ++done;
    }
    if (k * width < line.size() && !is_blank(line.substr(k * width)))
      fail_field(f, li,
                 what + ": more values than the header states (" + std::to_string(count) + ")",
                 "blanks after column " + std::to_string(k * width), line.substr(k * width));
    ++li;
  }
  return li;
}

// ---------------------------------------------------------------------------------------------
// Units and orientation

struct Units {
  std::string name;
  double to_si = 0.0;
};

// Acceleration units named in header text: cm/sec2, CM/SEC/SEC, gal, m/s^2, mm/s2, g, mg, in/s/s.
std::optional<Units> units_from_text(std::string_view text) {
  const std::string s = lower(text);
  struct Pattern {
    const char* text;
    const char* name;
    double factor;
  };
  static const Pattern slash_patterns[] = {
      {"cm/sec/sec", "cm/s^2", 0.01}, {"cm/sec2", "cm/s^2", 0.01},
      {"cm/sec^2", "cm/s^2", 0.01},   {"cm/sec**2", "cm/s^2", 0.01},
      {"cm/s/s", "cm/s^2", 0.01},     {"cm/s2", "cm/s^2", 0.01},
      {"cm/s^2", "cm/s^2", 0.01},     {"cm/s**2", "cm/s^2", 0.01},
      {"mm/sec/sec", "mm/s^2", 1e-3}, {"mm/sec2", "mm/s^2", 1e-3},
      {"mm/s/s", "mm/s^2", 1e-3},     {"mm/s2", "mm/s^2", 1e-3},
      {"mm/s^2", "mm/s^2", 1e-3},     {"in/sec/sec", "in/s^2", 0.0254},
      {"in/s/s", "in/s^2", 0.0254},   {"in/s2", "in/s^2", 0.0254},
      {"in/s^2", "in/s^2", 0.0254},   {"m/sec/sec", "m/s^2", 1.0},
      {"m/sec2", "m/s^2", 1.0},       {"m/sec^2", "m/s^2", 1.0},
      {"m/s/s", "m/s^2", 1.0},        {"m/s2", "m/s^2", 1.0},
      {"m/s^2", "m/s^2", 1.0},        {"m/s**2", "m/s^2", 1.0},
  };
  for (const auto& p : slash_patterns)
    if (s.find(p.text) != std::string::npos) return Units{p.name, p.factor};
  // Whole words: g, mg, gal.
  std::string word;
  const auto check = [&](const std::string& w) -> std::optional<Units> {
    if (w == "g") return Units{"g", kStandardGravity};
    if (w == "mg") return Units{"mg", kStandardGravity * 1e-3};
    if (w == "gal" || w == "gals") return Units{"cm/s^2", 0.01};
    return std::nullopt;
  };
  for (const char c : s + " ") {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      word += c;
    } else {
      if (auto u = check(word)) return u;
      word.clear();
    }
  }
  return std::nullopt;
}

struct Orientation {
  bool known = false;
  bool vertical = false;
  bool down = false;  // vertical and down-positive: negate
  double azimuth = std::numeric_limits<double>::quiet_NaN();
};

Orientation horizontal(double azimuth) {
  Orientation o;
  o.known = true;
  o.azimuth = std::fmod(std::fmod(azimuth, 360.0) + 360.0, 360.0);
  return o;
}

Orientation vertical_up(bool down = false) {
  Orientation o;
  o.known = true;
  o.vertical = true;
  o.down = down;
  return o;
}

// Orientation from a component label: "180", "90 Deg", "UP", "DWN", "N45E", "BNZ", "HNE", …
Orientation orientation_from_text(std::string_view text) {
  std::string s = upper(trim(text));
  for (const char* suffix : {"DEGREES", "DEG", "\xC2\xB0"}) {
    const std::string suf(suffix);
    if (s.size() > suf.size() && s.compare(s.size() - suf.size(), suf.size(), suf) == 0) {
      s = std::string(trim(s.substr(0, s.size() - suf.size())));
      break;
    }
  }
  if (s.empty()) return {};
  double v = 0.0;
  if (parse_number(s, v) && v >= 0.0 && v <= 360.0) return horizontal(v);
  if (s == "UP" || s == "UPP" || s == "Z" || s == "V" || s == "VER" || s == "VERT" || s == "VRT" ||
      s == "VERTICAL")
    return vertical_up();
  if (s == "DWN" || s == "DOWN" || s == "DN") return vertical_up(true);
  if (s == "N" || s == "NS" || s == "NORTH") return horizontal(0.0);
  if (s == "E" || s == "EW" || s == "EAST") return horizontal(90.0);
  if (s == "S" || s == "SOUTH") return horizontal(180.0);
  if (s == "W" || s == "WEST") return horizontal(270.0);
  // Quadrant bearings N45E, S30W, …
  if (s.size() >= 3 && (s.front() == 'N' || s.front() == 'S') &&
      (s.back() == 'E' || s.back() == 'W')) {
    double a = 0.0;
    if (parse_number(std::string_view(s).substr(1, s.size() - 2), a) && a >= 0.0 && a <= 90.0) {
      const bool north = s.front() == 'N', east = s.back() == 'E';
      return horizontal(north ? (east ? a : 360.0 - a) : (east ? 180.0 - a : 180.0 + a));
    }
  }
  // SEED channel codes (band, instrument, orientation): Z up, N north, E east.
  if (s.size() == 3 && std::isalpha(static_cast<unsigned char>(s[0])) &&
      std::isalpha(static_cast<unsigned char>(s[1]))) {
    if (s[2] == 'Z') return vertical_up();
    if (s[2] == 'N') return horizontal(0.0);
    if (s[2] == 'E') return horizontal(90.0);
  }
  return {};
}

void apply_orientation(MotionChannel& m, const Orientation& o) {
  m.vertical = o.vertical;
  m.sign_flipped = o.vertical && o.down;
  m.azimuth_deg = o.vertical ? std::numeric_limits<double>::quiet_NaN() : o.azimuth;
}

// Converts file values (already checked finite and |v| <= kMaxFileValue by the readers) to
// m/s², negating down-positive verticals.
void store_acceleration(const std::vector<double>& v, const Units& u, MotionChannel& m) {
  const double factor = u.to_si * (m.sign_flipped ? -1.0 : 1.0);
  m.units_in_file = u.name;
  m.acceleration.resize(v.size());
  for (size_t k = 0; k < v.size(); ++k) m.acceleration[k] = v[k] * factor;
}

void check_dt(const TextFile& f, size_t li, double dt, const std::string& what) {
  if (!(dt >= 1e-5 && dt <= 1.0))
    fail_at(f, li, what, "a sample interval 1e-5 s <= dt <= 1 s", "dt = " + fmt_g(dt) + " s");
}

// ---------------------------------------------------------------------------------------------
// PEER NGA AT2: 4 header lines, then free-format values (5 a line) in g.

std::vector<MotionChannel> read_peer_at2(const TextFile& f) {
  if (f.size() < 5) fail_at(f, f.size(), "PEER AT2 file", "4 header lines and data");
  // Line 4: "NPTS= 6181, DT= .0100 SEC," (comma optional, text may follow) or, in older
  // files, "4164 0.0100 NPTS, DT".
  const std::string_view h4 = f.lines[3];
  std::string_view n_text, dt_text;
  if (auto c = after_key(h4, "npts")) {
    n_text = c->digits();
    c->lit(",");
    if (c->lit("dt") && c->lit("=")) dt_text = c->number();
  }
  if (n_text.empty() || dt_text.empty()) {
    Scan c(h4);
    n_text = c.digits();
    dt_text = c.number();
    bool ok = c.lit("npts");
    if (ok) {
      c.lit(",");  // optional
      ok = c.lit("dt");
    }
    if (!ok) n_text = dt_text = {};
  }
  if (n_text.empty() || dt_text.empty())
    fail_at(f, 3, "PEER AT2 header line 4", "'NPTS= <n>, DT= <dt> SEC' or '<n> <dt> NPTS, DT'");
  long npts = 0;
  double dt = 0.0;
  if (!parse_integer(n_text, npts) || npts < 1)
    fail_at(f, 3, "PEER AT2 NPTS", "an integer number of points >= 1");
  if (!parse_number(dt_text, dt)) fail_at(f, 3, "PEER AT2 DT", "a number (s)");
  check_dt(f, 3, dt, "PEER AT2 DT");

  // Line 3 names the quantity and units ("ACCELERATION TIME SERIES IN UNITS OF G").
  const std::string h3(f.lines[2].substr(0, 300));
  if (icontains(h3, "velocity") || icontains(h3, "displacement"))
    fail_at(f, 2, "PEER AT2 line 3",
            "an ACCELERATION time series (.AT2), not velocity/displacement");
  Units units{"g", kStandardGravity};
  if (icontains(h3, "units")) {
    const auto u = units_from_text(h3.substr(lower(h3).find("units")));
    if (!u) fail_at(f, 2, "PEER AT2 units", "'UNITS OF G' (or cm/s^2, m/s^2)");
    units = *u;
  }

  MotionChannel c;
  c.source = f.path;
  c.format = "peer-at2";
  c.dt = dt;
  // Line 2: "<event>, <date>, <station>, <component>".
  {
    std::vector<std::string> parts;
    std::string cur;
    for (const char ch : std::string(f.lines[1]) + ",") {
      if (ch == ',') {
        parts.emplace_back(trim(cur));
        cur.clear();
      } else {
        cur += ch;
      }
    }
    if (!parts.empty()) c.component = parts.back();
    if (parts.size() >= 2) c.station = squeeze(parts[parts.size() - 2]);
    for (size_t i = 0; i + 2 < parts.size(); ++i) c.event += (i ? ", " : "") + squeeze(parts[i]);
  }
  apply_orientation(c, orientation_from_text(c.component));

  // Values separated by blanks; a token that is not exactly one number (touching numbers,
  // NaN, text) is an error: AT2 is not fixed-width, so touching numbers are ambiguous.
  std::vector<double> v;
  v.reserve(static_cast<size_t>(std::min<long>(npts, static_cast<long>(f.size()) * 8)));
  size_t li = 4;
  for (; li < f.size(); ++li) {
    const std::string_view line = f.lines[li];
    size_t p = 0;
    while (p < line.size()) {
      while (p < line.size() && std::isspace(static_cast<unsigned char>(line[p]))) ++p;
      if (p >= line.size()) break;
      size_t q = p;
      while (q < line.size() && !std::isspace(static_cast<unsigned char>(line[q]))) ++q;
      const std::string_view tok = line.substr(p, q - p);
      if (static_cast<long>(v.size()) >= npts)
        fail_field(f, li, "PEER AT2 data: more values than NPTS = " + std::to_string(npts),
                   "end of data", tok);
      double x = 0.0;
      if (!parse_number(tok, x))
        fail_field(f, li,
                   "PEER AT2 value " + std::to_string(v.size() + 1) + " of " + std::to_string(npts),
                   "one finite number per blank-separated field (touching numbers are ambiguous "
                   "in AT2)",
                   tok);
      if (std::abs(x) > kMaxFileValue)
        fail_field(
            f, li, "PEER AT2 value " + std::to_string(v.size() + 1) + " of " + std::to_string(npts),
            "|value| <= " + fmt_g(kMaxFileValue) + " (larger: a missing-value marker?)", tok);
      v.push_back(x);
      p = q;
    }
  }
  if (static_cast<long>(v.size()) < npts)
    fail_at(f, f.size(), "PEER AT2 data truncated",
            std::to_string(npts) + " values (NPTS), read " + std::to_string(v.size()));
  store_acceleration(v, units, c);
  return {std::move(c)};
}

// ---------------------------------------------------------------------------------------------
// USGS SMC: 11 text lines, 6 lines of 8I10, 10 lines of 5E15.7, comments "|", data 8E10.4 cm/s².

bool smc_first_line(std::string_view line) {
  // "<digit> <TITLE>"
  const std::string_view s = trim(line.substr(0, 120));
  if (s.size() < 3 || !is_digit(s[0]) || !std::isspace(static_cast<unsigned char>(s[1])) ||
      !is_alpha(trim(s.substr(1))[0]))
    return false;
  return icontains(s, "accelerogram") || icontains(s, "velocity") || icontains(s, "displacement") ||
         icontains(s, "response");
}

size_t read_smc_record(const TextFile& f, size_t start, int index, MotionChannel& c) {
  const std::string title(trim(f.lines[start]));
  if (!smc_first_line(title))
    fail_at(f, start, "USGS SMC record header",
            "'2 CORRECTED ACCELEROGRAM' (or '1 UNCORRECTED ...')");
  if (!(title[0] == '1' || title[0] == '2') || !icontains(title, "accelerogram"))
    fail_at(f, start, "USGS SMC record type",
            "an acceleration record '1 UNCORRECTED ACCELEROGRAM' or '2 CORRECTED ACCELEROGRAM'");
  if (f.size() < start + 27)
    fail_at(f, f.size(), "USGS SMC header truncated",
            "11 text, 6 integer and 10 real header lines");
  std::vector<double> ints, reals, v;
  size_t li = read_fixed(f, start + 11, 48, {8, 10}, "USGS SMC integer header", ints);
  li = read_fixed(f, li, 50, {5, 15}, "USGS SMC real header", reals);
  const double missing_int = ints[0];    // #1: the integer no-value flag (−32768)
  const double missing_real = reals[0];  // #1: the real no-value flag (1.7E+38)
  const auto int_at = [&](int k) { return ints[static_cast<size_t>(k - 1)]; };
  const double ncomments = int_at(16), npts = int_at(17), sps = reals[1];
  if (ncomments == missing_int || ncomments < 0 || ncomments > 10000 ||
      ncomments != std::floor(ncomments))
    fail_at(f, start + 12, "USGS SMC integer #16 (number of comment lines)", "0 ... 10000",
            fmt_g(ncomments));
  if (npts == missing_int || npts < 1 || npts > 2e9 || npts != std::floor(npts))
    fail_at(f, start + 13, "USGS SMC integer #17 (number of points)", "an integer 1 ... 2e9",
            fmt_g(npts));
  if (sps == missing_real || !(sps > 0.0))
    fail_at(f, start + 17, "USGS SMC real #2 (samples per second)", "a rate > 0", fmt_g(sps));
  check_dt(f, start + 17, 1.0 / sps, "USGS SMC real #2 (samples per second)");
  for (size_t k = 0; k < static_cast<size_t>(ncomments); ++k, ++li)
    if (li >= f.size() || !istarts_with(trim(f.lines[li]), "|"))
      fail_at(f, li,
              "USGS SMC comment line " + std::to_string(k + 1) + " of " + fmt_g(ncomments) +
                  " (integer #16)",
              "a line starting with '|'");

  c.source = f.path;
  c.format = "usgs-smc";
  c.channel = index;
  c.dt = 1.0 / sps;
  // Text line 6: "station = <name>  component= <label>"; line 4: event; orientation falls back
  // on integers #13 (vertical orientation: 0 up, 180 down, 90 horizontal) and #14 (azimuth).
  const std::string_view t6 = f.lines[start + 5];
  if (auto k = after_key(t6, "component")) c.component = std::string(k->token());
  if (auto k = after_key(t6, "station")) {
    const std::string_view rest = t6.substr(k->pos());
    c.station = squeeze(rest.substr(0, ifind(rest, "component")));
  }
  c.event = squeeze(f.lines[start + 3]);
  Orientation o = orientation_from_text(c.component);
  if (!o.known) {
    const double vert = int_at(13), az = int_at(14);
    if (vert == 0.0)
      o = vertical_up();
    else if (vert == 180.0)
      o = vertical_up(true);
    else if (vert == 90.0 && az != missing_int && az >= 0 && az <= 360)
      o = horizontal(az);
  }
  apply_orientation(c, o);

  li = read_fixed(f, li, static_cast<size_t>(npts), {8, 10},
                  "USGS SMC acceleration data (integer #17 = " + fmt_g(npts) + " points)", v,
                  kMaxFileValue);
  store_acceleration(v, Units{"cm/s^2", 0.01}, c);
  return li;
}

std::vector<MotionChannel> read_smc(const TextFile& f) {
  std::vector<MotionChannel> out;
  size_t li = 0;
  while (li < f.size()) {
    if (is_blank(f.lines[li])) {
      ++li;
      continue;
    }
    if (!out.empty() && !smc_first_line(f.lines[li]))
      fail_at(f, li, "USGS SMC data: more values than integer #17 states",
              "end of file or the next record's '2 CORRECTED ACCELEROGRAM' line");
    MotionChannel c;
    li = read_smc_record(f, li, static_cast<int>(out.size()), c);
    out.push_back(std::move(c));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// COSMOS V1.20: text lines (count on line 1), integer and real headers with their own count
// lines and formats, "|" comments, a data line "N acceleration pts, ..., Format=(1E15.6)".

std::vector<MotionChannel> read_cosmos(const TextFile& f) {
  std::vector<MotionChannel> out;
  size_t li = 0;
  while (li < f.size()) {
    if (is_blank(f.lines[li])) {
      ++li;
      continue;
    }
    const size_t start = li;
    // Line 1: "<type> (Format v01.20 with <n> text lines)".
    const std::string_view title = f.lines[start];
    long ntext = -2;
    if (const size_t p = ifind(title, "(format"); p != std::string_view::npos) {
      Scan c(title, p + 7);
      if (c.lit("v") && istarts_with(c.number(), "01.") && c.lit("with")) {
        ntext = to_count(c.digits());
        if (!(c.lit("text") && c.lit("line"))) ntext = -2;
      }
    }
    if (ntext == -2)
      fail_at(f, start,
              out.empty() ? "COSMOS header line 1"
                          : "COSMOS: data after the end of channel " + std::to_string(out.size()),
              "'<type> (Format v01.20 with <n> text lines)'");
    if (ntext < 1 || ntext > 1000) fail_at(f, start, "COSMOS text line count", "1 ... 1000");
    if (istarts_with(trim(title), "raw"))
      fail_at(f, start, "COSMOS record type", "acceleration in physical units, not raw counts");
    if (f.size() < start + static_cast<size_t>(ntext) + 1)
      fail_at(f, f.size(), "COSMOS header truncated", std::to_string(ntext) + " text lines");
    // The value used for unknown parameters (text line 13 in v1.20; default −999).
    double unknown_int = -999.0, unknown_real = -999.0;
    for (size_t k = start; k < start + static_cast<size_t>(ntext); ++k) {
      const std::string_view t = f.lines[k];
      const size_t p = ifind(t, "unknown");
      const size_t colon = p == std::string_view::npos ? p : t.find(':', p);
      if (colon != std::string_view::npos) {
        Scan c(t, colon + 1);
        parse_number(c.number(), unknown_int);
        if (c.lit(",")) parse_number(c.number(), unknown_real);
      }
    }
    li = start + static_cast<size_t>(ntext);

    // Integer and real headers: "<n> Integer-header values follow on <l> lines, Format= (10I8)".
    std::vector<double> ints, reals, v;
    // Reads one header block; returns the line index of value k (1-based) for messages.
    struct Block {
      size_t first = 0;
      size_t per_line = 1;
      size_t line_of(int k) const { return first + static_cast<size_t>(k - 1) / per_line; }
    };
    const auto read_header = [&](const char* name, std::vector<double>& vals) {
      const std::string_view h = f.lines[li];
      Scan c(h);
      long n = to_count(c.digits()), nlines = -2;
      if (c.lit(name) && c.lit("-header") && c.lit("values") && c.lit("follow") && c.lit("on")) {
        nlines = to_count(c.digits());
        if (!c.lit("line")) nlines = -2;
      }
      const auto ff = find_fortran_format(h);
      if (nlines == -2 || !ff)
        fail_at(f, li, std::string("COSMOS ") + name + " header count line",
                std::string("'<n> ") + name + "-header values follow on <l> lines, Format= (...)'");
      if (n < 1 || n > 10000)
        fail_at(f, li, std::string("COSMOS ") + name + " header count", "1 ... 10000");
      const size_t count_line = li, first = li + 1;
      li = read_fixed(f, first, static_cast<size_t>(n), *ff,
                      std::string("COSMOS ") + name + " header", vals);
      if (static_cast<long>(li - first) != nlines)
        fail_at(f, count_line, std::string("COSMOS ") + name + " header",
                "as many lines as " + std::to_string(n) + " values in " + describe(*ff) +
                    " take (" + std::to_string(li - first) + ")",
                std::to_string(nlines) + " lines");
      if (li >= f.size()) fail_at(f, li, "COSMOS header truncated", "further header lines");
      return Block{first, static_cast<size_t>(ff->per_line)};
    };
    const Block int_block = read_header("Integer", ints);
    const Block real_block = read_header("Real", reals);
    if (ints.size() < 54 || reals.size() < 63)
      fail_at(f, li, "COSMOS headers", ">= 54 integer and >= 63 real values (v01.20)",
              std::to_string(ints.size()) + " and " + std::to_string(reals.size()));

    // Comments.
    Scan cc(f.lines[li]);
    long ncomments = to_count(cc.digits());
    if (!(cc.lit("comment") && cc.lit("line"))) ncomments = -2;
    if (ncomments == -2)
      fail_at(f, li, "COSMOS comment count line",
              "'<n> Comment line(s) follow, each starting with a \"|\"'");
    if (ncomments < 0 || ncomments > 100000)
      fail_at(f, li, "COSMOS comment count", "0 ... 100000 comment lines");
    std::string scnl_station, scnl_channel;
    ++li;
    for (long k = 0; k < ncomments; ++k, ++li) {
      if (li >= f.size() || !istarts_with(f.lines[li], "|"))
        fail_at(f, li,
                "COSMOS comment line " + std::to_string(k + 1) + " of " + std::to_string(ncomments),
                "a line starting with '|'");
      // "|<SCNL>BMR.BNZ.AK.--": station.channel.network.location
      const std::string_view t = f.lines[li];
      if (const size_t p = ifind(t, "<scnl>"); p != std::string_view::npos) {
        const std::string_view scnl = Scan(t, p + 6).token();
        const size_t dot1 = scnl.find('.');
        const size_t dot2 = dot1 == std::string_view::npos ? dot1 : scnl.find('.', dot1 + 1);
        if (dot2 != std::string_view::npos) {
          scnl_station = std::string(scnl.substr(0, dot1));
          scnl_channel = std::string(scnl.substr(dot1 + 1, dot2 - dot1 - 1));
        }
      }
    }

    // Data line.
    if (li >= f.size())
      fail_at(f, li, "COSMOS data line", "'<n> acceleration pts, ..., Format=(...)'");
    const size_t data_header = li;
    const std::string_view dh = f.lines[li];
    Scan dc(dh);
    const std::string_view n_text = dc.digits(), quantity = dc.word();
    const auto dff = find_fortran_format(dh);
    if (n_text.empty() || quantity.empty() || !dc.lit("pts") || !dff)
      fail_at(f, li, "COSMOS data line",
              "'<n> acceleration pts, approx <T> secs, units=..., Format=(...)'");
    if (!istarts_with(quantity, "accel"))
      fail_at(f, li, "COSMOS data type", "acceleration pts (velocity/displacement are not read)");
    long npts = 0;
    if (!parse_integer(n_text, npts) || npts < 1)
      fail_at(f, li, "COSMOS number of points", "an integer >= 1");

    // Processing stage #1, data type #2 (1 = acceleration), units code #3.
    const auto int_at = [&](int k) { return ints[static_cast<size_t>(k - 1)]; };
    const auto real_at = [&](int k) { return reals[static_cast<size_t>(k - 1)]; };
    if (int_at(2) != 1.0 && int_at(2) != unknown_int)
      fail_at(f, int_block.line_of(2), "COSMOS integer #2 (data type)", "1 (acceleration)",
              fmt_g(int_at(2)));
    std::optional<Units> units;
    const double code3 = int_at(3);
    switch (std::abs(code3) < 1e6 ? static_cast<int>(code3) : -1) {
      case 2:
        units = Units{"g", kStandardGravity};
        break;
      case 4:
      case 10:
        units = Units{"cm/s^2", 0.01};
        break;
      case 7:
        units = Units{"in/s^2", 0.0254};
        break;
      case 11:
        units = Units{"mg", kStandardGravity * 1e-3};
        break;
      default:
        if (int_at(3) != unknown_int)
          fail_at(f, int_block.line_of(3), "COSMOS integer #3 (units code)",
                  "2 (g), 4 (cm/s^2), 7 (in/s^2), 10 (gal) or 11 (mg)", fmt_g(int_at(3)));
        if (auto k = after_key(dh, "units")) {
          const std::string_view u = dh.substr(k->pos());
          units = units_from_text(u.substr(0, u.find_first_of(",(")));
        }
        if (!units) fail_at(f, data_header, "COSMOS units", "'units=cm/sec2' (or g, m/s^2)");
    }

    // dt from real #62 (ms); record length real #63 = npts·dt must agree with the data line.
    const double dt_ms = real_at(62), length = real_at(63);
    if (dt_ms == unknown_real)
      fail_at(f, real_block.line_of(62), "COSMOS real #62 (dt in ms)", "a known value",
              fmt_g(dt_ms));
    const double dt = dt_ms * 1e-3;
    check_dt(f, real_block.line_of(62), dt, "COSMOS real #62 (dt in ms)");
    if (length != unknown_real && std::abs(length / dt - static_cast<double>(npts)) > 1.01)
      fail_at(f, data_header, "COSMOS point count",
              fmt_g(length / dt) + " points (real #63 record length " + fmt_g(length) +
                  " s / real #62 dt " + fmt_g(dt) + " s)",
              std::to_string(npts) + " pts");

    MotionChannel c;
    c.source = f.path;
    c.format = "cosmos-v1.20";
    c.channel = static_cast<int>(out.size());
    c.dt = dt;
    // Station: text line 5 "Statn No: <no> Code:<net-sta> <owner> <name>"; event: line 2.
    if (ntext >= 5) {
      const std::string_view t5 = f.lines[start + 4];
      const std::string name = t5.size() > 40 ? squeeze(t5.substr(40)) : "";
      if (const size_t p = ifind(t5, "code:"); p != std::string_view::npos)
        c.station = squeeze(std::string(Scan(t5, p + 5).token()) + " " + name);
      else
        c.station = name;
    }
    if (ntext >= 2) {
      std::string e = squeeze(f.lines[start + 1]);
      if (istarts_with(e, "record of ")) e = e.substr(10);
      c.event = e;
    }
    // Orientation: integer #54 (1–360 azimuth, 400 up, 401 down, 402 vertical, 500–701
    // horizontal without azimuth), else the SEED channel of the <SCNL> comment, else the
    // "Sta Chan n: <label>" text line.
    std::string chan_text;
    for (size_t k = start; k < start + static_cast<size_t>(ntext) && chan_text.empty(); ++k) {
      // "Sta Chan   1: 360 deg (Rcrdr Chan  1) ..." → "360 deg"
      const std::string_view t = f.lines[k];
      for (size_t p = ifind(t, "sta"); p != std::string_view::npos; p = ifind(t, "sta", p + 1)) {
        Scan c2(t, p + 3);
        const size_t colon = t.find(':', p);
        if (!c2.lit("chan") || colon == std::string_view::npos) continue;
        const std::string_view label = t.substr(colon + 1);
        chan_text = std::string(trim(label.substr(0, label.find('('))));
        break;
      }
    }
    c.component = !scnl_channel.empty() ? scnl_channel : chan_text;
    if (c.station.empty()) c.station = scnl_station;
    Orientation o;
    const double code = int_at(54);
    if (code >= 1.0 && code <= 360.0)
      o = horizontal(code);
    else if (code == 400.0 || code == 402.0)
      o = vertical_up();
    else if (code == 401.0)
      o = vertical_up(true);
    else if (code >= 500.0 && code <= 701.0)
      o.known = true;  // horizontal, azimuth unknown
    if (!o.known) o = orientation_from_text(scnl_channel);
    if (!o.known) o = orientation_from_text(chan_text);
    apply_orientation(c, o);

    li =
        read_fixed(f, data_header + 1, static_cast<size_t>(npts), *dff,
                   "COSMOS acceleration data (" + std::to_string(npts) + " pts)", v, kMaxFileValue);
    if (li < f.size() && !istarts_with(trim(f.lines[li]), "end-of-data"))
      fail_at(f, li, "COSMOS data: more values than the " + std::to_string(npts) + " pts stated",
              "'End-of-data for ...'");
    store_acceleration(v, *units, c);
    out.push_back(std::move(c));
    if (li < f.size()) ++li;  // the End-of-data line
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// CSMIP/CGS V2: per channel 25 text lines, 100 integers (16I5), 100 reals (8F10), an
// acceleration header "N points of accel data equally spaced at DT sec, in cm/sec2. (8f10.5)",
// data, velocity and displacement blocks, a line starting "/&". Older upper-case files write
// the units "(UNITS: CM/SEC/SEC)"; their header layout is located by the data header line.

std::vector<MotionChannel> read_csmip_v2(const TextFile& f) {
  std::vector<MotionChannel> out;
  size_t li = 0;
  while (li < f.size()) {
    if (is_blank(f.lines[li])) {
      ++li;
      continue;
    }
    const size_t start = li;
    const std::string_view title = f.lines[start].substr(0, 200);
    if (!icontains(title, "corrected accelerogram") || istarts_with(trim(title), "uncorrected"))
      fail_at(f, start,
              out.empty() ? "CSMIP V2 header line 1"
                          : "CSMIP V2: start of channel " + std::to_string(out.size() + 1),
              "'Corrected accelerogram ...' (volume 2)");

    // Locate the acceleration data header "<n> points of accel data ...".
    size_t hdr = start + 1;
    std::string_view n_text, hs;
    for (; hdr < f.size() && hdr < start + kMaxHeaderScan; ++hdr) {
      if (istarts_with(f.lines[hdr], "/&")) break;
      Scan c(f.lines[hdr]);
      n_text = c.digits();
      if (!n_text.empty() && c.lit("points") && c.lit("of") && c.lit("accel")) {
        hs = f.lines[hdr];
        break;
      }
    }
    if (hs.empty())
      fail_at(f, std::min(hdr, f.size()), "CSMIP V2 channel " + std::to_string(out.size() + 1),
              "an acceleration header 'NNNN points of accel data equally spaced at DT sec' within "
              "the channel header");
    long npts = 0;
    if (!parse_integer(n_text, npts) || npts < 1)
      fail_at(f, hdr, "CSMIP V2 number of points", "an integer >= 1");
    // dt from "... spaced at <dt> sec"; the units follow it. Without it, the text header's
    // "At equally-spaced intervals of <dt> sec."
    double dt = 0.0;
    bool have_dt = false;
    std::string_view units_text = hs;
    if (const size_t p = ifind(hs, "spaced"); p != std::string_view::npos) {
      Scan c(hs, p + 6);
      have_dt = c.lit("at") && parse_number(c.run(is_decimal), dt) && c.lit("sec");
      if (have_dt) units_text = hs.substr(c.pos());
    }
    for (size_t k = start; k < hdr && !have_dt; ++k) {
      if (const size_t p = ifind(f.lines[k], "intervals of"); p != std::string_view::npos)
        have_dt = parse_number(Scan(f.lines[k], p + 12).run(is_decimal), dt);
    }
    check_dt(f, hdr, dt, "CSMIP V2 sample interval");
    const auto units = units_from_text(units_text);
    if (!units)
      fail_at(f, hdr, "CSMIP V2 acceleration units", "'in cm/sec2' or '(UNITS: CM/SEC/SEC)'");
    const FortranFormat ff = find_fortran_format(hs).value_or(FortranFormat{8, 10});  // 8F10

    MotionChannel c;
    c.source = f.path;
    c.format = "csmip-v2";
    c.channel = static_cast<int>(out.size());
    c.dt = dt;
    // Component from "Chan  1: 180 Deg" / "CHAN 3: UP" in the text header.
    for (size_t k = start; k < hdr && k < start + 25 && c.component.empty(); ++k) {
      const std::string_view t = f.lines[k];
      for (size_t p = ifind(t, "chan"); p != std::string_view::npos; p = ifind(t, "chan", p + 1)) {
        if (p > 0 && is_alpha(t[p - 1])) continue;  // a word starting with "chan"
        Scan c2(t, p + 4);
        if (c2.digits().empty() || !c2.lit(":")) continue;
        const size_t label = c2.pos();
        const std::string_view degrees = c2.run(is_decimal);
        if (!degrees.empty() && c2.lit("deg")) {
          c.component = std::string(degrees);
        } else {
          c.component = std::string(Scan(t, label).word());
        }
        if (!c.component.empty()) break;
      }
    }
    Orientation o = orientation_from_text(c.component);
    // Current layout (header at start + 25 + 7 + 13): integer #27 orientation (0–360, 500 up,
    // 600 down) as a fallback and integer #53 (acceleration points) as a cross-check.
    if (hdr == start + 45) {
      std::vector<double> ints, reals;
      const size_t r = read_fixed(f, start + 25, 100, {16, 5}, "CSMIP V2 integer header", ints);
      read_fixed(f, r, 100, {8, 10}, "CSMIP V2 real header", reals);
      const double orient = ints[26], n53 = ints[52];
      if (!o.known) {
        if (orient == 500.0)
          o = vertical_up();
        else if (orient == 600.0)
          o = vertical_up(true);
        else if (orient >= 0.0 && orient <= 360.0)
          o = horizontal(orient);
      }
      if (n53 > 0 && n53 != static_cast<double>(npts))
        fail_at(f, hdr, "CSMIP V2 point count", fmt_g(n53) + " points (integer #53)",
                std::to_string(npts) + " points");
    } else if (hs.find("points of accel") != std::string_view::npos) {
      // The current layout's data header (lower case, the older layout's is upper case) at
      // another distance from the title: the integer and real blocks are missing or cut.
      c.notes.push_back(
          f.path + " line " + std::to_string(hdr + 1) + ": CSMIP V2 channel " +
          std::to_string(out.size() + 1) + ": the acceleration header is " +
          std::to_string(hdr - start) +
          " lines after the title, not 45 (25 text, 7 integer and 13 real header lines): the "
          "integer and real header blocks are missing or incomplete, so the orientation "
          "(integer #27) and the point count (integer #53) were not cross-checked");
    }
    apply_orientation(c, o);
    // "Station No. 89486  ..." (or "Station Id. WLT"), the name on the next line.
    const std::string_view station_line = f.lines[std::min(start + 5, hdr)];
    if (const size_t p = ifind(station_line, "station"); p != std::string_view::npos) {
      Scan c2(station_line, p + 7);
      if (c2.lit("no.") || c2.lit("id.")) {
        c.station = std::string(c2.token());
        if (start + 6 < hdr)
          c.station = squeeze(c.station + " " + std::string(f.lines[start + 6].substr(0, 40)));
      }
    }
    for (size_t k = start + 1; k < hdr && k < start + 25; ++k)
      if (icontains(f.lines[k], "earthquake") || icontains(f.lines[k], "rcrd of")) {
        c.event = squeeze(f.lines[k].substr(0, 54));
        break;
      }

    std::vector<double> v;
    li = read_fixed(
        f, hdr + 1, static_cast<size_t>(npts), ff,
        "CSMIP V2 acceleration data (" + std::to_string(npts) + " points, " + describe(ff) + ")", v,
        kMaxFileValue);
    if (li < f.size() && !icontains(f.lines[li], "veloc") && !istarts_with(f.lines[li], "/&"))
      fail_at(f, li,
              "CSMIP V2 channel " + std::to_string(out.size() + 1) +
                  ": more acceleration values than the " + std::to_string(npts) + " stated",
              "the velocity block header ('... points of veloc data ...') or '/&'");
    // Skip velocity and displacement to the end-of-channel line "/&".
    while (li < f.size() && !istarts_with(f.lines[li], "/&")) ++li;
    if (li >= f.size())
      fail_at(f, li, "CSMIP V2 channel " + std::to_string(out.size() + 1),
              "an end-of-channel line starting with '/&'");
    ++li;
    store_acceleration(v, *units, c);
    out.push_back(std::move(c));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Plain columns

std::optional<Units> csv_units(const std::string& u) {
  const std::string s = lower(trim(u));
  if (s == "m/s^2" || s == "m/s2" || s == "m/s/s" || s == "m/s**2") return Units{"m/s^2", 1.0};
  if (s == "cm/s^2" || s == "cm/s2" || s == "cm/s/s" || s == "cm/s**2" || s == "gal")
    return Units{"cm/s^2", 0.01};
  if (s == "mm/s^2" || s == "mm/s2" || s == "mm/s/s") return Units{"mm/s^2", 1e-3};
  if (s == "in/s^2" || s == "in/s2" || s == "in/s/s") return Units{"in/s^2", 0.0254};
  if (s == "g") return Units{"g", kStandardGravity};
  if (s == "mg") return Units{"mg", kStandardGravity * 1e-3};
  return std::nullopt;
}

// Splits a line at `delim` (' ' = runs of blanks and tabs); fields are trimmed.
void split_fields(std::string_view line, char delim, std::vector<std::string_view>& out) {
  out.clear();
  if (delim == ' ') {
    size_t p = 0;
    while (p < line.size()) {
      while (p < line.size() && std::isspace(static_cast<unsigned char>(line[p]))) ++p;
      if (p >= line.size()) break;
      size_t q = p;
      while (q < line.size() && !std::isspace(static_cast<unsigned char>(line[q]))) ++q;
      out.push_back(line.substr(p, q - p));
      p = q;
    }
    return;
  }
  size_t p = 0;
  while (true) {
    const size_t q = line.find(delim, p);
    out.push_back(
        trim(line.substr(p, q == std::string_view::npos ? std::string_view::npos : q - p)));
    if (q == std::string_view::npos) break;
    p = q + 1;
  }
}

char guess_delimiter(std::string_view line) {
  if (line.find(',') != std::string_view::npos) return ',';
  if (line.find(';') != std::string_view::npos) return ';';
  return ' ';
}

// ---------------------------------------------------------------------------------------------
// Free-format values: "text-npts-dt" (header lines stating NPTS and DT, then values several to
// a line, as in OpenSees examples) and "values" (numbers only; dt and units from the caller)

constexpr size_t kMaxTitleLines = 10;  // text lines searched for the NPTS/DT header

bool is_comment(std::string_view line) {
  const std::string_view t = trim(line);
  return t.empty() || t.front() == '#';
}

// Fields of a free-format line: separated by blanks and commas, and in header lines also by the
// punctuation between a keyword and its value ("NPTS= 4000, DT: 0.01;").
void split_free(std::string_view line, bool header, std::vector<std::string_view>& out) {
  out.clear();
  const auto sep = [header](char c) {
    return std::isspace(static_cast<unsigned char>(c)) != 0 || c == ',' ||
           (header && (c == '=' || c == ':' || c == ';'));
  };
  size_t p = 0;
  while (p < line.size()) {
    while (p < line.size() && sep(line[p])) ++p;
    size_t q = p;
    while (q < line.size() && !sep(line[q])) ++q;
    if (q > p) out.push_back(line.substr(p, q - p));
    p = q;
  }
}

// A line of numbers only (the data, or a bare "N DT" header line).
bool all_numbers(std::string_view line, std::vector<std::string_view>& fields) {
  split_free(line, false, fields);
  double x = 0.0;
  return !fields.empty() &&
         std::all_of(fields.begin(), fields.end(), [&](std::string_view t) { return parse_number(t, x); });
}

// A header number, also with its unit attached ("0.01s", ".005SEC").
bool header_number(std::string_view field, double& x) {
  if (parse_number(field, x)) return true;
  for (const std::string_view suffix : {"sec", "s"}) {
    if (field.size() > suffix.size() && lower(field.substr(field.size() - suffix.size())) == suffix)
      return parse_number(field.substr(0, field.size() - suffix.size()), x);
  }
  return false;
}

// What the header of a free-format record says. A value's line is kept for messages.
struct FreeHeader {
  size_t data_line = 0;  // first line after the header
  size_t count_line = 0, step_line = 0;
  std::optional<double> npts, dt;
  bool named_npts = false, named_dt = false;
  bool keywords = false;   // the words NPTS and DT were both written: the format is certain
  std::optional<Units> units;  // stated by a header line with the word UNITS
  bool units_named = false;    // a line has the word UNITS (its units may be unreadable)
  size_t units_line = 0;
};

// The words NPTS and DT in one header line, each followed by its number ("NPTS= 4000 DT= 0.01",
// "DT=0.01 SEC NPTS=4000"), or two numbers first in the order of the words ("4164 0.0100 NPTS,
// DT", the old PEER layout). A word without its number leaves that value unset.
void read_keywords(std::string_view line, size_t li, FreeHeader& h) {
  std::vector<std::string_view> t;
  split_free(line, true, t);
  size_t kn = t.size(), kd = t.size();
  for (size_t i = 0; i < t.size(); ++i) {
    const std::string w = lower(t[i]);
    if (w == "npts" && kn == t.size()) kn = i;
    if (w == "dt" && kd == t.size()) kd = i;
  }
  if (kn == t.size() && kd == t.size()) return;
  // A word's line is where its value belongs, also when the value is missing (for messages).
  if (kn < t.size() && !h.named_npts) h.count_line = li;
  if (kd < t.size() && !h.named_dt) h.step_line = li;
  double x = 0.0, y = 0.0;
  if (kn < t.size() && kd < t.size() && std::min(kn, kd) >= 2 && header_number(t[0], x) &&
      header_number(t[1], y)) {
    h.npts = kn < kd ? x : y;
    h.dt = kn < kd ? y : x;
    h.count_line = h.step_line = li;
  } else {
    if (kn + 1 < t.size() && header_number(t[kn + 1], x)) {
      h.npts = x;
      h.count_line = li;
    }
    if (kd + 1 < t.size() && header_number(t[kd + 1], y)) {
      h.dt = y;
      h.step_line = li;
    }
  }
  // Both words, on one line or on two: a header of this format, complete or not.
  h.named_npts = h.named_npts || kn < t.size();
  h.named_dt = h.named_dt || kd < t.size();
  h.keywords = h.named_npts && h.named_dt;
}

// The title lines before the first line of numbers (at most kMaxTitleLines): NPTS, DT and UNITS.
FreeHeader read_free_header(const TextFile& f) {
  FreeHeader h;
  std::vector<std::string_view> fields;
  size_t titles = 0;
  size_t li = 0;
  for (; li < f.size(); ++li) {
    const std::string_view line = f.lines[li];
    if (is_comment(line)) continue;
    // The data start: a line of numbers, or, once NPTS and DT are known, any line that starts
    // like a number (a malformed first data line is then reported as data, not as a title).
    const bool numbers = all_numbers(line, fields);
    const char c0 = fields.empty() ? ' ' : fields.front().front();
    const bool numeric_start = is_decimal(c0) || c0 == '-' || c0 == '+';
    if (numbers || (h.npts && h.dt && numeric_start) || ++titles > kMaxTitleLines) break;
    read_keywords(line, li, h);
    // The word UNITS (not inside another word) states them; unreadable units are an error
    // rather than a silent default.
    if (const size_t p = ifind(line, "units"); p != std::string_view::npos && !h.units_named &&
                                               (p == 0 || !is_alpha(line[p - 1]))) {
      h.units = units_from_text(line.substr(p));
      h.units_named = true;
      h.units_line = li;
    }
  }
  h.data_line = li;
  return h;
}

// Number of free-format values from line `from` on, or nullopt at the first field that is not one.
std::optional<size_t> count_free_values(const TextFile& f, size_t from) {
  std::vector<std::string_view> fields;
  size_t n = 0;
  for (size_t li = from; li < f.size(); ++li) {
    if (is_comment(f.lines[li])) continue;
    if (!all_numbers(f.lines[li], fields)) return std::nullopt;
    n += fields.size();
  }
  return n;
}

// A bare header line "N DT" (or "DT N"): the reading with N a whole number >= 1 and DT a sample
// interval in range, preferring the one whose N equals `count` (the values after it), then N first.
std::optional<std::pair<double, double>> bare_header(std::string_view line,
                                                     std::optional<size_t> count) {
  std::vector<std::string_view> fields;
  double a = 0.0, b = 0.0;
  if (!all_numbers(line, fields) || fields.size() != 2) return std::nullopt;
  parse_number(fields[0], a);
  parse_number(fields[1], b);
  const auto valid = [](double n, double dt) {
    return n >= 1.0 && n <= 2e9 && n == std::floor(n) && dt >= 1e-5 && dt <= 1.0;
  };
  std::optional<std::pair<double, double>> first;
  for (const auto& [n, dt] : {std::pair{a, b}, std::pair{b, a}}) {
    if (!valid(n, dt)) continue;
    if (count && static_cast<double>(*count) == n) return std::pair{n, dt};
    if (!first) first = std::pair{n, dt};
  }
  return count ? std::nullopt : first;
}

// The header of a text-npts-dt record; `detecting`: nullopt unless the record is certainly one
// (the keywords, or a bare "N DT" line followed by exactly N numbers). Otherwise the count and
// step are taken from the first line of numbers when the words are missing.
std::optional<FreeHeader> npts_dt_header(const TextFile& f, bool detecting) {
  FreeHeader h = read_free_header(f);
  if (h.keywords) return h;
  // The count of the values after a candidate "N DT" line decides (a scan of the file, made
  // only when the line reads as N and DT).
  if (h.data_line >= f.size() || !bare_header(f.lines[h.data_line], std::nullopt)) return std::nullopt;
  const auto count = detecting ? count_free_values(f, h.data_line + 1) : std::nullopt;
  if (detecting && !count) return std::nullopt;
  const auto bare = bare_header(f.lines[h.data_line], count);
  if (!bare) return std::nullopt;
  h.npts = bare->first;
  h.dt = bare->second;
  h.count_line = h.step_line = h.data_line++;
  return h;
}

// The numbers of lines [from, end) in order, blank- or comma-separated ('#' lines skipped);
// more than `limit` values is an error (text-npts-dt: NPTS). With `notes`, text after the last
// value — an "END OF DATA" marker — is a trailer: ignored and said there; a number after the
// limit is still an error.
std::vector<double> read_free_values(const TextFile& f, size_t from, const std::string& what,
                                     size_t limit, std::vector<std::string>* notes = nullptr) {
  std::vector<double> v;
  std::vector<std::string_view> fields;
  size_t trailer = f.size();  // the first line of text after the last value
  for (size_t li = from; li < f.size(); ++li) {
    if (is_comment(f.lines[li])) continue;
    split_free(f.lines[li], false, fields);
    for (const std::string_view tok : fields) {
      double x = 0.0;
      const bool number = parse_number(tok, x);
      if (v.size() >= limit) {
        if (notes == nullptr || number)
          fail_field(f, li, what + ": more values than NPTS = " + std::to_string(limit), "end of data", tok);
        trailer = std::min(trailer, li);
        continue;
      }
      if (!number)
        fail_field(f, li, what + " value " + std::to_string(v.size() + 1),
                   "one finite number per blank- or comma-separated field (touching numbers are "
                   "ambiguous in free format)",
                   tok);
      if (std::abs(x) > kMaxFileValue)
        fail_field(f, li, what + " value " + std::to_string(v.size() + 1),
                   "|value| <= " + fmt_g(kMaxFileValue) + " (larger: a missing-value marker?)", tok);
      v.push_back(x);
    }
  }
  if (trailer < f.size()) {
    std::string line(f.lines[trailer]);
    if (line.size() > 60) line = line.substr(0, 57) + "...";
    notes->push_back(f.path + " line " + std::to_string(trailer + 1) + ": '" + line + "' after the NPTS = " +
                     std::to_string(limit) + " values: read as a trailer and ignored");
  }
  return v;
}

// Units of a record that may not state them: the file's, else the caller's, else g (the
// OpenSees convention); both given must agree.
Units free_units(const TextFile& f, const std::optional<Units>& stated, size_t line,
                 const MotionReadOptions& o) {
  if (o.units.empty()) return stated.value_or(Units{"g", kStandardGravity});
  const auto given = csv_units(o.units);
  if (!given)
    throw InputError(f.path + ": " + o.units_name + ": expected one of g, mg, m/s^2, cm/s^2, gal, "
                     "mm/s^2, in/s^2, found '" + o.units + "'");
  if (stated && stated->name != given->name)
    fail_at(f, line, "units", o.units_name + " = " + given->name + " to agree with the units the file states",
            "'" + stated->name + "'");
  return *given;
}

MotionChannel free_channel(const TextFile& f, const char* format, double dt) {
  MotionChannel c;
  c.source = f.path;
  c.format = format;
  c.dt = dt;
  return c;
}

std::vector<MotionChannel> read_text_npts_dt(const TextFile& f, const MotionReadOptions& o) {
  const auto h = npts_dt_header(f, false);
  if (!h || !h->npts || !h->dt)
    fail_at(f, h ? (h->npts ? h->step_line : h->count_line) : 0, "text-npts-dt header",
            "a line stating the point count and the time step ('NPTS= 4000 DT= 0.01', 'DT= 0.01 "
            "NPTS= 4000', '4000 0.01 NPTS, DT') or a first line of the two numbers '4000 0.01' "
            "before the values");
  const double n = *h->npts;
  if (n < 1.0 || n > 2e9 || n != std::floor(n))
    fail_at(f, h->count_line, "text-npts-dt NPTS", "a whole number of points >= 1", "NPTS = " + fmt_g(n));
  check_dt(f, h->step_line, *h->dt, "text-npts-dt DT");
  if (h->units_named && !h->units)
    fail_at(f, h->units_line, "text-npts-dt units", "g, mg, m/s^2, cm/s^2, gal, mm/s^2 or in/s^2 after the word UNITS");
  if (o.dt > 0.0 && std::abs(o.dt - *h->dt) > 1e-6 * *h->dt)
    fail_at(f, h->step_line, "sample interval", o.dt_name + " = " + fmt_g(o.dt) +
            " s to agree with the file's DT (leave " + o.dt_name + " out: the file states it)",
            "DT = " + fmt_g(*h->dt) + " s");
  const Units units = free_units(f, h->units, h->units_line, o);
  const auto npts = static_cast<size_t>(n);
  std::vector<std::string> notes;
  const std::vector<double> v = read_free_values(f, h->data_line, "text-npts-dt data", npts, &notes);
  if (v.size() < npts)
    fail_at(f, f.size(), "text-npts-dt data truncated",
            std::to_string(npts) + " values (NPTS), read " + std::to_string(v.size()));
  MotionChannel c = free_channel(f, "text-npts-dt", *h->dt);
  c.notes = std::move(notes);
  store_acceleration(v, units, c);
  return {std::move(c)};
}

std::vector<MotionChannel> read_values(const TextFile& f, const MotionReadOptions& o) {
  const std::vector<double> v = read_free_values(f, 0, "plain values", std::numeric_limits<size_t>::max());
  if (v.size() < 2)
    fail_at(f, f.size(), "plain values", "at least 2 numbers", std::to_string(v.size()) + " at");
  if (!(o.dt >= 1e-5 && o.dt <= 1.0))
    throw InputError(f.path + ": sample interval: expected " + o.dt_name + " (s, 1e-5 <= dt <= 1) to "
                     "be given, found " + (o.dt > 0.0 ? fmt_g(o.dt) + " s" : std::string("none")) +
                     ": a file of plain values (" + std::to_string(v.size()) + " numbers, no header; "
                     "format values) does not state its time step");
  MotionChannel c = free_channel(f, "values", o.dt);
  store_acceleration(v, free_units(f, std::nullopt, 0, o), c);
  return {std::move(c)};
}

// "values" is recognised only in its unambiguous layout: one number on every line.
bool one_number_per_line(const TextFile& f) {
  std::vector<std::string_view> fields;
  size_t n = 0;
  for (const std::string_view line : f.lines) {
    if (is_comment(line)) continue;
    if (!all_numbers(line, fields) || fields.size() != 1) return false;
    ++n;
  }
  return n >= 2;
}

// A dt or units given for a file that states its own must agree with it.
void check_given(const std::vector<MotionChannel>& channels, const MotionReadOptions& o) {
  for (const MotionChannel& c : channels) {
    const std::string which = " (" + c.format + ", channel " + std::to_string(c.channel) + ")";
    if (o.dt > 0.0 && std::abs(o.dt - c.dt) > 1e-6 * c.dt)
      throw InputError(c.source + ": sample interval: expected " + o.dt_name + " = " + fmt_g(o.dt) +
                       " s to agree with the file's " + fmt_g(c.dt) + " s" + which + ", found a " +
                       "contradiction; leave " + o.dt_name + " out: it is for files that do not state dt");
    const auto u = o.units.empty() ? std::nullopt : csv_units(o.units);
    if (u && u->name != c.units_in_file)
      throw InputError(c.source + ": units: expected " + o.units_name + " = " + u->name +
                       " to agree with the file's " + c.units_in_file + which + ", found a " +
                       "contradiction; leave " + o.units_name + " out: the file states its units");
  }
}

}  // namespace

std::vector<MotionChannel> read_csv_motion(const std::string& path,
                                           const CsvMotionOptions& options) {
  const char* who = "read_csv_motion";
  const auto units = csv_units(options.units);
  if (!units)
    throw InputError(std::string(who) + ": " + path +
                     ": units: expected m/s^2, cm/s^2, gal, mm/s^2, g or " + "mg, found '" +
                     options.units + "'");
  if (options.time_column < -1)
    throw InputError(std::string(who) + ": " + path +
                     ": time_column: expected -1 (none) or a 0-based " + "index, found " +
                     std::to_string(options.time_column));
  if (options.time_column < 0 && !(std::isfinite(options.dt) && options.dt > 0.0))
    throw InputError(std::string(who) + ": " + path + ": expected a time column or dt > 0, found " +
                     "time_column -1 and dt " + fmt_g(options.dt));
  if (options.dt < 0.0 || !std::isfinite(options.dt))
    throw InputError(std::string(who) + ": " + path + ": dt: expected >= 0 s, found " +
                     fmt_g(options.dt));
  for (const int col : options.columns)
    if (col < 0 || col == options.time_column)
      throw InputError(std::string(who) + ": " + path +
                       ": columns: expected 0-based indices other than " +
                       "the time column, found " + std::to_string(col));

  const TextFile f = load_text(path, who);
  char delim = options.delimiter;
  std::vector<std::string_view> fields;
  std::vector<std::vector<double>> cols;  // every column of the file
  std::vector<size_t> row_line;           // file line of each row
  std::vector<std::string> names;
  size_t ncols = 0;
  bool started = false;
  for (size_t li = 0; li < f.size(); ++li) {
    const std::string_view line = trim(f.lines[li]);
    if (line.empty() || line.front() == '#') continue;
    const char d = delim ? delim : guess_delimiter(line);
    split_fields(line, d, fields);
    double x = 0.0;
    if (!started) {
      if (!parse_number(fields.front(), x)) {  // a header line: remember it for the names
        names.assign(fields.begin(), fields.end());
        continue;
      }
      started = true;
      delim = d;
      ncols = fields.size();
      cols.assign(ncols, {});
      if (names.size() != ncols) names.clear();
    }
    if (fields.size() != ncols)
      fail_field(f, li, "CSV row",
                 std::to_string(ncols) + " fields (as in the first data row), got " +
                     std::to_string(fields.size()),
                 line);
    for (size_t j = 0; j < ncols; ++j) {
      if (!parse_number(fields[j], x) || std::abs(x) > kMaxFileValue)
        fail_field(f, li, "CSV field " + std::to_string(j + 1),
                   "a finite number (touching numbers, text and NaN are errors)", fields[j]);
      cols[j].push_back(x);
    }
    row_line.push_back(li);
  }
  const size_t nrows = row_line.size();
  if (nrows < 2)
    fail_at(f, f.size(), "CSV data", "at least 2 numeric rows", std::to_string(nrows) + " rows at");

  // Time column: uniform spacing, dt = (t_last − t_0)/(n − 1).
  double dt = options.dt;
  const auto tc = options.time_column;
  if (tc >= 0 && ncols == 1) {
    throw InputError(std::string(who) + ": " + path + ": expected at least one acceleration column; the "
                     "file has one column and time_column is " + std::to_string(tc) +
                     ", so it would be read as the time column; a one-column record "
                     "holds accelerations only and needs its sample interval: add a time column (t, a), or read it "
                     "as format \"values\" with its dt given (run files: inputs.<name>.dt; read_csv_motion: dt and "
                     "no time column)");
  }
  if (tc >= 0) {
    if (static_cast<size_t>(tc) >= ncols)
      throw InputError(std::string(who) + ": " + path + ": time_column: expected < " +
                       std::to_string(ncols) + " (number of columns), found " + std::to_string(tc));
    const auto& t = cols[static_cast<size_t>(tc)];
    const double dt_t = (t.back() - t.front()) / static_cast<double>(nrows - 1);
    if (!(dt_t > 0.0))
      fail_at(f, row_line.back(), "CSV time column", "increasing times",
              "t_last = " + fmt_g(t.back()) + " <= t_0 = " + fmt_g(t.front()));
    for (size_t k = 0; k < nrows; ++k)
      if (std::abs(t[k] - t.front() - static_cast<double>(k) * dt_t) > 0.01 * dt_t)
        fail_at(f, row_line[k], "CSV time column",
                "uniform times t_0 + k*dt with dt = (t_last - t_0)/(n - 1) = " + fmt_g(dt_t) +
                    " s, i.e. t = " + fmt_g(t.front() + static_cast<double>(k) * dt_t) +
                    " s in row " + std::to_string(k + 1),
                "t = " + fmt_g(t[k]) + " s");
    if (dt > 0.0 && std::abs(dt - dt_t) > 1e-6 * dt_t)
      throw InputError(std::string(who) + ": " + path + ": dt: expected the option (" + fmt_g(dt) +
                       " s) to equal the step of the time column, found " + fmt_g(dt_t) + " s");
    dt = dt_t;
  }

  std::vector<int> use = options.columns;
  if (use.empty())
    for (size_t j = 0; j < ncols; ++j)
      if (static_cast<int>(j) != tc) use.push_back(static_cast<int>(j));
  if (use.empty())
    throw InputError(std::string(who) + ": " + path +
                     ": expected at least one acceleration column, the " +
                     "file has only the time column");
  std::vector<MotionChannel> out;
  for (const int col : use) {
    if (static_cast<size_t>(col) >= ncols)
      throw InputError(std::string(who) + ": " + path + ": columns: expected indices < " +
                       std::to_string(ncols) + " (number of columns), found " +
                       std::to_string(col));
    MotionChannel c;
    c.source = path;
    c.format = "csv";
    c.channel = static_cast<int>(out.size());
    c.component = names.empty() ? "column " + std::to_string(col) : names[static_cast<size_t>(col)];
    c.dt = dt;
    Orientation o = orientation_from_text(c.component);
    if (names.empty()) o = {};
    apply_orientation(c, o);
    store_acceleration(cols[static_cast<size_t>(col)], *units, c);
    out.push_back(std::move(c));
  }
  return out;
}

const std::vector<std::string>& motion_format_names() {
  static const std::vector<std::string> names = {"peer-at2", "csmip-v2",     "cosmos-v1.20", "usgs-smc",
                                                 "text-npts-dt", "values", "csv"};
  return names;
}

const std::vector<std::string>& motion_unit_names() {
  static const std::vector<std::string> names = {"g", "mg", "m/s^2", "cm/s^2", "gal", "mm/s^2", "in/s^2"};
  return names;
}

double motion_unit_factor(const std::string& units) {
  const auto u = csv_units(units);
  if (!u)
    throw InputError("units: expected one of g, mg, m/s^2, cm/s^2, gal, mm/s^2, in/s^2, found '" +
                     units + "'");
  return u->to_si;
}

namespace {

// The format "auto" finds in the content, or the "unrecognised" error.
std::string detect_format(const TextFile& f) {
  const std::string_view first = f.lines.front();
  if (icontains(first, "(format v")) return "cosmos-v1.20";
  if (smc_first_line(first)) return "usgs-smc";
  if (icontains(first, "accelerogram")) {
    if (istarts_with(trim(first), "uncorrected"))
      fail_at(f, 0, "CSMIP volume 1 (uncorrected) files are not supported",
              "a volume 2 file 'Corrected accelerogram ...'");
    return "csmip-v2";
  }
  if (f.size() >= 4 && icontains(f.lines[3], "npts") && icontains(f.lines[3], "dt"))
    return "peer-at2";
  if (npts_dt_header(f, true)) return "text-npts-dt";
  if (one_number_per_line(f)) return "values";
  fail_at(f, 0, "unrecognised motion file",
          "a PEER AT2 (line 4 'NPTS=..., DT=...'), CSMIP V2 ('Corrected accelerogram'), COSMOS "
          "('(Format v01.20 ...)') or USGS SMC ('2 CORRECTED ACCELEROGRAM') header, a header "
          "line stating NPTS and DT (text-npts-dt), or one number per line (values); for plain "
          "columns use format \"csv\" or read_csv_motion, for several values per line without "
          "a header format \"values\"");
}

}  // namespace

std::vector<MotionChannel> read_motion_file(const std::string& path, const std::string& format,
                                            const MotionReadOptions& options) {
  if (format == "csv") {
    CsvMotionOptions o;
    o.time_column = 0;
    o.dt = options.dt;
    if (!options.units.empty()) o.units = options.units;
    return read_csv_motion(path, o);
  }
  const auto& names = motion_format_names();
  if (format != "auto" && std::find(names.begin(), names.end(), format) == names.end())
    throw InputError("read_motion_file: " + path + ": format: expected auto, peer-at2, csmip-v2, " +
                     "cosmos-v1.20, usgs-smc, text-npts-dt, values or csv, found '" + format + "'");
  if (!options.units.empty() && !csv_units(options.units))
    throw InputError("read_motion_file: " + path + ": " + options.units_name + ": expected one of g, "
                     "mg, m/s^2, cm/s^2, gal, mm/s^2, in/s^2, found '" + options.units + "'");
  const TextFile f = load_text(path, "read_motion_file");
  const std::string resolved = format == "auto" ? detect_format(f) : format;
  if (resolved == "text-npts-dt") return read_text_npts_dt(f, options);
  if (resolved == "values") return read_values(f, options);
  std::vector<MotionChannel> channels;
  if (resolved == "peer-at2") channels = read_peer_at2(f);
  if (resolved == "csmip-v2") channels = read_csmip_v2(f);
  if (resolved == "cosmos-v1.20") channels = read_cosmos(f);
  if (resolved == "usgs-smc") channels = read_smc(f);
  check_given(channels, options);
  return channels;
}

}  // namespace gmbd
