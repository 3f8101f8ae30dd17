// Weights that are a closed-form function of a parameter's name and element
// index, so that a base-sized model's parity test needs no committed weights:
// scripts/golden/family_base_parity.py computes the same values in torch (its
// docstring states the formula) and Transformers' outputs for them are the golden.
#pragma once

#include <torch/torch.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string>

namespace runner::test {

// FNV-1a, 32 bits, of the name's bytes.
inline int64_t fnv1a32(const std::string& name) {
  uint32_t h = 0x811C9DC5u;
  for (unsigned char c : name) h = (h ^ c) * 0x01000193u;
  return static_cast<int64_t>(h);
}

// Element k of `name`'s flattened tensor: an integer hash of k + fnv1a32(name)
// mapped to u in [-0.05, 0.05] in steps of 5e-5; 1 + u for a norm's gain. All
// int64 products stay below 2^32 x 2^27 = 2^59.
inline torch::Tensor closed_form_weight(const std::string& name, at::IntArrayRef shape) {
  constexpr int64_t kMask = 0xFFFFFFFF, kMul = 0x45D9F3B;
  int64_t numel = 1;
  for (int64_t s : shape) numel *= s;
  torch::Tensor x = (torch::arange(numel, torch::kInt64) + fnv1a32(name)).bitwise_and(kMask);
  x = ((x.__rshift__(16)).bitwise_xor(x) * kMul).bitwise_and(kMask);
  x = ((x.__rshift__(16)).bitwise_xor(x) * kMul).bitwise_and(kMask);
  x = x.__rshift__(16).bitwise_xor(x);
  torch::Tensor u = (x.remainder(2001) - 1000).to(torch::kFloat64) * 5e-5;
  std::string lower = name;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  const std::string gain = ".weight";
  if (lower.find("norm") != std::string::npos && lower.size() >= gain.size() &&
      lower.compare(lower.size() - gain.size(), gain.size(), gain) == 0)
    u = u + 1;
  return u.to(torch::kFloat32).view(shape);
}

}  // namespace runner::test
