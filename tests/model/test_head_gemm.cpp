// The per-head products and softmax of packed attention against float64 on
// the same float inputs: every transpose, every tail of the register blocks
// (6 rows, 8 and 16 columns), beta 0 and 1, and a strided output whose other
// columns must stay as they were.
#include "model/head_gemm.h"
#include "model/softmax_kernel.h"

#include "catch.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

using namespace runner;

namespace {

constexpr double kUnit = 1.0 / (1 << 24);  // fp32 rounds to within 2^-24 of a value
constexpr float kSentinel = 12345.0f;

struct Product {
  int m, n, k;
  bool trans_a, trans_b;
  float beta;
};

// Checks one product: a and b with leading dimensions 3 wider than they need,
// c with 5 more columns than n, all filled with values in [-1, 1].
void check_product(const Product& s, std::mt19937& rng) {
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  const int a_rows = s.trans_a ? s.k : s.m, a_cols = s.trans_a ? s.m : s.k;
  const int b_rows = s.trans_b ? s.n : s.k, b_cols = s.trans_b ? s.k : s.n;
  const int lda = a_cols + 3, ldb = b_cols + 3, ldc = s.n + 5;
  std::vector<float> a(size_t(a_rows) * lda), b(size_t(b_rows) * ldb), c(size_t(s.m) * ldc);
  for (auto* v : {&a, &b, &c})
    for (float& x : *v) x = value(rng);
  for (int i = 0; i < s.m; ++i)
    for (int j = s.n; j < ldc; ++j) c[size_t(i) * ldc + j] = kSentinel;
  const std::vector<float> before = c;
  head_gemm(process_sgemm(), s.trans_a, s.trans_b, s.m, s.n, s.k, a.data(), lda, b.data(), ldb, c.data(), ldc, s.beta);
  auto at_a = [&](int i, int p) { return double(s.trans_a ? a[size_t(p) * lda + i] : a[size_t(i) * lda + p]); };
  auto at_b = [&](int p, int j) { return double(s.trans_b ? b[size_t(j) * ldb + p] : b[size_t(p) * ldb + j]); };
  for (int i = 0; i < s.m; ++i) {
    for (int j = 0; j < s.n; ++j) {
      double exact = s.beta * double(before[size_t(i) * ldc + j]), magnitude = std::fabs(exact);
      for (int p = 0; p < s.k; ++p) {
        exact += at_a(i, p) * at_b(p, j);
        magnitude += std::fabs(at_a(i, p) * at_b(p, j));
      }
      // One rounding per fma, k + 1 of them (the start value counted), each
      // within 2^-24 of the running sum, which never exceeds sum |terms|.
      const double bound = (s.k + 1) * kUnit * magnitude;
      INFO("m " << s.m << " n " << s.n << " k " << s.k << " trans " << s.trans_a << s.trans_b << " beta "
                << s.beta << " at " << i << "," << j);
      REQUIRE(std::fabs(c[size_t(i) * ldc + j] - exact) <= bound);
    }
    for (int j = s.n; j < ldc; ++j) REQUIRE(c[size_t(i) * ldc + j] == kSentinel);
  }
}

// float64 softmax of one row of float scores.
std::vector<double> exact_softmax(const float* row, int64_t n) {
  double top = -std::numeric_limits<double>::infinity(), sum = 0;
  for (int64_t j = 0; j < n; ++j) top = std::max(top, double(row[j]));
  std::vector<double> out(n);
  for (int64_t j = 0; j < n; ++j) sum += (out[j] = std::exp(double(row[j]) - top));
  for (double& x : out) x /= sum;
  return out;
}

}  // namespace

