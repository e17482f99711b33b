# holdfast: the API and the worker (choose with `npm start -- --only api|worker`).
FROM node:20-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json turbo.json tsconfig.base.json tsconfig.json prisma.config.ts ./
COPY prisma ./prisma
COPY apps ./apps
COPY packages ./packages
RUN npm ci --no-audit --no-fund
EXPOSE 3000
CMD ["npm", "start"]
