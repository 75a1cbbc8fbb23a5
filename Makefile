# tempmail. `make run` starts the service; `make test` runs the tests a
# change needs; CI runs those, make test-e2e and make test-long.
GO ?= go
BIN := bin/tempmail
# The version the binary reports (tempmail version, /metrics, the start-up
# line): the nearest tag and the commits since, or the commit alone.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || git rev-parse --short HEAD 2>/dev/null)
LDFLAGS := -X main.version=$(VERSION)

.PHONY: build run test test-race test-e2e test-long vet fmt-check clean bench bench-quick powerloss docs

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/tempmail

# The binary on your PATH, as `tempmail`: in $(PREFIX)/bin when PREFIX is
# given (make install PREFIX=/usr/local), else in Go's own place for
# commands, $GOBIN, or the first $GOPATH's bin (usually ~/go/bin).
.PHONY: install
install:
	@dir="$(if $(PREFIX),$(PREFIX)/bin,$$($(GO) env GOBIN))"; \
	if [ -z "$$dir" ]; then dir="$$($(GO) env GOPATH | cut -d: -f1)/bin"; fi; \
	mkdir -p "$$dir" && $(GO) build -ldflags "$(LDFLAGS)" -o "$$dir/tempmail" ./cmd/tempmail && echo "installed $$dir/tempmail"

# The service with embedded NATS: data in ./data, HTTP on 127.0.0.1:8080,
# SMTP on 127.0.0.1:2525, domain tempmail.test.
run: build
	./$(BIN) serve --data-dir ./data --http-addr 127.0.0.1:8080 --smtp-addr 127.0.0.1:2525 --domains tempmail.test

# The tests come in layers (CONTRIBUTING.md):
#
# make test: every package but the end-to-end ones: unit tests, each
# family's handler tests on a service its package shares (service/apitest),
# and the layers below the API against embedded NATS. Long scenarios skip
# (go test -short: servicetest.Long, backendtest.Long). What a developer
# runs after each change: about 1½ minutes warm on 2 cores. Four packages
# at once, not GOMAXPROCS: their tests mostly wait (for a TTL to run out,
# a retry a second away, a held request), and two at a time would wait in
# turn.
#
# make test-race: the same tests under the race detector (about 3
# minutes warm on 2 cores: the detector costs them four times the CPU).
#
# make test-e2e: the product as its users meet it: the binary driven as a
# child process (cmd/tempmail: the README's and docs' commands, power
# cuts, clients others wrote, from the npm registry, Postfix in front of
# it) and the page in
# Chromium (web, under the race detector: Chromium is a process of its
# own, and the detector costs these tests little). cmd/tempmail runs
# without it: it would find nothing in a child, and slows the FUSE
# filesystem of the power cuts tenfold.
#
# CI runs them all: make test, test-race, test-e2e and test-long.
E2E := tempmail/cmd/tempmail tempmail/web
UNIT = $$($(GO) list ./... | grep -v -x -F $(foreach p,$(E2E),-e $(p)))
test: fmt-check vet
	$(GO) test -p 4 -short -count=1 -timeout 10m $(UNIT)

test-race:
	$(GO) test -race -short -count=1 -timeout 10m $(UNIT)

test-e2e:
	$(GO) test -race -short -count=1 -timeout 10m ./web
	$(GO) test -short -count=1 -timeout 10m ./cmd/tempmail

# The long scenarios (servicetest.Long, backendtest.Long), without the
# race detector: a three-node cluster losing a node and losing power, and
# upgraded one node at a time over views it must rebuild, a hundred
# thousand idle inboxes, a 25 MiB message, a thousand messages in one
# inbox. CI runs it after make test, one package at a time (-p 1): a
# cluster's restarted node must become ready within a minute, which a
# hundred thousand inboxes being made beside it on two cores can starve.
# Every test that calls servicetest.Long or backendtest.Long is named here
# (a test of cmd/tempmail checks it).
LONG_TESTS := TestClusterLosesNoMailWhenANodeDies|TestAStalledNodeHandsItsPartitionsOver|TestServerChurnLeavesEverythingWorking|TestClusterStartAndStopLogNoError|TestClusterUpgradeRebuildsTheViewsOneNodeAtATime|TestPowerCutOfAClusterLosesNoAcknowledgedMail|TestIdleCostDoesNotGrowWithInboxes|TestIngestMemoryIsBoundedFor25MiBMessage|TestMessage1001EvictsMessage1Everywhere|TestTenantsHoldOnEveryNodeOfACluster|TestClusterUnderFaults
test-long:
	$(GO) test -p 1 -count=1 -timeout 45m -v -run '^($(LONG_TESTS))$$' ./...

vet:
	$(GO) vet ./...

# What the docs show that the code makes, written again from it: the
# outputs of the examples of README.md and docs/ (make test-e2e fails when
# they differ; cmd/tempmail/docs_test.go says how they are compared), and
# docs/configuration.md's tables of flags (make test fails when they differ).
docs:
	$(GO) test -count=1 -run DocsExamples ./cmd/tempmail -update
	$(GO) test -count=1 -run TestConfigurationPage ./config -update

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

clean:
	rm -rf bin

# Benchmarks against the performance targets (docs/BENCHMARKS.md). Not part of
# test. The output and profiles stay out of git; results go to docs/BENCHMARKS.md.
# TMBENCH_MAILPIT, a Mailpit binary, adds it to the durability comparison.
bench: build
	$(GO) test -run '^$$' -bench . -benchtime 2s ./sealed/
	$(GO) build -o bin/tmbench ./cmd/tmbench
	./bin/tmbench -tempmail $(BIN) -profiles bench-profiles -mailpit "$(TMBENCH_MAILPIT)" | tee bench-output.txt

bench-quick: build
	$(GO) build -o bin/tmbench ./cmd/tmbench
	./bin/tmbench -tempmail $(BIN) -quick

# Power cuts at full size (docs/architecture.md, "Durability and power cuts"): four cuts of a
# single node in the middle of 2,000 messages, on a new store and an aged
# one, and a three-node cluster where one node and then all three lose
# power. With LAZYFS set to a LazyFS binary (github.com/dsrhaslab/lazyfs,
# built as its README says) they run on LazyFS; without, on package
# powercut's filesystem. Both need /dev/fuse and root.
powerloss:
	@if [ -n "$(LAZYFS)" ]; then echo "power cuts on LazyFS ($(LAZYFS))"; else echo "power cuts on package powercut's filesystem (set LAZYFS=/path/to/lazyfs to use LazyFS)"; fi
	TEMPMAIL_LAZYFS=$(LAZYFS) TEMPMAIL_POWERLOSS=full $(GO) test -count=1 -v -timeout 30m -run 'TestPowerCut' ./cmd/tempmail
