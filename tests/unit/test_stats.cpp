// Statistics checked against values computed independently by numpy 1.24.2 / scipy 1.10.1
// (Debian 12's python3-numpy and python3-scipy, /usr/bin/python3). Each block quotes the
// Python that produced its numbers; none of them comes from our own output.
#include <catch2/catch.hpp>
#include <cmath>

#include "stats/bootstrap.hpp"
#include "stats/mann_whitney.hpp"
#include "stats/stratified.hpp"
#include "stats/summary.hpp"
#include "stats/wilcoxon.hpp"

using Catch::Matchers::WithinRel;

namespace {
const std::vector<double> kOdd{3.1, 1.2, 5.5, 2.2, 9.9, 4.4, 7.0};
const std::vector<double> kEven{0.5, 2.5, 1.5, 10.0, 3.25, 4.75, 0.125, 8.0};
}  // namespace

// import numpy as np
// for xs in ([3.1,1.2,5.5,2.2,9.9,4.4,7.0], [0.5,2.5,1.5,10.0,3.25,4.75,0.125,8.0]):
//     print(np.mean(xs), np.median(xs), np.percentile(xs, [5, 95, 25, 33.3]))
// -> 4.757142857142857 4.4 [1.5 9.029999999999998 2.6500000000000004 3.0982]
// -> 3.828125 2.875 [0.25625 9.299999999999999 1.25 1.8309999999999995]
TEST_CASE("Summary: mean, median and linear-interpolation percentiles match numpy", "[stats]") {
  CHECK_THAT(stats::mean(kOdd), WithinRel(4.757142857142857, 1e-14));
  CHECK_THAT(stats::median(kOdd), WithinRel(4.4, 1e-14));
  CHECK_THAT(stats::quantile(kOdd, 0.05), WithinRel(1.5, 1e-14));
  CHECK_THAT(stats::quantile(kOdd, 0.95), WithinRel(9.029999999999998, 1e-14));
  CHECK_THAT(stats::quantile(kOdd, 0.25), WithinRel(2.6500000000000004, 1e-14));
  CHECK_THAT(stats::quantile(kOdd, 0.333), WithinRel(3.0982, 1e-12));

  CHECK_THAT(stats::mean(kEven), WithinRel(3.828125, 1e-14));
  CHECK_THAT(stats::median(kEven), WithinRel(2.875, 1e-14));
  CHECK_THAT(stats::quantile(kEven, 0.05), WithinRel(0.25625, 1e-14));
  CHECK_THAT(stats::quantile(kEven, 0.95), WithinRel(9.299999999999999, 1e-14));
  CHECK_THAT(stats::quantile(kEven, 0.25), WithinRel(1.25, 1e-14));
  CHECK_THAT(stats::quantile(kEven, 0.333), WithinRel(1.8309999999999995, 1e-12));
}

TEST_CASE("Summary: summarize agrees with the single functions and handles edges", "[stats]") {
  auto s = stats::summarize(kEven);
  CHECK(s.n == 8);
  CHECK_THAT(s.median, WithinRel(2.875, 1e-14));
  CHECK_THAT(s.p5, WithinRel(0.25625, 1e-14));
  CHECK_THAT(s.p95, WithinRel(9.299999999999999, 1e-14));
  CHECK(s.min == 0.125);
  CHECK(s.max == 10.0);
  CHECK(stats::quantile({7.0}, 0.05) == 7.0);
  CHECK(std::isnan(stats::median({})));
  CHECK(std::isnan(stats::summarize({}).p95));
}

// import scipy.stats as st
// x=[1.1,2.3,0.7,1.9,2.8]; y=[3.0,2.5,4.1,3.3,2.9,3.8]
// st.mannwhitneyu(x,y,alternative='less')     -> statistic=1.0, pvalue=0.004329004329004329 (exact)
// st.mannwhitneyu(x,y,alternative='greater')  -> statistic=1.0, pvalue=0.9978354978354979
TEST_CASE("Mann-Whitney: small samples without ties use the exact distribution", "[stats]") {
  std::vector<double> x{1.1, 2.3, 0.7, 1.9, 2.8}, y{3.0, 2.5, 4.1, 3.3, 2.9, 3.8};
  auto less = stats::mann_whitney_u(x, y, stats::Alternative::less);
  CHECK(less.exact);
  CHECK(less.u == 1.0);
  CHECK_THAT(less.p, WithinRel(0.004329004329004329, 1e-12));
  auto greater = stats::mann_whitney_u(x, y, stats::Alternative::greater);
  CHECK_THAT(greater.p, WithinRel(0.9978354978354979, 1e-12));
  // st.mannwhitneyu([5.0,6.0,7.0],[1.0,2.0,8.0,9.0],alternative='less') -> 6.0, 0.5714285714285714
  auto mid = stats::mann_whitney_u({5, 6, 7}, {1, 2, 8, 9}, stats::Alternative::less);
  CHECK(mid.u == 6.0);
  CHECK_THAT(mid.p, WithinRel(0.5714285714285714, 1e-12));
}

