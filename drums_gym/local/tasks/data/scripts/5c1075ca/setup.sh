#!/bin/bash
# Reconstructed by drums-gym (the original is not available): a tree of notebooks under
# ~/test_environment, some of them failed runs (*failed.ipynb) at several depths.
mkdir -p test_environment/experiments/run1 test_environment/experiments/run2/logs
mkdir -p test_environment/notebooks/archive
cd test_environment || exit 1
echo '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}' > train_failed.ipynb
echo '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}' > train.ipynb
echo '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}' > experiments/run1/eval_failed.ipynb
echo '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}' > experiments/run1/eval.ipynb
echo '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}' > experiments/run2/logs/plot_failed.ipynb
echo '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}' > experiments/run2/summary.ipynb
echo '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}' > notebooks/archive/old_failed.ipynb
echo "failed run notes" > notebooks/notes_failed.txt
