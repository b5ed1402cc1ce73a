#!/usr/bin/env bash
# Installs (once) and starts the loopback AWS emulators the adapter contract
# tests run against, each on a free port, and writes their endpoints to
# $EMU_DIR/env for the tests:
#   SVC_TEST_DYNAMODB_ENDPOINT  dynalite (DynamoDB)
#   SVC_TEST_SQS_ENDPOINT       fauxqs (SQS, JSON protocol)
#   SVC_TEST_S3_ENDPOINT        fauxqs (S3, path-style)
# down.sh stops them. Usage: up.sh EMU_DIR
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
dir="${1:?usage: up.sh EMU_DIR}"
mkdir -p "$dir"
if ! cmp -s "$here/package.json" "$dir/package.json" || [ ! -x "$dir/node_modules/.bin/dynalite" ]; then
  cp "$here/package.json" "$dir/package.json"
  (cd "$dir" && npm install --no-audit --no-fund --no-package-lock --loglevel=error)
fi
"$here/down.sh" "$dir" >/dev/null 2>&1 || true

free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
wait_port() { # name port pid
  for _ in $(seq 1 150); do
    if (echo >"/dev/tcp/127.0.0.1/$2") 2>/dev/null; then return 0; fi
    kill -0 "$3" 2>/dev/null || { echo "$1 exited:"; cat "$dir/$1.log"; return 1; }
    sleep 0.1
  done
  echo "$1 did not listen on $2:"; cat "$dir/$1.log"; return 1
}

dyn_port=$(free_port)
"$dir/node_modules/.bin/dynalite" --host 127.0.0.1 --port "$dyn_port" --createTableMs 0 --deleteTableMs 0 --updateTableMs 0 \
  >"$dir/dynalite.log" 2>&1 &
echo $! >"$dir/dynalite.pid"

fq_port=$(free_port)
FAUXQS_PORT="$fq_port" FAUXQS_HOST=127.0.0.1 FAUXQS_LOGGER=false FAUXQS_DEFAULT_REGION=eu-west-3 \
  "$dir/node_modules/.bin/node" --no-warnings "$dir/node_modules/fauxqs/dist/cli.js" >"$dir/fauxqs.log" 2>&1 &
echo $! >"$dir/fauxqs.pid"

wait_port dynalite "$dyn_port" "$(cat "$dir/dynalite.pid")"
wait_port fauxqs "$fq_port" "$(cat "$dir/fauxqs.pid")"
cat >"$dir/env" <<ENV
SVC_TEST_DYNAMODB_ENDPOINT=http://127.0.0.1:$dyn_port
SVC_TEST_SQS_ENDPOINT=http://127.0.0.1:$fq_port
SVC_TEST_S3_ENDPOINT=http://127.0.0.1:$fq_port
ENV
echo "emulators up: dynalite :$dyn_port, fauxqs :$fq_port"
