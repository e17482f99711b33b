# holdfast: the API and the worker, compiled, run by node (choose one with `--only api|worker`).

# Build: every dependency, the Prisma client, the web app, the compiled apps.
FROM node:20-slim AS build
WORKDIR /src
COPY . .
RUN npm ci --no-audit --no-fund
RUN npm run build:server && node scripts/stage-release.mjs /stage

# Run: production dependencies only, the compiled output, the schema and migrations.
FROM node:20-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /stage/deps/ ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /src/node_modules/.prisma ./node_modules/.prisma
COPY --from=build /stage/app/ ./
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "--max-semi-space-size=64", "apps/server/dist/main.js"]
