# syntax=docker/dockerfile:1
# Base: Node 26, the Active LTS line (Node 20 reached its end of life in April 2026; 24 is in
# maintenance), on Debian 12 "bookworm" as CI, pinned to the full version .ci/run tests (LTS_NODE,
# fetched from the npm registry's `node` package). Not pinned by digest: the digest can only be read
# from a registry, which was out of reach when this was written; pin it in your own build
# (FROM node:...@sha256:...) if you need byte-for-byte rebuilds. A test keeps both stages on the
# same image, on the version .ci/run tests and inside package.json's engines
# (test/unit/project/dockerfile.test.ts).
#
# Build stage: compile TypeScript, then keep only the production dependencies. Dependencies are
# installed from package.json and package-lock.json alone, before the sources are copied, so a
# source change reuses the cached `npm ci` layer.
# Only the exporter is copied: the storefront workspace (storefront/) is a separate service and
# stays out of the build context (.dockerignore). npm ci skips the missing workspace;
# --ignore-scripts skips `prepare`, whose `npm run build` would also build the storefront, so the
# exporter is built alone (no dependency has install scripts).
FROM node:26.10.0-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
# The developer commands (tools/): write-build-info runs in the build; none of them is copied into the image.
COPY tools ./tools
# The build has no .git: the revision and branch for --version and rabbitmq_exporter_build_info come
# from these arguments (declared after `npm ci`, so a new revision does not invalidate the dependency layer).
ARG REVISION=unknown
ARG BRANCH=unknown
RUN REVISION="$REVISION" BRANCH="$BRANCH" npm run build:exporter \
 && npm prune --omit=dev --no-audit --no-fund

# Runtime stage: Node, the compiled exporter and its production dependencies; no compiler, no tests.
FROM node:26.10.0-bookworm-slim
ARG REVISION=unknown
LABEL org.opencontainers.image.title="rabbitmq-exporter" \
      org.opencontainers.image.description="Prometheus exporter for RabbitMQ's management HTTP API" \
      org.opencontainers.image.version="0.1.0" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.base.name="docker.io/library/node:26.10.0-bookworm-slim"
# Node's flags and malloc's arenas (src/heap-size.ts, NODE_FLAGS and LAUNCH_ENV): set here, an
# operator's own NODE_OPTIONS or MALLOC_ARENA_MAX replaces them.
ENV NODE_ENV=production \
    NODE_OPTIONS=--max-semi-space-size=4 \
    MALLOC_ARENA_MAX=2
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist/src ./dist/src
COPY --from=build /app/dist/build-info.json ./dist/build-info.json
COPY config.example.yaml ./config.example.yaml
# The image's unprivileged `node` user, by number so Kubernetes' runAsNonRoot can verify it.
USER 1000:1000
EXPOSE 9419
# Asks /-/healthy on the port the exporter really listens on (found in /proc), so it follows
# --web.listen-address or web.listen_address, over HTTP or HTTPS (see src/server/healthcheck.ts).
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
  CMD ["node", "dist/src/server/healthcheck.js"]
ENTRYPOINT ["node", "dist/src/main.js"]
