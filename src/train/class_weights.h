// train.class_weights / train.class_weighting: per-class weights of the
// training loss for imbalanced data. Cross-entropy weighs each class as
// torch's CrossEntropyLoss(weight=); multi-label's BCE takes them as
// pos_weight, one per label. Torch-free.
#pragma once

#include "data/tokenized_split.h"
#include "train/train_options.h"

#include <vector>

namespace runner {

// The weights the run trains with; empty when neither option is set.
// "balanced" follows scikit-learn's compute_class_weight: n_samples /
// (n_classes * count of the class); for multi-label, each label's negatives
// over its positives (BCEWithLogitsLoss's pos_weight). Throws InputError for
// a regression, a list of the wrong length, or a class with no example.
std::vector<double> resolve_class_weights(const TrainerConfig& config, const TokenizedSplit& train,
                                          ProblemType problem, long long num_labels);

}  // namespace runner