// st.mannwhitneyu(list(range(10)), list(range(10,20)), alternative='less', method='exact').pvalue
// -> 5.412544112234515e-06  (= 1 / C(20,10): the tail must not be lost to 1 - cdf)
TEST_CASE("Mann-Whitney: forced exact method keeps a tiny p-value exact", "[stats]") {
  std::vector<double> x, y;
  for (int i = 0; i < 10; ++i) x.push_back(i), y.push_back(10 + i);
  auto r = stats::mann_whitney_u(x, y, stats::Alternative::less, stats::Method::exact);
  CHECK(r.exact);
  CHECK_THAT(r.p, WithinRel(5.412544112234515e-06, 1e-12));
  CHECK_THAT(stats::mann_whitney_exact_cdf(0, 10, 10), WithinRel(5.412544112234515e-06, 1e-12));
}

// import numpy as np
// rng=np.random.default_rng(1); x=np.round(rng.normal(10,1,12),3); y=np.round(rng.normal(10.8,1,14),3)
// st.mannwhitneyu(x,y,alternative='less') -> statistic=67.0, pvalue=0.1980329103544689 (asymptotic: n>8)
TEST_CASE("Mann-Whitney: larger samples use the normal approximation with continuity correction", "[stats]") {
  std::vector<double> x{10.346, 10.822, 10.33, 8.697, 10.905, 10.446, 9.463, 10.581, 10.365, 10.294, 10.028, 10.547};
  std::vector<double> y{10.064, 10.637, 10.318, 11.399, 10.84, 10.508, 10.018,
                        10.543, 10.808, 10.524, 12.094, 11.807, 8.089,  8.911};
  auto r = stats::mann_whitney_u(x, y, stats::Alternative::less);
  CHECK_FALSE(r.exact);
  CHECK(r.u == 67.0);
  CHECK_THAT(r.p, WithinRel(0.1980329103544689, 1e-9));
}

// x3=[1,2,2,3,3,3,4,5,5,6]; y3=[2,3,4,4,5,6,6,7,7,8,9]
// st.mannwhitneyu(x3,y3,alternative='less')    -> statistic=23.5, pvalue=0.013820442107149456
// st.mannwhitneyu(x3,y3,alternative='greater') -> statistic=23.5, pvalue=0.988498635310908
// st.mannwhitneyu([1,2,2,3],[2,3,4,5,5],alternative='less') -> statistic=2.5, pvalue=0.039272925475595334
//   (small, but tied: scipy's 'auto' falls back to the asymptotic method)
TEST_CASE("Mann-Whitney: ties correct the variance and force the asymptotic method", "[stats]") {
  std::vector<double> x{1, 2, 2, 3, 3, 3, 4, 5, 5, 6}, y{2, 3, 4, 4, 5, 6, 6, 7, 7, 8, 9};
  auto less = stats::mann_whitney_u(x, y, stats::Alternative::less);
  CHECK(less.ties);
  CHECK(less.u == 23.5);
  CHECK_THAT(less.p, WithinRel(0.013820442107149456, 1e-9));
  CHECK_THAT(stats::mann_whitney_u(x, y, stats::Alternative::greater).p, WithinRel(0.988498635310908, 1e-9));
  auto small = stats::mann_whitney_u({1, 2, 2, 3}, {2, 3, 4, 5, 5}, stats::Alternative::less);
  CHECK_FALSE(small.exact);
  CHECK_THAT(small.p, WithinRel(0.039272925475595334, 1e-9));
}

