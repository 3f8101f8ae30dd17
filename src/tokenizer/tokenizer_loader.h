// Chooses and loads the tokenizer of a model folder (or one file in it):
// vocab.txt, or a tokenizer.json that is BERT's WordPiece, goes to the
// WordPiece tokenizer (transformers' BertTokenizer parity); any other
// tokenizer.json runs as a Hugging Face tokenizers pipeline (json_tokenizer.h), and so
// does a DeBERTa folder's spm.model when the folder has no tokenizer.json (spm_tokenizer.h).
#pragma once

#include "tokenizer/tokenizer.h"
#include "tokenizer/wordpiece_loader.h"

namespace runner {

std::shared_ptr<const Tokenizer> load_tokenizer(const WordPieceSource& source);

// The registration of the 'wordpiece' tokenizer component (which reads any
// tokenizer.json too: a recipe naming a RoBERTa folder needs no other type).
class Registry;
void register_tokenizers(Registry& r);

}  // namespace runner
