# The two set-up commands (README): `make run` and `make test`. Both install missing Debian
# packages first, then configure and build into one build folder.
BUILD_DIR ?= build
GENERATOR ?= Ninja
JOBS ?= $(shell nproc)

.PHONY: deps configure build test run bench fuzz clean

deps:
	@bash scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD_DIR) -G $(GENERATOR) -DCMAKE_BUILD_TYPE=Release >/dev/null

build: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS)

test: build
	@cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

run: build
	@bash scripts/run.sh $(BUILD_DIR)

bench: build
	@bash scripts/bench.sh $(BUILD_DIR)

# libFuzzer targets in their own clang build folder (docs/testing.md, "Fuzzing").
fuzz: deps
	@bash scripts/fuzz.sh build-fuzz

clean:
	@rm -rf $(BUILD_DIR) build-fuzz
