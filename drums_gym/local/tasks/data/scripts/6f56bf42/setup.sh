#!/bin/bash
# Reconstructed by drums-gym (the original is not available).
# Create the directories and the file to copy
mkdir -p dir1 dir2 dir3
echo "This is file1." > file1
