# bufferlab: `make demo` builds everything into .venv and runs an example;
# `make test` runs every Rust and Python test. Both work on a fresh clone (Python 3.11 + Rust).

PYTHON   ?= python3.11
VENV     := .venv
PY       := $(VENV)/bin/python
# The shared example scenarios sit beside the repository; copies ship in scenarios/.
EXAMPLES ?= $(firstword $(wildcard ../shared/examples) scenarios)
DEMO     ?= $(EXAMPLES)/udp-fifo.toml

# Python may cache compiled modules (tests/ and python/ as __pycache__, ignored by git) even where
# the environment says not to: without it every test process rewrites every test module's asserts
# again (6 of the 11 s a pytest process spends collecting) and every command the tests start
# compiles the package afresh.
unexport PYTHONDONTWRITEBYTECODE

RUST_SOURCES := Cargo.toml Cargo.lock $(shell find crates -name '*.rs' -o -name Cargo.toml 2>/dev/null)

.PHONY: demo test test-rust test-rust-build test-python build deps pgo clean validate validate-linux reproduce kernel-deps tool-deps ns3

demo: build
	$(VENV)/bin/bufferlab run $(DEMO)

# The Rust tests' build wants both cores for two minutes; the Python dependencies' install and the
# system tools' (apt: Chromium, tshark, Flent, iperf3 on a fresh machine, a minute or more) mostly
# the network and one core: all three run at once (make -j3). Then the Rust tests run alone (the
# kernel backend's measure the wall clock), then the extension (it reuses what the Rust tests
# built) and the Python tests.
test:
	$(MAKE) --no-print-directory -j3 test-rust-build deps tool-deps
	$(MAKE) --no-print-directory test-rust test-python

# `--tests`: the crates' unit tests and integration tests, nothing else: not the examples
# (`bench`, `run_plan`: profiling tools, each a whole link-time optimisation of the engine, a sixth
# of the build; `cargo build --release --examples` builds them) and no doc tests (the crates have
# none, and rustdoc would still read each crate).
RUST_TESTS := --release --workspace --tests

test-rust:
	cargo test $(RUST_TESTS)

# The same build as test-rust's, without running anything.
test-rust-build:
	cargo test $(RUST_TESTS) --no-run

# Everything but the wall-clock tests on every core (pytest-xdist, handed out one at a time, the
# longest first: tests/conftest.py) at nice 19; beside them, one at a time at nice 0, the tests that
# measure the wall clock (the kernel backend's real hosts, whose network runs under SCHED_FIFO;
# signals racing with the work they stop; a Dask worker killed mid-sweep): against nice 19 they get
# the cores as if alone, and they take half as long as the others, so they cost no wall time
# (their output follows the others'). Then the two tests that need the machine to themselves
# (marker `alone`, their own module: the kernel backend's lateness on a quiet and on a loaded
# machine).
SERIAL_LOG := .pytest-serial.log
# Hypothesis's derandomized profile (tests/conftest.py): the same examples on every run.
test-python: export HYPOTHESIS_PROFILE := ci
test-python: build
	@$(PY) -m pytest -q -p no:cacheprovider -m "serial and not alone" > $(SERIAL_LOG) 2>&1 & serial=$$!; \
	echo "$(PY) -m pytest -q -m 'serial and not alone' (beside the next, output below it)"; \
	echo "nice -n 19 $(PY) -m pytest -q -n auto --maxschedchunk 1 -m 'not serial'"; \
	nice -n 19 $(PY) -m pytest -q -n auto --maxschedchunk 1 -m "not serial"; rest=$$?; \
	wait $$serial; lane=$$?; cat $(SERIAL_LOG); rm -f $(SERIAL_LOG); \
	test $$rest -eq 0 -a $$lane -eq 0
	$(PY) -m pytest -q -p no:cacheprovider tests/test_kernel_lateness.py

build: $(VENV)/.built

deps: $(VENV)/.deps

# Python dependencies, from pyproject.toml (re-run when it changes).
$(VENV)/.deps: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(PY) -c 'import tomllib; p = tomllib.load(open("pyproject.toml", "rb"))["project"]; print("\n".join(["maturin>=1.5,<2"] + p["dependencies"] + p["optional-dependencies"]["dev"]))' > $(VENV)/requirements.txt
	$(PY) -m pip install --quiet --disable-pip-version-check --no-compile -r $(VENV)/requirements.txt
	$(PY) -c 'import $(WARM_IMPORTS)'
	touch $@

# pip compiles every module of what it installs (38 of its 66 s of CPU here), most of them modules
# nothing imports; Python compiles a module on its first import instead, and keeps it (see
# PYTHONDONTWRITEBYTECODE above). What bufferlab and its tests import is compiled once here, beside
# the Rust build, rather than by each test process at once.
WARM_IMPORTS := pandas, pyarrow.parquet, duckdb, matplotlib.pyplot, scipy.stats, dask.distributed, \
	plotly.graph_objects, plotly.io, typer, rich.console, pytest, hypothesis, xdist, PIL

# The engine extension and the package, installed editable into .venv (re-built when Rust changes).
MATURIN := VIRTUAL_ENV=$(abspath $(VENV)) PATH=$(abspath $(VENV))/bin:$$PATH $(VENV)/bin/maturin develop --release
$(VENV)/.built: $(VENV)/.deps $(RUST_SOURCES)
	$(MATURIN)
	$(PY) -c 'import bufferlab._core'
	touch $@

