#include "report/html.h"

#include "report/svg_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace runner {
namespace {

// Two palettes of eight series colours, chosen to stay apart on white and on
// near-black backgrounds; the page switches with the viewer's colour scheme.
const char* kStyle = R"css(
:root { color-scheme: light dark;
  --bg: #ffffff; --fg: #1b1f24; --muted: #59636e; --grid: #e3e6ea; --axis: #59636e; --panel: #f6f8fa;
  --border: #d0d7de;
  --c0: #1f77b4; --c1: #d62728; --c2: #2ca02c; --c3: #ff7f0e; --c4: #9467bd; --c5: #8c564b;
  --c6: #e377c2; --c7: #17becf; }
@media (prefers-color-scheme: dark) { :root {
  --bg: #0d1117; --fg: #e6edf3; --muted: #9da7b3; --grid: #262c36; --axis: #9da7b3; --panel: #161b22;
  --border: #30363d;
  --c0: #6cb4ee; --c1: #ff7b72; --c2: #56d364; --c3: #ffa657; --c4: #d2a8ff; --c5: #d4a373;
  --c6: #f778ba; --c7: #39d0d8; } }
body { background: var(--bg); color: var(--fg); margin: 24px auto; max-width: 2400px; padding: 0 16px;
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 28px 0 8px; }
p.sub { color: var(--muted); margin: 0 0 16px; }
table { border-collapse: collapse; margin: 8px 0; font-size: 13px; }
th, td { border: 1px solid var(--border); padding: 4px 8px; text-align: left; vertical-align: top; }
thead th, tbody th { background: var(--panel); font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
code { font: 12px ui-monospace, "DejaVu Sans Mono", monospace; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(380px, 1fr)); gap: 16px; }
.figure-legend { display: flex; flex-wrap: wrap; gap: 4px 18px; margin: 0 0 10px; font-size: 13px; }
.legend-item { white-space: nowrap; }
.single-run { display: grid; grid-template-columns: minmax(300px, 420px) minmax(0, 1fr); gap: 0 28px;
  align-items: start; }
.single-run table { width: 100%; }
.single-run td { overflow-wrap: anywhere; }
@media (max-width: 900px) { .single-run { grid-template-columns: minmax(0, 1fr); } }
svg.chart { width: 100%; height: auto; background: var(--panel); border: 1px solid var(--border);
  border-radius: 6px; }
svg.chart text { fill: var(--fg); font: 11px system-ui, "DejaVu Sans", sans-serif; }
svg.chart .chart-title { font-size: 13px; font-weight: 600; }
svg.chart .tick, svg.chart .empty { fill: var(--muted); }
svg.chart .axis-label { font-size: 12px; }
svg.chart .grid { stroke: var(--grid); stroke-width: 1; }
svg.chart .axis { stroke: var(--axis); fill: none; stroke-width: 1.2; }
svg.chart .series { fill: none; stroke-width: 2; stroke-linejoin: round; }
svg.chart .ring { fill: none; stroke-width: 2; }
svg.chart .marker-line { stroke-dasharray: 5 4; stroke-width: 1.5; }
.swatch-box { display: inline-block; width: 12px; height: 12px; border-radius: 2px; margin-right: 6px;
  vertical-align: -1px; }
)css";

std::string palette_rules() {
  std::string out;
  for (int i = 0; i < 8; ++i)
    out += fmt::format(".c{0} {{ stroke: var(--c{0}); }} .dot.c{0}, .swatch.c{0} {{ fill: var(--c{0}); }} "
                       ".swatch-box.c{0} {{ background: var(--c{0}); }}\n",
                       i);
  return out;
}

}  // namespace

std::string html_page(const std::string& title, const std::string& body_html) {
  return fmt::format("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                     "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                     "<meta name=\"generator\" content=\"runner report\">\n<title>{}</title>\n"
                     "<style>{}{}</style>\n</head>\n<body>\n{}\n</body>\n</html>\n",
                     xml_escape(title), kStyle, palette_rules(), body_html);
}

std::string render_table(const HtmlTable& t) {
  std::string out = t.id.empty() ? "<table>" : fmt::format("<table id=\"{}\">", xml_escape(t.id));
  if (!t.head.empty()) {
    out += "<thead><tr>";
    for (const auto& h : t.head) out += "<th>" + xml_escape(h) + "</th>";
    out += "</tr></thead>";
  }
  out += "<tbody>";
  for (const auto& row : t.rows) {
    out += "<tr>";
    for (size_t i = 0; i < row.size(); ++i) {
      bool header = i == 0 && t.first_column_is_header;
      out += (header ? "<th>" : "<td>") + row[i] + (header ? "</th>" : "</td>");
    }
    out += "</tr>";
  }
  return out + "</tbody></table>";
}

std::string duration_text(std::optional<double> seconds) {
  if (!seconds || !std::isfinite(*seconds)) return "";
  double s = *seconds;
  if (s < 60) return fmt::format("{:.1f} s", s);
  long long whole = std::llround(s);
  if (whole < 3600) return fmt::format("{} min {:02} s", whole / 60, whole % 60);
  return fmt::format("{} h {:02} min", whole / 3600, (whole % 3600) / 60);
}

std::string metric_text(std::optional<double> value) {
  return value && std::isfinite(*value) ? fmt::format("{:.4f}", *value) : "";
}

std::string swatch_html(int colour) {
  return fmt::format("<span class=\"swatch-box c{}\"></span>", colour % 8);
}

std::string chart_figure_html(const std::vector<ChartSpec>& charts) {
  std::vector<std::pair<std::string, int>> entries;  // (label, colour), each once
  for (const auto& chart : charts)
    for (const auto& s : chart.series)
      if (std::find(entries.begin(), entries.end(), std::make_pair(s.label, s.colour)) == entries.end())
        entries.push_back({s.label, s.colour});
  std::string out = "<div class=\"figure\"><p class=\"figure-legend\">";
  for (const auto& [label, colour] : entries)
    out += "<span class=\"legend-item\">" + swatch_html(colour) + xml_escape(label) + "</span>";
  out += "</p><div class=\"charts\">";
  for (const auto& chart : charts) out += render_chart(chart);
  return out + "</div></div>";
}

}  // namespace runner
