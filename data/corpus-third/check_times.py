"""Check every row of the corpus-third CSVs against its raw file (run once, 2026-11-27).

For each row: `git show <commit>:<file>` in a local mirror of the source repository must contain
the time_s string; the string must also sit in its own context (the row of its node count:
"<nodes>\t<time>" for the Vlasiator/Arkouda tables, "| <nodes> node(s) |...<time>" for CP2K,
"numLocales = <nodes>" + "Average time = <time> sec" for Arkouda raw outputs, an uncommented
"<nodes> ... <time>" line for Castro); and <commit> must equal `git log -1 <snapshot> -- <file>`.
Usage: python check_times.py MIRROR_ROOT   (e.g. /work/.mirror)
"""
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from check_rows import check  # noqa: E402  (data/check_rows.py: the shared walk)

MIRROR = {'fmihpc-vlasiator': 'fmihpc+vlasiator', 'cp2k-cp2k': 'cp2k+cp2k',
          'AMReX-Astro-Castro': 'AMReX-Astro+Castro', 'Bears-R-Us-arkouda': 'Bears-R-Us+arkouda'}


def in_context(folder, text, row):
    nodes, t, fname = row['nodes'], row['time_s'], row['file']
    lines = text.splitlines()
    if folder == 'cp2k-cp2k':
        if 'LiH_HFX' in fname:
            cores = int(nodes) * 8
            return any(re.match(rf'\|\s*{cores}\s*\|\s*{re.escape(t)}\s*\|', l) for l in lines)
        return any(re.match(rf'\|\s*{nodes} nodes?\s*\|', l) and re.search(rf'\|\s*{re.escape(t)}\s*\|', l) for l in lines)
    if folder == 'AMReX-Astro-Castro':
        return any(not l.lstrip().startswith('#') and l.split() and l.split()[0] == nodes
                   and t in l.split() for l in lines)
    if folder == 'Bears-R-Us-arkouda' and fname.endswith('.out'):
        return f'numLocales = {nodes},' in text and f'Average time = {t} sec' in text
    return any(l.startswith(f'{nodes}\t{t}\t') for l in lines)


if __name__ == '__main__':
    sys.exit(check(Path(__file__).parent, MIRROR, in_context))
