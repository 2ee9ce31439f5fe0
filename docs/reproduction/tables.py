"""Markdown tables (mean ± std over seeds; k̂ per seed for up to three seeds, otherwise each k̂
with its count) from a runs.csv of `compclust experiment flat-grid`, `flat-comparisons`,
`flat-distributions` or `mnist`: `python3 docs/reproduction/tables.py
docs/figures/flat-grid-n1000.csv`. Standard library only; the tables in flat.md come from it.

`python3 docs/reproduction/tables.py --slow CSV` instead lists the method-trials whose
`time_s` is more than `SLOW_RATIO` times (and `SLOW_MIN_S` seconds more than) the largest time
of the same method in the same setting on every other seed of the CSV: the trials whose run was
probably stopped or starved (`REPRODUCTION.md`, "Times"), to re-run before their times are
compared. Seeds run by different binaries differ for that reason too, so the list is for
reading, not for deleting rows."""
import csv, sys, statistics as st
from collections import defaultdict

SLOW_RATIO = 3.0
SLOW_MIN_S = 30.0

# columns that are not part of a trial's setting
NOT_SETTING = {'experiment', 'method', 'seed', 'metric', 'value', 'time_s'}

def load(path):
    return list(csv.DictReader(open(path)))

def fmt(vals, digits=2):
    m = st.mean(vals)
    s = st.stdev(vals) if len(vals) > 1 else 0.0
    out = f"{m:.{digits}f}"
    if out == "-" + f"{0:.{digits}f}":
        out = out[1:]
    if s >= 0.5 * 10 ** -digits:
        out += f" ± {s:.{digits}f}"
    return out

def table(rows, col_key, cols, row_methods, metric='ari', khat_method=None, digits=2):
    cell = defaultdict(list)
    khat = defaultdict(list)
    for r in rows:
        c = r[col_key]
        if r['metric'] == metric:
            cell[(r['method'], c)].append(float(r['value']))
        if r['metric'] == 'k_hat' and r['method'] == khat_method:
            khat[c].append((int(r['seed']), int(float(r['value']))))
    out = [f"| method | " + " | ".join(cols) + " |", "|---|" + "---|" * len(cols)]
    for m in row_methods:
        out.append(f"| {m} | " + " | ".join(fmt(cell[(m, c)], digits) if cell[(m, c)] else '' for c in cols) + " |")
    if khat_method:
        def ks(c):
            v = [k for _, k in sorted(khat[c])]
            if len(set(v)) <= 1:
                return str(v[0]) if v else ''
            if len(v) <= 3:
                return " / ".join(map(str, v))
            return ", ".join(f"{k} ×{v.count(k)}" for k in sorted(set(v)))
        out.append(f"| k̂ ({khat_method}) | " + " | ".join(ks(c) for c in cols) + " |")
    return "\n".join(out)

def ordered(vals):
    vals = list(vals)
    try:
        return sorted(set(vals), key=float)
    except ValueError:
        return sorted(set(vals))

def section(title, rows, col_key, row_methods, khat_method=None, digits=2, what='ARI'):
    """One table of `rows` under a bold title: columns are the sorted values of `col_key`."""
    print(f"\n**{title}** ({what}, mean ± std over {len({r['seed'] for r in rows})} seeds)\n")
    cols = ordered(r[col_key] for r in rows)
    print(table(rows, col_key, cols, row_methods, khat_method=khat_method, digits=digits))

def slow_trials(rows, ratio=SLOW_RATIO, min_s=SLOW_MIN_S):
    """(seed, time, largest time on the other seeds, method, setting) of every method-trial
    slower than `ratio` times the same method and setting on each other seed, and by more
    than `min_s` seconds. A method writes its time on each of its metric rows; one is read."""
    times = defaultdict(dict)
    for r in rows:
        setting = tuple((k, v) for k, v in r.items() if k not in NOT_SETTING)
        times[(r['method'], setting)].setdefault(r['seed'], float(r['time_s']))
    out = []
    for (method, setting), by_seed in times.items():
        for seed, t in by_seed.items():
            top = max((v for s, v in by_seed.items() if s != seed), default=None)
            if top is not None and t > ratio * top and t - top > min_s:
                out.append((seed, t, top, method, setting))
    return sorted(out, key=lambda x: (int(x[0]), -x[1]))

def print_slow(rows):
    missing = [c for c in ('method', 'seed', 'time_s') if rows and c not in rows[0]]
    if missing:
        sys.exit(f"--slow needs the columns method, seed and time_s; this CSV lacks {', '.join(missing)}")
    slow = slow_trials(rows)
    print(f"{len(slow)} method-trial(s) over {SLOW_RATIO:g}x the other seeds' largest time")
    for seed, t, other, method, setting in slow:
        where = " ".join(f"{k}={v}" for k, v in setting)
        print(f"seed {seed}: {method}: {t:.1f} s against at most {other:.1f} s  ({where})")

if __name__ == '__main__':
    if sys.argv[1] == '--slow':
        print_slow(load(sys.argv[2]))
        sys.exit(0)
    rows = load(sys.argv[1])
    exp = rows[0]['experiment']
    seeds = sorted({int(r['seed']) for r in rows})
    print(f"<!-- {exp}: seeds {seeds} -->")
    flat = ['AddS-3', 'AddS-4', 'MulK-3', 'MulK-4']
    if exp == 'flat-grid':
        for sweep in ['n', 'delta', 'eps', 'k']:
            for setting in ['p3-spur', 'p3-known', 'p4-spur']:
                rs = [r for r in rows if r['sweep'] == sweep and r['setting'] == setting]
                kh = 'AddS-3' if 'spur' in setting else None
                section(f"{sweep} sweep, {setting}", rs, sweep, flat, khat_method=kh)
    elif exp == 'flat-comparisons':
        cols = ordered(r['p'] for r in rows)
        print(table(rows, 'p', cols, flat, khat_method='AddS-3'))
    elif exp == 'flat-distributions':
        for family in ordered(r['family'] for r in rows):
            for pp in ordered(r['p'] for r in rows):
                rs = [r for r in rows if r['family'] == family and r['p'] == pp]
                section(f"{family}, p = {pp}", rs, 'eps', ['AddS-3', 'MulK-3'], khat_method='AddS-3',
                        what='ARI vs ε')
    elif exp == 'mnist':
        for subset in sorted({r['subset'] for r in rows}, reverse=True):  # 1vs7, then 10
            for kernel in ['gaussian', 'cosine']:
                rs = [r for r in rows if r['subset'] == subset and r['kernel'] == kernel]
                if not rs:
                    continue
                methods = list(dict.fromkeys(r['method'] for r in rs))
                spur = [m for m in methods if 'SPUR' in m]
                section(f"{subset}, {kernel}", rs, 'p', methods,
                        khat_method=spur[0] if spur else None, digits=3)
    else:
        print('no table layout for', exp)
