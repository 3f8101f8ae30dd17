#include "report/svg_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

namespace runner {
namespace {

constexpr double kWidth = 640, kPlotTop = 36, kLeft = 76, kRight = 18, kPlotHeight = 220;
constexpr int kPalette = 8;

// One axis: the data range after rounding out to ticks, and its pixel span.
struct ChartAxis {
  double lo = 0, hi = 1;
  bool log = false;
  double px_lo = 0, px_hi = 1;  // pixel of lo and of hi
  std::vector<double> ticks;
  std::vector<std::string> labels;

  double at(double v) const {
    double t = log ? (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo))
                   : (v - lo) / (hi - lo);
    return px_lo + t * (px_hi - px_lo);
  }
};

// The power of ten of |v| (1.5e-4 -> -4), robust to 10^k computed inexactly.
int decimal_exponent(double v) { return static_cast<int>(std::floor(std::log10(std::abs(v)) + 1e-9)); }

// How an axis writes its numbers: value / 10^exponent, then the suffix.
struct TickScale {
  int exponent = 0;
  std::string suffix;
};

// Plain between 10^-3 and 10^4; an SI prefix from 10^4 up (k .. T, then a
// power of ten); below 10^-3, or wherever `power_of_ten` asks, "e" and the exponent.
TickScale tick_scale(double magnitude, bool power_of_ten) {
  if (magnitude == 0) return {};
  int e = decimal_exponent(magnitude);
  if (power_of_ten || e < -3) return {e, "e" + std::to_string(e)};
  if (e < 4) return {};
  static const char* const kPrefixes[] = {"", "k", "M", "G", "T"};
  if (e >= 15) return {e, "e" + std::to_string(e)};
  return {e / 3 * 3, kPrefixes[e / 3]};
}

std::string scaled_number(double v, const TickScale& scale, int decimals) {
  if (v == 0) return "0";
  return fmt::format("{:.{}f}{}", v / std::pow(10.0, scale.exponent), decimals, scale.suffix);
}

bool usable(double v, bool log) { return std::isfinite(v) && (!log || v > 0); }

std::string number_text(double v) { return fmt::format("{:.6g}", v); }

// [min, max] of the usable x (or y) values over every series; false when none.
bool data_range(const ChartSpec& spec, bool want_x, double& lo, double& hi) {
  lo = std::numeric_limits<double>::infinity();
  hi = -lo;
  for (const auto& s : spec.series)
    for (const auto& [x, y] : s.points) {
      if (!usable(x, spec.x_log) || !usable(y, spec.y_log)) continue;
      double v = want_x ? x : y;
      lo = std::min(lo, v), hi = std::max(hi, v);
    }
  for (const auto& m : spec.markers)
    if (want_x && usable(m.x, spec.x_log)) lo = std::min(lo, m.x), hi = std::max(hi, m.x);
  if (want_x && spec.x_from_zero && lo <= hi) lo = std::min(lo, 0.0);
  return lo <= hi;
}

ChartAxis numeric_axis(double lo, double hi, bool log) {
  ChartAxis a;
  a.log = log;
  if (lo == hi && log) {
    lo *= 0.5, hi *= 2;
  } else if (lo == hi) {  // one value: centre it in a band around it
    double pad = lo == 0 ? 1.0 : std::abs(lo) * 0.1;
    lo -= pad, hi += pad;
  }
  a.ticks = log ? log_ticks(lo, hi) : nice_ticks(lo, hi);
  a.lo = a.ticks.front(), a.hi = a.ticks.back();
  a.labels = tick_labels(a.ticks, log);
  return a;
}

// A linear y range no narrower than kMinRelativeSpan of the values' size: an
// evaluation loss that moves between 0.6099 and 0.6106 is flat, and an axis
// fitted to it would draw the last digits' noise as a trend.
constexpr double kMinRelativeSpan = 0.05;

void widen_to_show_trend(double& lo, double& hi) {
  double min_span = kMinRelativeSpan * std::max(std::abs(lo), std::abs(hi));
  if (hi - lo >= min_span || lo == hi) return;  // one value: numeric_axis gives it a band
  double mid = (lo + hi) / 2;
  bool non_negative = lo >= 0;
  lo = mid - min_span / 2, hi = mid + min_span / 2;
  if (non_negative && lo < 0) hi -= lo, lo = 0;  // a loss or a rate never drawn below zero
}

ChartAxis category_axis(const std::vector<std::string>& names) {
  ChartAxis a;
  a.lo = -0.5, a.hi = static_cast<double>(names.size()) - 0.5;
  for (size_t i = 0; i < names.size(); ++i) {
    a.ticks.push_back(static_cast<double>(i));
    a.labels.push_back(names[i].size() > 16 ? names[i].substr(0, 15) + "\u2026" : names[i]);
  }
  return a;
}

std::string axes_svg(const ChartAxis& x, const ChartAxis& y, const ChartSpec& spec, double bottom) {
  std::string out = "<g class=\"axes\">";
  for (size_t i = 0; i < y.ticks.size(); ++i) {
    double py = y.at(y.ticks[i]);
    out += fmt::format("<line class=\"grid\" x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\"/>", kLeft,
                       kWidth - kRight, py, py);
    out += fmt::format("<text class=\"tick\" x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>",
                       kLeft - 6, py + 4, xml_escape(y.labels[i]));
  }
  for (size_t i = 0; i < x.ticks.size(); ++i) {
    double px = x.at(x.ticks[i]);
    out += fmt::format("<line class=\"grid\" x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{}\" y2=\"{}\"/>", px, px,
                       kPlotTop, bottom);
    out += fmt::format("<text class=\"tick\" x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
                       px, bottom + 16, xml_escape(x.labels[i]));
  }
  out += fmt::format("<path class=\"axis\" d=\"M{0} {1}V{2}H{3}\"/>", kLeft, kPlotTop, bottom,
                     kWidth - kRight);
  out += fmt::format("<text class=\"axis-label\" x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
                     (kLeft + kWidth - kRight) / 2, bottom + 36, xml_escape(spec.x_label));
  double mid = (kPlotTop + bottom) / 2;
  out += fmt::format("<text class=\"axis-label\" transform=\"translate(16 {:.1f}) rotate(-90)\" "
                     "text-anchor=\"middle\">{}</text>",
                     mid, xml_escape(spec.y_label));
  return out + "</g>";
}

std::string series_svg(const ChartSeries& s, size_t index, const ChartSpec& spec, const ChartAxis& x,
                       const ChartAxis& y) {
  std::vector<std::pair<double, double>> pts;
  for (const auto& p : s.points)
    if (usable(p.first, spec.x_log) && usable(p.second, spec.y_log)) pts.push_back(p);
  if (s.line) std::stable_sort(pts.begin(), pts.end());
  int c = s.colour % kPalette;
  std::string attrs = fmt::format("data-series=\"{}\" data-label=\"{}\" data-points=\"{}\"",
                                  xml_escape(s.key), xml_escape(s.label), pts.size());
  std::string out = fmt::format("<g id=\"{}-s{}\" class=\"series-group\" {}>", xml_escape(spec.id), index, attrs);
  if (s.line && pts.size() > 1) {
    std::string d;
    for (const auto& [px, py] : pts) d += fmt::format("{}{:.1f} {:.1f}", d.empty() ? "M" : "L", x.at(px), y.at(py));
    out += fmt::format("<path class=\"series c{}\" d=\"{}\"/>", c, d);
  }
  if (s.dots || pts.size() == 1)
    for (const auto& [px, py] : pts)
      out += fmt::format("<circle class=\"{} c{}\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{}\"><title>{}: "
                         "{} = {}, {} = {}</title></circle>",
                         s.rings ? "ring" : "dot", c, x.at(px), y.at(py), s.rings ? 6 : 3.5, xml_escape(s.label), xml_escape(spec.x_label),
                         spec.x_categories.empty() ? number_text(px) : xml_escape(x.labels.at(static_cast<size_t>(px))),
                         xml_escape(spec.y_label), number_text(py));
  return out + "</g>";
}

std::string markers_svg(const ChartSpec& spec, const ChartAxis& x, double bottom) {
  std::string out;
  for (const auto& m : spec.markers) {
    if (!usable(m.x, spec.x_log)) continue;
    double px = x.at(m.x);
    bool left_side = px > kLeft + 0.8 * (kWidth - kRight - kLeft);  // near the right edge: label to the left
    out += fmt::format("<g class=\"marker\" data-marker=\"{}\" data-step=\"{}\">"
                       "<line class=\"marker-line c{}\" x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{}\" y2=\"{}\"/>"
                       "<text class=\"marker-label\" x=\"{:.1f}\" y=\"{}\" text-anchor=\"{}\">{}</text></g>",
                       xml_escape(m.label), m.step, m.colour % kPalette, px, px, kPlotTop,
                       bottom, left_side ? px - 4 : px + 4, kPlotTop + 12, left_side ? "end" : "start",
                       xml_escape(m.label));
  }
  return out;
}

}  // namespace

