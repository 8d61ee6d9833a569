#!/bin/bash
# Issue 22's device run: mlxcel's seven SSM parity checks through MLX's CUDA back-end.
# Run from a carried folder holding kernels/, codemods/, tests/, pyproject.toml, this script,
# whl/ (tree-sitter wheels for Python 3.12) and corpus/mlxcel (the tree's files --tree reads),
# after `source .mlx/activate.sh` (../shared/tools/mlx-cuda-carry.sh) has put MLX on PYTHONPATH:
#   source .mlx/activate.sh && cd .dev22 && bash mlx_run.sh      (MLX_RUN_FILE_ORDER=0 skips the file-order run)
set -o pipefail
export PYTHONUNBUFFERED=1
here=$(cd "$(dirname "$0")" && pwd)
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site22 "$here"/whl/*.whl || exit 4
export PYTHONPATH=$here:/tmp/site22:${PYTHONPATH:-}
cd "$here"
CORPUS=$here/corpus/mlxcel
ssm_diff() { python3 -c 'import sys; from kernels.cli import ssm_diff_main; ssm_diff_main(prog_name="ssm-diff")' "$@"; }
{ date -u; nvidia-smi -L; nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader
  python3 -c 'import mlx.core as mx; print("mlx", mx.__version__, mx.default_device(), "cuda", mx.cuda.is_available(), mx.device_info())'
  nvcc --version | tail -1; echo "carried tree: $(ls $CORPUS/src/lib/mlxcel-core/cpp)"; } > $OUT/log.txt 2>&1
cat $OUT/log.txt
start=$(date +%s)
echo '$ ssm-diff --engine mlx --tree $CORPUS --json' >> $OUT/log.txt
ssm_diff --engine mlx --tree $CORPUS --json > $OUT/ssm_diff_mlx.json 2>> $OUT/log.txt
echo "exit status $? after $(( $(date +%s) - start )) s" | tee -a $OUT/log.txt
python3 -c 'import json, sys; from kernels.mlx_cli import render; print(render(json.load(open(sys.argv[1]))))' \
  $OUT/ssm_diff_mlx.json > $OUT/ssm_diff_mlx.txt 2>> $OUT/log.txt
cat $OUT/ssm_diff_mlx.txt
if [ "${MLX_RUN_FILE_ORDER:-1}" = 1 ]; then
start=$(date +%s)
( echo '$ ssm-diff --engine mlx --tree $CORPUS --order file --check 2069 --check 2070 --check 2071 --check 2072'
  ssm_diff --engine mlx --tree $CORPUS --order file --check 2069 --check 2070 --check 2071 --check 2072; echo "exit status $?" ) \
  > $OUT/ssm_diff_mlx_file_order.txt 2>&1
echo "file order run: $(( $(date +%s) - start )) s" | tee -a $OUT/log.txt
fi
SSM_MLX_TREE=$CORPUS python3 -m pytest -q -p no:cacheprovider tests/kernels/test_mlx.py > $OUT/pytest_mlx.txt 2>&1
tail -3 $OUT/pytest_mlx.txt