// SplitMix64 reference: M=(1<<64)-1; s=1234567
// def nxt(): global s; s=(s+0x9E3779B97F4A7C15)&M; z=s; z=((z^(z>>30))*0xBF58476D1CE4E5B9)&M;
//            z=((z^(z>>27))*0x94D049BB133111EB)&M; return z^(z>>31)
// [nxt() for _ in range(3)] -> [6457827717110365317, 3203168211198807973, 9817491932198370423]
// Two-sided, scipy's default alternative:
// st.mannwhitneyu(x,y) -> 1.0, 0.008658008658008658; st.mannwhitneyu(y,x) -> 29.0, the same p
// st.mannwhitneyu(x3,y3) -> 23.5, 0.027640884214298913 (asymptotic, ties)
// st.mannwhitneyu([5.0,6.0,7.0],[1.0,2.0,8.0,9.0]) -> 6.0, 1.0 (2 x 0.571..., capped)
TEST_CASE("Mann-Whitney: two-sided doubles the larger U's tail, capped at 1", "[stats]") {
  std::vector<double> x{1.1, 2.3, 0.7, 1.9, 2.8}, y{3.0, 2.5, 4.1, 3.3, 2.9, 3.8};
  auto xy = stats::mann_whitney_u(x, y, stats::Alternative::two_sided);
  CHECK(xy.exact);
  CHECK(xy.u == 1.0);
  CHECK_THAT(xy.p, WithinRel(0.008658008658008658, 1e-12));
  CHECK_THAT(stats::mann_whitney_u(y, x, stats::Alternative::two_sided).p, WithinRel(0.008658008658008658, 1e-12));
  std::vector<double> x3{1, 2, 2, 3, 3, 3, 4, 5, 5, 6}, y3{2, 3, 4, 4, 5, 6, 6, 7, 7, 8, 9};
  CHECK_THAT(stats::mann_whitney_u(x3, y3, stats::Alternative::two_sided).p, WithinRel(0.027640884214298913, 1e-9));
  CHECK(stats::mann_whitney_u({5, 6, 7}, {1, 2, 8, 9}, stats::Alternative::two_sided).p == 1.0);
}

TEST_CASE("Bootstrap: the generator is SplitMix64 as published", "[stats]") {
  stats::SplitMix64 g(1234567);
  CHECK(g.next() == 6457827717110365317ULL);
  CHECK(g.next() == 3203168211198807973ULL);
  CHECK(g.next() == 9817491932198370423ULL);
}

// Same generator in Python (nxt above, seeded 20261130), then numpy for medians/percentiles:
// rs=[]
// for _ in range(2000):
//     rx=[x[nxt()%len(x)] for _ in x]; ry=[y[nxt()%len(y)] for _ in y]
//     rs.append(np.median(ry)/np.median(rx))
// np.percentile(rs,[2.5,97.5]) -> [0.7864077669902911, 0.8613861386138614]
// Independent method, same data: st.bootstrap((x,y), lambda a,b: np.median(b)/np.median(a),
//   method='percentile', n_resamples=10000, vectorized=False, random_state=1).confidence_interval
//   -> (0.7864077669902911, 0.86)
TEST_CASE("Bootstrap: CI of the median ratio matches a Python reimplementation and scipy", "[stats]") {
  std::vector<double> x{10.2, 9.8, 10.5, 10.1, 9.9, 10.4, 10.0, 10.3, 9.7, 10.6};
  std::vector<double> y{8.1, 8.4, 7.9, 8.8, 8.2, 8.0, 8.6, 8.3, 7.8, 8.5, 9.9, 8.7};
  auto ci = stats::bootstrap_median_ratio(x, y, 0.95, 2000, 20261130);
  CHECK_THAT(ci.lo, WithinRel(0.7864077669902911, 1e-12));
  CHECK_THAT(ci.hi, WithinRel(0.8613861386138614, 1e-12));
  // scipy's own resampling: a different random stream, so only close.
  auto big = stats::bootstrap_median_ratio(x, y, 0.95, 10000, 7);
  CHECK_THAT(big.lo, WithinRel(0.7864077669902911, 0.01));
  CHECK_THAT(big.hi, WithinRel(0.86, 0.01));
  // Same seed, same interval.
  auto again = stats::bootstrap_median_ratio(x, y, 0.95, 2000, 20261130);
  CHECK(again.lo == ci.lo);
  CHECK(again.hi == ci.hi);
}

