#!/bin/bash
# Reconstructed by drums-gym (the original is not available): every *failed.ipynb of
# ~/test_environment must be in ~/test_environment/fails at the same relative path (not
# flattened), and no other file may be copied there.
cd ~/test_environment 2>/dev/null || { echo "Evaluation failed: no test_environment."; exit 1; }
for f in train_failed.ipynb experiments/run1/eval_failed.ipynb \
         experiments/run2/logs/plot_failed.ipynb notebooks/archive/old_failed.ipynb; do
  if [ ! -f "fails/$f" ]; then
    echo "Evaluation failed: fails/$f is missing."
    exit 1
  fi
  if [ ! -f "$f" ]; then
    echo "Evaluation failed: $f was moved, not copied."
    exit 1
  fi
done
others=$(find fails -type f ! -name '*failed.ipynb' | wc -l)
if [ "$others" -ne 0 ]; then
  echo "Evaluation failed: fails holds files that do not match *failed.ipynb."
  exit 1
fi
for f in eval_failed.ipynb plot_failed.ipynb old_failed.ipynb; do
  if [ -e "fails/$f" ]; then
    echo "Evaluation failed: fails/$f: the directory hierarchy was not preserved."
    exit 1
  fi
done
echo "Evaluation successful."
