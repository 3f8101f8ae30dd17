#include "model/pytorch_bin.h"

#include "model/safetensors.h"
#include "model/stored_zip.h"
#include "util/diagnostic.h"

#include <fmt/format.h>

#include <cstring>
#include <map>
#include <variant>

namespace runner {
namespace {

[[noreturn]] void bin_error(const std::string& path, const std::string& message,
                            const std::string& tensor = {}) {
  throw InputError(make_error(SourceLocation{path, 0, 0, {}},
                              tensor.empty() ? "" : "tensor '" + tensor + "'", message,
                              "the file is truncated or corrupt, or not written by torch.save; "
                              "model.safetensors is the safer format"));
}

// ---- the unpickler

struct Obj;
using ObjPtr = std::shared_ptr<Obj>;
struct Global { std::string module, name; };
struct Mark {};
struct Storage { std::string dtype, key; };
struct Dict { std::vector<std::pair<ObjPtr, ObjPtr>> items; };
using Tuple = std::vector<ObjPtr>;
struct Obj {
  std::variant<std::monostate, bool, int64_t, double, std::string, Tuple, Dict, Global, Mark,
               Storage, PickledTensor>
      v;
};

ObjPtr make(decltype(Obj::v) v) { return std::make_shared<Obj>(Obj{std::move(v)}); }

std::string storage_dtype(const std::string& type_name) {
  static const std::map<std::string, std::string> types = {
      {"FloatStorage", "F32"},  {"HalfStorage", "F16"}, {"BFloat16Storage", "BF16"},
      {"LongStorage", "I64"},   {"DoubleStorage", "F64"}, {"IntStorage", "I32"},
      {"ShortStorage", "I16"},  {"CharStorage", "I8"},   {"ByteStorage", "U8"},
      {"BoolStorage", "BOOL"}};
  auto it = types.find(type_name);
  return it == types.end() ? std::string() : it->second;
}

class Unpickler {
 public:
  Unpickler(const std::string& path, const ZipRecord& pkl, const std::string& archive,
            const std::map<std::string, ZipRecord>& records)
      : path_(path), p_(pkl.data), end_(pkl.data + pkl.size), archive_(archive), records_(records) {}

  ObjPtr run() {
    while (true) {
      uint8_t op = byte();
      if (op == '.') break;
      step(op);
    }
    if (stack_.size() != 1) bin_error(path_, "malformed pickle: stack not balanced at STOP");
    return stack_.back();
  }

 private:
  uint8_t byte() {
    if (p_ >= end_) bin_error(path_, "data.pkl ends before its STOP opcode");
    return *p_++;
  }
  uint64_t uint(int n) {
    if (end_ - p_ < n) bin_error(path_, "data.pkl ends inside an opcode");
    uint64_t v = read_le(p_, n);
    p_ += n;
    return v;
  }
  std::string bytes(uint64_t n) {
    if (static_cast<uint64_t>(end_ - p_) < n) bin_error(path_, "data.pkl ends inside a string");
    std::string s(reinterpret_cast<const char*>(p_), n);
    p_ += n;
    return s;
  }
  std::string line() {
    const uint8_t* nl = static_cast<const uint8_t*>(std::memchr(p_, '\n', end_ - p_));
    if (!nl) bin_error(path_, "data.pkl ends inside a GLOBAL");
    std::string s(reinterpret_cast<const char*>(p_), nl - p_);
    p_ = nl + 1;
    return s;
  }
  ObjPtr pop() {
    if (stack_.empty()) bin_error(path_, "malformed pickle: pop from an empty stack");
    ObjPtr o = stack_.back();
    stack_.pop_back();
    return o;
  }
  Tuple pop_to_mark() {
    size_t m = stack_.size();
    while (m > 0 && !std::holds_alternative<Mark>(stack_[m - 1]->v)) --m;
    if (m == 0) bin_error(path_, "malformed pickle: no MARK on the stack");
    Tuple items(stack_.begin() + m, stack_.end());
    stack_.resize(m - 1);
    return items;
  }
  Dict& top_dict() {
    if (stack_.empty() || !std::holds_alternative<Dict>(stack_.back()->v))
      bin_error(path_, "malformed pickle: SETITEM(S) without a dict");
    return std::get<Dict>(stack_.back()->v);
  }
  void memo_put(uint64_t i) {
    if (stack_.empty()) bin_error(path_, "malformed pickle: memoize with an empty stack");
    memo_[i] = stack_.back();
  }
  void memo_get(uint64_t i) {
    auto it = memo_.find(i);
    if (it == memo_.end()) bin_error(path_, "malformed pickle: unknown memo entry");
    stack_.push_back(it->second);
  }