TEST_CASE("head_gemm equals float64 within fp32's bound on every block tail and transpose", "[model][packed]") {
  std::mt19937 rng(11);
  for (int m : {1, 5, 6, 7, 13, 50})
    for (int n : {1, 8, 9, 16, 17, 24, 50})
      for (int k : {1, 3, 32, 37})
        for (int t = 0; t < 4; ++t) check_product({m, n, k, bool(t & 1), bool(t & 2), 0.0f}, rng);
  // DeBERTa's position terms add into a gradient already there.
  for (int t = 0; t < 4; ++t) check_product({23, 32, 41, bool(t & 1), bool(t & 2), 1.0f}, rng);
}

TEST_CASE("head_gemm takes the BLAS's result for products too large to pay for the kernel", "[model][packed]") {
  std::mt19937 rng(12);
  // 257 x 257 x 256 multiply-adds pass 2^24: the BLAS path, checked the same way.
  check_product({257, 257, 256, false, true, 0.0f}, rng);
}

TEST_CASE("softmax_rows equals float64 within the bound of its roundings, and masks exactly", "[model][packed]") {
  std::mt19937 rng(13);
  for (int64_t n : {1, 7, 8, 9, 37, 64}) {
    std::uniform_real_distribution<float> score(-20.0f, 20.0f);
    std::vector<float> x(size_t(n * n));
    for (size_t i = 0; i < x.size(); ++i) x[i] = i % 5 == 3 && i % size_t(n) != 0 ? -INFINITY : score(rng);
    const std::vector<float> scores = x;
    softmax_rows(x.data(), n);
    for (int64_t i = 0; i < n; ++i) {
      const float* in = scores.data() + i * n;
      const auto exact = exact_softmax(in, n);
      const float top = *std::max_element(in, in + n);
      for (int64_t j = 0; j < n; ++j) {
        const float got = x[size_t(i * n + j)];
        if (std::isinf(in[j])) {
          REQUIRE(got == 0.0f);
          continue;
        }
        // Relative: x - max rounds within |x - max| 2^-24, which the exponential
        // carries as relative error; the exponential is within 2 ulp (4 units);
        // the sum of n terms within n units; the reciprocal and the product one
        // each.
        const double bound = (std::fabs(double(in[j]) - top) + 4 + n + 2) * kUnit * exact[j];
        INFO("n " << n << " row " << i << " column " << j);
        REQUIRE(std::fabs(got - exact[j]) <= bound);
      }
    }
  }
}

TEST_CASE("softmax_rows' exponential is within 2 ulp of float64's from 0 down to -87", "[model][packed]") {
  // A row of 9: eight scores in one vector and a 0, the row's maximum, last.
  // Each output divided by the last cancels the sum: e^x within the
  // exponential's error and the two products by the reciprocal (2 units).
  constexpr int64_t n = 9;
  double worst = 0;
  for (int t = 0; t < 20000; ++t) {
    std::vector<float> x(n * n, 0.0f);
    for (int j = 0; j < 8; ++j) x[j] = -87.0f * float((t * 8 + j) % 160001) / 160001.0f;
    const std::vector<float> scores = x;
    softmax_rows(x.data(), n);
    for (int j = 0; j < 8; ++j) {
      const double e = std::exp(double(scores[j]));
      worst = std::max(worst, std::fabs(double(x[j]) / double(x[8]) - e) / e);
    }
  }
  INFO("worst relative error " << worst / kUnit << " x 2^-24");
  CHECK(worst <= (4 + 2 + 1) * kUnit);  // 2 ulp = 4 units, 2 products, the ratio's own rounding
}

TEST_CASE("softmax_rows keeps a NaN score NaN", "[model][packed]") {
  for (int64_t n : {2, 9}) {
    std::vector<float> x(size_t(n * n), 0.5f);
    x[1] = std::numeric_limits<float>::quiet_NaN();
    softmax_rows(x.data(), n);
    for (int64_t j = 0; j < n; ++j) CHECK(std::isnan(x[size_t(j)]));
    CHECK(std::fabs(x[size_t(n)] - 1.0f / float(n)) <= 4 * kUnit);  // the next row is untouched by it
  }
}