// The same generator (nxt, seeded 20261131), one sample:
// x=[0.91,0.88,0.95,0.85,0.93,1.02,0.87,0.90,0.89,0.97]; ms=[]
// for _ in range(1999): r=[x[nxt()%len(x)] for _ in x]; ms.append(np.median(r))
// np.percentile(ms,[2.5,97.5]) -> [0.88, 0.95]
// st.bootstrap((x,), np.median, method='percentile', n_resamples=10000, random_state=1) -> (0.88, 0.95)
TEST_CASE("Bootstrap: CI of one sample's median matches a Python reimplementation and scipy", "[stats]") {
  std::vector<double> x{0.91, 0.88, 0.95, 0.85, 0.93, 1.02, 0.87, 0.90, 0.89, 0.97};
  auto ci = stats::bootstrap_median(x, 0.95, 1999, 20261131);
  CHECK_THAT(ci.lo, WithinRel(0.88, 1e-12));
  CHECK_THAT(ci.hi, WithinRel(0.95, 1e-12));
  auto big = stats::bootstrap_median(x, 0.95, 10000, 7);
  CHECK_THAT(big.lo, WithinRel(0.88, 0.01));
  CHECK_THAT(big.hi, WithinRel(0.95, 0.01));
  CHECK(std::isnan(stats::bootstrap_median({}).lo));
}

// Van Elteren's stratified test has no scipy function: the reference is the textbook formula in
// a few lines of Python over scipy's ranks, independent of our code. With one stratum it must be
// scipy's Mann-Whitney normal approximation without continuity correction.
// import numpy as np, scipy.stats as st
// def ve(strata):
//     T=E=V=0.0
//     for c,r in strata:
//         m,n=len(c),len(r); N=m+n
//         W=st.rankdata(list(c)+list(r))[:m].sum()
//         _,k=np.unique(list(c)+list(r),return_counts=True); ties=float((k**3-k).sum())
//         w=1/(N+1); T+=w*W; E+=w*m*(N+1)/2; V+=w*w*m*n/12*((N+1)-ties/(N*(N-1)))
//     z=(T-E)/np.sqrt(V); return T,z,st.norm.cdf(z)
// A=([10.1,9.8,10.4,9.9,10.0,10.3],[10.6,10.9,10.2,11.0,10.8,10.7,10.5])
// B=([3.2,3.1,3.3,3.0,3.4],[3.3,3.5,3.6,3.2,3.7])          (ties across arms)
// C=([20.5,21.0,19.8,20.1],[20.0,21.5,22.0,20.9,21.2,20.7])
// ve([A])     -> (1.6428571428571428, -2.7142857142857144, 0.0033209427382133133)
// st.mannwhitneyu(A[0],A[1],alternative='less',method='asymptotic',use_continuity=False).pvalue
//             -> 0.0033209427382133133
// ve([A,B,C]) -> (4.733766233766234, -3.516194334842069, 0.0002188902109040764)
namespace {
const stats::Stratum kA{{10.1, 9.8, 10.4, 9.9, 10.0, 10.3}, {10.6, 10.9, 10.2, 11.0, 10.8, 10.7, 10.5}};
const stats::Stratum kB{{3.2, 3.1, 3.3, 3.0, 3.4}, {3.3, 3.5, 3.6, 3.2, 3.7}};
const stats::Stratum kC{{20.5, 21.0, 19.8, 20.1}, {20.0, 21.5, 22.0, 20.9, 21.2, 20.7}};
}  // namespace

TEST_CASE("Van Elteren: one stratum is scipy's Mann-Whitney normal approximation", "[stats]") {
  auto r = stats::van_elteren({kA});
  CHECK(r.strata == 1);
  CHECK_THAT(r.statistic, WithinRel(1.6428571428571428, 1e-12));
  CHECK_THAT(r.z, WithinRel(-2.7142857142857144, 1e-12));
  CHECK_THAT(r.p, WithinRel(0.0033209427382133133, 1e-9));
  // The same through our Mann-Whitney (scipy's, with continuity correction) differs: not a copy.
  CHECK(std::abs(stats::mann_whitney_u(kA.candidate, kA.reference, stats::Alternative::less,
                                       stats::Method::asymptotic).p - r.p) > 1e-4);
}

