"""Build the corpus-sixteenth CSVs from the fetched mirrors (run once, 2026-11-28).

Every number is read by this script from `git show <commit>:<path>` in a mirror that the `fetch` tool
brought in; nothing is typed by hand.  Usage: python3 extract.py /work/.mirror
"""
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import check_rows  # noqa: E402  (data/check_rows.py: the helpers every extract shares)

ROOT, git, last, write = check_rows.bound(sys.argv, HERE)


def one(pattern, text, path):
    """The single line of `text` matching `pattern`: (1-based line number, match)."""
    hits = [(i, m) for i, ln in enumerate(text.split("\n"), 1) for m in [re.search(pattern, ln)] if m]
    assert len(hits) == 1, (path, pattern, len(hits))
    return hits[0]


# ---------------------------------------------------------------- Stefano-Faccio/HPC-Project-Parallel-Connected-Components
SF = "Stefano-Faccio+HPC-Project-Parallel-Connected-Components"
SF_FOLDER = "Stefano-Faccio-HPC-Project-Parallel-Connected-Components"
# The results were committed on the pull-request branch (refs/pull/7/head) and squashed away on main.
SF_SNAP = git(SF, "rev-parse", "refs/pull/7/head").strip()
SF_MAIN = git(SF, "rev-parse", "refs/heads/main").strip()
SF_FILES = git(SF, "ls-tree", "-r", "--name-only", SF_SNAP, "results").split("\n")
SF_CODES = {
    "my_MPI_cc": ("my_MPI_cc.out", "the students' own MPI connected-components code (CSE613-MPI/my_MPI_cc.cpp: master/worker "
                                    "label propagation); timer = MPI_Wtime on rank 0 from after the graph is read (Bcast of "
                                    "the vertex count) to the end of the CC computation"),
    "ppopp_MPI_cc": ("ppopp_MPI_cc.out", "the students' MPI implementation of the PPoPP 2018 communication-avoiding CC algorithm "
                                          "(PPoPP_2018/ppopp_MPI_cc.cpp, sparse sampling); timer = MPI_Wtime on rank 0 from a "
                                          "barrier after every rank has loaded its slice to the end of the CC computation"),
}
for ris in ("ris1", "ris2", "ris3", "ris4"):
    for code, (exe, what) in SF_CODES.items():
        rows, places = [], set()
        for path in SF_FILES:
            m = re.fullmatch(rf"results/{ris}/results_{code}/output_(\d+)\.txt", path)
            if not m:
                continue
            p = int(m.group(1))
            commit = last(SF, SF_SNAP, path)
            text = git(SF, "show", f"{commit}:{path}")
            spath = f"results/{ris}/results_{code}/script_{p}.sh"
            script = git(SF, "show", f"{last(SF, SF_SNAP, spath)}:{spath}")
            sel = re.search(r"#PBS -l select=(\d+):ncpus=(\d+):mem=\w+ -l place=(scatter(?::excl)?)", script)
            assert sel and int(sel.group(1)) == p and sel.group(2) == "1", spath
            assert f"mpirun.actual -n {p} ./{exe} /shares/HPC4DataScience/big-graph-0.txt" in script, spath
            places.add(sel.group(3))
            i_g, g = one(r"^Group Size: (\d+)$", text, path)
            assert int(g.group(1)) == p, path
            one(r"^File Name: /shares/HPC4DataScience/big-graph-0\.txt$", text, path)
            i, t = one(r"^Elapsed time: ([0-9.]+) seconds$", text, path)
            rows.append(dict(nodes=p, p=p, t=t.group(1), threads=1, file=path, commit=commit,
                             note=f"line {i}: '{t.group(0)}'; line {i_g} 'Group Size: {p}'; {spath}: select={p}:ncpus=1 "
                                  f"place={sel.group(3)}"))
        rows.sort(key=lambda r: r["p"])
        assert len(places) == 1 and len(rows) >= 6, (ris, code, places, len(rows))
        place = places.pop()
        head = [
            f"Parallel connected components ({code}: {what}) on the graph big-graph-0 (/shares/HPC4DataScience/big-graph-0.txt; "
            "the course's shared input) - University of Trento 'HPC for Data Science' student project (S. Faccio and Z. D. Tas); "
            f"batch of runs '{ris}' (results/{ris}/results_{code}/): one PBS job per process count, script_<p>.sh: "
            f"'#PBS -l select=<p>:ncpus=1:mem=... -l place={place}' -q short_cpuQ; module mpich-3.2; mpirun.actual -n <p> ./{exe} <graph>",
            "machine: University of Trento HPC cluster (PBS Pro; queue short_cpuQ; MPICH 3.2) - no hardware is stated in the repository; "
            f"nodes = processes: each job asked for <p> one-core chunks with place={place}, which PBS Pro places one chunk a host "
            "(so one rank a node; no host list is printed); processes = the -n of the script = 'Group Size' printed by the run; threads = 1",
            "scaling: strong (same graph at every count); time_s = the 'Elapsed time: <s> seconds' the program prints (MPI_Wtime on rank 0 "
            "around the connected-components computation; graph reading excluded); one run a row",
            f"source: https://github.com/Stefano-Faccio/HPC-Project-Parallel-Connected-Components (snapshot HEAD {SF_SNAP} = "
            f"refs/pull/7/head; the results were squash-merged away on main {SF_MAIN}); raw files results/{ris}/results_{code}/output_<p>.txt",
            "licence: none stated (no LICENSE file in the repository)",
        ]
        write(SF_FOLDER, f"cc-{code.replace('_', '-').lower()}-big-graph-0-{ris}-strong-unitn.csv", head, rows)

