# Thin wrapper around CMake. `make demo` and `make test` each install, configure, build and run.
# docs/bench/build.md (scripts/bench-build) has the time of every phase from a clean clone.
JOBS ?= 2
BUILD ?= build
# The sanitizer tree: the unit, SystemC and timing tests under ASan + UBSan and the libFuzzer targets, with clang.
SAN_BUILD ?= build-asan
export JOBS BUILD SAN_BUILD

# Ninja for a new tree (it starts the next target's objects before the previous library links; docs/bench/build.md);
# a tree configured before keeps the generator it was made with.
generator = $(if $(wildcard $(1)/CMakeCache.txt),,-G Ninja)

.PHONY: deps configure build simtlm demo test test-release san-configure san-build test-asan test-fuzz bench bench-build \
  clean

deps:
	@scripts/install-deps

configure: deps
	cmake -S . -B $(BUILD) $(call generator,$(BUILD)) -DCMAKE_BUILD_TYPE=Release

# Everything: the simtlm command, every test program, every Verilated variant, the benchmarks.
build: configure
	cmake --build $(BUILD) -j$(JOBS)

# Only what the demo and the command line need.
simtlm: configure
	cmake --build $(BUILD) -j$(JOBS) --target simtlm

demo: simtlm
	SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 $(BUILD)/simtlm demo --workloads workloads --out out/demo

# Every phase below in order (Release build and tests, sanitizer build and tests, fuzzing), timed, with a
# one-line summary per phase at the end (scripts/test-all).
test: deps
	scripts/test-all

# The longest test here takes about a minute (Testing/Temporary/CTestCostData.txt after a run); the cap turns a
# hang into a failure that names the test, instead of a CI run that only runs out of time.
TEST_TIMEOUT ?= 1200
export TEST_TIMEOUT

test-release: build
	cd $(BUILD) && ctest -j$(JOBS) --timeout $(TEST_TIMEOUT) --output-on-failure

# clang builds the sanitizer tree because libFuzzer comes with it: one tree for the sanitized tests and the fuzz
# targets (cmake/fuzz.cmake). -O1 with line tables (CMakeLists.txt, SIMTLM_SANITIZE), asserts on.
san-configure: deps
	cmake -S . -B $(SAN_BUILD) $(call generator,$(SAN_BUILD)) -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_COMPILER=clang++ \
	  -DSIMTLM_SANITIZE=ON -DSIMTLM_FUZZ_TARGETS=ON

san-build: san-configure
	cmake --build $(SAN_BUILD) -j$(JOBS) --target unit_tests systemc_tests timing_tests mechanism_tests sweep_file_tests fuzz_targets

# The sanitizer tree runs the GoogleTest programs labelled `sanitized` (unit, SystemC and timing tests), all of
# them; the RTL equivalence and synthesis checks and the command-line checks run once, in the Release build.
# (Until issue 26 the sanitizer tree was -O0 and left 26 long whole-workload simulations to the Release build;
# at -O1 they take about 2 minutes of its run.)
test-asan: san-build
	cd $(SAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest -j$(JOBS) --timeout $(TEST_TIMEOUT) --output-on-failure -L sanitized

# libFuzzer targets (clang, ASan, UBSan) of the sanitizer tree: the saved regression inputs, then about 60 s per
# target, $(JOBS) targets at once.
test-fuzz: san-build
	FUZZ_BUILD=$(SAN_BUILD) scripts/fuzz --time 60 --seed 1 --target all --jobs $(JOBS)

bench: build
	scripts/bench
	scripts/bench-timing
	scripts/bench-scale

# `make demo` and `make test` from a clean clone, timed phase by phase: docs/bench/build.md.
bench-build:
	scripts/bench-build

clean:
	rm -rf $(BUILD) $(SAN_BUILD) build-fuzz out
