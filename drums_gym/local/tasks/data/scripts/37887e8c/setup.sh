#!/bin/bash
# Reconstructed by drums-gym (the original is not available): files under /tmp/test_files,
# some last modified more than 30 days ago (old_*), some recently (new_*).
mkdir -p /tmp/test_files/sub1 /tmp/test_files/sub2/deep
echo "old report" > /tmp/test_files/old_report.txt
echo "old data" > /tmp/test_files/sub1/old_data.csv
echo "old log" > /tmp/test_files/sub2/deep/old_app.log
echo "new notes" > /tmp/test_files/new_notes.txt
echo "new data" > /tmp/test_files/sub1/new_data.csv
echo "new log" > /tmp/test_files/sub2/new_app.log
touch -d "35 days ago" /tmp/test_files/old_report.txt
touch -d "40 days ago" /tmp/test_files/sub1/old_data.csv
touch -d "60 days ago" /tmp/test_files/sub2/deep/old_app.log
touch -d "10 days ago" /tmp/test_files/new_notes.txt
touch -d "2 days ago" /tmp/test_files/sub1/new_data.csv
