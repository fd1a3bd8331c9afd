#!/bin/bash
# Reconstructed by drums-gym (the original is not available): the text of
# /home/user/output.txt, as $(cat ...) reads it (trailing newlines dropped), must be the
# three lines 1<br/>, 2<br/>, 3<br/>.
expected="1<br/>
2<br/>
3<br/>"
actual=$(cat /home/user/output.txt)
if [ "$actual" = "$expected" ]; then
  echo "Success: The task has been completed correctly."
else
  echo "Failure: output.txt does not hold the expected lines."
fi