# Validation against ns-3 (docs/validation.md); not part of `make test`. ns-3 comes from the PyPI
# wheel, installed on first use into its own environment in the cache (about 520 MB).
NS3_VENV ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/bufferlab/ns3-venv
NS3_WHEEL := ns3==3.44.post0

# ns-3 alone, where `bufferlab crosscheck` finds it (what its message without ns-3 advises).
ns3: $(NS3_VENV)/.installed

$(NS3_VENV)/.installed:
	test -x $(NS3_VENV)/bin/python || $(PYTHON) -m venv $(NS3_VENV)
	$(NS3_VENV)/bin/python -m pip install --quiet --disable-pip-version-check "$(NS3_WHEEL)"
	touch $@

validate: build $(NS3_VENV)/.installed
	command -v g++ >/dev/null || (apt-get update -qq && apt-get install -y -qq g++)
	BUFFERLAB_NS3_VENV=$(NS3_VENV) nice -n 10 $(PY) -m bufferlab.crosscheck.suite --out docs/validation.md

# Validation against Linux (docs/validation-linux.md): the simulator's default TCP against the
# kernel's TCP on the kernel backend (root), 52 scenarios x 5-20 seeds of 20 s (two of 60 s) in
# real time, three scenarios at a time and the BBR ones alone (about 70 min from nothing on a quiet
# two-core machine; it says its own estimate first, and warns early when the host is too busy for
# that pace: docs/kernel-backend.md).
# Measures only the kernel runs missing from python/bufferlab/kernel/suite/kernel/ (or made from
# another version of their scenario file), then writes the page; not part of `make test`.
validate-linux: build kernel-deps
	nice -n -5 $(PY) -m bufferlab.validate_linux --kernel --jobs 3 --out docs/validation-linux.md

# Every reproduction of the seed papers, quick profile (>= 3 seeds, every core): runs, figures and
# report.md in repro-out/ (a rerun resumes), and docs/reproductions.md + docs/figures/ regenerated.
# The full profile: make reproduce REPRO_PROFILE=--full
REPRO_PROFILE ?= --quick
reproduce: build
	$(VENV)/bin/bufferlab reproduce all $(REPRO_PROFILE) --out repro-out --docs docs

# The kernel backend's tests use iputils ping and iperf3 inside the namespaces; installed only
# where they can be (root with apt), else those tests skip and say why.
kernel-deps:
	@if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && ! (command -v ping && command -v iperf3) >/dev/null 2>&1; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq iperf3 iputils-ping >/dev/null; \
	fi

# The field's own tools the tests read bufferlab's output with: Flent (its plots need
# python3-matplotlib in the distribution's python), headless Chromium (the HTML report), and
# tcpdump, tshark and tcptrace (the packet captures, tests/test_capture.py; tshark's package asks
# whether non-root users may capture: no). Installed only where they can be (root with apt),
# else those tests skip and say why. After kernel-deps: apt installs one thing at a time.
tool-deps: kernel-deps
	@if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && ! (command -v flent && command -v chromium && /usr/bin/python3 -c 'import matplotlib' && command -v tcpdump && command -v tshark && command -v tcptrace) >/dev/null 2>&1; then \
		echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends flent python3-matplotlib chromium fonts-liberation tcpdump tshark tcptrace >/dev/null; \
	fi

# The engine's profile-guided build (docs/BENCHMARKS.md, "The profile-guided build"): the same
# results bit for bit, in less time. The extension is built with a counter on every branch, run on
# the training set (python/bufferlab/pgo.py), built again from what those runs counted, and
# installed into .venv in place of `make build`'s; `bufferlab version` then says "profile-guided
# build". Two builds of the engine in target/pgo/ (a few minutes); `make build` puts the plain one
# back once a Rust source changes. llvm-profdata must speak rustc's LLVM: the toolchain's own,
# from rustup's llvm-tools component.
PGO_DIR := $(abspath target/pgo)
pgo: deps
	@set -e; \
	profdata="$$(rustc --print sysroot)/lib/rustlib/$$(rustc -vV | sed -n 's/^host: //p')/bin/llvm-profdata"; \
	if [ ! -x "$$profdata" ]; then \
		echo "rustup component add llvm-tools (llvm-profdata for rustc's LLVM)"; \
		rustup component add llvm-tools || { echo "make pgo: no llvm-profdata at $$profdata; install rustup's llvm-tools component" >&2; exit 2; }; \
	fi; \
	echo "1/3: the instrumented engine (target/pgo/gen)"; \
	CARGO_TARGET_DIR=$(PGO_DIR)/gen RUSTFLAGS="-Cprofile-generate=$(PGO_DIR)/raw" BUFFERLAB_BUILD=pgo-training $(MATURIN); \
	rm -rf $(PGO_DIR)/raw; \
	echo "2/3: the training runs"; \
	$(PY) -m bufferlab.pgo; \
	"$$profdata" merge -o $(PGO_DIR)/engine.profdata $(PGO_DIR)/raw; \
	echo "3/3: the engine built from the profile (target/pgo/use)"; \
	CARGO_TARGET_DIR=$(PGO_DIR)/use RUSTFLAGS="-Cprofile-use=$(PGO_DIR)/engine.profdata" BUFFERLAB_BUILD=pgo $(MATURIN); \
	$(PY) -c 'import bufferlab._core as c; assert c.build() == "pgo", c.build()'; \
	touch $(VENV)/.built; \
	$(VENV)/bin/bufferlab version

clean:
	rm -rf $(VENV) python/bufferlab/_core*.so target/wheels
