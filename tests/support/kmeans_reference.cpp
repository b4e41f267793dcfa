// The independent K-means reference (kmeans_reference.h): single-threaded, double precision,
// one plain loop per step of the contract.
#include "support/kmeans_reference.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace vp::test::ref {
namespace {

struct Pixel {
  int r, g, b, a;
};

Pixel pixelOf(const uint8_t* rgba, uint64_t i) {
  const uint8_t* p = rgba + 4 * i;
  return {p[0], p[1], p[2], p[3]};
}

Centre centreOf(const Pixel& p) { return {float(p.r), float(p.g), float(p.b)}; }

double distance2(const Pixel& p, const Centre& c) {
  const double dr = double(p.r) - double(c[0]), dg = double(p.g) - double(c[1]), db = double(p.b) - double(c[2]);
  return dr * dr + dg * dg + db * db;
}

uint64_t integerDistance2(const Pixel& p, const Pixel& q) {
  const int64_t dr = p.r - q.r, dg = p.g - q.g, db = p.b - q.b;
  return uint64_t(dr * dr + dg * dg + db * db);
}

bool integral(const Centre& c) {
  for (float v : c)
    if (!(std::floor(v) == v)) return false;  // NaN is not integral
  return true;
}

// The SplitMix64 generator, from its published definition.
struct Splitmix {
  uint64_t state;
  uint64_t next() {
    state += 0x9E3779B97F4A7C15ull;
    uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
};

// Rounded output byte of a centre channel: half away from zero, clamped; NaN -> 0.
uint8_t outputByte(float c) {
  if (std::isnan(c)) return 0;
  const double r = std::round(double(c));  // halves away from zero, like roundf
  return uint8_t(std::clamp(r, 0.0, 255.0));
}

class Assigner {
 public:
  Assigner(const uint8_t* rgba, uint64_t n, const LabelGuide& guide, RefResult& out)
      : rgba_(rgba), n_(n), guide_(guide), out_(out) {}

  // Labels of every pixel against `centres`: nearest by exact distance (ties to the lowest
  // index); when some pixel is ambiguous, the guide (if any) settles those pixels.
  std::vector<uint8_t> assign(const std::vector<Centre>& centres) {
    const int k = int(centres.size());
    std::vector<char> whole(k);  // centre with integer channels: the float score is exact
    for (int j = 0; j < k; ++j) whole[j] = integral(centres[j]);
    std::vector<uint8_t> labels(n_);
    std::vector<uint64_t> open;  // ambiguous pixels
    std::vector<double> d(k);
    for (uint64_t i = 0; i < n_; ++i) {
      const Pixel p = pixelOf(rgba_, i);
      int best = 0;
      for (int j = 0; j < k; ++j) {
        d[j] = distance2(p, centres[j]);
        if (d[j] < d[best]) best = j;
      }
      labels[i] = uint8_t(best);
      for (int j = 0; j < k; ++j)
        if (j != best && d[j] - d[best] <= kTieMargin && centres[j] != centres[best] && !(whole[j] && whole[best])) {
          open.push_back(i);
          break;
        }
    }
    out_.ambiguousPixels += int64_t(open.size());
    if (open.empty() || !guide_) return labels;
    const std::vector<uint8_t> guided = guide_(centres);
    if (guided.size() != n_) throw std::logic_error("kmeansReference: guide returned the wrong number of labels");
    for (uint64_t i : open) {
      const int g = guided[i], best = labels[i];
      if (g == best) continue;
      const Pixel p = pixelOf(rgba_, i);
      const double dg = g < k ? distance2(p, centres[g]) : -1, db = distance2(p, centres[best]);
      if (g < k && centres[g] != centres[best] && dg - db <= kTieMargin) {
        labels[i] = uint8_t(g);
        ++out_.guidedPixels;
      } else if (out_.violations.size() < 8) {
        out_.violations.push_back("pixel " + std::to_string(i) + ": implementation chose centre " +
                                  std::to_string(g) + ", nearest is " + std::to_string(best) + " (distance " +
                                  std::to_string(dg) + " vs " + std::to_string(db) + ")");
      }
    }
    return labels;
  }

