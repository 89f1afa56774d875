# The builder image is expected to contain
# /bin/opm (with serve subcommand)
FROM --platform=$BUILDPLATFORM quay.io/operator-framework/opm:latest AS builder

# Copy FBC root into image at /configs and pre-populate serve cache
ADD catalog/.indexignore /configs/.indexignore
ADD catalog/catalog.json /configs/catalog.json
RUN ["/bin/opm", "serve", "/configs", "--cache-dir=/tmp/cache", "--cache-only"]

FROM --platform=$BUILDPLATFORM quay.io/operator-framework/opm:latest
# The base image is expected to contain
# /bin/opm (with serve subcommand) and /bin/grpc_health_probe

# Configure the entrypoint and command
ENTRYPOINT ["/bin/opm"]
CMD ["serve", "/configs", "--cache-dir=/tmp/cache"]

COPY --from=builder /configs /configs
COPY --from=builder /tmp/cache /tmp/cache

# Set FBC-specific label for the location of the FBC root directory
# in the image
LABEL operators.operatorframework.io.index.configs.v1=/configs
