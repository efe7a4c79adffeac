// Node 20 loader shim for @modelcontextprotocol/conformance >= 0.1.14.
//
// The suite's bundled dist/index.js starts with
//   import { globSync, ... } from "fs"
// fs.globSync exists only on Node >= 22, so on Node 20 the ES module link
// step fails ("does not provide an export named 'globSync'") before any
// subcommand runs, although only `conformance tier-check` calls globSync.
// This hook points that one import, made from the suite's own files, at
// fs.mjs: node:fs plus a globSync that throws if it is ever called. On
// Node >= 22 it changes nothing (fs.mjs re-exports the real globSync).
//
// Use: NODE_OPTIONS="--import /abs/path/node20-shim/register.mjs"
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url);
