# voxen's two set-up commands (see README.md):
#   make run   installs what is missing, builds Release, runs the main job
#   make test  installs what is missing, builds, runs every test (ctest)
# Other targets: build, bench, sanitize (tests under ASan+UBSan), clean.
JOBS ?= $(shell nproc)
BUILD ?= build

.PHONY: all deps build run test bench sanitize clean

all: build

deps:
	@scripts/install-deps.sh

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

run: build
	@scripts/run-main.sh $(BUILD)/voxen

test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

bench: build
	@scripts/run-bench.sh $(BUILD)

sanitize: deps
	@cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DVOXEN_SANITIZE=ON -DVOXEN_BENCH=OFF >/dev/null
	@cmake --build build-asan -j $(JOBS)
	@cd build-asan && ctest --output-on-failure -j $(JOBS)

clean:
	rm -rf $(BUILD) build-asan
