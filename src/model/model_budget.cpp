#include "model/model_budget.h"

#include "data/dataset.h"
#include "hub/repo_files.h"
#include "registry/registry.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/wordpiece_loader.h"

#include "util/cpu_info.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <filesystem>

namespace runner {
namespace fs = std::filesystem;
namespace {

// One encoder layer: attention (q, k, v, out with biases), two LayerNorms, the
// feed-forward pair.
double encoder_layer(double hidden, double intermediate) {
  return 4 * (hidden * hidden + hidden) + 2 * (2 * hidden) + hidden * intermediate + intermediate +
         intermediate * hidden + hidden;
}

std::string count_text(double n) {
  if (n < 1e6) return fmt::format("{:.0f}", n);
  if (n < 1e9) return fmt::format("{:.1f} M", n / 1e6);
  if (n < 1e12) return fmt::format("{:.1f} G", n / 1e9);
  return fmt::format("{:.3g}", n);
}

std::string bytes_text(double b) {
  if (b < 1024.0 * 1024 * 1024) return fmt::format("{:.0f} MiB", b / (1024.0 * 1024));
  if (b < 1024.0 * 1024 * 1024 * 1024 * 1024) return fmt::format("{:.1f} GiB", b / (1024.0 * 1024 * 1024));
  return fmt::format("{:.3g} bytes", b);
}

// A config error thrown by a family parser: errors about the [model] section
// become that section's keys, so that the recipe locates them.
Diagnostic recipe_diagnostic(Diagnostic d) {
  if (d.where.file == "[model] section") {
    d.where = {};
    d.key_path = d.key_path.empty() ? "model" : "model." + d.key_path;
  }
  return d;
}

long long positions_needed(const nlohmann::json& data) {
  long long max_length = data.value("max_length", 0LL);
  long long multiple = data.value("pad_to_multiple_of", 0LL);
  if (multiple <= 1 || max_length % multiple == 0) return max_length;
  // Rounded up as the collator pads; a huge multiple saturates instead of overflowing.
  double rounded = std::ceil(double(max_length) / double(multiple)) * double(multiple);
  return rounded >= 9e18 ? (1LL << 62) : static_cast<long long>(rounded);
}

void check_positions(const nlohmann::json& data, const ModelShape& s, Diagnostics& out) {
  long long needed = positions_needed(data), max_length = data.value("max_length", 0LL);
  if (needed <= s.max_position_embeddings) return;
  bool rounded = needed != max_length;
  out.push_back(make_error(
      {}, rounded ? "data.pad_to_multiple_of" : "data.max_length",
      fmt::format("examples up to {} tokens{} need {} positions, but the model has "
                  "max_position_embeddings = {} (from {})",
                  max_length, rounded ? fmt::format(", padded to a multiple of {},", data.value("pad_to_multiple_of", 0LL)) : "",
                  needed, s.max_position_embeddings, s.source),
      fmt::format("set data.max_length to at most {}{}, or give the model more positions "
                  "(model.max_position_embeddings; a pretrained table cannot grow)",
                  s.max_position_embeddings, rounded ? " (a multiple of pad_to_multiple_of)" : "")));
}

void check_memory(const ModelShape& s, double memory_bytes, Diagnostics& out) {
  double params = s.parameters.total(), needed = params * kTrainingBytesPerParameter;
  if (memory_bytes <= 0 || needed <= memory_bytes) return;
  out.push_back(make_error(
      {}, "model",
      fmt::format("the model ({}) has {} parameters (embeddings {}, encoder layers {}, "
                  "classifier {}): training needs at least {} for its fp32 weights and gradients "
                  "alone, and this machine has {}",
                  s.source, count_text(params), count_text(s.parameters.embeddings),
                  count_text(s.parameters.layers), count_text(s.parameters.head), bytes_text(needed),
                  bytes_text(memory_bytes)),
      "choose a smaller model: fewer layers, a smaller hidden_size or vocabulary, or fewer labels"));
}

}  // namespace

void require_weights_fit(const ParameterCount& count, const std::string& where) {
  double memory = double(usable_memory_bytes()), needed = count.total() * kWeightBytesPerParameter;
  if (memory <= 0 || needed <= memory) return;
  throw InputError(make_error(
      SourceLocation{where, 0, 0, {}}, "",
      fmt::format("the model has {} parameters (embeddings {}, encoder layers {}, classifier {}): its "
                  "fp32 weights alone need {}, and this machine has {}",
                  count_text(count.total()), count_text(count.embeddings), count_text(count.layers),
                  count_text(count.head), bytes_text(needed), bytes_text(memory)),
      "check the sizes in the configuration (vocab_size, hidden_size, layers, labels)"));
}

ParameterCount parameter_count(const BertConfig& c) {
  double h = double(c.hidden_size);
  ParameterCount p;
  p.embeddings = (double(c.vocab_size) + double(c.max_position_embeddings) + double(c.type_vocab_size)) * h + 2 * h;
  p.layers = double(c.num_hidden_layers) * encoder_layer(h, double(c.intermediate_size));
  p.head = (h * h + h) + (h * double(c.num_labels) + double(c.num_labels));  // pooler, classifier
  return p;
}

ParameterCount parameter_count(const ElectraConfig& c) {
  const BertConfig& b = c.encoder;
  double e = double(c.embedding_size), h = double(b.hidden_size);
  ParameterCount p;
  p.embeddings = (double(b.vocab_size) + double(b.max_position_embeddings) + double(b.type_vocab_size)) * e + 2 * e;
  if (c.projects_embeddings()) p.embeddings += e * h + h;
  p.layers = double(b.num_hidden_layers) * encoder_layer(h, double(b.intermediate_size));
  p.head = (h * h + h) + (h * double(b.num_labels) + double(b.num_labels));  // dense, out_proj
  return p;
}

ParameterCount parameter_count(const DistilBertConfig& c) {
  double d = double(c.dim);
  ParameterCount p;
  // A sinusoidal table is still a (frozen) parameter of the embeddings.
  p.embeddings = (double(c.vocab_size) + double(c.max_position_embeddings)) * d + 2 * d;
  p.layers = double(c.n_layers) * encoder_layer(d, double(c.hidden_dim));
  double labels = double(c.labels.num_labels);
  p.head = (d * d + d) + (d * labels + labels);  // pre_classifier, classifier
  return p;
}

std::function<Diagnostics(const nlohmann::json&)> model_recipe_check(
    std::function<ModelShape(const nlohmann::json&, long long)> config_of) {
  return [config_of](const nlohmann::json& recipe) {
    nlohmann::json model = recipe.value("model", nlohmann::json::object());
    std::string pretrained = model.value("pretrained", std::string());
    std::string config_json = pretrained.empty() ? "" : (fs::path(pretrained) / "config.json").string();
    if (!pretrained.empty() && !fs::is_regular_file(config_json)) return Diagnostics{};
    // A file dataset declares its label count; GLUE's agree with the configs' default.
    nlohmann::json data = recipe.value("data", nlohmann::json::object());
    long long labels = data.contains("num_labels") && data["num_labels"].is_number_integer()
                           ? data["num_labels"].get<long long>() : 0;
    long long type_rows = 0;
    auto shape = [&] {
      ModelShape s = config_of(model, labels);
      s.source = pretrained.empty() ? "the [model] section" : config_json;
      type_rows = s.type_rows;
      return s;
    };
    Diagnostics out = check_model_in_recipe(recipe, shape, double(usable_memory_bytes()));
    if (auto types = check_type_ids_in_recipe(recipe, type_rows)) out.push_back(*types);
    // Caught here, not once the run has made its directory and builds the model.
    if (auto no_weights = missing_weights(pretrained)) out.push_back(*no_weights);
    return out;
  };
}

Diagnostic type_ids_past_table(long long top, long long rows) {
  return make_error({}, "tokenizer.path",
                    fmt::format("the tokenizer gives token type id {}, but the model's token type table has {} rows "
                                "(its type_vocab_size); nothing was trained",
                                top, rows),
                    "use the tokenizer that came with the model (a BERT tokenizer gives a pair's second text type "
                    "1, which a RoBERTa model has no row for)");
}

std::optional<Diagnostic> check_type_ids_in_recipe(const nlohmann::json& recipe, long long type_rows) {
  if (type_rows <= 0) return std::nullopt;
  const nlohmann::json data = recipe.value("data", nlohmann::json::object());
  const nlohmann::json tokenizer = recipe.value("tokenizer", nlohmann::json::object());
  const Component* data_kind = registry().find(Kind::Dataset, data.value("dataset", std::string()));
  const Component* tokenizer_kind = registry().find(Kind::Tokenizer, tokenizer.value("type", std::string()));
  std::error_code ec;
  if (!data_kind || !tokenizer_kind || !fs::exists(tokenizer.value("path", std::string()), ec)) return std::nullopt;
  try {
    const bool pair = std::any_cast<DatasetFactory>(data_kind->factory)(data)->info().is_pair;
    // A vocab.txt is BERT's WordPiece, whose type ids are known without loading it (a sweep checks each point).
    const WordPieceSource source{tokenizer.value("path", std::string()), tokenizer.value("format", "auto"),
                                 tokenizer.value("lowercase", "auto")};
    const bool pipeline = tokenizer.value("type", std::string()) != "wordpiece" ||
                          tokenizer_file(source).extension() != ".txt";
    const long long top = pipeline ? std::any_cast<TokenizerFactory>(tokenizer_kind->factory)(tokenizer)->largest_type_id(pair)
                                   : (pair ? 1 : 0);
    if (top < type_rows) return std::nullopt;
    return type_ids_past_table(top, type_rows);
  } catch (const std::exception&) {
    return std::nullopt;  // the dataset's or the tokenizer's own check names what is wrong
  }
}

std::optional<Diagnostic> missing_weights(const std::string& folder) {
  if (folder.empty() || !fs::is_regular_file(fs::path(folder) / "config.json")) return std::nullopt;
  for (const auto& name : hub::weight_file_names())
    if (fs::is_regular_file(fs::path(folder) / name)) return std::nullopt;
  return make_error({}, "model.pretrained",
                    fmt::format("{} has config.json but no weights: none of {}", folder,
                                fmt::join(hub::weight_file_names(), ", ")),
                    "put the weights there (save_pretrained writes them; or `huggingface-cli download ID "
                    "--local-dir FOLDER`), or remove model.pretrained and set model.preset to train from "
                    "random weights");
}

Diagnostics check_model_in_recipe(const nlohmann::json& recipe, const std::function<ModelShape()>& shape,
                                  double memory_bytes) {
  Diagnostics out;
  ModelShape s;
  try {
    s = shape();
  } catch (const InputError& e) {
    out.push_back(recipe_diagnostic(e.diagnostic()));
    return out;
  }
  check_positions(recipe.value("data", nlohmann::json::object()), s, out);
  check_memory(s, memory_bytes, out);
  return out;
}

}  // namespace runner