std::vector<double> nice_ticks(double lo, double hi, int target) {
  double raw = (hi - lo) / std::max(1, target);
  double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double norm = raw / mag;
  double step = (norm < 1.5 ? 1 : norm < 3 ? 2 : norm < 7 ? 5 : 10) * mag;
  std::vector<double> out;
  long long first = static_cast<long long>(std::floor(lo / step + 1e-9));
  long long last = static_cast<long long>(std::ceil(hi / step - 1e-9));
  for (long long i = first; i <= last; ++i) out.push_back(static_cast<double>(i) * step);
  if (out.size() == 1) out.push_back(out[0] + step);
  return out;
}

std::vector<double> log_ticks(double lo, double hi) {
  int first = static_cast<int>(std::floor(std::log10(lo) + 1e-9));
  int last = static_cast<int>(std::ceil(std::log10(hi) - 1e-9));
  if (last == first) ++last;
  std::vector<double> out;
  for (int e = first; e <= last; ++e) out.push_back(std::pow(10.0, e));
  return out;
}

std::vector<std::string> tick_labels(const std::vector<double>& ticks, bool log) {
  double largest = 0, smallest = std::numeric_limits<double>::infinity();
  for (double t : ticks)
    if (t != 0) largest = std::max(largest, std::abs(t)), smallest = std::min(smallest, std::abs(t));
  std::vector<std::string> out;
  if (log) {
    bool tiny = smallest < 1e-3;
    for (double t : ticks) {
      TickScale scale = tick_scale(t, tiny && std::abs(t) < 1);
      out.push_back(scaled_number(t, scale, std::max(0, scale.exponent - decimal_exponent(t))));
    }
    return out;
  }
  TickScale scale = tick_scale(largest, false);
  double step = ticks.size() > 1 ? std::abs(ticks[1] - ticks[0]) : largest;
  int decimals = step > 0 ? std::max(0, -decimal_exponent(step / std::pow(10.0, scale.exponent))) : 0;
  for (double t : ticks) out.push_back(scaled_number(t, scale, decimals));
  return out;
}

