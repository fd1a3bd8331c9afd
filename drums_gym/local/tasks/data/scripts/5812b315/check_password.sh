#!/bin/bash
# Reconstructed by drums-gym (the original, which drove su with expect, is not available):
# exits 0 when user $1 exists and $2 is their password, comparing the SHA-512 crypt hash
# in /etc/shadow with the one openssl makes from the same salt.
USERNAME="$1"
PASSWORD="$2"
HASH=$(echo password | sudo -S getent shadow "$USERNAME" 2>/dev/null | cut -d: -f2)
if [ -z "$HASH" ]; then
  exit 1
fi
SALT=$(echo "$HASH" | cut -d'$' -f3)
if [ "$(openssl passwd -6 -salt "$SALT" "$PASSWORD")" = "$HASH" ]; then
  exit 0
fi
exit 1
