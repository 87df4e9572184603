// The vectorisable exp and tanh of the CPU kernels (kernels/common/fast_math.h) against
// std::exp and std::tanh in double: the error bounds their comments state, the odd
// symmetry and saturation of tanh, and tanh(x) ≈ x for tiny x, which a form built on
// 1 − exp(−2x) would lose.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "common/fast_math.h"

namespace lmroof {
namespace {

double relative_error(double got, double want) { return std::fabs(got - want) / std::fabs(want); }

// The bound fast_math.h states for the build without FMA contraction (3.95e-7; 2.7e-7
// with it), rounded up: the test runs in both (default and sanitizer builds).
constexpr double kTanhMaxRelativeError = 4e-7;

TEST(FastMath, TanhWithinItsStatedErrorEverywhere) {
  double worst = 0, worst_at = 0;
  for (double x = -20; x <= 20; x += 3.7e-5) {
    const float xf = static_cast<float>(x);
    const double want = std::tanh(static_cast<double>(xf));
    if (want == 0) continue;
    const double e = relative_error(fast_tanh(xf), want);
    if (e > worst) worst = e, worst_at = xf;
  }
  EXPECT_LT(worst, kTanhMaxRelativeError) << "at x = " << worst_at;
}

TEST(FastMath, TanhIsOddSaturatesAndKeepsTinyArguments) {
  for (float x : {1e-30f, 1e-12f, 1e-6f, 3e-4f, 0.1f, 0.9f, 2.5f, 7.9f}) {
    EXPECT_EQ(fast_tanh(-x), -fast_tanh(x)) << x;
    EXPECT_LT(relative_error(fast_tanh(x), std::tanh(static_cast<double>(x))), kTanhMaxRelativeError) << x;
  }
  EXPECT_EQ(fast_tanh(0.0f), 0.0f);
  for (float x : {8.0f, 20.0f, 1e30f, std::numeric_limits<float>::infinity()}) {
    EXPECT_NEAR(fast_tanh(x), 1.0f, 3.5e-7f) << x;
    EXPECT_NEAR(fast_tanh(-x), -1.0f, 3.5e-7f) << x;
  }
}

TEST(FastMath, ExpWithinItsStatedError) {
  double worst = 0, worst_at = 0;
  for (double x = -80; x <= 80; x += 1.3e-4) {
    const float xf = static_cast<float>(x);
    const double e = relative_error(fast_exp(xf), std::exp(static_cast<double>(xf)));
    if (e > worst) worst = e, worst_at = xf;
  }
  EXPECT_LT(worst, 3e-7) << "at x = " << worst_at;  // ~2 ulp
  EXPECT_EQ(fast_exp(0.0f), 1.0f);
}

}  // namespace
}  // namespace lmroof
