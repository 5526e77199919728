"""Check every row of the corpus-fifteenth CSVs against its raw file (run once, 2026-11-28).

For each row: `git show <commit>:<file>` in a local mirror of the source repository must contain
the row's time string, which must also sit in its own context; and <commit> must equal
`git log -1 <snapshot> -- <file>`.  The walk is data/check_rows.py's.  Context:

- hpcac/2024-APAC-HPC-AI baseline_and_reference/<gadi|aspire2>/hoomd.nodes<N>.WS40000.BS80000.N200000.o*:
  the raw string is GNU time's elapsed field ('[h:]m:ss.ss') on the note's line, which must read
  '... <raw>elapsed ...', and time_s = 60 m + s of it; the file name's N = nodes; the note's
  decomposition line 'n_x = a n_y = b n_z = c' has a*b*c = processes = ppn * nodes (48 gadi,
  128 aspire2); the file holds 'md_pair_wca', '-N 200000', '--warmup_steps 40000' and
  '--benchmark_steps 80000'; on gadi the echoed '-host' list has N hosts.
- arm-hpc-user-group/Cloud-HPC-Hackathon-2021 Applications/MiniApps/Remhos/perflogs/aws/c6gn/*ValidationTest*:
  the note's line is a ReFrame perflog line whose 4th field is 'Total Time=<time_s>', whose test
  name ends '_N_<nodes>_MPI_<processes>_OMP_<threads>' as the file name does, on aws:c6gn, unit 's'.

Usage: python check_times.py MIRROR_ROOT   (e.g. /work/.mirror).
"""
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from check_rows import check, linked  # noqa: E402  (data/check_rows.py)

MIRROR = {'hpcac-2024-APAC-HPC-AI': 'hpcac+2024-APAC-HPC-AI',
          'arm-hpc-user-group-Cloud-HPC-Hackathon-2021': 'arm-hpc-user-group+Cloud-HPC-Hackathon-2021'}


def line_of(text, row):
    i = int(re.match(r"^line (\d+):", row['note']).group(1))
    return text.split('\n')[i - 1]


def secs(raw):
    parts = raw.split(':')
    h, m = (int(parts[0]), int(parts[1])) if len(parts) == 3 else (0, int(parts[0]))
    whole, _, frac = parts[-1].partition('.')
    total = h * 3600 + m * 60 + int(whole)
    return f"{total}.{frac}" if frac else str(total)


def raw(folder, row):
    if folder == 'hpcac-2024-APAC-HPC-AI':
        return re.search(r"elapsed '([\d:.]+)'", row['note']).group(1) + 'elapsed'
    return 'Total Time=' + row['time_s']


def hoomd(text, row):
    ln = line_of(text, row)
    r = re.search(r"elapsed '([\d:.]+)'", row['note']).group(1)
    m = re.fullmatch(r"baseline_and_reference/(gadi|aspire2)/hoomd\.nodes(\d+)\.WS40000\.BS80000\.N200000\.o\d+", row['file'])
    ppn = 48 if m.group(1) == 'gadi' else 128
    n, p = int(row['nodes']), int(row['processes'])
    dline = int(re.search(r"of line (\d+)", row['note']).group(1))
    d = re.search(r"n_x = (\d+) n_y = (\d+) n_z = (\d+)", text.split('\n')[dline - 1])
    ok = (f"system {r}elapsed " in ln and secs(r) == row['time_s'] and int(m.group(2)) == n
          and d is not None and int(d.group(1)) * int(d.group(2)) * int(d.group(3)) == p == ppn * n
          and int(row['ranks_per_node']) == ppn and row['threads'] == '1'
          and 'md_pair_wca' in text and '-N 200000' in text and '--warmup_steps 40000' in text
          and '--benchmark_steps 80000' in text)
    if m.group(1) == 'gadi':
        hosts = re.search(r"-host (\S+)", text).group(1).split(',')
        ok = ok and len(hosts) == n
    return ok


def remhos(text, row):
    f = line_of(text, row).split('|')
    m = re.search(r"_N_(\d+)_MPI_(\d+)_OMP_(\d+)\.log$", row['file'])
    tag = f"_N_{row['nodes']}_MPI_{row['processes']}_OMP_{row['threads']} on aws:c6gn"
    return (len(f) == 7 and f[4] == f"Total Time={row['time_s']}" and f[6] == 's' and tag in f[2]
            and (m.group(1), m.group(2), m.group(3)) == (row['nodes'], row['processes'], row['threads'])
            and 'ValidationTest' in f[2])


def main():
    linked(MIRROR.values(), 'corpus-fifteenth-mirrors-')
    return check(Path(__file__).parent, MIRROR,
                 {'hpcac-2024-APAC-HPC-AI': hoomd,
                  'arm-hpc-user-group-Cloud-HPC-Hackathon-2021': remhos}, raw)


if __name__ == '__main__':
    sys.exit(main())
