"""Build the timing CSVs of this folder from a mirror of opencae/OpenFOAM-BenchmarkTest.old.

Usage: python extract.py <git-dir of the mirror>   (e.g. /work/.mirror/opencae+OpenFOAM-BenchmarkTest.old/repo)

Reads channelReTau110/<case>/all.csv at the snapshot (the study's own per-run table, written by its
bin/table.sh from the solver logs) and keeps the GAMG-DIC rows. time_s is the table's
ExecutionTimePerStepWOLastStep string, copied as printed. Nothing is compared or aggregated.
"""
import csv
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SNAP = "8aa578e48988bec18b0a2268c247024cb0d9bcc0"
REPO = "https://github.com/opencae/OpenFOAM-BenchmarkTest.old"
FVSOL = "GAMG-DIC"
INPUT = ("channelReTau110 (pimpleFoam, Re_tau=110 channel), mesh 2995200 cells (3M: 240x130x96), "
         "fvSolution GAMG-DIC, decomposePar scotch, 52 time steps")

CASES = {
    # out-file stem: (case dir, machine (hardware as stated), network, app, ranks/node, README facts)
    "aws-c4.8xlarge": ("AWS_c4.8xlarge-mesh_3M-No3",
        "AWS EC2 c4.8xlarge (2x Xeon E5-2666 v3 2.9 GHz, 18 cores/node, Tokyo region, spot)",
        "10GbE (1 x 10 Gbps per node; AWS, no RDMA stated)",
        "OpenFOAM 2.3.0 pimpleFoam (Gcc 4.8.5 -O3, Open MPI 1.8.5)", 18,
        "measured 2015-11-15 by Masanori Sumitomo; NFS server c3.4xlarge"),
    "azure-a9": ("Azure_A9-mesh_3M-No04",
        "Azure A9 (2x Xeon E5-2670 2.66 GHz, 16 cores/node, SLES 12)",
        "InfiniBand QDR (1 x 40 Gbps per node)",
        "OpenFOAM 2.3.0 pimpleFoam (gcc 4.8.3 -O3; README: Intel MPI 5.1.1.109, although the table's solveBatch label says OF230_Gcc_OpenMPI)", 16,
        "measured 2015-11-25/26 by Kunihiro Sasaki"),
    "focus-a": ("FOCUS_A-mesh_3M-No4",
        "FOCUS A system, Fujitsu BX922 S2 (Xeon L5640 2.26 GHz; README: 6 cores/CPU, 1 CPU/node, yet 10 ranks/node were run)",
        "InfiniBand QDR (1 x 40 Gbps per node; mpirun -mca btl openib,sm,self)",
        "OpenFOAM 2.3.0 pimpleFoam (Gcc 4.8.3 -O3, Open MPI 1.6.5, -bind-to-core)", 10,
        "measured 2015-11-15/16 by Masashi Imano"),
    "focus-c": ("FOCUS_C-mesh_3M-No4",
        "FOCUS C system, Fujitsu CX122S1 (Xeon L5640 2.26 GHz; README: 6 cores/CPU, 1 CPU/node, yet 10 ranks/node were run)",
        "1GbE (1 x 1 Gbps per node)",
        "OpenFOAM 2.3.0 pimpleFoam (Gcc 4.8.3 -O3, Open MPI 1.6.5, -bind-to-core; README also lists -mca btl openib,sm,self, which does not fit a 1GbE system)", 10,
        "measured 2015-11-15 by Masashi Imano"),
    "tsubame25-thin": ("TSUBAME_S-mesh_3M-No1",
        "TSUBAME 2.5 Thin node, HP ProLiant SL390s G7 (2x Xeon, 6 cores/CPU, 12 cores/node, HT and Turbo on), S queue",
        "InfiniBand QDR (2 x 40 Gbps per node; mpirun -mca btl openib,sm,self)",
        "OpenFOAM 2.3.0 pimpleFoam (Gcc 4.8.4 -O3, Open MPI 1.6.5, --bind-to-core)", 10,
        "measured 2015-11-20 and 2015-11-26 by Masashi Imano; README: more repeats because Turbo Boost made short runs vary"),
    "knsc": ("KNSC-mesh_3M-No1",
        "KNSC, Information Technology Center, University of Tokyo (2x Xeon E5-2680 v2 2.8 GHz, 20 cores/node, 64 nodes)",
        "InfiniBand FDR (Mellanox Connect-IB dual port, 56 Gbps/port), full-bisection fat tree",
        "OpenFOAM 4.1 pimpleFoam (Icc 16.0.3 -O3, Intel MPI 5.1.3.210)", 20,
        "measured 2016-11-17 by Masashi Imano"),
}


