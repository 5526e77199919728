"""Build the corpus-fifteenth CSVs from the fetched mirrors (run once, 2026-11-28).

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


def elapsed_seconds(s):
    """GNU time's '%E' elapsed field ([h:]m:ss.ss) in seconds, as a decimal string."""
    parts = s.split(":")
    assert len(parts) in (2, 3), s
    h, m = (int(parts[0]), int(parts[1])) if len(parts) == 3 else (0, int(parts[0]))
    sec = parts[-1]
    whole, _, frac = sec.partition(".")
    total = (h * 3600 + m * 60 + int(whole))
    return f"{total}.{frac}" if frac else str(total)


# ---------------------------------------------------------------- hpcac/2024-APAC-HPC-AI (HOOMD-blue)
HP = "hpcac+2024-APAC-HPC-AI"
HP_SNAP = git(HP, "rev-parse", "HEAD").strip()
HP_FILES = git(HP, "ls-tree", "-r", "--name-only", HP_SNAP, "baseline_and_reference").split("\n")
MACHINES = {
    "gadi": dict(ppn=48, label="NCI Gadi (host names gadi-cpu-clx-*; 48 cores a node as the job's ncpus=48*nodes request)",
                 script="baseline_and_reference/gadi/hoomd.sh (HPC-X OpenMPI; mpirun -host <PBS_NODEFILE hosts> -map-by ppr:${NCPUS}:node "
                        "-oversubscribe -use-hwthread-cpus) submitted by submit.hoomd.sh with -l ncpus=48*nodes"),
    "aspire2": dict(ppn=128, label="NSCC ASPIRE 2A (128 cores a node as the job's select=nodes:ncpus=128 request)",
                    script="baseline_and_reference/aspire2/hoomd.sh (openmpi/4.1.2-hpe; mpirun -map-by ppr:${NCPUS}:node -bind-to core) "
                           "submitted by submit.hoomd.sh with -l select=nodes:ncpus=128"),
}
for mach, info in MACHINES.items():
    rows = []
    for path in HP_FILES:
        m = re.fullmatch(rf"baseline_and_reference/{mach}/hoomd\.nodes(\d+)\.WS40000\.BS80000\.N200000\.o\d+", path)
        if not m:
            continue
        nodes = int(m.group(1))
        commit = last(HP, HP_SNAP, path)
        text = git(HP, "show", f"{commit}:{path}")
        lines = text.split("\n")
        dd = [(i, ln) for i, ln in enumerate(lines, 1) if "Using domain decomposition" in ln]
        assert len(dd) == 1, path
        g = re.search(r"n_x = (\d+) n_y = (\d+) n_z = (\d+)", dd[0][1])
        p = int(g.group(1)) * int(g.group(2)) * int(g.group(3))
        assert p == info["ppn"] * nodes, (path, p)
        el = [(i, ln) for i, ln in enumerate(lines, 1) if re.search(r"\d+:[\d.:]+elapsed ", ln)]
        if not el:
            print("skip (no elapsed line: job killed at walltime)", path)
            continue
        assert len(el) == 1, path
        i, ln = el[0]
        raw = re.search(r"system ([\d:.]+)elapsed ", ln).group(1)
        rows.append(dict(nodes=nodes, p=p, t=elapsed_seconds(raw), threads=1, file=path, commit=commit,
                         note=f"line {i}: elapsed '{raw}' (GNU time [h:]m:ss.ss; time_s = 60 m + s); ranks = n_x*n_y*n_z of line {dd[0][0]} "
                              f"'{g.group(0)}'"))
    rows.sort(key=lambda r: r["p"])
    head = [
        "HOOMD-blue (Python; hoomd-benchmarks md_pair_wca: WCA pair-potential MD; --device CPU -N 200000 --repeat 1 --warmup_steps 40000 "
        "--benchmark_steps 80000), the APAC HPC-AI 2024 competition's baseline/reference runs by the organisers (HPC-AI Advisory Council); "
        f"one PBS job per node count: {info['script']}",
        f"machine: {info['label']}; nodes = the job's node count (file name hoomd.nodes<N>, the submit script's request"
        + (", and the N hosts of the -host list echoed in the file" if mach == "gadi" else "")
        + f"); processes = n_x*n_y*n_z of HOOMD's 'Using domain decomposition' line (= {info['ppn']} a node, 1 rank a core); threads = 1",
        "scaling: strong (same 200000-particle system at every node count); time_s = the whole mpirun's elapsed wall time as GNU time "
        "(exec time mpirun ...) printed it ([h:]m:ss.ss, converted to seconds by this script), i.e. start-up + 40000 warm-up + 80000 "
        "benchmark steps; one run a row",
        f"source: https://github.com/hpcac/2024-APAC-HPC-AI (snapshot HEAD {HP_SNAP}); raw files baseline_and_reference/{mach}/hoomd.nodes*.WS40000.BS80000.N200000.o*",
        "licence: none stated (no LICENSE file in the repository)",
    ]
    write("hpcac-2024-APAC-HPC-AI", f"hoomd-blue-wca-N200000-ws40000-bs80000-strong-{mach}.csv", head, rows)

