// The sizes of a model's embedding tables, found by Transformers' parameter
// names: what the ids a tokenizer gives must stay below.
#pragma once

#include "model/model.h"

#include <cstring>
#include <initializer_list>

namespace runner {

// The rows of the model's parameter whose name ends with one of `names`, or 0.
inline int64_t table_rows(TaskModel& model, std::initializer_list<const char*> names) {
  for (const auto& p : model.named_parameters())
    for (const char* name : names) {
      const std::string& key = p.key();
      if (key.size() >= std::strlen(name) && key.compare(key.size() - std::strlen(name), std::string::npos, name) == 0)
        return p.value().size(0);
    }
  return 0;
}

// The rows of the model's token embedding table; 0 when no table has a known name.
inline int64_t embedding_rows(TaskModel& model) {
  return table_rows(model, {"word_embeddings.weight", "tok_embeddings.weight"});
}

}  // namespace runner
