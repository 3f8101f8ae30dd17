// Every registered component can be built from its declared defaults alone
// (plus the few options declared required) and does something real.
#include "catch.h"

#include <fstream>

#include "glue_files.h"
#include "shared.h"

#include "data/dataset.h"
#include "model/model_factory.h"
#include "optim/optimizer.h"
#include "optim/scheduler.h"
#include "recipe/resolve.h"
#include "train/logger.h"
#include "tokenizer/tokenizer.h"
#include "train/metric.h"
#include "util/paths.h"

#include <cmath>

using namespace runner;

namespace {

// The preset with the fewest parameters a model component offers, by name.
std::string smallest_preset(const ComponentSpec& spec) {
  const OptionSpec* preset = find_option(spec.options, "preset");
  if (!preset) return {};
  for (const char* size : {"tiny", "mini", "small"})
    for (const auto& name : preset->choices)
      if (name.find(size) != std::string::npos) return name;
  return preset->default_value.get<std::string>();
}

// The resolved section for `component`: every default, plus a value for each
// required option (they have none by definition).
nlohmann::json defaults_of(Kind kind, const std::string& component) {
  const SectionSpec* section = nullptr;
  for (const auto& s : recipe_sections())
    if (s.component_kind == kind) section = &s;
  REQUIRE(section);
  Value tree = Value::make_table();
  Value body = Value::make_table();
  body.set(section->selector_key, Value::make_string(component));
  for (const auto& o : registry().find(kind, component)->spec.options)
    if (o.required && o.name == "dir") body.set("dir", Value::make_string("glue/SST-2"));
  // ../shared holds MRPC and SST-2; the other GLUE tasks read made-up files in their layouts.
  for (const auto& t : test::made_up_glue_tasks())
    if (kind == Kind::Dataset && component == "glue/" + t.task)
      body.set("dir", Value::make_string(test::write_glue_task(test::tmp_dir("components_" + t.task), t.task)));
  // The token datasets read their label list from a train split of tagged words.
  if (kind == Kind::Dataset && (component == "conll" || component == "token_jsonl")) {
    const std::string data = test::tmp_dir("components_" + component);
    std::ofstream(data + "/train.conll") << "EU B-ORG\nrejects O\nGerman B-MISC\n\n";
    std::ofstream(data + "/train.jsonl") << "{\"tokens\": [\"EU\", \"rejects\"], \"tags\": [\"B-ORG\", \"O\"]}\n";
    body.set("dir", Value::make_string(data));
  }
  tree.set(section->name, body);
  Diagnostics diags;
  auto resolved = resolve_tree(tree, registry(), ResolveOptions{"defaults.toml", true}, diags);
  INFO(format_all(diags));
  REQUIRE_FALSE(has_errors(diags));
  return nlohmann::json::parse(resolved[section->name].dump());
}

}  // namespace

TEST_CASE("every dataset, tokenizer and model builds from its defaults", "[components]") {
  for (const Component* c : registry().list(Kind::Dataset)) {
    INFO(c->spec.name);
    auto ds = std::any_cast<DatasetFactory>(c->factory)(defaults_of(Kind::Dataset, c->spec.name));
    REQUIRE(ds);
    CHECK(ds->info().num_labels >= 1);
  }
  for (const Component* c : registry().list(Kind::Tokenizer)) {
    auto tok = std::any_cast<TokenizerFactory>(c->factory)(defaults_of(Kind::Tokenizer, c->spec.name));
    std::vector<int32_t> ids;
    tok->tokenize("Hello, world!", ids);
    CHECK(ids == std::vector<int32_t>{7592, 1010, 2088, 999});  // golden edge-002 without [CLS]/[SEP]
  }
  for (const Component* c : registry().list(Kind::Model)) {
    INFO(c->spec.name);
    nlohmann::json options = defaults_of(Kind::Model, c->spec.name);
    options["type"] = c->spec.name;
    options["preset"] = smallest_preset(c->spec);  // the base sizes work too, but take seconds
    auto model = make_model(options, ModelContext{2, {"no", "yes"}});
    REQUIRE(model);
    CHECK(model->num_labels() == 2);
    CHECK(model->named_parameters().size() > 10);
  }
}

TEST_CASE("every optimizer, scheduler, metric and logger builds from its defaults", "[components]") {
  for (const Component* c : registry().list(Kind::Optimizer)) {
    INFO(c->spec.name);
    torch::Tensor w = torch::ones({2, 2}, torch::requires_grad());
    auto optimizer = std::any_cast<OptimizerFactory>(c->factory)(
        defaults_of(Kind::Optimizer, c->spec.name), {NamedParameter{"w", w}});
    (w * w).sum().backward();
    optimizer->step(0.1);
    CHECK(w.max().item<double>() < 1.0);  // every optimizer moves against a positive gradient
  }
  for (const Component* c : registry().list(Kind::Scheduler)) {
    INFO(c->spec.name);
    LrMultiplier m = std::any_cast<SchedulerFactory>(c->factory)(
        defaults_of(Kind::Scheduler, c->spec.name), ScheduleParams{100, 10, 1e-3});
    for (long long step : {0LL, 5LL, 50LL, 99LL}) CHECK(std::isfinite(m(step)));
  }
  MetricInput single, multi, regression;
  single.predictions = multi.predictions = {1, 0, 1, 1};
  single.labels = multi.labels = {1, 1, 0, 1};
  multi.problem = ProblemType::MultiLabel;
  multi.label_count = 2;  // two examples of two labels
  regression.problem = ProblemType::Regression;
  regression.scores = {0.5, 1.5, 1.0};
  regression.targets = {1.0, 2.0, 0.0};
  for (const Component* c : registry().list(Kind::Metric)) {
    INFO(c->spec.name);
    for (const MetricInput* in : {&single, &multi, &regression}) {
      if (!metric_fits(c->spec, in->problem)) continue;
      MetricValue v = std::any_cast<MetricFactory>(c->factory)()(*in);
      CHECK(std::isfinite(v.value));
    }
  }
  std::string dir = test::tmp_dir("loggers");
  for (const Component* c : registry().list(Kind::Logger)) {
    auto logger = std::any_cast<LoggerFactory>(c->factory)(nlohmann::json::object(), LoggerContext{dir, false});
    logger->log({{"event", "eval"}, {"step", 1}, {"eval.accuracy", 0.5}});
  }
}
