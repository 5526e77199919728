"""Check every row of the corpus-fifth CSVs against its raw file (run once, 2026-11-27).

For each row: `git show <commit>:<file>` in a local mirror of the source repository must contain
the time_s string; the string must also sit in its own context (RAMSES results page: the cell of
row "| <nodes> |" under the row's version column in the "Evolution of execution time with code
version" table; Cholla slurm output: the *last* "total time = <t> s" line, with nproc_x * nproc_y *
nproc_z = <processes>; CharLES log: the first "time since last check: <t> [s]" after "starting
step: 499", with "running on <processes> cores, <nodes> nodes"; SPECFEM .dat: a data line starting
"<nodes> <processes>" whose time column is <t>); and <commit> must equal
`git log -1 <snapshot> -- <file>`.
Usage: python check_times.py MIRROR_ROOT   (e.g. /work/.mirror)
"""
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from check_rows import check  # noqa: E402  (data/check_rows.py: the shared walk)

MIRROR = {'tinecolman-ramses-benchmarks-prototype2': 'tinecolman+ramses-benchmarks-prototype2',
          'bcaddy-scaling-tests': 'bcaddy+scaling-tests',
          'yunjaeh-CharLES_scaling': 'yunjaeh+CharLES_scaling',
          'SPECFEM-scaling-benchmarks': 'SPECFEM+scaling-benchmarks'}


def ramses_cell(text, nodes, version):
    sec = text.split('## Evolution of execution time with code version', 1)[1].split('\n## ', 1)[0]
    rows = [ln for ln in sec.splitlines() if ln.startswith('|')]
    head = [c.strip() for c in rows[0].strip('|').split('|')]
    for ln in rows[2:]:
        cells = [c.strip() for c in ln.strip('|').split('|')]
        if cells[0] == nodes:
            return dict(zip(head, cells)).get(version)
    return None


def in_context(folder, text, row):
    nodes, procs, t = row['nodes'], row['processes'], row['time_s']
    if folder == 'tinecolman-ramses-benchmarks-prototype2':
        version = re.search(r'column "([^"]+)"', row['note']).group(1)
        return ramses_cell(text, nodes, version) == t
    if folder == 'bcaddy-scaling-tests':
        tt = re.findall(r'total time =\s+(\S+) s', text)
        px = re.search(r'nproc_x (\d+) nproc_y (\d+) nproc_z (\d+)', text)
        return (bool(tt) and tt[-1] == t and px is not None
                and int(px.group(1)) * int(px.group(2)) * int(px.group(3)) == int(procs))
    if folder == 'yunjaeh-CharLES_scaling':
        after = text.split('starting step: 499 ', 1)
        m = re.search(r'time since last check: (\S+) \[s\]', after[1]) if len(after) == 2 else None
        return (m is not None and m.group(1) == t
                and f'running on {procs} cores, {nodes} nodes' in text)
    col = 2 if 'strong' in row['file'] else 4   # SPECFEM: strong .dat has #time third, weak .dat fifth
    for ln in text.splitlines():
        p = ln.split()
        if p and not ln.startswith('#') and p[:2] == [nodes, procs] and len(p) > col:
            return p[col] == t
    return False


if __name__ == '__main__':
    sys.exit(check(Path(__file__).parent, MIRROR, in_context))
