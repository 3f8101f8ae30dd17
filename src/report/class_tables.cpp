#include "report/class_tables.h"

#include "report/html.h"
#include "util/json_input.h"

#include <fmt/format.h>

namespace runner {
namespace {

std::string name_at(const nlohmann::json& names, size_t i) {
  return i < names.size() && names[i].is_string() ? names[i].get<std::string>() : std::to_string(i);
}

double number_in(const nlohmann::json& t, const char* key, size_t i) {
  const auto it = t.find(key);
  if (it == t.end() || !it->is_array() || i >= it->size() || !(*it)[i].is_number()) return 0.0;
  return (*it)[i].get<double>();
}

// One table: a row per class; then the confusion matrix's rows (true class) and columns (predicted).
std::string table_html(const std::string& id, const nlohmann::json& t) {
  const nlohmann::json names = record_array(t, "names");
  const size_t n = record_array(t, "f1").size();
  HtmlTable scores{id, {"class", "precision", "recall", "F1", "support"}, {}, true};
  for (size_t i = 0; i < n; ++i)
    scores.rows.push_back({xml_escape(name_at(names, i)), metric_text(number_in(t, "precision", i)),
                           metric_text(number_in(t, "recall", i)), metric_text(number_in(t, "f1", i)),
                           fmt::format("{}", static_cast<long long>(number_in(t, "support", i)))});
  std::string out = render_table(scores);
  const nlohmann::json confusion = record_array(t, "confusion");
  if (confusion.empty()) return out;
  HtmlTable matrix{id + "-confusion", {"true \\ predicted"}, {}, true};
  for (size_t j = 0; j < n; ++j) matrix.head.push_back(name_at(names, j));
  for (size_t i = 0; i < confusion.size() && i < n; ++i) {
    std::vector<std::string> row{xml_escape(name_at(names, i))};
    for (const auto& c : confusion[i]) row.push_back(c.is_number() ? c.dump() : "");
    matrix.rows.push_back(std::move(row));
  }
  return out + "<p class=\"sub\">Confusion matrix: examples of each true class (rows) by predicted class "
               "(columns).</p>" + render_table(matrix);
}

}  // namespace

std::string class_tables_html(const std::vector<RunHistory>& runs, const std::vector<std::string>& labels) {
  std::string out;
  for (size_t r = 0; r < runs.size(); ++r) {
    const nlohmann::json final_eval = record_object(runs[r].summary, "final");
    for (const auto& [key, value] : final_eval.items()) {
      if (!value.is_object() || (key.rfind("per_class", 0) != 0 && key.rfind("per_label", 0) != 0 &&
                                 key.rfind("per_entity", 0) != 0))
        continue;
      out += fmt::format("<h3>{} \u00b7 final evaluation, {}</h3>", xml_escape(labels[r]), xml_escape(key));
      out += table_html(fmt::format("classes-{}-{}", r, key), value);
    }
  }
  return out.empty() ? out : "<h2>Per class</h2>" + out;
}

}  // namespace runner
