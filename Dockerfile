# syntax=docker/dockerfile:1
# Build stage: compile TypeScript, then keep only the production dependencies.
# Only the exporter is copied: the storefront workspace (storefront/) is a separate
# service and stays out of the build context (.dockerignore). npm ci skips the
# missing workspace; --ignore-scripts skips `prepare`, whose `npm run build` would
# also build the storefront, so the exporter is built alone (no dependency has install scripts).
FROM node:22-alpine AS build
# The build has no .git: the revision for rabbitmq_exporter_build_info comes from this argument.
ARG REVISION=unknown
WORKDIR /app
COPY package.json package-lock.json tsconfig.json ./
COPY src ./src
RUN npm ci --ignore-scripts --no-audit --no-fund \
 && REVISION="$REVISION" npm run build:exporter \
 && npm prune --omit=dev --no-audit --no-fund

# Runtime stage: Node, the compiled exporter and its production dependencies; no compiler, no tests.
FROM node:22-alpine
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist/src ./dist/src
COPY --from=build /app/dist/revision ./dist/revision
COPY config.example.yaml ./config.example.yaml
# The image's unprivileged user.
USER node
EXPOSE 9419
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:9419/-/healthy').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "dist/src/main.js"]
