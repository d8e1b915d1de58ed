# Aeon's server. Build: docker build -t aeon .   Run: see docs/deploy.md
# Node 24 LTS (maintained to April 2028): the newest line CI runs the whole suite on (see docs/deploy.md)
FROM node:24-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 builds from source when no prebuilt binary can be fetched
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY . .
RUN npm ci && npm prune --omit=dev

FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production AEON_HOST=0.0.0.0 AEON_RUNNER_LISTEN_HOST=0.0.0.0
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/bin ./bin
COPY --from=build /app/package.json /app/schema.graphql ./
EXPOSE 4000 34431
USER node
CMD ["node", "dist/app/server.js"]
