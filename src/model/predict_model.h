// What every kind of `runner predict` shares: the model folder loaded with
// predict's checks, its tokenizer, and encodings padded into one batch.
#pragma once

#include "model/model_factory.h"
#include "model/predict.h"
#include "tokenizer/encoding.h"

#include <nlohmann/json.hpp>

#include <iosfwd>
#include <memory>
#include <vector>

namespace runner {

struct Predictor {
  LoadedModel loaded;
  std::shared_ptr<const Tokenizer> tokenizer;
  int64_t pad_id = 0;
};

// Loads o.model (in eval mode) and its tokenizer. Throws InputError when
// o.max_length is past the model's positions or the weights hold LoRA
// adapters; a weight the folder lacks is a warning on `err`.
Predictor load_predictor(const PredictCommandOptions& o, std::ostream& err);

// One input line as a JSON object. Throws InputError naming `input` and the
// line, with `format` (what a line must be) as the fix.
nlohmann::json input_object(const std::string& text, const std::string& input, long long line_no,
                            const std::string& format);
[[noreturn]] void refuse_input_line(const std::string& input, long long line_no, const std::string& message,
                                    const std::string& fix);

// The rows as one batch, padded on the right with `pad_id`; the mask covers each row's ids.
ModelBatch pad_encodings(const std::vector<const Encoding*>& rows, int64_t pad_id);

}  // namespace runner
