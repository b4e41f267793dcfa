#!/usr/bin/env python3
"""Summarise an Nsight Compute report for one kernel: the pipe utilisations and stall
ratios among its raw metrics, a dynamic opcode histogram (warp instructions executed per
SASS opcode), and the SASS lines that hold the most warp-stall samples.

On the device, with the bundle carried (scripts/gpu_bundle.sh .gpu) and its libraries
unpacked by one `.gpu/run` call:
  env LD_LIBRARY_PATH=/tmp/gpu-bundle-lib-$(cat .gpu/lib.sum) /usr/local/cuda/bin/ncu --set full \\
    --import-source yes -k regex:wideStripKernel --launch-skip 3 --launch-count 1 -o /tmp/gauss \\
    .gpu/bin/build-server/tests/vp_bench --benchmark_filter='^BM_GaussGpuPath/w:3840/h:2160/sigma10:10/path:3'
  scripts/ncu_hotspots.py /usr/local/cuda/bin/ncu /tmp/gauss.ncu-rep [lines]
"""
import collections
import csv
import io
import re
import subprocess
import sys


def ncu_csv(ncu, report, *page):
    return subprocess.run([ncu, '-i', report, '--csv', *page], capture_output=True, text=True).stdout


def number(text):
    try:
        return float(text.replace(',', ''))
    except ValueError:
        return 0.0


def raw_metrics(ncu, report):
    rows = list(csv.reader(io.StringIO(ncu_csv(ncu, report, '--page', 'raw'))))
    if len(rows) < 3:
        return
    wanted = re.compile(r'(inst_executed_pipe_\w+|pipe_\w+_cycles_active)\.avg\.pct_of_peak_sustained_active$'
                        r'|^gpu__time_duration\.sum$|^smsp__issue_active\.avg\.pct|^launch__registers_per_thread$'
                        r'|achieved_occupancy|^smsp__average_warps_issue_stalled_\w+_per_issue_active\.ratio$')
    for name, unit, value in zip(*rows[:3]):
        if wanted.search(name) and not ('stalled' in name and number(value) < 0.5):
            print(f'  {name} = {value} {unit}')


def source_lines(ncu, report, top):
    lines = ncu_csv(ncu, report, '--page', 'source', '--print-source', 'sass').splitlines()
    start = next((i for i, line in enumerate(lines) if 'Source' in line and 'Address' in line), None)
    if start is None:
        print('  no source page in the report (collect with --import-source yes and SourceCounters)')
        return
    rows = list(csv.DictReader(io.StringIO('\n'.join(lines[start:]))))
    column = lambda part: next(k for k in rows[0] if part in k)
    stalls, executed, text = column('Warp Stall Sampling (All'), column('Instructions Executed'), column('Source')
    total_stalls = sum(number(r[stalls]) for r in rows) or 1.0
    total_executed = sum(number(r[executed]) for r in rows) or 1.0
    print(f'  stall samples {total_stalls:.0f}, warp instructions executed {total_executed:.0f}')
    opcodes = collections.Counter()
    for r in rows:
        m = re.match(r'\s*(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9]+)', r[text])
        if m:
            opcodes[m.group(1)] += number(r[executed])
    print('  opcodes: ' + ', '.join(f'{op} {100 * n / total_executed:.1f}%' for op, n in opcodes.most_common(18)))
    for r in sorted(rows, key=lambda r: -number(r[stalls]))[:top]:
        print(f'  {100 * number(r[stalls]) / total_stalls:5.1f}%  {r.get("Address", "")}  {r[text].strip()[:90]}')


if __name__ == '__main__':
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    raw_metrics(sys.argv[1], sys.argv[2])
    source_lines(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 25)
