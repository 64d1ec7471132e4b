# Flipbox: `make demo` plays the demo lineup, `make test` runs every test.
SHELL := /bin/bash
SWIFT ?= swift
BUILD_FLAGS ?=
FLIPBOX = .build/debug/flipbox
# The harness (bench, soak, replay) beside it: `flipbox bench|soak|replay` run it.
LAB = .build/debug/flipbox-lab
MEDIA = Channels/media/loop.mp4

.PHONY: deps build demo test media bench soak clean openapi api-fuzz api-fuzz-short fuzz fuzz-hls fuzz-media fuzz-http fuzz-splice example-guide vm-test vm-test-short

deps:
	@./deploy/install-deps.sh

build: deps
	@$(SWIFT) build $(BUILD_FLAGS) 2>&1 | grep -v "prohibited flag" | grep -E "error|warning: unre|Compiling flipbox|Build complete|Build of" || true
	@test -x $(FLIPBOX) && test -x $(LAB)

# A ten-second clip with a moving picture and a tone, looped by the demo's channel 7.
media: $(MEDIA)
$(MEDIA):
	@mkdir -p Channels/media
	@ffmpeg -loglevel error -y -f lavfi -i testsrc2=size=640x360:rate=30 \
		-f lavfi -i sine=frequency=587:sample_rate=48000 -t 10 \
		-c:v libx264 -preset veryfast -g 60 -pix_fmt yuv420p -c:a aac -b:a 96k -shortest $@

# A made-up guide for the example lineups (Channels/examples), from now for two days.
example-guide: build
	@$(FLIPBOX) guide example Channels/examples/demo.yaml --out Channels/examples/guide.xml

# Plays on a display when there is one (window under X11/Wayland, KMS on a console), headless otherwise.
demo: build media
	$(FLIPBOX) play Channels/demo.yaml --output auto

