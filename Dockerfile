# syntax=docker/dockerfile:1
# One image for the four Estate services, the web console and the sample "bank" upstream; docker-compose.yml
# picks the entrypoint per service with `command`, e.g. node dist/apps/registry/src/main.js.
ARG NODE_VERSION=20

# ---- build: full install, compile TypeScript into dist/ (apps/<app>/src/main.ts -> dist/apps/<app>/src/main.js)
FROM node:${NODE_VERSION}-slim AS build
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci --no-audit --no-fund
COPY tsconfig*.json .swcrc ./
COPY apps ./apps
COPY libs ./libs
COPY examples ./examples
RUN npm run build

# ---- runtime: production dependencies only, compiled output, non-root
FROM node:${NODE_VERSION}-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
# The console serves its page and scripts as written, from the source tree (no front-end build).
COPY --from=build /app/apps/console/static ./apps/console/static
# The node image ships an unprivileged `node` user (uid 1000). What a service writes (the edge's
# call spool) lives under /var/lib/estate, owned by it (an empty named volume mounted there takes
# this ownership); /app stays read-only.
RUN mkdir -p /var/lib/estate/edge-spool && chown -R node:node /var/lib/estate
ENV ESTATE_CALL_SPOOL_DIR=/var/lib/estate/edge-spool
USER node
EXPOSE 8000 8001 8002 8003 8004 9100
CMD ["node", "dist/apps/mcp-edge/src/main.js"]
