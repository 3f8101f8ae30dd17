#include "model/layer_recompute.h"

#include "model/autocast_state.h"

#include <mutex>

namespace runner {
namespace {

// The generators a layer's dropout draws from: the default CPU one (the CPU
// dropout kernel's seed) and, for a CUDA input, its device's.
struct GeneratorStates {
  torch::Tensor cpu, cuda;
  c10::Device device = c10::Device(c10::kCPU);

  static at::Generator generator(c10::Device d) { return at::globalContext().defaultGenerator(d); }

  static GeneratorStates capture(const torch::Tensor& input) {
    GeneratorStates s;
    s.device = input.device();
    s.cpu = read(c10::Device(c10::kCPU));
    if (input.is_cuda()) s.cuda = read(input.device());
    return s;
  }
  static torch::Tensor read(c10::Device d) {
    at::Generator g = generator(d);
    std::lock_guard<std::mutex> lock(g.mutex());
    return g.get_state();
  }
  static void write(c10::Device d, const torch::Tensor& state) {
    at::Generator g = generator(d);
    std::lock_guard<std::mutex> lock(g.mutex());
    g.set_state(state);
  }
  void restore() const {
    write(c10::Device(c10::kCPU), cpu);
    if (cuda.defined()) write(device, cuda);
  }
};

// What the backward needs besides the saved input.
struct Recomputation : torch::CustomClassHolder {
  LayerCall layer;
  GeneratorStates generators;
  AutocastState autocast;
};

class RecomputedLayer : public torch::autograd::Function<RecomputedLayer> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& input,
                               c10::intrusive_ptr<Recomputation> r) {
    r->generators = GeneratorStates::capture(input);
    r->autocast = AutocastState::current();
    ctx->save_for_backward({input});
    ctx->saved_data["recomputation"] = c10::IValue::make_capsule(r);
    return r->layer(input);  // autograd records nothing inside a Function's forward
  }

  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                               torch::autograd::tensor_list grads) {
    auto r = c10::static_intrusive_pointer_cast<Recomputation>(ctx->saved_data["recomputation"].toCapsule());
    const torch::Tensor saved = ctx->get_saved_variables()[0];
    torch::Tensor input = saved.detach().requires_grad_(saved.requires_grad());
    torch::Tensor output;
    {
      const GeneratorStates now = GeneratorStates::capture(input);
      r->generators.restore();
      AutocastStateGuard autocast(r->autocast);
      torch::AutoGradMode grad(true);
      output = r->layer(input);
      now.restore();
    }
    torch::autograd::backward({output}, {grads[0]});
    return {input.requires_grad() ? input.grad() : torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

torch::Tensor recomputed_in_backward(LayerCall layer, const torch::Tensor& input) {
  auto r = c10::make_intrusive<Recomputation>();
  r->layer = std::move(layer);
  // A Function's output requires a gradient only when an input does. Below
  // frozen embeddings (a LoRA run) none would, and the adapters inside the
  // layer would silently get no gradient; so the input enters as a leaf that
  // requires one, as Transformers' enable_input_require_grads() arranges for PEFT.
  const bool frozen_below = torch::GradMode::is_enabled() && !input.requires_grad();
  return RecomputedLayer::apply(frozen_below ? input.detach().requires_grad_(true) : input, r);
}

}  // namespace runner
