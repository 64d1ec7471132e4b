# Flipbox: `make demo` plays the demo lineup, `make test` runs every test.
SHELL := /bin/bash
SWIFT ?= swift
BUILD_FLAGS ?=
FLIPBOX = .build/debug/flipbox
MEDIA = Channels/media/loop.mp4

.PHONY: deps build demo test media bench clean

deps:
	@./deploy/install-deps.sh

build: deps
	@$(SWIFT) build $(BUILD_FLAGS) 2>&1 | grep -v "prohibited flag" | grep -E "error|warning: unre|Compiling flipbox|Build complete|Build of" || true
	@test -x $(FLIPBOX)

# A ten-second clip with a moving picture and a tone, looped by the demo's channel 7.
media: $(MEDIA)
$(MEDIA):
	@mkdir -p Channels/media
	@ffmpeg -loglevel error -y -f lavfi -i testsrc2=size=640x360:rate=30 \
		-f lavfi -i sine=frequency=587:sample_rate=48000 -t 10 \
		-c:v libx264 -preset veryfast -g 60 -pix_fmt yuv420p -c:a aac -b:a 96k -shortest $@

# Plays on a display when there is one (window under X11/Wayland, KMS on a console), headless otherwise.
demo: build media
	$(FLIPBOX) play Channels/demo.yaml --output auto

test: build media
	@$(SWIFT) test $(BUILD_FLAGS) --parallel --num-workers 2 2>&1 | grep -v "prohibited flag" | tee .build/test.log | grep -E "error:|✘|failed|passed after|Test run with|Executed" ; \
		status=$${PIPESTATUS[0]}; exit $$status

# Flip latency, CPU and memory per warm channel (docs/performance.md), next to mpv.
bench: deps
	@$(SWIFT) build -c release 2>&1 | grep -E "error|Build complete" || true
	.build/release/flipbox bench --flips 200 --channels 16 --peer

clean:
	rm -rf .build Channels/media
