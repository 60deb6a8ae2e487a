# Thin driver over CMake. `make demo` and `make test` are all a newcomer needs.
BUILD ?= build
CMAKE_FLAGS ?=

FUZZ_BUILD ?= build-sanitize
FUZZ_SECONDS ?= 60
FUZZ_SMOKE_RUNS ?= 3000

.PHONY: all setup configure build test demo docs install clean fuzz sanitize

all: build

setup:
	@scripts/setup.sh

configure: setup
	@test -f $(BUILD)/build.ninja || \
	  cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)

build: configure
	@cmake --build $(BUILD)

# Every test: lit + FileCheck, the C++ unit tests, and the script tests;
# then a short, repeatable run of each fuzz target in the sanitizer build.
test: build
	@cmake --build $(BUILD) --target check-qdq
	@FUZZ_RUNS=$(FUZZ_SMOKE_RUNS) scripts/fuzz.sh $(FUZZ_BUILD) 0

demo: build
	@scripts/demo.sh $(BUILD)

# Refreshes docs/reference from the ODS definitions.
docs: configure
	@cmake --build $(BUILD) --target update-docs

# Each fuzz target (fuzz/) for FUZZ_SECONDS, in the sanitizer build.
fuzz: setup
	@scripts/fuzz.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

# Every test under AddressSanitizer and UndefinedBehaviorSanitizer.
sanitize: setup
	@scripts/sanitizer-build.sh $(FUZZ_BUILD) check-qdq

install: build
	@cmake --install $(BUILD)

clean:
	rm -rf $(BUILD)
