# tempmail: one static binary on a distroless base.
#
#   docker build --build-arg VERSION=$(git describe --tags --always --dirty) -t tempmail .
#   docker run -p 127.0.0.1:8080:8080 -p 127.0.0.1:2525:2525 -v tempmail-data:/data tempmail
#
# docker-compose.yml runs three of these as an embedded JetStream cluster.

# Build stage: the Go toolchain, discarded after the build.
FROM golang:1.26-bookworm AS build
WORKDIR /src

# Modules first, on their own layer: it is rebuilt only when go.mod or go.sum
# change, not on every source edit.
COPY go.mod go.sum ./
RUN go mod download

COPY . .
# The version the binary reports, as `make build` stamps it. The build
# context has no .git (.dockerignore: it would be sent, and bust the layer
# cache, on every build), so the binary cannot read its commit: without
# VERSION it reports src-<the first 12 hex digits of the SHA-256 of the
# build context's files>, which names the sources it was built from, where
# "unknown" would name nothing.
ARG VERSION=
# CGO off gives a static binary that needs no libc in the final image;
# -trimpath keeps build paths out of it, -s -w drops the symbol tables.
RUN version="${VERSION}"; \
    if [ -z "$version" ]; then \
      version="src-$(find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -c1-12)"; \
    fi; \
    CGO_ENABLED=0 go build -trimpath -ldflags="-s -w -X main.version=${version}" -o /out/tempmail ./cmd/tempmail

# The final image has no shell to mkdir or chown with, so the data directory
# is made here and copied over with its owner.
RUN mkdir -p /out/data

# Final stage: no shell, no package manager, runs as uid 65532 (nonroot).
FROM gcr.io/distroless/static-debian12:nonroot

COPY --from=build /out/tempmail /usr/local/bin/tempmail
# Owned by nonroot so the service can write its event store there; a new
# named volume mounted at /data starts as a copy of it, owner included.
COPY --from=build --chown=65532:65532 /out/data /data
VOLUME /data

USER 65532:65532

# 8080 HTTP, 2525 SMTP; 4222 (NATS clients) and 6222 (cluster routes) are
# used only by cluster nodes and should stay on a private network.
EXPOSE 8080 2525 4222 6222

# The image has no shell or curl; the binary asks its own /readyz. The
# start period is docker-compose.yml's: a cluster node is ready only once
# its peers are up and have elected a leader.
HEALTHCHECK --interval=15s --timeout=6s --start-period=60s --retries=3 \
  CMD ["/usr/local/bin/tempmail", "healthcheck"]

ENTRYPOINT ["/usr/local/bin/tempmail"]
# Listen on all interfaces: inside a container, 127.0.0.1 (the binary's
# default) cannot be reached through published ports.
CMD ["serve", "--data-dir", "/data", "--http-addr", "0.0.0.0:8080", "--smtp-addr", "0.0.0.0:2525"]
