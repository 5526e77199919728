# perfmodel — the two set-up commands are `make demo` and `make test`; both create .venv.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PM     := $(BIN)/perfmodel
STAMP  := $(VENV)/.installed

.PHONY: demo test lint calibration reports docs bench measure-local clean help

help:
	@echo "make demo         install into .venv and run calibrate + network on the example data"
	@echo "make test         install into .venv and run the test suite"
	@echo "make lint         ruff and mypy"
	@echo "make calibration  regenerate every profile in calibration/ from data/"
	@echo "make reports      regenerate every report in reports/ (markdown and figures)"
	@echo "make docs         regenerate docs/reference/cli.md from the CLI (docs/: tutorial, how-to, reference, explanations, formats)"
	@echo "make bench        speed (start-up, calibrate, sweep, reports) and accuracy (point-to-point held-out sizes, scaling beside Extra-P); not part of test"
	@echo "make measure-local  measure this machine over MPI into data/local/ (replaces the files)"

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,mpi]'
	@touch $(STAMP)

demo: $(STAMP)
	$(PM) calibrate data/mpi4py/pingpong_mpich.csv --name demo-mpich --out build/demo-mpich.toml --force
	$(PM) network build/demo-mpich.toml --sizes 1B,1KiB,64KiB,1MiB,16MiB

test: $(STAMP)
	$(BIN)/python -m pytest -q

lint: $(STAMP)
	$(BIN)/ruff check perfmodel tests bench tools
	$(BIN)/mypy

# One command regenerates every committed profile (inputs and sources are recorded inside each).
calibration: $(STAMP)
	$(PM) calibrate data/mpi4py/pingpong_mpich.csv --name mpi4py-mpich --force --quiet
	$(PM) calibrate data/mpi4py/pingpong_ompi.csv --name mpi4py-ompi --force --quiet
	$(PM) calibrate data/seeds/beowulf-1995-ethernet.csv --spec data/seeds/beowulf-1995-ethernet.spec.toml --name beowulf-1995 --force --quiet
	$(PM) calibrate data/seeds/hyglac-mpi.csv --model hockney --name hyglac-mpi --force --quiet
	$(PM) calibrate data/seeds/hyglac-sockets.csv --spec data/seeds/hyglac-sockets.spec.toml --name hyglac --force --quiet
	$(PM) calibrate --spec data/seeds/sci-cluster.spec.toml --name sci-cluster --force --quiet
	$(PM) calibrate --spec data/seeds/myrinet-cluster.spec.toml --name myrinet-cluster --force --quiet
	$(PM) calibrate --spec data/seeds/es80.spec.toml --name es80 --force --quiet
	$(PM) calibrate data/alaska/ib-gcc9-openmpi4-ucx --nodes-per-job 2 --name alaska-edr --force --quiet
	$(PM) calibrate data/alaska/roce-gcc9-openmpi4-ucx --nodes-per-job 2 --name alaska-roce --force --quiet
	$(PM) calibrate data/pairs/osu/aws-parallel-cluster --name cloud-aws-parallel-cluster --repeats --nodes-in-name --force --quiet
	$(PM) calibrate data/pairs/osu/aws-eks --name cloud-aws-eks --repeats --nodes-in-name --force --quiet
	$(PM) calibrate data/pairs/osu/azure-cyclecloud --name cloud-azure-cyclecloud --repeats --nodes-in-name --force --quiet
	$(PM) calibrate data/pairs/osu/azure-aks --name cloud-azure-aks --repeats --nodes-in-name --force --quiet
	$(PM) calibrate data/pairs/osu/google-compute-engine --name cloud-google-compute-engine --repeats --nodes-in-name --force --quiet
	$(PM) calibrate data/pairs/osu/google-gke --name cloud-google-gke --repeats --nodes-in-name --force --quiet
	$(PM) calibrate data/pairs-fresh/converged-computing-flux-usernetes/osu/bare-metal --name flux-bare-metal --repeats --force --quiet
	$(PM) calibrate data/pairs-fresh/converged-computing-flux-usernetes/osu/bare-metal-with-usernetes --name flux-bare-metal-with-usernetes --repeats --force --quiet
	$(PM) calibrate data/pairs-fresh/converged-computing-flux-usernetes/osu/container --name flux-container --repeats --force --quiet
	$(PM) calibrate data/pairs-fresh/converged-computing-flux-usernetes/osu/container-with-usernetes --name flux-container-with-usernetes --repeats --force --quiet
	$(PM) calibrate data/pairs-fresh/converged-computing-flux-usernetes/osu/usernetes --name flux-usernetes --repeats --force --quiet
	$(PM) calibrate data/pairs-hpcc/archer --repeats --name hpcc-archer --force --quiet
	$(PM) calibrate data/pairs-hpcc/athena --repeats --name hpcc-athena --force --quiet
	$(PM) calibrate data/pairs-hpcc/cirrus --repeats --name hpcc-cirrus --force --quiet
	$(PM) calibrate data/pairs-hpcc/csd3skylake --repeats --name hpcc-csd3skylake --force --quiet
	$(PM) calibrate data/pairs-hpcc/thomas --repeats --name hpcc-thomas --force --quiet
	$(PM) calibrate --spec data/seeds/beowulf-ii.spec.toml --name beowulf-ii --force --quiet
	$(PM) calibrate --spec data/seeds/cray-t3d.spec.toml --name cray-t3d --force --quiet
	$(PM) calibrate data/local/pingpong-np2.csv --name local-mpich --force --quiet
	$(PM) calibrate data/local/pairs-np4.csv data/local/fanin-np4.csv --name local-np4-oversubscribed --force --quiet

