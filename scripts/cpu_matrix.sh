#!/usr/bin/env bash
# The suite on the code paths of the project's other CPUs, run on this one
# (`bash scripts/test.sh cpu-matrix [AREAS...]`, on demand: each variant is a
# whole test run). The machines differ in vector width (Zen 3: AVX2; Zen 4/5:
# AVX-512 with AVX512-BF16; some Intel hosts: AMX too), and a tolerance that
# holds on one only is a bug (issue 25). Each variant forces one of:
#   OPENBLAS_CORETYPE   OpenBLAS's fp32 GEMM kernels (Haswell = AVX2, Zen, SkylakeX = AVX-512)
#   ONEDNN_MAX_CPU_ISA  oneDNN's widest ISA for its bf16 matmuls: AVX512_CORE_BF16 is a
#                       Zen 4 here (no AMX). Not AVX2: LibTorch 1.13 reads the CPU's flags
#                       itself and still sends bf16 matmuls to oneDNN, which then cannot
#                       build them ("could not create a primitive descriptor iterator"); a
#                       real Zen 3 takes ATen's own bf16 GEMM, which the bf16 parity test
#                       runs on every CPU (Bf16Autocast with aten_gemm).
#   RUNNER_KERNEL_ISA   the runner's own loops (fused AdamW, dropout): avx2, generic
# Ends with one line "N passed, N failed" over all variants.
set -uo pipefail
cd "$(dirname "$0")/.."

variants=(
  "OPENBLAS_CORETYPE=Haswell"
  "OPENBLAS_CORETYPE=Zen"
  "OPENBLAS_CORETYPE=SkylakeX"
  "ONEDNN_MAX_CPU_ISA=AVX512_CORE_BF16"
  "RUNNER_KERNEL_ISA=avx2"
  "RUNNER_KERNEL_ISA=generic"
)
[[ -n ${CPU_MATRIX_VARIANTS:-} ]] && read -r -a variants <<<"$CPU_MATRIX_VARIANTS"

echo "cpu-matrix: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), ${#variants[@]} variants"
total_passed=0 total_failed=0 rows=()
for v in "${variants[@]}"; do
  log=build/cpu-matrix-${v//[=\/]/_}.log
  start=$(date +%s)
  env "$v" bash scripts/test.sh "$@" >"$log" 2>&1
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
