# Thin wrapper around CMake. `make demo` and `make test` each install, configure, build and run.
JOBS ?= 2
BUILD ?= build
ASAN_BUILD ?= build-asan

.PHONY: deps build demo test test-release test-asan test-fuzz bench clean

deps:
	@scripts/install-deps

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release
	cmake --build $(BUILD) -j$(JOBS)

demo: build
	SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 $(BUILD)/simtlm demo --workloads workloads --out out/demo

# The fuzz targets run last, after every other test has passed (docs/reliability-fuzz.md); a fixed seed so a run repeats.
test: test-release test-asan
	$(MAKE) test-fuzz

# The longest test here takes about a minute (Testing/Temporary/CTestCostData.txt after a run); the cap turns a
# hang into a failure that names the test, instead of a CI run that only runs out of time.
TEST_TIMEOUT ?= 1200

test-release: build
	cd $(BUILD) && ctest -j$(JOBS) --timeout $(TEST_TIMEOUT) --output-on-failure

# The sanitizer build runs the GoogleTest programs labelled `sanitized` (unit, SystemC and timing tests); the RTL
# equivalence and synthesis checks run once, in the Release build. The long whole-workload simulations run only in
# the Release build: under ASan each takes 15 s to 4.5 min (together about two thirds of the sanitized run's
# test-seconds) and runs no code that the smaller workloads of the same suites (bfs, bitonic, reduction,
# histogram, backprop, ray_trace, ...) and the unit tests do not: 10^6 CTAs, two runaways stopped at the default
# 4,000,000-cycle budget, every permutation on every compacting workload, and the largest kernels of the
# compaction, sequence and workload suites.
ASAN_SKIP_LONG_WORKLOADS = volume_render|mandelbrot|julia|convolution|svm_kernel|sad|sobel|binomial_options|edge_filter|recursive_gaussian|nbody|eigen_bisect|mummer
ASAN_SKIP = TimingBackpressure.MillionOneThreadCtasCountExactly|TimingRunaway.EndlessStoreLoopStopsAtTheDefaultCycleBudget|TimingRunaway.SpinOnAFlagNobodySetsStopsAtTheDefaultCycleBudget|TimingCompactionEffect.EveryPermutationKeepsTheOutputs|Suite/TimingCompaction.MatchesTheCtaWideStudy/($(ASAN_SKIP_LONG_WORKLOADS))|Suite/TimingSequenceWorkload.OutputsEqualFunctional/(merge_sort|particles|kmeans)|Suite/TimingWorkload.OutputsAndCountsEqualFunctional/(volume_render|svm_kernel|mandelbrot|eigen_bisect)
test-asan: deps
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DSIMTLM_SANITIZE=ON
	cmake --build $(ASAN_BUILD) -j$(JOBS) --target unit_tests systemc_tests timing_tests sweep_file_tests
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest -j$(JOBS) --timeout $(TEST_TIMEOUT) --output-on-failure -L sanitized -E '$(ASAN_SKIP)'

# libFuzzer targets (clang, ASan, UBSan) in build-fuzz: the saved regression inputs, then about 60 s per target,
# $(JOBS) targets at once.
test-fuzz: deps
	JOBS=$(JOBS) scripts/fuzz --time 60 --seed 1 --target all --jobs $(JOBS)

bench: build
	scripts/bench
	scripts/bench-timing
	scripts/bench-scale

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) build-fuzz out
