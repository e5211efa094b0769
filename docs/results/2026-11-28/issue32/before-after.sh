#!/bin/bash
# Issue 32 before/after: old (7c587d1) and new nerve-bench alternating, ABBA, 8 rounds.
OLD=/work/old/target/release/nerve-bench
NEW=/work/main/target/release/nerve-bench
OUT=$1
mkdir -p $OUT
for r in 1 2 3 4 5 6 7 8; do
  if [ $((r % 2)) = 1 ]; then order="old new"; else order="new old"; fi
  for side in $order; do
    bin=$OLD; [ $side = new ] && bin=$NEW
    $bin ipc --quick --systems nerve --only "cross-process poll 1:1" --rounds 1 --json $OUT/ipc-$side-$r.json > /dev/null 2>&1
    $bin open --n 3000 --rounds 1 --out $OUT/open-$side-$r.jsonl > /dev/null 2>&1
  done
done
python3 - "$OUT" <<'PY'
import json, sys, statistics
out = sys.argv[1]
def hop(path):
    d = json.load(open(path))
    for r in d['results']:
        if r['system'] == 'nerve' and r['transport'] == 'cross-process' and r['topology'] == '1:1' \
           and r['mode'] == 'poll' and r['message'] == 'CmdVel' and r['metric'] == 'one_way_ns':
            return r['p50']
def opn(path):
    return json.loads(open(path).read().splitlines()[0])['p50_ns']
rows = []
for r in range(1, 9):
    h = (hop(f'{out}/ipc-old-{r}.json'), hop(f'{out}/ipc-new-{r}.json'))
    o = (opn(f'{out}/open-old-{r}.jsonl'), opn(f'{out}/open-new-{r}.jsonl'))
    rows.append({'round': r, 'hop_old_ns': h[0], 'hop_new_ns': h[1], 'hop_ratio': h[1] / h[0],
                 'open_old_ns': o[0], 'open_new_ns': o[1], 'open_ratio': o[1] / o[0]})
    print(f"round {r}: 16 B hop p50 {h[0]} -> {h[1]} ns ({h[1]/h[0]:.3f}x); open p50 {o[0]} -> {o[1]} ns ({o[1]/o[0]:.3f}x)")
s = {'hop_ratio_median': statistics.median(x['hop_ratio'] for x in rows),
     'open_ratio_median': statistics.median(x['open_ratio'] for x in rows)}
print(f"median per-round ratio (new/old): 16 B hop {s['hop_ratio_median']:.3f}x, topic open {s['open_ratio_median']:.3f}x (target <= 1.05x)")
json.dump({'rounds': rows, 'summary': s}, open(f'{out}/summary.json', 'w'), indent=1)
PY