# One command regenerates every committed report (specifications in reports/specs/) and the
# what-if figures; tests/test_reports.py fails when a committed one differs from its regeneration.
REPORTS := beowulf-1995 hyglac es80
reports: $(STAMP)
	for r in $(REPORTS); do $(PM) report reports/specs/$$r.toml --out reports/$$r.md --force || exit 1; done
	$(PM) whatif nbody --machine calibration/beowulf-1995.toml --candidates data/catalogues/beowulf-1995.toml --fit data/seeds/beowulf-1995-apps.csv --where code=nbody --vary nodes=1..16 --vary network=all --vary channels=1,2 --plot reports/whatif/nbody-beowulf-1995.svg --force > /dev/null
	$(PM) whatif ppm --machine calibration/beowulf-1995.toml --candidates data/catalogues/beowulf-1995.toml --fit data/seeds/beowulf-1995-apps.csv --where code=ppm --where use=fit --vary nodes=1..16 --vary network=all --vary channels=1,2 --plot reports/whatif/ppm-beowulf-1995.png --force > /dev/null

# The command-line reference in docs/ is generated from the CLI itself; tests/test_docs.py fails
# when the committed docs/reference/cli.md differs from it, and runs every command docs/ shows.
docs: $(STAMP)
	$(BIN)/python -m perfmodel.cli.reference docs/reference/cli.md

# Benchmarks (bench/README.md): not part of make test. The accuracy run creates Extra-P's own
# virtual environment in build/extrap-venv on first use (needs the network).
bench: $(STAMP)
	$(BIN)/python bench/speed.py
	$(BIN)/python bench/cost.py
	$(BIN)/python bench/sweep_throughput.py
	$(BIN)/python bench/p2p_accuracy.py --markdown
	$(BIN)/python bench/scaling_accuracy.py --markdown
	$(BIN)/python bench/fabric_accuracy.py --markdown
	$(BIN)/python bench/other_machine.py --markdown
	$(BIN)/python bench/cloud_pairs.py --markdown
	$(BIN)/python bench/hpcc_pairs.py --markdown
	$(BIN)/python bench/overhead_rules.py
	$(BIN)/python bench/elsewhere.py --markdown
	$(BIN)/python bench/node_spread.py --markdown
	$(BIN)/python bench/scaling_corpus.py --part all --markdown
	$(BIN)/python bench/p2p_corpus.py --part all

# Real measurements of this machine (data/local/README.md), with mpi4py's own ping-pong run beside
# perfmodel's for comparison. Not part of make test; replaces the committed files.
LOCAL := data/local
measure-local: $(STAMP)
	$(PM) measure --pattern pingpong --np 2 --sizes 0B,1B..4MiB --out $(LOCAL)/pingpong-np2.csv --force
	{ echo "# source: measured $$(date -u +%Y-%m-%dT%H:%M:%SZ) on $$(hostname) ($$(nproc) cores), right after pingpong-np2.csv;" \
	       "mpi4py $$($(BIN)/python -c 'import mpi4py; print(mpi4py.__version__)'), $$($(BIN)/mpichversion | head -1 | tr -s ' \t' ' ')"; \
	  echo "# command: mpiexec -n 2 python -m mpi4py.bench pingpong -n 4194304 (mpiexec and python of $(VENV))"; \
	  $(BIN)/mpiexec -n 2 $(BIN)/python -m mpi4py.bench pingpong -n 4194304; } > $(LOCAL)/.bench.tmp
	mv $(LOCAL)/.bench.tmp $(LOCAL)/mpi4py-bench-pingpong-np2.txt
	$(PM) measure --pattern pairs --np 4 --out $(LOCAL)/pairs-np4.csv --force
	$(PM) measure --pattern fanin --np 4 --out $(LOCAL)/fanin-np4.csv --force
	$(PM) measure --pattern exchange --np 4 --out $(LOCAL)/exchange-np4.csv --force
	$(BIN)/python bench/measure_agreement.py $(LOCAL)/pingpong-np2.csv $(LOCAL)/mpi4py-bench-pingpong-np2.txt

clean:
	rm -rf build $(VENV) .pytest_cache .mypy_cache .ruff_cache
