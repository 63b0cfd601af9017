// The exact solution of the simple pendulum released from rest (docs/reference-models.md §4):
// Jacobi elliptic functions by the descending Landen (AGM) scheme, the complete elliptic
// integral K, the period.
#pragma once

namespace gmbd {

/// sn(u | m), cn(u | m), dn(u | m) for the parameter m = k².
struct JacobiElliptic {
  double sn;
  double cn;
  double dn;
};

/// Jacobi elliptic functions for 0 ≤ m ≤ 1 by the descending Landen transformation / AGM
/// (Abramowitz & Stegun 16.4; DLMF 22.20(ii)):
///   a₀ = 1, b₀ = √(1 − m), c₀ = √m;  a_n = (a + b)/2, b_n = √(a b), c_n = (a − b)/2
///   until |c_N| ≤ ε a_N;  φ_N = 2^N a_N u;  φ_(n−1) = ½ (φ_n + asin(c_n sin φ_n / a_n));
///   sn = sin φ₀, cn = cos φ₀, dn = √((1 − m) + m cn²)
/// (this form of dn has no cancellation, unlike cos φ₀ / cos(φ₁ − φ₀) at cn → 0).
/// m = 0 gives (sin, cos, 1); m = 1 gives (tanh, sech, sech). Accurate to a few ulp times
/// max(1, |u|). Throws InputError for m outside [0, 1] or non-finite arguments.
JacobiElliptic jacobi_elliptic(double u, double m);

/// Complete elliptic integral of the first kind K(m) = π / (2 AGM(1, √(1 − m))), 0 ≤ m < 1
/// (A&S 17.6). Throws InputError otherwise.
double elliptic_k(double m);

/// Simple pendulum of length L under gravity g, released from rest at angle θ0 from the
/// downward vertical (|θ0| < π). With k = sin(θ0/2), m = k², ω0 = √(g/L), u = ω0 t:
///   sin(θ/2) = k cd(u | m) = k sn(K − u | m)      θ(t) = 2 asin(k cn(u)/dn(u))
///   θ̇(t) = −2 k k' ω0 sn(u)/dn(u)  (k' = √(1 − m))
///   T = 4 K(m) / ω0 = 4 √(L/g) K(sin²(θ0/2)).
class ExactPendulum {
 public:
  /// Throws InputError naming the field for L ≤ 0, g ≤ 0, |θ0| ≥ π or non-finite values.
  ExactPendulum(double length, double gravity, double theta0);

  double period() const { return period_; }
  /// θ(t) (rad).
  double angle(double t) const;
  /// θ̇(t) (rad/s).
  double rate(double t) const;
  /// θ̈(t) = −(g/L) sin θ(t) (rad/s²).
  double acceleration(double t) const;

 private:
  double length_, gravity_;
  double k_, m_, omega0_, period_;
};

/// T = 4 √(L/g) K(sin²(θ0/2)) (s).
double pendulum_period(double length, double gravity, double theta0);

}  // namespace gmbd