# ---------------------------------------------------------------- KevinDepedri/MPI-Parallel-Closest-Pair-of-Points
KD = "KevinDepedri+MPI-Parallel-Closest-Pair-of-Points"
KD_FOLDER = "KevinDepedri-MPI-Parallel-Closest-Pair-of-Points"
KD_SNAP = git(KD, "rev-parse", "HEAD").strip()
KD_FILES = git(KD, "ls-tree", "-r", "--name-only", KD_SNAP, "runs/parallel").split("\n")
PLACES = {"packed": "pack", "packed_exclusive": "pack:excl", "scatter": "scatter", "scatter_exclusive": "scatter:excl"}
ALGOS = {
    "bruteforce": ("mpi_bruteforce", "parallel/parallel_bruteforce.c (all-pairs distances split over the ranks)", ("1M", "500K")),
    "recursive": ("mpi_recursive_long", "parallel/parallel_recursive_long.c (parallel merge sort + divide-and-conquer)",
                  ("50M", "100M", "200M", "250M")),
}
for algo, (exe, src, sizes) in ALGOS.items():
    for size in sizes:
        for pdir, place in PLACES.items():
            d = f"runs/parallel/{algo}/{size}/{pdir}"
            rows = []
            for spath in KD_FILES:
                m = re.fullmatch(rf"{d}/start_parallel_{algo}_\w+?_(\d+)cores?\.sh", spath)
                if not m:
                    continue
                p = int(m.group(1))
                scommit = last(KD, KD_SNAP, spath)
                script = git(KD, "show", f"{scommit}:{spath}")
                sel = re.search(r"#PBS -l select=(\d+):ncpus=(\d+):mem=\w+ -l place=(\S+)", script)
                assert sel and sel.group(3) == place, spath
                cmd = re.search(r"mpiexec -n (\d+) \S+/(\S+) \S+/(\S+)(.*)$", script, re.M)
                assert int(cmd.group(1)) == p, spath
                if (cmd.group(2), cmd.group(4).strip()) != (exe, "-e -p"):
                    # 1- and 2-rank recursive runs use another executable (mpi_recursive_long_2cores) without -e -p: left out
                    assert algo == "recursive" and p <= 2 and cmd.group(2) == "mpi_recursive_long_2cores", spath
                    continue
                assert cmd.group(3) == f"{size}5d.txt", spath
                chunks, ncpus = int(sel.group(1)), int(sel.group(2))
                assert chunks == 2 and chunks * ncpus == p, spath
                nodes = 1 if place.startswith("pack") else 2
                out = re.search(r"#PBS -o (\S+)", script).group(1)
                path = f"{d}/{out}"
                commit = last(KD, KD_SNAP, path)
                text = git(KD, "show", f"{commit}:{path}")
                i, t = one(r"^Time elapsed: ([0-9.]+)$", text, path)
                rows.append(dict(nodes=nodes, p=p, t=t.group(1), threads=1, file=path, commit=commit,
                                 note=f"line {i}: '{t.group(0)}'; {spath.rsplit('/', 1)[1]}: select=2:ncpus={ncpus} place={place} "
                                      f"mpiexec -n {p}"))
            rows.sort(key=lambda r: r["p"])
            assert len(rows) >= 8, (d, len(rows))
            if place.startswith("pack"):
                where = ("nodes = 1: every job asked for 2 chunks of <p>/2 cores with place=" + place + ", which PBS Pro puts all on "
                         "one host (pack)")
            else:
                where = ("nodes = 2: every job asked for 2 chunks of <p>/2 cores with place=" + place + ", which PBS Pro puts on two "
                         "different hosts (scatter), i.e. <p>/2 ranks a node")
            head = [
                f"MPI closest pair of points, {algo} ({src}; executable {exe}, flags -e -p) on {size} random 5-D points "
                f"({size}5d.txt) - University of Trento 'HPC for Data Science' student project (K. Depedri and D. Modolo, a.y. 2022-23); "
                f"one PBS job per process count: {d}/start_parallel_{algo}_*_<p>cores.sh: '#PBS -l select=2:ncpus=<p/2>:mem=... "
                f"-l place={place}' -q short_cpuQ; module mpich-3.2; mpiexec -n <p>",
                "machine: University of Trento HPC cluster (PBS Pro; queue short_cpuQ; MPICH 3.2) - no hardware is stated in the "
                f"repository; {where} (no host list is printed); processes = the -n of the script; threads = 1"
                + ("; place=...:excl asks for the hosts exclusively" if "excl" in place else "; not exclusive (hosts may be shared)"),
                "scaling: strong (same point set at every count); time_s = the 'Time elapsed: <s>' rank 0 prints, which is "
                "(clock() at the end - clock() at the start of main)/CLOCKS_PER_SEC: rank 0's PROCESSOR time, not wall-clock time "
                "(includes reading the points file); one run a row"
                + ("; the 1- and 2-rank runs (other executable mpi_recursive_long_2cores, no -e -p) are left out" if algo == "recursive" else ""),
                f"source: https://github.com/KevinDepedri/MPI-Parallel-Closest-Pair-of-Points (snapshot HEAD {KD_SNAP}); raw files "
                f"{d}/<p><Placement>.txt",
                "licence: none stated (no LICENSE file in the repository)",
            ]
            write(KD_FOLDER, f"closest-pair-{algo}-{size.lower()}-{pdir.replace('_', '-')}-strong-unitn.csv", head, rows)
