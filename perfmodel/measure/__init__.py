"""measure: run the calibration patterns over MPI and write perfmodel's CSV.

Pure parts (importable without MPI): :mod:`.plan` (what to run), :mod:`.stats` (when enough
repetitions have been taken, and their spread), :mod:`.table` (the CSV with its provenance) and
:mod:`.launch` (under a launcher or not, and the local ``mpiexec``).  The MPI parts,
:mod:`.kernels` (one pattern's timed loop) and :mod:`.job` (the sweep, run by every rank),
import mpi4py and run inside the job.
"""