# Two phases: every suite but the end-to-end ones in parallel, then the end-to-end ones (each
# runs real flipbox processes: leak, soak, many channels) one at a time, so their load does not
# starve the timing of the others. Two kinds of suites run in the quiet second phase too:
# …TimingTests (checks that depend on how fast a flip is) and …LeakTests (exit tests: while
# swift-testing waits for the child process it holds a thread of the concurrency pool, and the
# pool has only two on a 2-core machine, so the whole parallel phase stood still for seconds).
QUIET = FlipboxTests|TimingTests|LeakTests
# A crash in a test process (or a flipbox it started) leaves its backtrace in .build/crashes, and
# the summary below prints what the process said just before and the crashed thread's frames.
CRASHES = $(CURDIR)/.build/crashes
# Each phase has a time limit (TEST_PHASE_LIMIT seconds): past it the phase is stopped and the
# tests that started and never ended are named, and the phase runs once more (deploy/test-phase.sh).
# The tests are built first, outside the limit: a slow build is not a hung test.
TEST_PHASE_LIMIT ?= 1200
test: build media
	@$(SWIFT) build $(BUILD_FLAGS) --build-tests 2>&1 | grep -v "prohibited flag" | grep -E "error|Build complete|Build of" || true
	@rm -rf $(CRASHES); mkdir -p $(CRASHES); \
	export SWIFT_BACKTRACE=enable=yes,interactive=no,color=no,threads=crashed,registers=none,images=none,output-to=$(CRASHES); \
	./deploy/test-phase.sh .build/test.log $(TEST_PHASE_LIMIT) $(SWIFT) test $(BUILD_FLAGS) --parallel --num-workers 2 --skip "$(QUIET)"; \
		status=$$?; \
	./deploy/test-phase.sh .build/test-e2e.log $(TEST_PHASE_LIMIT) $(SWIFT) test $(BUILD_FLAGS) --no-parallel --filter "$(QUIET)"; \
		e2e=$$?; \
	if [ $$status -ne 0 ] || [ $$e2e -ne 0 ]; then \
		echo "== what failed (whole logs: .build/test.log, .build/test-e2e.log) =="; \
		grep -hE "✘ Test .* failed after|Fatal error|exited with signal|crashed" .build/test.log .build/test-e2e.log | cut -c1-200 | head -8; \
		grep -hE "recorded an issue|error: " .build/test.log .build/test-e2e.log | grep -v "prohibited flag" | cut -c1-300 | head -10; \
		grep -hB30 "Program crashed" .build/test.log .build/test-e2e.log | grep -vE "^(✔|◇|↳|􀟈|􁁛)|^ *$$|Program crashed" | cut -c1-220 | tail -10; \
		for crash in $(CRASHES)/*; do [ -f "$$crash" ] || continue; echo "== crash: $$crash =="; \
			grep -E "crashed|^ *[0-9]+ .* in " "$$crash" | cut -c1-220 | head -32; done; \
	fi; [ $$status -eq 0 ] && [ $$e2e -eq 0 ]

# Flip latency, CPU and memory per warm channel (docs/performance.md), next to mpv. (`swift
# build` builds both products; `flipbox bench` and `flipbox soak` run the flipbox-lab beside it.)
bench: deps
	@$(SWIFT) build -c release 2>&1 | grep -E "error|Build complete" || true
	.build/release/flipbox bench --flips 200 --channels 16 --peer

# Embeds docs/openapi.yaml in the binary (Sources/Control/OpenAPIDocument+Text.swift); run after editing it.
openapi:
	@./deploy/embed-openapi.sh

# schemathesis against a live headless box, a bounded number of examples per operation: no
# answer may be a 5xx, and every answer must match docs/openapi.yaml. CI runs the short form
# (5 examples per operation, a fixed seed so a failure can be run again as it was).
API_FUZZ_PORT ?= 8655
API_FUZZ_EXAMPLES ?= 25
API_FUZZ_SEED ?=
api-fuzz-short:
	@$(MAKE) --no-print-directory api-fuzz API_FUZZ_EXAMPLES=5 API_FUZZ_SEED="--seed 20261125"
api-fuzz: build media
	@python3 -c "import schemathesis" 2>/dev/null || python3 -m pip install -q --disable-pip-version-check schemathesis
	@$(FLIPBOX) play Channels/demo.yaml --output headless --no-keys --size 320x180 --http 127.0.0.1:$(API_FUZZ_PORT) \
		--state-dir $$(mktemp -d) >/tmp/flipbox-api-fuzz.log 2>&1 & pid=$$!; \
	trap "kill -INT $$pid; wait $$pid" EXIT; \
	for i in $$(seq 50); do curl -sf -o /dev/null http://127.0.0.1:$(API_FUZZ_PORT)/api/v1/status && break; sleep 0.2; done; \
	schemathesis run http://127.0.0.1:$(API_FUZZ_PORT)/api/v1/openapi.json --url http://127.0.0.1:$(API_FUZZ_PORT) \
		--max-examples $(API_FUZZ_EXAMPLES) --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance \
		--exclude-path /api/v1/events --request-timeout 20 $(API_FUZZ_SEED)

# Hostile channels and 10,000 flips after 5 minutes of warm-up (with PiP, multiview, banner, snapshots and thumbnails among them) against a real player (docs/reliability.md).
soak: deps
	@$(SWIFT) build -c release 2>&1 | grep -E "error|Build complete" || true
	.build/release/flipbox soak --flips 10000 --warmup 300

# Flipbox as a box on a real kernel: a QEMU guest (virtio GPU and keyboard) booted with the
# service installed by deploy/install.sh, checked by screendumps and keys (docs/appliance.md).
# The full form builds the release binary, refreshes the screenshots and prints the figures;
# the short form (CI) installs the debug build and checks boot, picture, a key and a restart.
# Exit 77 from the script means it cannot run here (no QEMU, not root): said once, not a failure.
vm-test: deps
	@./deploy/install-deps.sh --vm
	@python3 deploy/vm/vm-test.py --screenshots docs/images/appliance; s=$$?; [ $$s -eq 77 ] && exit 0; exit $$s

vm-test-short: build
	@./deploy/install-deps.sh --vm || echo "vm-test: the guest's tools could not be installed"
	@python3 deploy/vm/vm-test.py --short --binary $(FLIPBOX); s=$$?; [ $$s -eq 77 ] && exit 0; exit $$s

clean:
	rm -rf .build Channels/media

# libFuzzer on the parsers of untrusted input: lineups (M3U and YAML), XMLTV guides, the text
# an HLS source sends (master and media playlists, WebVTT), the bytes inside a stream (MPEG-TS
# PAT/PMT and their descriptors, video PES timestamps, LOAS frames, CEA-608 cc_data, AC-3 for
# IEC 61937) and what lineup sources send (HDHomeRun discovery replies and lineup.json, Xtream
# panel JSON, catch-up templates), each for FUZZ_SECONDS, seeded with the project's own files. Findings (crash-*, timeout-*, leak-*) land in
# .build-fuzz/findings; a finding fails the target.
FUZZ_SECONDS ?= 60
# (SwiftPM renames an executable's main and defines it again; libFuzzer's own main is allowed
# to coexist, each fuzz target defines both of libFuzzer's entry points.)
FUZZ_FLAGS = --build-path .build-fuzz -Xswiftc -sanitize=fuzzer -Xswiftc -parse-as-library -Xlinker --allow-multiple-definition
fuzz: deps
	@FLIPBOX_FUZZ=1 $(SWIFT) build $(FUZZ_FLAGS) --product fuzz-lineup 2>&1 | grep -E "error:|Build of" ; test -x .build-fuzz/debug/fuzz-lineup
	@FLIPBOX_FUZZ=1 $(SWIFT) build $(FUZZ_FLAGS) --product fuzz-xmltv 2>&1 | grep -E "error:|Build of" ; test -x .build-fuzz/debug/fuzz-xmltv
	@$(MAKE) --no-print-directory fuzz-hls
	@$(MAKE) --no-print-directory fuzz-media
	@$(MAKE) --no-print-directory fuzz-http
	@$(MAKE) --no-print-directory fuzz-splice
	@FLIPBOX_FUZZ=1 $(SWIFT) build $(FUZZ_FLAGS) --product fuzz-sources 2>&1 | grep -E "error:|Build of" ; test -x .build-fuzz/debug/fuzz-sources
	@mkdir -p .build-fuzz/corpus/lineup .build-fuzz/corpus/xmltv .build-fuzz/findings
	@cp Channels/*.m3u Channels/*.yaml Tests/LineupTests/Fixtures/* .build-fuzz/corpus/lineup/ 2>/dev/null || true
	@cp Tests/GuideTests/Fixtures/*.xml .build-fuzz/corpus/xmltv/ 2>/dev/null || true
	.build-fuzz/debug/fuzz-lineup -max_total_time=$(FUZZ_SECONDS) -timeout=5 -rss_limit_mb=1024 -max_len=65536 \
		-artifact_prefix=.build-fuzz/findings/lineup- .build-fuzz/corpus/lineup
	.build-fuzz/debug/fuzz-xmltv -max_total_time=$(FUZZ_SECONDS) -timeout=5 -rss_limit_mb=1024 -max_len=65536 \
		-artifact_prefix=.build-fuzz/findings/xmltv- .build-fuzz/corpus/xmltv
	@mkdir -p .build-fuzz/corpus/sources && cp Fuzz/corpus/sources/* .build-fuzz/corpus/sources/
	.build-fuzz/debug/fuzz-sources -max_total_time=$(FUZZ_SECONDS) -timeout=5 -rss_limit_mb=1024 -max_len=65536 \
		-artifact_prefix=.build-fuzz/findings/sources- .build-fuzz/corpus/sources

# The fuzzers that link no GStreamer, alone (they build in seconds; CI runs each for
# FUZZ_SECONDS=20), each seeded with Fuzz/corpus/<name>: fuzz-hls with HLS playlists and WebVTT
# files; fuzz-media with a cut of an H.264/AAC MPEG-TS, a PAT/PMT with teletext and audio
# description descriptors, SCTE-35 splice_inserts and a teletext PES (also read for its page
# headers, and as bytes a recording seek looks back through for a keyframe), LOAS frames, an AC-3 frame
# and CEA-608 cc_data. (SCTE-35 sections themselves are checked in C before tsdemux and parsed
# by libgstmpegts: in no fuzz target, see docs/security.md.) fuzz-http, with the addresses and
# forwarded headers (X-Forwarded-For, Forwarded) a client or proxy writes and the ranges they are
# judged against, links SwiftNIO: minutes to build, so CI leaves it to `make fuzz`; so does
# fuzz-splice, the SCTE-35 splice guard in the GStreamer shim and libgstmpegts behind it.
fuzz-hls fuzz-media fuzz-http fuzz-splice: fuzz-%: deps
	@FLIPBOX_FUZZ=1 $(SWIFT) build $(FUZZ_FLAGS) --product fuzz-$* 2>&1 | grep -E "error:|Build of" ; test -x .build-fuzz/debug/fuzz-$*
	@mkdir -p .build-fuzz/corpus/$* .build-fuzz/findings
	@cp Fuzz/corpus/$*/* .build-fuzz/corpus/$*/
	.build-fuzz/debug/fuzz-$* -max_total_time=$(FUZZ_SECONDS) -timeout=5 -rss_limit_mb=1024 -max_len=65536 \
		-artifact_prefix=.build-fuzz/findings/$*- .build-fuzz/corpus/$*