TEST_CASE("Van Elteren: three strata with ties match the independent formula", "[stats]") {
  auto r = stats::van_elteren({kA, kB, kC});
  CHECK(r.strata == 3);
  CHECK_THAT(r.statistic, WithinRel(4.733766233766234, 1e-12));
  CHECK_THAT(r.z, WithinRel(-3.516194334842069, 1e-12));
  CHECK_THAT(r.p, WithinRel(0.0002188902109040764, 1e-9));
  // A stratum with an empty side takes no part; none left: no p.
  auto with_empty = stats::van_elteren({kA, stats::Stratum{{1.0}, {}}, kB, kC});
  CHECK(with_empty.strata == 3);
  CHECK_THAT(with_empty.p, WithinRel(0.0002188902109040764, 1e-9));
  CHECK(std::isnan(stats::van_elteren({stats::Stratum{{}, {1.0}}}).p));
  // Swapping the arms mirrors the test: p becomes 1 - p.
  auto swapped = stats::van_elteren({{kA.reference, kA.candidate}, {kB.reference, kB.candidate}, {kC.reference, kC.candidate}});
  CHECK_THAT(swapped.p, WithinRel(1 - 0.0002188902109040764, 1e-9));
}

// The combined ratio and its two-level bootstrap, reimplemented in Python with the same
// SplitMix64 stream (nxt() above, seeded 20261130) and numpy's median/percentile:
// def comb(S):
//     ws=[len(c)*len(r)/(len(c)+len(r)) for c,r in S]
//     return np.exp(np.average([np.log(np.median(c)/np.median(r)) for c,r in S],weights=ws))
// comb([A,B,C]) -> 0.9387888540578218
// S=[A,B,C]; rs=[]
// for _ in range(2000):
//     d=[]
//     for _ in S:
//         c,r=S[nxt()%len(S)]; d.append(([c[nxt()%len(c)] for _ in c],[r[nxt()%len(r)] for _ in r]))
//     rs.append(comb(d))
// np.percentile(rs,[2.5,97.5]) -> [0.9025256342417006, 0.9792984677340841]
TEST_CASE("Stratified ratio: weighted geometric mean of median ratios and its bootstrap CI", "[stats]") {
  CHECK_THAT(stats::combined_median_ratio({kA, kB, kC}), WithinRel(0.9387888540578218, 1e-12));
  CHECK(stats::stratum_weight(6, 7) == 42.0 / 13);
  auto ci = stats::bootstrap_combined_ratio({kA, kB, kC}, 0.95, 2000, 20261130);
  CHECK_THAT(ci.lo, WithinRel(0.9025256342417006, 1e-12));
  CHECK_THAT(ci.hi, WithinRel(0.9792984677340841, 1e-12));
  CHECK(std::isnan(stats::bootstrap_combined_ratio({}, 0.95, 100).lo));
}

// Wilcoxon signed-rank, against scipy 1.10.1 (/usr/bin/python3, Debian 12's python3-scipy):
// import scipy.stats as st
// ex=[-0.12,-0.05,0.03,-0.20,-0.08,-0.15,0.01,-0.09,-0.30,-0.04]
// st.wilcoxon(ex, alternative='less')    -> statistic=3.0, pvalue=0.0048828125 (exact: n=10, no ties)
// st.wilcoxon(ex)                        -> statistic=3.0, pvalue=0.009765625
// st.wilcoxon(ex, alternative='greater') -> statistic=3.0, pvalue=0.9970703125
namespace {
using stats::SignedRankAlternative;
using stats::SignedRankMethod;
const std::vector<double> kSigned{-0.12, -0.05, 0.03, -0.20, -0.08, -0.15, 0.01, -0.09, -0.30, -0.04};
}  // namespace

