// Line and scatter charts as inline SVG, drawn by the runner so that a report
// needs nothing from the network: axes with "nice" ticks (1, 2, 5 x 10^k),
// labelled axes, optional vertical markers (the best checkpoint). The legend is
// the figure's, one for a set of charts (html.h's chart_figure_html).
// Colours are CSS classes (s0, s1, ...) so the page's light and dark schemes
// restyle them; every series carries id and data-* attributes that tests read.
#pragma once

#include <set>
#include <string>
#include <utility>
#include <vector>

namespace runner {

struct ChartSeries {
  std::string label;  // legend text
  std::string key;    // data-series attribute, e.g. "train.loss"
  std::vector<std::pair<double, double>> points;  // (x, y), any order
  int colour = 0;     // index into the page's palette
  bool dots = false;  // draw a dot per point (few points, or a scatter)
  bool line = true;   // join the points
  bool rings = false; // draw the dots as larger rings, so a series drawn over them stays visible
};

struct ChartMarker {
  double x = 0;
  long long step = 0;  // the optimizer step it marks (data-step), whatever the x axis counts
  std::string label;   // drawn at the top of the line, e.g. "best"
  int colour = 0;
};

struct ChartSpec {
  std::string id;  // element id of the <svg>, unique in the page (made by element_id)
  std::string title;
  std::string x_label, y_label;  // with units, e.g. "samples / s"
  bool x_log = false, y_log = false;
  bool x_from_zero = false;  // step axes start at 0, so charts of one run line up
  // When not empty the x values are indices into these names (a categorical axis).
  std::vector<std::string> x_categories;
  std::vector<ChartSeries> series;
  std::vector<ChartMarker> markers;
};

// The tick values of a "nice" linear axis covering [lo, hi], about `target` of them.
std::vector<double> nice_ticks(double lo, double hi, int target = 5);
// Powers of ten covering [lo, hi] (both > 0) for a log axis.
std::vector<double> log_ticks(double lo, double hi);
// The labels of an axis's ticks, in one format on every axis: as many decimals
// as tell neighbours apart, the same on the whole axis; an SI prefix for
// numbers of 10^4 and more (20k, 1.5M), a shared power of ten for numbers below
// 10^-3 (0.5e-4, 1.0e-4); "0" for zero. On a log axis (powers of ten) each tick
// takes its own prefix, and every tick below 1 is a power of ten when one is below 10^-3.
std::vector<std::string> tick_labels(const std::vector<double>& ticks, bool log);

// The <svg> element; a chart whose series hold no finite point says so in the SVG.
std::string render_chart(const ChartSpec& spec);

// Text escaped for HTML/SVG content and for attribute values in either quote:
// the one function every string from a record, a recipe, a dataset or a server
// goes through before it reaches the page.
std::string xml_escape(const std::string& text);

// An element id that is `prefix` + `name` with every character outside
// [A-Za-z0-9_-] made '-', so a name from a record can never end the attribute;
// when two names map to the same id (or one is taken already) a "-2", "-3" ...
// keeps them apart. The id returned is added to `taken`.
std::string element_id(const std::string& prefix, const std::string& name, std::set<std::string>& taken);

}  // namespace runner