  void step(uint8_t op);
  ObjPtr reduce(const Global& g, const Tuple& args);
  ObjPtr persistent_load(const Tuple& pid);
  PickledTensor rebuild_tensor(const Tuple& args);

  std::string path_;
  const uint8_t* p_;
  const uint8_t* end_;
  std::string archive_;
  const std::map<std::string, ZipRecord>& records_;
  std::vector<ObjPtr> stack_;
  std::map<uint64_t, ObjPtr> memo_;
};

void Unpickler::step(uint8_t op) {
  switch (op) {
    case 0x80: uint(1); break;                       // PROTO
    case 0x95: uint(8); break;                       // FRAME
    case '(': stack_.push_back(make(Mark{})); break;
    case ')': stack_.push_back(make(Tuple{})); break;
    case '}': stack_.push_back(make(Dict{})); break;
    case ']': stack_.push_back(make(Tuple{})); break;  // lists are read as tuples
    case 'N': stack_.push_back(make(std::monostate{})); break;
    case 0x88: stack_.push_back(make(true)); break;
    case 0x89: stack_.push_back(make(false)); break;
    case 'K': stack_.push_back(make(static_cast<int64_t>(uint(1)))); break;
    case 'M': stack_.push_back(make(static_cast<int64_t>(uint(2)))); break;
    case 'J': stack_.push_back(make(static_cast<int64_t>(static_cast<int32_t>(uint(4))))); break;
    case 0x8a: {                                     // LONG1
      uint64_t n = uint(1);
      if (n > 8) bin_error(path_, "integer too large in data.pkl");
      uint64_t v = n ? uint(static_cast<int>(n)) : 0;
      if (n && n < 8 && (v >> (8 * n - 1)) & 1) v |= ~0ULL << (8 * n);  // sign-extend
      stack_.push_back(make(static_cast<int64_t>(v)));
      break;
    }
    case 'G': {
      uint64_t bits = 0;
      for (int i = 0; i < 8; ++i) bits = (bits << 8) | byte();  // big-endian
      double d;
      std::memcpy(&d, &bits, 8);
      stack_.push_back(make(d));
      break;
    }
    case 'X': stack_.push_back(make(bytes(uint(4)))); break;
    case 0x8c: stack_.push_back(make(bytes(uint(1)))); break;
    case 'c': { std::string m = line(); stack_.push_back(make(Global{m, line()})); break; }
    case 0x93: {                                     // STACK_GLOBAL
      ObjPtr name = pop(), module = pop();
      auto* n = std::get_if<std::string>(&name->v);
      auto* m = std::get_if<std::string>(&module->v);
      if (!n || !m) bin_error(path_, "malformed pickle: STACK_GLOBAL without strings");
      stack_.push_back(make(Global{*m, *n}));
      break;
    }
    case 'q': memo_put(uint(1)); break;
    case 'r': memo_put(uint(4)); break;
    case 0x94: memo_put(memo_.size()); break;
    case 'h': memo_get(uint(1)); break;
    case 'j': memo_get(uint(4)); break;
    case 't': stack_.push_back(make(pop_to_mark())); break;
    case 0x85: { ObjPtr a = pop(); stack_.push_back(make(Tuple{a})); break; }
    case 0x86: { ObjPtr b = pop(), a = pop(); stack_.push_back(make(Tuple{a, b})); break; }
    case 0x87: { ObjPtr c = pop(), b = pop(), a = pop(); stack_.push_back(make(Tuple{a, b, c})); break; }
    case 'a': { ObjPtr v = pop(); (void)v; break; }  // list contents are not needed
    case 'e': pop_to_mark(); break;
    case 's': { ObjPtr v = pop(), k = pop(); top_dict().items.emplace_back(k, v); break; }
    case 'u': {
      Tuple kv = pop_to_mark();
      if (kv.size() % 2) bin_error(path_, "malformed pickle: SETITEMS with an odd count");
      Dict& d = top_dict();
      for (size_t i = 0; i < kv.size(); i += 2) d.items.emplace_back(kv[i], kv[i + 1]);
      break;
    }
    case 'b': pop(); break;                          // BUILD: state (e.g. _metadata) is ignored
    case 'Q': {
      ObjPtr pid = pop();
      auto* t = std::get_if<Tuple>(&pid->v);
      if (!t) bin_error(path_, "malformed pickle: persistent id is not a tuple");
      stack_.push_back(persistent_load(*t));
      break;
    }
    case 'R': {
      ObjPtr args = pop(), fn = pop();
      auto* g = std::get_if<Global>(&fn->v);
      auto* a = std::get_if<Tuple>(&args->v);
      if (!g || !a) bin_error(path_, "malformed pickle: REDUCE without a callable and arguments");
      stack_.push_back(reduce(*g, *a));
      break;
    }
    default:
      bin_error(path_, fmt::format("unsupported pickle opcode 0x{:02x} in data.pkl", op));
  }
}

ObjPtr Unpickler::persistent_load(const Tuple& pid) {
  // ('storage', <torch XStorage>, key, location, numel)
  auto str = [&](size_t i) { return i < pid.size() ? std::get_if<std::string>(&pid[i]->v) : nullptr; };
  const Global* type = pid.size() > 1 ? std::get_if<Global>(&pid[1]->v) : nullptr;
  if (!str(0) || *str(0) != "storage" || !type || !str(2))
    bin_error(path_, "unsupported persistent id in data.pkl (expected a torch storage)");
  std::string dtype = storage_dtype(type->name);
  if (dtype.empty()) bin_error(path_, "unsupported storage type torch." + type->name);
  return make(Storage{dtype, *str(2)});
}

ObjPtr Unpickler::reduce(const Global& g, const Tuple& args) {
  std::string fn = g.module + "." + g.name;
  if (fn == "collections.OrderedDict") return make(Dict{});
  if (fn == "torch._utils._rebuild_tensor_v2") return make(rebuild_tensor(args));
  if (fn == "torch._utils._rebuild_parameter" && !args.empty() &&
      std::holds_alternative<PickledTensor>(args[0]->v))
    return args[0];
  bin_error(path_, "unsupported object " + fn + " in data.pkl (expected a plain state dict)");
}

PickledTensor Unpickler::rebuild_tensor(const Tuple& args) {
  auto ints = [&](size_t i) {
    std::vector<int64_t> out;
    const Tuple* t = i < args.size() ? std::get_if<Tuple>(&args[i]->v) : nullptr;
    if (!t) bin_error(path_, "malformed _rebuild_tensor_v2 arguments");
    for (const auto& o : *t) {
      auto* v = std::get_if<int64_t>(&o->v);
      if (!v || *v < 0) bin_error(path_, "malformed tensor size or stride");
      out.push_back(*v);
    }
    return out;
  };
  const Storage* s = args.size() > 1 ? std::get_if<Storage>(&args[0]->v) : nullptr;
  const int64_t* offset = args.size() > 1 ? std::get_if<int64_t>(&args[1]->v) : nullptr;
  if (!s || !offset || *offset < 0) bin_error(path_, "malformed _rebuild_tensor_v2 arguments");
  auto rec = records_.find(archive_ + "/data/" + s->key);
  if (rec == records_.end()) bin_error(path_, "storage record data/" + s->key + " is missing");
  PickledTensor t;
  t.dtype = s->dtype;
  t.storage_offset = *offset;
  t.shape = ints(2);
  t.strides = ints(3);
  t.storage = rec->second.data;
  t.storage_bytes = rec->second.size;
  return t;
}

// The last element a strided view touches must lie inside its storage.
void check_extent(const PickledTensor& t, const std::string& path) {
  if (t.shape.size() != t.strides.size())
    bin_error(path, "size and stride have different ranks", t.name);
  uint64_t last = static_cast<uint64_t>(t.storage_offset);
  for (size_t i = 0; i < t.shape.size(); ++i) {
    if (t.shape[i] == 0) return;
    last += static_cast<uint64_t>(t.shape[i] - 1) * static_cast<uint64_t>(t.strides[i]);
  }
  uint64_t elem = safetensors_dtype_size(t.dtype);
  if ((last + 1) * elem > t.storage_bytes)
    bin_error(path, fmt::format("its view needs {} bytes but its storage holds {}", (last + 1) * elem,
                                t.storage_bytes), t.name);
}

}  // namespace

PytorchBinFile::PytorchBinFile(const std::string& path) : file_(std::make_shared<MappedFile>(path)) {
  auto records = read_stored_zip(*file_);
  std::string archive;
  for (const auto& [name, rec] : records) {
    auto slash = name.find('/');
    if (slash != std::string::npos && name.substr(slash) == "/data.pkl") archive = name.substr(0, slash);
  }
  if (archive.empty()) bin_error(path, "the zip archive has no <name>/data.pkl record");
  Unpickler u(path, records.at(archive + "/data.pkl"), archive, records);
  ObjPtr root = u.run();
  auto* dict = std::get_if<Dict>(&root->v);
  if (!dict) bin_error(path, "data.pkl does not hold a state dict");
  for (const auto& [k, v] : dict->items) {
    auto* name = std::get_if<std::string>(&k->v);
    auto* tensor = std::get_if<PickledTensor>(&v->v);
    if (!name || !tensor) bin_error(path, "the state dict holds a non-tensor entry");
    PickledTensor t = *tensor;
    t.name = *name;
    check_extent(t, path);
    tensors_.push_back(std::move(t));
  }
}

}  // namespace runner
