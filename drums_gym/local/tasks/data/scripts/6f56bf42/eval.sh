#!/bin/bash
# Reconstructed by drums-gym (the original is not available): file1 must be a regular
# file in dir1, dir2 and dir3; the check stops at the first directory without it.
for dir in dir1 dir2 dir3; do
  if [ -f "$dir/file1" ]; then
    echo "Success: file1 exists in $dir."
  else
    echo "Failure: file1 does not exist in $dir."
    exit 1
  fi
done
