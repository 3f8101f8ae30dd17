#!/usr/bin/env bash
# The suite on the code paths of the project's other CPUs, run on this one
# (`bash scripts/test.sh cpu-matrix [AREAS...]`, on demand: each variant is a
# whole test run). The machines differ in vector width (Zen 3: AVX2; Zen 4/5:
# AVX-512 with AVX512-BF16; some Intel hosts: AMX too), and a tolerance that
# holds on one only is a bug (issue 25). Each variant forces one or more of:
#   OPENBLAS_CORETYPE    OpenBLAS's fp32 GEMM kernels (Haswell = AVX2, Zen, SkylakeX = AVX-512)
#   ONEDNN_MAX_CPU_ISA   oneDNN's widest ISA: its fp32 sgemm (the runner's Linear layers)
#                        and its bf16 matmuls. AVX512_CORE_BF16 is a Zen 4/5 here (no AMX);
#                        AVX2 is a Zen 3's fp32 sgemm.
#   RUNNER_CPU_BF16      =emulated: the runner sees no native bf16 and runs bf16 matmuls on
#                        ATen's own GEMM, the path LibTorch takes on a CPU without AVX-512
#                        (its oneDNN check asks for avx512bw/vl/dq; on a real Zen 3 oneDNN
#                        prints no bf16 primitive under ONEDNN_VERBOSE=1). Capping oneDNN at
#                        AVX2 instead is not that path: LibTorch still calls oneDNN, which
#                        then fails ("could not create a primitive descriptor").
#   ATEN_CPU_CAPABILITY  ATen's own vectorised kernels (softmax, GELU, casts): avx2
#   RUNNER_KERNEL_ISA    the runner's own loops (fused AdamW, dropout): avx2, generic
# The "Zen 3" variant sets all of them as an AVX2 CPU without native bf16 has them.
# Ends with one line "N passed, N failed" over all variants.
set -uo pipefail
cd "$(dirname "$0")/.."

# OpenBLAS's kernel is the CPU's or the one OPENBLAS_CORETYPE forces (some machines
# set it in the environment); oneDNN's is always the CPU's. So a CPU meets each OpenBLAS
# kernel its vector width allows beside its own oneDNN path, which the variants pair
# (docs/dev/tests.md, "Other CPUs' code paths"):
#   Zen 4/5 (AVX-512): Haswell, Zen or SkylakeX OpenBLAS beside oneDNN's AVX-512
#   Zen 3 (AVX2):      Haswell or Zen OpenBLAS beside oneDNN's AVX2, no native bf16
variants=(
  "OPENBLAS_CORETYPE=Haswell"
  "OPENBLAS_CORETYPE=Zen"
  "OPENBLAS_CORETYPE=SkylakeX"
  "ONEDNN_MAX_CPU_ISA=AVX512_CORE_BF16"
  "RUNNER_KERNEL_ISA=avx2"
  "RUNNER_KERNEL_ISA=generic"
  "RUNNER_CPU_BF16=emulated ATEN_CPU_CAPABILITY=avx2 RUNNER_KERNEL_ISA=avx2 OPENBLAS_CORETYPE=Haswell ONEDNN_MAX_CPU_ISA=AVX2"
  "RUNNER_CPU_BF16=emulated ATEN_CPU_CAPABILITY=avx2 RUNNER_KERNEL_ISA=avx2 OPENBLAS_CORETYPE=Zen ONEDNN_MAX_CPU_ISA=AVX2"
)
# CPU_MATRIX_VARIANTS: variants separated by ";" (each one or more VAR=value words).
[[ -n ${CPU_MATRIX_VARIANTS:-} ]] && IFS=';' read -r -a variants <<<"$CPU_MATRIX_VARIANTS"

echo "cpu-matrix: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), ${#variants[@]} variants"
# A variant that forces AVX-512 kernels (OpenBLAS's SkylakeX, oneDNN's AVX512_*) dies of
# SIGILL on a CPU without AVX-512: it is skipped there, and said so.
needs_avx512() { [[ $1 == *SkylakeX* || $1 == *AVX512* ]]; }
has_avx512=0
grep -qw avx512f /proc/cpuinfo && has_avx512=1

total_passed=0 total_failed=0 rows=()
for v in "${variants[@]}"; do
  if needs_avx512 "$v" && ((!has_avx512)); then
    rows+=("$(printf '%-38s skipped: this CPU has no AVX-512' "$v")")
    echo "cpu-matrix: ${rows[-1]}"
    continue
  fi
  log=build/cpu-matrix-${v//[= \/]/_}.log
  start=$(date +%s)
  read -r -a assignments <<<"$v"
  env "${assignments[@]}" bash scripts/test.sh "$@" >"$log" 2>&1
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -n1)
  [[ -n $line ]] || line="0 passed, 1 failed"  # no summary: the run itself broke
  read -r p _ f _ <<<"$line"
  total_passed=$((total_passed + p)) total_failed=$((total_failed + f))
  rows+=("$(printf '%-38s %5d passed %3d failed %5d s   %s' "$v" "$p" "$f" $(($(date +%s) - start)) "$log")")
  echo "cpu-matrix: ${rows[-1]}"
done
printf '%s\n' "${rows[@]}"
echo "$total_passed passed, $total_failed failed"
[[ $total_failed -eq 0 ]]