def git(mirror, *args):
    return subprocess.run(["git", f"--git-dir={mirror}", *args], capture_output=True, text=True, check=True).stdout


def rows_of(mirror, case):
    path = f"channelReTau110/{case}/all.csv"
    text = git(mirror, "show", f"{SNAP}:{path}")
    lines = text.splitlines()
    hdr = lines[0].lstrip("#").split(",")
    commit = git(mirror, "log", "-1", "--format=%H", SNAP, "--", path).strip()
    out = []
    for r in csv.reader(lines[1:]):
        if not r:
            continue
        x = dict(zip(hdr, r))
        out.append((x, path, commit))
    return out


def main():
    mirror = sys.argv[1]
    for stem, (case, machine, network, app, rpn, facts) in CASES.items():
        hw = machine
        rows = [t for t in rows_of(mirror, case) if t[0]["fvSolution"] == FVSOL]
        rows.sort(key=lambda t: (int(t[0]["nNodes"]), t[0]["Date"], t[0]["Time"]))
        f = HERE / f"openfoam-channelReTau110-3M-gamg-{stem}.csv"
        counts = sorted({int(t[0]["nNodes"]) for t in rows})
        with f.open("w", newline="") as fh:
            fh.write(f"# OpenFOAM benchmark channelReTau110 (Open CAE Society of Japan V&V committee, OpenFOAM benchmark WG), 3M mesh, GAMG-DIC, on {machine}; network {network}; {rpn} MPI ranks per node (flat MPI).\n")
            fh.write("# scaling: strong\n")
            fh.write(f"# source: {REPO} (snapshot HEAD {SNAP}, 2018-03-23); raw table channelReTau110/{case}/all.csv (the study's bin/table.sh output, one line per solver log; the logs themselves are only in all.tar.bz2); commit per row = last commit touching that file.\n")
            fh.write(f"# hardware and software as stated in channelReTau110/{case}/README.md: {hw}; {app}; {facts}.\n")
            fh.write("# time_s = the table's ExecutionTimePerStepWOLastStep, copied as printed: (ExecutionTime at step 51 - ExecutionTime at step 1) / 50, i.e. mean solver CPU-clock seconds per time step over steps 2-51 (the benchmark's own figure of merit). note keeps ExecutionTime at steps 1, 51 and 52 and ClockTimePerStepWOLastStep (wall clock, integer seconds in the log).\n")
            fh.write(f"# Node counts here: {', '.join(map(str, counts))}. Every GAMG-DIC row of the table is kept (repeats are separate rows). PCG-DIC rows of the same table are not used.\n")
            fh.write("# NO point-to-point benchmark (OSU/IMB/NetPIPE) exists for this machine in the source: this is a no-benchmark pair (network named by type and rate only).\n")
            fh.write("# licence: NONE STATED (the repository has no LICENSE file and the READMEs name none). Numbers transcribed as facts with attribution; the source files are not copied here.\n")
            w = csv.writer(fh, lineterminator="\n")
            w.writerow(["nodes", "processes", "time_s", "ranks_per_node", "machine", "network", "app", "input", "file", "commit", "note"])
            for x, path, commit in rows:
                n, p = int(x["nNodes"]), int(x["nProcs"])
                assert p == n * rpn, (case, n, p)
                note = (f"log {x['log']}; decomposeParDict {x['decomposeParDict']}; solveBatch {x['solveBatch']}; build {x['Build']}; "
                        f"run {x['Date']} {x['Time']}; Steps {x['Steps']}; ExecutionTime step1/51/52 = "
                        f"{x['ExecutionTimeFirstStep']}/{x['ExecutionTimeNextToLastStep']}/{x['ExecutionTimeLastStep']} s; "
                        f"ClockTimePerStepWOLastStep {x['ClockTimePerStepWOLastStep']} s")
                w.writerow([n, p, x["ExecutionTimePerStepWOLastStep"], rpn, machine, network, app, INPUT, path, commit, note])
        print(f.name, len(rows), counts)


if __name__ == "__main__":
    main()