TEST_CASE("Wilcoxon: small samples without ties use the exact distribution", "[stats]") {
  auto less = stats::wilcoxon_signed_rank(kSigned, SignedRankAlternative::less);
  CHECK(less.method == SignedRankMethod::exact);
  CHECK(less.n == 10);
  CHECK(less.statistic == 3.0);  // R+: ranks 2 (0.03) + 1 (0.01)
  CHECK_THAT(less.p, WithinRel(0.0048828125, 1e-12));
  auto two = stats::wilcoxon_signed_rank(kSigned, SignedRankAlternative::two_sided);
  CHECK(two.statistic == 3.0);  // min(R+, R-)
  CHECK_THAT(two.p, WithinRel(0.009765625, 1e-12));
  // Mirrored: the one-sided p of the opposite direction, st.wilcoxon(ex, alternative='greater').
  std::vector<double> mirrored;
  for (double v : kSigned) mirrored.push_back(-v);
  CHECK_THAT(stats::wilcoxon_signed_rank(mirrored).p, WithinRel(0.9970703125, 1e-12));
  // big=[((i*37)%101-40.25)/100 for i in range(1,61)]  (60 distinct |d|)
  // st.wilcoxon(big[:50], alternative='less') -> 867.0, 0.9872499584101826 (exact, n=50)
  // st.wilcoxon(big)                          -> 564.0, 0.009768369815048953 (approx, n=60 > 50)
  std::vector<double> big;
  for (int i = 1; i <= 60; ++i) big.push_back((double((i * 37) % 101) - 40.25) / 100);
  auto fifty = stats::wilcoxon_signed_rank(std::vector<double>(big.begin(), big.begin() + 50));
  CHECK(fifty.method == SignedRankMethod::exact);
  CHECK(fifty.statistic == 867.0);
  CHECK_THAT(fifty.p, WithinRel(0.9872499584101826, 1e-12));
  auto sixty = stats::wilcoxon_signed_rank(big, SignedRankAlternative::two_sided);
  CHECK(sixty.method == SignedRankMethod::approx);
  CHECK(sixty.statistic == 564.0);
  CHECK_THAT(sixty.p, WithinRel(0.009768369815048953, 1e-9));
}

// ties=[-0.1,-0.1,0.2,-0.3,-0.3,-0.3,0.1,-0.5,-0.2,-0.4,0.05,-0.05]
// st.wilcoxon(ties, alternative='less', method='approx') -> statistic=12.0, pvalue=0.01674131083281334
// st.wilcoxon(ties, method='approx')                     -> statistic=12.0, pvalue=0.03348262166562668
// (scipy 1.10's 'auto' keeps the exact distribution here: pvalue=0.01708984375, see wilcoxon.hpp)
TEST_CASE("Wilcoxon: ties correct the variance and take the normal approximation", "[stats]") {
  std::vector<double> ties{-0.1, -0.1, 0.2, -0.3, -0.3, -0.3, 0.1, -0.5, -0.2, -0.4, 0.05, -0.05};
  auto less = stats::wilcoxon_signed_rank(ties);
  CHECK(less.ties);
  CHECK(less.method == SignedRankMethod::approx);
  CHECK(less.statistic == 12.0);
  CHECK_THAT(less.p, WithinRel(0.01674131083281334, 1e-9));
  CHECK_THAT(stats::wilcoxon_signed_rank(ties, SignedRankAlternative::two_sided).p, WithinRel(0.03348262166562668, 1e-9));
  // Forced exact reproduces scipy 1.10's own 'auto' figure (R+ = 12 is an integer here).
  CHECK_THAT(stats::wilcoxon_signed_rank(ties, SignedRankAlternative::less, SignedRankMethod::exact).p,
             WithinRel(0.01708984375, 1e-12));
}

// z=[0.0,-0.2,-0.1,0.0,-0.4,0.3,-0.25,-0.15]; nz=[v for v in z if v!=0]
// st.wilcoxon(nz, alternative='less')                  -> statistic=5.0, pvalue=0.15625 (exact, n=6)
// st.wilcoxon(nz)                                      -> statistic=5.0, pvalue=0.3125
// st.wilcoxon(z, alternative='less', method='approx')  -> statistic=5.0, pvalue=0.12443193746896103
//   (scipy 1.10's 'auto' on z gives the same: any zero sends it to the approximation)
TEST_CASE("Wilcoxon: zero differences are dropped before ranking", "[stats]") {
  std::vector<double> z{0.0, -0.2, -0.1, 0.0, -0.4, 0.3, -0.25, -0.15};
  auto less = stats::wilcoxon_signed_rank(z);
  CHECK(less.zeros == 2);
  CHECK(less.n == 6);
  CHECK(less.method == SignedRankMethod::exact);
  CHECK(less.statistic == 5.0);
  CHECK_THAT(less.p, WithinRel(0.15625, 1e-12));
  CHECK_THAT(stats::wilcoxon_signed_rank(z, SignedRankAlternative::two_sided).p, WithinRel(0.3125, 1e-12));
  auto approx = stats::wilcoxon_signed_rank(z, SignedRankAlternative::less, SignedRankMethod::approx);
  CHECK(approx.n == 6);
  CHECK_THAT(approx.p, WithinRel(0.12443193746896103, 1e-9));
}

