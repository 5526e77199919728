"""Check every row of the corpus-seventh CSVs against its raw file (run once, 2026-11-27).

For each row: `git show <commit>:<file>` in a local mirror of the source repository must contain
the time_s string; the string must also sit in its own context (uswick/scripts_misc LULESH/HPX-5
stdout: the note's k-th block starting 'Running "' holds the command
'mpirun -np <processes> -mca mtl ^psm -map-by node:PE=16 .../<binary> -n <domains> -x <x> -i 100
--hpx-threads=<threads> --hpx-network=<net>' with <processes> = nodes and <threads> as in the row,
and its one 'Elapsed time = <t>' line equals time_s); and <commit> must equal
`git log -1 <snapshot> -- <file>`.
Usage: python check_times.py MIRROR_ROOT   (e.g. /work/.mirror).
"""
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from check_rows import check  # noqa: E402  (data/check_rows.py: the shared walk)

MIRROR = {'uswick-scripts_misc': 'uswick+scripts_misc'}

CMD = re.compile(r'mpirun -np (\d+) -mca mtl \^psm -map-by node:PE=16 \S+/(\w+) -n (\d+) -x (\d+) '
                 r'-i 100 --hpx-threads=(\d+) --hpx-network=(\w+)')


def lulesh(text, row):
    k = int(re.search(r'k = (\d+)\)', row['note']).group(1))
    want = re.search(r'mpirun -np (\d+) -map-by node:PE=16 (\w+) -n (\d+) -x (\d+) -i 100 '
                     r'--hpx-threads=(\d+) --hpx-network=(\w+);', row['note']).groups()
    blocks = text.split('Running "')[1:]
    if k > len(blocks):
        return False
    b = blocks[k - 1]
    m = CMD.match(b)
    if m is None or m.groups() != want:
        return False
    e = re.findall(r'^Elapsed time = (\S+)$', b, re.M)
    return (m.group(1) == row['nodes'] == row['processes'] and row['ranks_per_node'] == '1'
            and m.group(5) == row['threads'] and e == [row['time_s']])


def in_context(folder, text, row):
    return {'uswick-scripts_misc': lulesh}[folder](text, row)


if __name__ == '__main__':
    sys.exit(check(Path(__file__).parent, MIRROR, in_context))
