# syntax=docker/dockerfile:1
# olmlint as a container image: one static (musl) binary on an empty base, running as a non-root
# user, with /work as the working directory.
#
#   docker build -t olmlint .                                    # from source (the default target)
#   docker run --rm -v "$PWD:/work" olmlint lint catalog/
#
# The release workflow builds the `prebuilt` target instead, from the release's own static
# binaries (dist/image/linux-<arch>/olmlint), so the published image holds exactly the released
# binary. The image has no shell and no git: `--changed-since` needs olmlint from a release
# archive, pip or cargo.

# A root filesystem: a world-writable /tmp and the unprivileged user's passwd entry.
FROM alpine:3.20 AS rootfs
RUN mkdir -p /rootfs/tmp /rootfs/work /rootfs/etc \
 && chmod 1777 /rootfs/tmp \
 && echo 'olmlint:x:65532:65532:olmlint:/work:/sbin/nologin' >/rootfs/etc/passwd \
 && echo 'olmlint:x:65532:' >/rootfs/etc/group

FROM rust:1-alpine AS build
# musl-dev follows the rust image's Alpine release; pinning it would break on the next one.
# hadolint ignore=DL3018
RUN apk add --no-cache musl-dev
WORKDIR /src
COPY . .
RUN cargo build --release --locked && cp target/release/olmlint /olmlint

FROM scratch AS prebuilt
ARG TARGETARCH
COPY --from=rootfs /rootfs/ /
COPY LICENSE /usr/share/doc/olmlint/LICENSE
COPY dist/image/linux-${TARGETARCH}/olmlint /usr/local/bin/olmlint
USER 65532:65532
WORKDIR /work
ENTRYPOINT ["/usr/local/bin/olmlint"]
CMD ["--help"]

FROM scratch AS source
COPY --from=rootfs /rootfs/ /
COPY LICENSE /usr/share/doc/olmlint/LICENSE
COPY --from=build /olmlint /usr/local/bin/olmlint
USER 65532:65532
WORKDIR /work
ENTRYPOINT ["/usr/local/bin/olmlint"]
CMD ["--help"]