# ---------------------------------------------------------------- arm-hpc-user-group/Cloud-HPC-Hackathon-2021 (Remhos)
AR = "arm-hpc-user-group+Cloud-HPC-Hackathon-2021"
AR_SNAP = git(AR, "rev-parse", "HEAD").strip()
PERF = "Applications/MiniApps/Remhos/perflogs/aws/c6gn"
AR_FILES = git(AR, "ls-tree", "-r", "--name-only", AR_SNAP, PERF).split("\n")
CASES = {
    "2DRemap": "2D remap (-m inline-quad.mesh -p 14, Remhos verification case 6)",
    "3DRemap": "3D remap (-m cube01_hex.mesh -p 10, verification case 7)",
    "2DTransport": "2D transport (-m periodic-square.mesh -p 5, verification case 9)",
    "3DTransport": "3D transport (-m periodic-cube.mesh -p 0, verification case 10)",
}
COMPILERS = {"gcc_10_3_0": "gcc@10.3.0", "arm_21_0_0_879": "arm@21.0.0.879", "nvhpc_21_2": "nvhpc@21.2"}
for case, what in CASES.items():
    for ctag, cname in COMPILERS.items():
        rows = []
        for path in AR_FILES:
            m = re.fullmatch(rf"{PERF}/Remhos_Remhos{case}ValidationTest_remhos_1_0_{ctag}_N_(\d+)_MPI_(\d+)_OMP_(\d+)\.log", path)
            if not m:
                continue
            nodes, p, omp = int(m.group(1)), int(m.group(2)), int(m.group(3))
            assert nodes == 1 and omp == 1, path
            commit = last(AR, AR_SNAP, path)
            text = git(AR, "show", f"{commit}:{path}")
            for i, ln in enumerate(text.split("\n"), 1):
                if not ln:
                    continue
                f = ln.split("|")
                assert f[2].startswith(f"Remhos_Remhos{case}ValidationTest_remhos_1_0_{ctag}_N_{nodes}_MPI_{p}_OMP_{omp} on aws:c6gn"), ln
                t = re.fullmatch(r"Total Time=([0-9.]+)", f[4]).group(1)
                assert f[6] == "s"
                rows.append(dict(nodes=nodes, p=p, t=t, threads=omp, file=path, commit=commit,
                                 note=f"line {i}: ReFrame perflog field '{f[4]}' ({f[0]}; {f[3]})"))
        rows.sort(key=lambda r: r["p"])
        assert len(rows) == 7, (case, ctag, len(rows))
        head = [
            f"Remhos 1.0 (CEED remap/transport miniapp on MFEM 4.2; spack remhos@1.0%{cname}, openmpi 4.1.0): {what}; ReFrame 3.7 test "
            f"Remhos{case}ValidationTest of Applications/MiniApps/Remhos/remhos_validation.py (team C3SR, Arm/AWS Cloud HPC Hackathon 2021): "
            "executable 'time -p remhos', --exclusive, parallelism 1 node x {1,2,4,8,16,32,64} MPI ranks, 1 OpenMP thread",
            "machine: AWS EC2 c6gn (Graviton2, 64 Arm Neoverse-N1 cores a node), ReFrame system aws:c6gn; nodes = 1 for every row, from the "
            "test's parallelism parameter and the perflog name '_N_1_MPI_<p>_OMP_1'; processes = the MPI count of that name",
            "scaling: strong (same input at every count), one node only; time_s = the ReFrame perflog's 'Total Time' (s): the largest "
            "'real' of `time -p` in the job's stderr, i.e. the whole remhos run's wall time; one run a row",
            f"source: https://github.com/arm-hpc-user-group/Cloud-HPC-Hackathon-2021 (snapshot HEAD {AR_SNAP}); raw files "
            f"{PERF}/Remhos_Remhos{case}ValidationTest_remhos_1_0_{ctag}_N_1_MPI_*_OMP_1.log",
            "licence: none stated (no LICENSE file in the repository)",
        ]
        write("arm-hpc-user-group-Cloud-HPC-Hackathon-2021",
              f"remhos-{case.lower()}-validation-{cname.split('@')[0]}-strong-aws-c6gn.csv", head, rows)
