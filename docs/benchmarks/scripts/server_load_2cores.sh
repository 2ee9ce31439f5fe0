#!/bin/bash
# Load runs of `compclust serve` on a quiet machine of 10 or more cores: the server pinned to
# 2 cores, the crowd to 8 others (docs/benchmarks/server.md). Put load.toml, items.txt and
# truth.csv of that page in DIR (default: this script's folder); COMPCLUST is the binary.
# Loopback only; each run stops after MAXS seconds (15).
D=${DIR:-$(cd "$(dirname "$0")" && pwd)}; B=${COMPCLUST:-$D/compclust}; W=/tmp/load; mkdir -p $W; cp $D/items.txt $D/truth.csv $D/load.toml $W/; cd $W
nproc; lscpu | grep "Model name"; uptime
one() { # name participants think server_cores crowd_cores
  rm -f $W/load.db*
  taskset -c $4 $B serve --study load.toml --db sqlite:$W/load.db --bind 127.0.0.1:8431 --admin-token bench-token-123 --rate-limit 1000 --burst 1000 > $W/serve.log 2>&1 &
  S=$!; sleep 1
  echo "== $1: participants=$2 think=$3 server cores=$4 crowd cores=$5"
  taskset -c $5 $B crowd --server http://127.0.0.1:8431 --study load --participants $2 --truth truth.csv --max-seconds ${MAXS:-15} --think-ms $3 --prefix b 2>&1 | tail -8
  kill $S; wait $S 2>/dev/null
}
one quiet-1000-t0 1000 0 0,1 2-9
one quiet-1000-t400 1000 400 0,1 2-9
one quiet-100-t0 100 0 0,1 2-9
one shared-1000-t0 1000 0 0,1 0,1
