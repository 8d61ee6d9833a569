#!/bin/bash
# Issue 11 device run: build, tests, the tree kernel on the seed's cases (bench script and CLI).
set -o pipefail
export PYTHONUNBUFFERED=1 TORCH_CUDA_ARCH_LIST=9.0 MAX_JOBS=16
here=$(cd "$(dirname "$0")" && pwd)
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site "$here"/whl/*.whl || exit 4
cd "$here/repo"
export PYTHONPATH=/tmp/site:$PWD PATH=$here/bin:$PATH
mkdir -p /tmp/corpus && tar -xJf "$here/shared/corpora/mlxcel-2026-07.tar.xz" -C /tmp/corpus mlxcel/src/lib/mlxcel-core/cpp
CORPUS=/tmp/corpus/mlxcel
{ nvidia-smi -L; python3 -c 'import torch; print(torch.__version__, torch.version.cuda)'; nvcc --version | tail -1; git log -1 --oneline 2>/dev/null; } > $OUT/log.txt 2>&1
python3 bench/kernels/ssm_tree_device.py --tree $CORPUS --upstream tests/kernels/fixtures/upstream_shaped --out $OUT >> $OUT/log.txt 2>&1
cases=("--seed 2069 --a-log-dtype bf16" "--seed 2071 --a-log-dtype bf16" "--shape nemotron-h --seed 2070 --a-log-dtype f32" "--seed 2072 --a-log-dtype f32" "--act-dtype f32 --a-log-dtype f32 --seed 2069" "--shape nemotron-h --act-dtype f32 --a-log-dtype f32 --seed 2070")
for i in "${!cases[@]}"; do
  ( echo "\$ ssm-diff --tree \$CORPUS --device cuda ${cases[$i]}"; ssm-diff --tree $CORPUS --device cuda ${cases[$i]}; echo "exit status $?"; echo ) > /tmp/cli_$i.txt 2>&1 &
done
( echo "\$ ssm-diff --tree tests/kernels/fixtures/upstream_shaped --device cuda --instance ssm_kernel_cu --a-log-dtype f32 --seed 2072"; ssm-diff --tree tests/kernels/fixtures/upstream_shaped --device cuda --instance ssm_kernel_cu --a-log-dtype f32 --seed 2072; echo "exit status $?" ) > /tmp/cli_9.txt 2>&1 &
wait
cat /tmp/cli_*.txt > $OUT/ssm_diff_tree_cuda.txt
python3 -m pytest -q -p no:cacheprovider tests/kernels > $OUT/pytest_kernels.txt 2>&1
tail -3 $OUT/pytest_kernels.txt
cat $OUT/ssm_diff_tree_cuda.txt | head -80