// n = 1..3, st.wilcoxon(d, alternative='less') and st.wilcoxon(d):
// [-0.5] -> 0.0, 0.5 and 0.0, 1.0     [0.5] -> 1.0, 1.0 and 0.0, 1.0
// [-0.5,-0.2] -> 0.0, 0.25 and 0.0, 0.5     [-0.5,0.2] -> 1.0, 0.5 and 1.0, 1.0
// [-0.1,-0.3,-0.2] -> 0.0, 0.125 and 0.0, 0.25     [0.1,-0.3,-0.2] -> 1.0, 0.25 and 1.0, 0.5
// Three rounds all faster can never be significant at 0.05 (1/8): the table must not pretend.
TEST_CASE("Wilcoxon: one to three differences give scipy's exact p-values", "[stats]") {
  struct Case {
    std::vector<double> d;
    double stat_less, p_less, stat_two, p_two;
  };
  for (const auto& c : std::vector<Case>{{{-0.5}, 0, 0.5, 0, 1.0},
                                         {{0.5}, 1, 1.0, 0, 1.0},
                                         {{-0.5, -0.2}, 0, 0.25, 0, 0.5},
                                         {{-0.5, 0.2}, 1, 0.5, 1, 1.0},
                                         {{-0.1, -0.3, -0.2}, 0, 0.125, 0, 0.25},
                                         {{0.1, -0.3, -0.2}, 1, 0.25, 1, 0.5}}) {
    CAPTURE(c.d);
    auto less = stats::wilcoxon_signed_rank(c.d);
    CHECK(less.method == SignedRankMethod::exact);
    CHECK(less.statistic == c.stat_less);
    CHECK_THAT(less.p, WithinRel(c.p_less, 1e-12));
    auto two = stats::wilcoxon_signed_rank(c.d, SignedRankAlternative::two_sided);
    CHECK(two.statistic == c.stat_two);
    CHECK_THAT(two.p, WithinRel(c.p_two, 1e-12));
  }
}

// st.wilcoxon([0.0,0.0,0.0], alternative='less') -> ValueError("zero_method 'wilcox' and 'pratt' do
// not work if x - y is zero for all elements."): no test, said so, no crash.
TEST_CASE("Wilcoxon: all differences zero, or none, is no test and says why", "[stats]") {
  auto zero = stats::wilcoxon_signed_rank({0.0, 0.0, 0.0});
  CHECK(zero.method == SignedRankMethod::none);
  CHECK(std::isnan(zero.p));
  CHECK(zero.n == 0);
  CHECK(zero.zeros == 3);
  CHECK(zero.why_none.find("every difference is zero") != std::string::npos);
  CHECK(std::string(stats::method_name(zero.method)) == "none");
  auto empty = stats::wilcoxon_signed_rank({}, SignedRankAlternative::two_sided);
  CHECK(empty.method == SignedRankMethod::none);
  CHECK(std::isnan(empty.p));
  CHECK(empty.why_none == "no differences");
}

// Issue 27 (tests/mutants: mw-exact-for-one-small-sample): one small sample is enough for the
// exact distribution (scipy: either size <= 8), however large the other.
// x = 5 values below all of y's 20: U = 0, exact P(U <= 0) = 1 / C(25, 5) = 1 / 53130.
TEST_CASE("Mann-Whitney: one small sample without ties is enough for the exact distribution", "[stats]") {
  std::vector<double> x{1, 2, 3, 4, 5}, y;
  for (int i = 0; i < 20; ++i) y.push_back(10 + i);
  auto r = stats::mann_whitney_u(x, y, stats::Alternative::less);
  CHECK(r.exact);
  CHECK_THAT(r.p, WithinRel(1.0 / 53130, 1e-12));
  auto swapped = stats::mann_whitney_u(y, x, stats::Alternative::greater);
  CHECK(swapped.exact);
  CHECK_THAT(swapped.p, WithinRel(1.0 / 53130, 1e-12));
}
