#!/bin/bash
# Service round trip before/after, interleaved ABBA: old 7c587d1, new (HEAD).
OLD=/work/old/target/release/nerve-bench; NEW=/work/main/target/release/nerve-bench; OUT=$1; mkdir -p $OUT
for r in 1 2 3 4; do
  if [ $((r % 2)) = 1 ]; then order="old new"; else order="new old"; fi
  for side in $order; do
    bin=$OLD; [ $side = new ] && bin=$NEW
    $bin rpc --quick --systems nerve --rounds 1 --no-setup --json $OUT/rpc-$side-$r.json > /dev/null 2>&1
  done
done
python3 - "$OUT" <<'PY'
import json, sys, statistics
out = sys.argv[1]
def rows(path):
    d = json.load(open(path))
    return [(f"{r['transport']} {r['message']} {r['payload_bytes']} B #{i}", r['p50'])
            for i, r in enumerate(x for x in d['results'] if x['api'] == 'rust' and x['metric'] == 'rtt_ns' and x['topology'] == '1:1')]
ratios = {}
for r in range(1, 5):
    for (k, o), (_, n) in zip(rows(f'{out}/rpc-old-{r}.json'), rows(f'{out}/rpc-new-{r}.json')):
        ratios.setdefault(k, []).append((o, n, n / o))
summary = {}
for k, v in ratios.items():
    med = statistics.median(x[2] for x in v)
    summary[k] = {'old_p50_ns': [x[0] for x in v], 'new_p50_ns': [x[1] for x in v], 'median_ratio': med}
    print(f"{k}: old {[x[0] for x in v]} new {[x[1] for x in v]} median ratio {med:.3f}")
json.dump(summary, open(f'{out}/summary.json', 'w'), indent=1)
PY
