#!/usr/bin/env bash
# Stops the emulators up.sh started. Usage: down.sh EMU_DIR
dir="${1:?usage: down.sh EMU_DIR}"
for name in dynamodb fauxqs; do
  if [ -f "$dir/$name.pid" ]; then
    kill "$(cat "$dir/$name.pid")" 2>/dev/null || true
    rm -f "$dir/$name.pid"
  fi
done
rm -f "$dir/env"
