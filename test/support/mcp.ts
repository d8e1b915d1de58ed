import { createRequire } from "node:module"

const require = createRequire(import.meta.url)

/** The reference servers, installed as dev dependencies, started with this Node. */
export const filesystemBin = require.resolve("@modelcontextprotocol/server-filesystem/dist/index.js")
export const everythingBin = require.resolve("@modelcontextprotocol/server-everything/dist/index.js")

export const filesystemServer = (dir: string) => ({ command: process.execPath, args: [filesystemBin, dir] })
export const everythingServer = () => ({ command: process.execPath, args: [everythingBin, "stdio"] })
