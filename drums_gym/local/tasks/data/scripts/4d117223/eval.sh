#!/bin/bash
# Reconstructed by drums-gym (the original is not available): every regular file under
# testDir, as `ls -l` lists it, must have the permission string -rw-r--r--.
bad=$(find testDir -type f -exec ls -l {} \; | grep -v '^-rw-r--r--' | wc -l)
if [ "$bad" -eq 0 ]; then
  echo "All files have the correct permissions."
else
  echo "Some files do not have the correct permissions."
fi