std::string xml_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string element_id(const std::string& prefix, const std::string& name, std::set<std::string>& taken) {
  std::string id = prefix;
  for (char c : name) id += std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' ? c : '-';
  std::string unique = id;
  for (int n = 2; taken.count(unique); ++n) unique = id + "-" + std::to_string(n);
  taken.insert(unique);
  return unique;
}

std::string render_chart(const ChartSpec& spec) {
  double bottom = kPlotTop + kPlotHeight, height = bottom + 48;
  std::string out = fmt::format(
      "<svg id=\"{}\" class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {} {}\" "
      "role=\"img\" aria-label=\"{}\"><text class=\"chart-title\" x=\"{}\" y=\"18\">{}</text>",
      xml_escape(spec.id), kWidth, height, xml_escape(spec.title), kLeft, xml_escape(spec.title));
  double xlo, xhi, ylo, yhi;
  if (!data_range(spec, true, xlo, xhi) || !data_range(spec, false, ylo, yhi))
    return out + fmt::format("<text class=\"empty\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">no data "
                             "recorded</text></svg>",
                             kWidth / 2, (kPlotTop + bottom) / 2);
  ChartAxis x = spec.x_categories.empty() ? numeric_axis(xlo, xhi, spec.x_log) : category_axis(spec.x_categories);
  if (!spec.y_log) widen_to_show_trend(ylo, yhi);
  ChartAxis y = numeric_axis(ylo, yhi, spec.y_log);
  x.px_lo = kLeft, x.px_hi = kWidth - kRight;
  y.px_lo = bottom, y.px_hi = kPlotTop;
  out += axes_svg(x, y, spec, bottom);
  for (size_t i = 0; i < spec.series.size(); ++i) out += series_svg(spec.series[i], i, spec, x, y);
  out += markers_svg(spec, x, bottom);
  return out + "</svg>";
}

}  // namespace runner
