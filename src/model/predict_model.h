// What every kind of `runner predict` shares: the model folder loaded with
// predict's checks, its tokenizer, and encodings padded into one batch.
#pragma once

#include "model/model_factory.h"
#include "model/predict.h"
#include "tokenizer/encoding.h"
#include "util/input_file.h"

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

// Each non-blank line of `in` with its number (from 1) to `add`; `flush`
// after every `batch_size` of them and once at the end, so that each batch
// goes out as soon as it is read.
template <class Add, class Flush>
void for_each_input_batch(std::istream& in, int batch_size, Add add, Flush flush) {
  std::string text;
  int pending = 0;
  for (long long line_no = 1; read_bounded_line(in, text, "--input", line_no); ++line_no) {
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
    add(text, line_no);
    if (++pending >= batch_size) {
      flush();
      pending = 0;
    }
  }
  flush();
}

// The rows as one batch, padded on the right with `pad_id`; the mask covers each row's ids.
ModelBatch pad_encodings(const std::vector<const Encoding*>& rows, int64_t pad_id);

}  // namespace runner
