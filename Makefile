# The two set-up commands (README): `make run` and `make test`. Both install missing Debian
# packages first, then configure and build into one build folder.
BUILD_DIR ?= build
GENERATOR ?= Ninja
JOBS ?= $(shell nproc)

.PHONY: deps configure build test run bench fuzz crash-long crash-long-postgres \
	test-postgres-failover clean

deps:
	@bash scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD_DIR) -G $(GENERATOR) -DCMAKE_BUILD_TYPE=Release >/dev/null

build: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS)

# Every test but those run outside CI (label postgres-failover: `make test-postgres-failover`).
test: build
	@cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS) -LE postgres-failover

run: build
	@bash scripts/run.sh $(BUILD_DIR)

bench: build
	@bash scripts/bench.sh $(BUILD_DIR)

# The crash test at length, outside CI (docs/testing.md, "Crash test"): CRASH_CYCLES kills
# (default 1000) on a SQLite file instead of the 200 of `make test`, or on PostgreSQL
# (crash-long-postgres) instead of its 84; CREDLEDGER_CRASH_SEED repeats a run.
CRASH_CYCLES ?= 1000
crash-long: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS) --target crash_workload_test
	@CREDLEDGER_CRASH_CYCLES=$(CRASH_CYCLES) $(BUILD_DIR)/test/integration/crash_workload_test

crash-long-postgres: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS) --target postgres_crash_workload_test
	@CREDLEDGER_POSTGRES_CRASH_CYCLES=$(CRASH_CYCLES) \
		$(BUILD_DIR)/test/integration/postgres_crash_workload_test

# The database failover test, outside CI (docs/testing.md, "Database failover"): a PostgreSQL
# primary killed while the log's writer threads append, and its synchronous standby promoted.
test-postgres-failover: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS) --target store_postgres_failover_test
	@$(BUILD_DIR)/test/store/postgres/store_postgres_failover_test

# libFuzzer targets in their own clang build folder (docs/testing.md, "Fuzzing").
fuzz: deps
	@bash scripts/fuzz.sh build-fuzz

clean:
	@rm -rf $(BUILD_DIR) build-fuzz