 private:
  const uint8_t* rgba_;
  uint64_t n_;
  const LabelGuide& guide_;
  RefResult& out_;
};

}  // namespace

std::vector<Centre> kmeansPlusPlusReference(const uint8_t* rgba, uint64_t pixels, int k, uint64_t seed) {
  const uint64_t m = std::min(pixels, kRefPlusPlusSamples);
  std::vector<Pixel> sample(m);
  for (uint64_t i = 0; i < m; ++i) {
    // floor(i*N/M) without overflow for any frame this project takes (i < 2^14, N < 2^40).
    sample[i] = pixelOf(rgba, i * pixels / m);
  }
  Splitmix rng{seed};
  std::vector<Pixel> chosen{sample[rng.next() % m]};
  while (int(chosen.size()) < k) {
    std::vector<uint64_t> d(m);
    uint64_t total = 0;
    for (uint64_t i = 0; i < m; ++i) {
      uint64_t best = std::numeric_limits<uint64_t>::max();
      for (const Pixel& c : chosen) best = std::min(best, integerDistance2(sample[i], c));
      d[i] = best;
      total += best;
    }
    if (total == 0) {
      chosen.push_back(sample[rng.next() % m]);
      continue;
    }
    const uint64_t u = rng.next() % total;
    uint64_t prefix = 0;
    for (uint64_t i = 0; i < m; ++i) {
      prefix += d[i];
      if (prefix > u) {
        chosen.push_back(sample[i]);
        break;
      }
    }
  }
  std::vector<Centre> centres;
  for (const Pixel& c : chosen) centres.push_back(centreOf(c));
  return centres;
}

RefResult kmeansReference(const uint8_t* rgba, int width, int height, const RefParams& params,
                          const LabelGuide& guide, int guideIterations) {
  if (width < 1 || height < 1 || params.k < 1 || params.k > kRefMaxClusters || params.maxIterations < 0)
    throw std::invalid_argument("kmeansReference: bad arguments");
  const uint64_t n = uint64_t(width) * uint64_t(height);
  const int k = params.k;
  RefResult r;
  std::vector<Centre> c(k);
  switch (params.init) {
    case RefInit::Uniform:
      for (int j = 0; j < k; ++j) c[j] = centreOf(pixelOf(rgba, uint64_t(j) * n / uint64_t(k)));
      break;
    case RefInit::PlusPlus: c = kmeansPlusPlusReference(rgba, n, k, params.seed); break;
    case RefInit::Warm:
      if (int(params.warm.size()) < k) throw std::invalid_argument("kmeansReference: too few warm centres");
      c.assign(params.warm.begin(), params.warm.begin() + k);
      break;
  }
  r.initial = c;
  Assigner assigner(rgba, n, guide, r);

  r.shift2 = std::numeric_limits<double>::infinity();
  r.iterations = 0;
  while (r.iterations < params.maxIterations) {
    const std::vector<uint8_t> labels = assigner.assign(c);
    std::vector<std::array<uint64_t, 4>> sum(k, {0, 0, 0, 0});
    for (uint64_t i = 0; i < n; ++i) {
      const Pixel p = pixelOf(rgba, i);
      auto& s = sum[labels[i]];
      s[0] += uint64_t(p.r), s[1] += uint64_t(p.g), s[2] += uint64_t(p.b), s[3] += 1;
    }
    double shift2 = 0;
    for (int j = 0; j < k; ++j) {
      if (sum[j][3] == 0) continue;  // empty: keeps its centre
      Centre moved;
      for (int ch = 0; ch < 3; ++ch) moved[ch] = float(double(sum[j][ch]) / double(sum[j][3]));
      double move = 0;
      for (int ch = 0; ch < 3; ++ch) move += (double(moved[ch]) - double(c[j][ch])) * (double(moved[ch]) - double(c[j][ch]));
      shift2 = std::max(shift2, move);
      c[j] = moved;
    }
    ++r.iterations;
    r.shift2 = shift2;
    // The implementation computes shift2 in float: within a few float roundings of this.
    const double eps = double(params.epsilon);
    const double slack = 1e-5 * (shift2 + eps) + 1e-4 * std::sqrt(shift2);
    if (eps > 0 && std::abs(shift2 - eps) <= slack) {
      ++r.ambiguousStops;
      if (guideIterations >= 0 ? r.iterations == guideIterations : shift2 < eps) break;
    } else if (shift2 < eps) {
      break;
    }
  }

  r.centres = c;
  r.labels = assigner.assign(c);
  r.rgba.resize(4 * n);
  r.cost = 0;
  for (uint64_t i = 0; i < n; ++i) {
    const Pixel p = pixelOf(rgba, i);
    const Centre& cc = c[r.labels[i]];
    const Pixel o{outputByte(cc[0]), outputByte(cc[1]), outputByte(cc[2]), p.a};
    uint8_t* q = r.rgba.data() + 4 * i;
    q[0] = uint8_t(o.r), q[1] = uint8_t(o.g), q[2] = uint8_t(o.b), q[3] = uint8_t(o.a);
    r.cost += integerDistance2(p, o);
  }
  return r;
}

}  // namespace vp::test::ref
