#!/bin/bash
# Reconstructed by drums-gym (the original is not available): the files last modified
# more than 30 days ago are gzip-compressed in place (FILE.gz, no FILE left); the recent
# ones are untouched.
for f in old_report.txt sub1/old_data.csv sub2/deep/old_app.log; do
  if [ -e "/tmp/test_files/$f" ] || [ ! -f "/tmp/test_files/$f.gz" ]; then
    echo "Failure: /tmp/test_files/$f was not compressed."
    exit 1
  fi
  if ! file "/tmp/test_files/$f.gz" | grep -q "gzip compressed data"; then
    echo "Failure: /tmp/test_files/$f.gz is not gzip data."
    exit 1
  fi
done
for f in new_notes.txt sub1/new_data.csv sub2/new_app.log; do
  if [ ! -f "/tmp/test_files/$f" ] || [ -e "/tmp/test_files/$f.gz" ]; then
    echo "Failure: /tmp/test_files/$f should not have been compressed."
    exit 1
  fi
done
echo "Success: The task was completed correctly."
