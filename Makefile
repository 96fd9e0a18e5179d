# Thin wrapper around CMake. `make demo` and `make test` each install, configure, build and run.
JOBS ?= 2
BUILD ?= build
ASAN_BUILD ?= build-asan

.PHONY: deps build demo test test-release test-asan bench clean

deps:
	@scripts/install-deps

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release
	cmake --build $(BUILD) -j$(JOBS)

demo: build
	SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 $(BUILD)/simtlm demo --workloads workloads --out out/demo

test: test-release test-asan

test-release: build
	cd $(BUILD) && ctest -j$(JOBS) --output-on-failure

# The sanitizer build runs the GoogleTest programs labelled `sanitized` (unit, SystemC and timing tests); the RTL
# equivalence and synthesis checks run once, in the Release build.
test-asan: deps
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DSIMTLM_SANITIZE=ON
	cmake --build $(ASAN_BUILD) -j$(JOBS) --target unit_tests systemc_tests timing_tests
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest -j$(JOBS) --output-on-failure -L sanitized

bench: build
	scripts/bench
	scripts/bench-timing

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) out
